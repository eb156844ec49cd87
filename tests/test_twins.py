"""The bundled adaptive campaign beside its fixed-design twin (real runs): the
twin is found by name, every cell of every claim is compared, and the runs
counted are those the two collections made."""

from __future__ import annotations

from pathlib import Path

import yaml

from analysis.report.twins import compare_twins, fixed_twin

ROOT = Path(__file__).resolve().parents[1]
RAW, HYPS = ROOT / "data/raw/until-decided", ROOT / "data/hypotheses/until-decided.yaml"


def _progress(raw: Path) -> dict:
    return yaml.safe_load((raw / "manifest.yaml").read_text())["campaign"]["extra"]["progress"]


def test_the_twin_is_found_by_name_and_only_for_the_adaptive_campaign():
    assert fixed_twin(RAW, HYPS) == (ROOT / "data/raw/until-decided-fixed",
                                     ROOT / "data/hypotheses/until-decided-fixed.yaml")
    assert fixed_twin(ROOT / "data/raw/until-decided-fixed", ROOT / "data/hypotheses/until-decided-fixed.yaml") is None
    assert fixed_twin(ROOT / "data/raw/lan-p2p", ROOT / "data/hypotheses/lan-p2p.yaml") is None


def test_every_cell_is_compared_and_the_runs_are_the_collections():
    twins = compare_twins(RAW, HYPS, *fixed_twin(RAW, HYPS))
    assert list(zip(twins.cells["claim"], twins.cells["cell"])) == [
        ("U1", "stack=bbr"), ("U1", "stack=reno"), ("U2", "all"), ("U3", "all"), ("U4", "all")]
    assert (twins.cells["runs (fixed)"] == 30).all()  # 15 runs a level, two levels a cell
    assert (twins.cells["runs (until decided)"] <= 30).all()
    adaptive, fixed = twins.cost.to_dict("records")
    assert adaptive["runs made"] == _progress(RAW)["runs_done"] < fixed["runs made"] == 105
    agree = (twins.cells["agree"] == "yes").sum()
    assert adaptive["cell verdicts that agree"] == f"{agree} of 5"
    decided = twins.cells[twins.cells["stopped"].str.startswith("decided")]
    assert len(decided) and (decided["runs (until decided)"] < 30).all()
