"""How the notebooks show tables and each claim's figure (analysis.report.show,
analysis.figures.claim_figures)."""

import shutil
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from analysis.figures.claim_figures import draw_claims
from analysis.ingest.campaign import load_campaign
from analysis.ingest.per_run import one_row_per_run
from analysis.report import overview, show
from analysis.verdicts import evaluate_hypotheses

ROOT = Path(__file__).resolve().parents[1]
LONG = "IPv4 has higher TCP throughput than IPv6 for all packet sizes (netperf TCP_STREAM, bbr), " * 2


def test_a_table_shows_every_character_and_no_index():
    frame = pd.DataFrame({"id": ["L1"], "statement": [LONG], "p": [0.012345678]}, index=[7])
    shown = show.table(frame)
    with pd.option_context("display.precision", 4):  # as the notebooks set it
        html, text = shown._repr_html_(), repr(shown)
    assert LONG.strip() in html and LONG.strip() in text  # pandas cuts at 50 characters with "..."
    assert "..." not in html and "…" not in html
    assert "<th>id</th><th>statement</th><th>p</th>" in html and ">7<" not in html  # no index column
    assert text.splitlines()[0].split() == ["id", "statement", "p"]
    assert "<td class='num'>0.0123</td>" in html  # numbers right-aligned, at the display precision


def test_a_long_table_can_start_folded_and_an_empty_one_says_so():
    folded = show.table(pd.DataFrame({"a": range(3)}), "All cells ({n} rows)")
    assert folded._repr_html_().count("<details") == 1 and "<summary>All cells (3 rows)</summary>" in folded._repr_html_()
    assert "<em>none</em>" in show.table(pd.DataFrame(columns=["a"]))._repr_html_()
    assert show.table(None, columns=["a", "a"]).frame.empty


@pytest.fixture(scope="module")
def demo_claims():
    """demo-loopback's runs, design factors, hypothesis file and verdicts: what draw_claims needs
    (read once for this module; draw_claims changes none of them)."""
    data = load_campaign(ROOT / "data/raw/demo-loopback")
    runs = one_row_per_run(data.runs)
    hypotheses = ROOT / "data/hypotheses/demo-loopback.yaml"
    return data, runs, overview.design_factors(data, runs), hypotheses, evaluate_hypotheses(runs, hypotheses)


@pytest.fixture(scope="module")
def drawn(demo_claims, tmp_path_factory):
    """Every claim's figure drawn once for this module into an empty folder (a second or so
    of CPU): the folder, what draw_claims returned, and the figures open before and after."""
    data, runs, factors, hypotheses, verdicts = demo_claims
    out = tmp_path_factory.mktemp("claims")
    open_before = plt.get_fignums()
    claims = draw_claims(runs, hypotheses, out, campaign=data.name, synthetic=False, factors=factors,
                         verdicts=verdicts)
    return out, claims, (open_before, plt.get_fignums())


def test_each_claim_gets_its_figure_with_its_verdict(demo_claims, drawn):
    verdicts = demo_claims[-1]
    _, claims, (open_before, open_after) = drawn
    assert [c.id for c in claims] == list(verdicts["id"])
    assert all(c.png.is_file() and c.png.name == f"claim_{c.id}_{c.metric}.png" for c in claims)
    assert claims[0].caption == f"**D1 — {verdicts['verdict'][0]}**: {verdicts['statement'][0]}"
    assert open_after == open_before  # every figure saved and closed


def test_claim_figures_drawn_again_from_the_same_inputs_are_kept(tmp_path, demo_claims, drawn):
    data, runs, factors, hypotheses, verdicts = demo_claims
    shutil.copytree(drawn[0], tmp_path, dirs_exist_ok=True)  # the first drawing: figures, inputs' keys, times
    draw = lambda table: draw_claims(runs, hypotheses, tmp_path, campaign=data.name, synthetic=False,  # noqa: E731
                                     factors=factors, verdicts=table)
    stamps = {png.name: png.stat().st_mtime_ns for png in tmp_path.glob("*.png")}
    first = draw(verdicts)
    assert [c.png.name for c in first] == [c.png.name for c in drawn[1]]
    assert stamps.keys() == {c.png.name for c in first}
    assert draw(verdicts) == first
    assert {c.png.name: c.png.stat().st_mtime_ns for c in first} == stamps  # not one file written again
    changed = verdicts.assign(verdict=[(f"not {v}" if i == 0 else v) for i, v in enumerate(verdicts["verdict"])])
    again = draw(changed)  # the first claim's verdict is in its title: only its figure is drawn again
    redrawn = [c.png.name for c in again if c.png.stat().st_mtime_ns != stamps[c.png.name]]
    assert redrawn == [first[0].png.name]
    (tmp_path / first[1].png.name).unlink()  # a figure gone from disk is drawn again
    assert draw(changed)[1].png.is_file()
