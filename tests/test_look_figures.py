"""The report's figure of claims collected until decided: each cell's statistic
look by look against its boundaries. On the bundled real campaign
until-decided (collected with stop: claims) the paths are the verdict engine's
own replay: the look each cell stopped at, its decision and its statistic; on
SYNTHETIC runs (seeded) the futility region starts where futility_from says."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from analysis.figures.look_figures import draw_looks
from analysis.ingest.campaign import load_campaign
from analysis.ingest.per_run import one_row_per_run
from analysis.stats.sequential import z_of_t
from analysis.verdicts import evaluate, registration_of, sequential_paths

ROOT = Path(__file__).resolve().parents[1]
RAW, HYPOTHESES = ROOT / "data/raw/until-decided", ROOT / "data/hypotheses/until-decided.yaml"


@pytest.fixture(scope="module")
def campaign():
    runs = one_row_per_run(load_campaign(RAW).runs)
    return runs, registration_of(RAW, HYPOTHESES)


def test_paths_are_the_engines_replay(campaign):
    runs, registration = campaign
    cells = evaluate(runs, HYPOTHESES, registration).cells.set_index(["id", "cell"])
    paths = sequential_paths(runs, HYPOTHESES, registration)
    assert {(p.claim, p.cell) for p in paths} == set(cells.index)
    for p in paths:
        row = cells.loc[(p.claim, p.cell)]
        assert len(p.z) == row["look"] and p.decision == row["decision"] and p.design == row["design"]
        assert p.runs[-1] == min(row["n_a"], row["n_b"])
        if not p.equivalence:
            assert p.z[-1] == pytest.approx(z_of_t(row["statistic"], row["df"]))
        crossed = [p.z[k] >= p.bound[k] if p.equivalence else abs(p.z[k]) >= p.bound[k] for k in range(len(p.z))]
        assert crossed[-1] == (p.decision == "decided") and not any(crossed[:-1])


def test_one_figure_per_claim_with_a_panel_per_cell(campaign, tmp_path):
    runs, registration = campaign
    drawn = draw_looks(runs, HYPOTHESES, tmp_path, campaign="until-decided", synthetic=False,
                       registration=registration)
    assert [d.id for d in drawn] == ["U1", "U2", "U3", "U4"]
    for d in drawn:
        assert d.png == tmp_path / f"looks_{d.id}.png" and d.id in d.caption
        assert min(Image.open(d.png).size) > 400
    assert Image.open(drawn[0].png).size[0] > Image.open(drawn[1].png).size[0]  # U1 has two cells, U2 one


def test_a_fixed_claim_draws_nothing(campaign, tmp_path):
    runs, _ = campaign
    assert draw_looks(runs, ROOT / "data/hypotheses/until-decided-fixed.yaml", tmp_path,
                      campaign="until-decided", synthetic=False) == []
    assert not list(tmp_path.iterdir())


def test_the_futility_region_starts_at_futility_from():
    rng = np.random.default_rng(11)  # SYNTHETIC: no effect, 20 runs a group
    runs = pd.DataFrame([{"ip_version": ip, "run": r, "status": "ok", "tput": 100 + rng.normal(0, 2)}
                         for r in range(1, 21) for ip in (4, 6)])
    claim = {"id": "F", "statement": "no effect", "metric": "tput", "direction": "different",
             "compare": {"factor": "ip_version", "levels": [4, 6]},
             "stop": {"min_runs": 4, "look_every": 4, "max_runs": 20, "futility": 0.1, "futility_from": 0.5}}
    (path,) = sequential_paths(runs, [claim])
    fractions = [n / 20 for n in path.runs]
    assert [math.isfinite(f) for f in path.futility] == [0.5 <= t < 1 for t in fractions]
    assert path.decision == "futility" and path.runs == (4, 8, 12, 16)  # seed 11: at the fourth look
    assert abs(path.z[-1]) < path.futility[-1] and abs(path.z[-2]) >= path.futility[-2]
