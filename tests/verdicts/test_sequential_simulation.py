"""Collect until decided by simulation, the CI subset (the full run is `make bench`,
benchmarks/bench_sequential.py): seeded SYNTHETIC campaigns judged by the engine.
Under no effect a sequential design keeps its type I error (five unadjusted looks
would reach about 0.14); under a large effect it decides with far fewer runs. The
fast replay `make bench` judges its campaigns with gives the engine's tallies
campaign for campaign, for every design of the bench."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import sequential as S  # noqa: E402 - the harness lives with the benchmarks, not in the package

# 750 seeded campaigns judged by the engine (half a minute of CPU): out of `make test-fast`, in `make test`
pytestmark = pytest.mark.slow

DESIGNS = (S.DESIGNS[0], S.DESIGNS[1], S.DESIGNS[4])  # fixed, O'Brien-Fleming and Pocock, 5 looks, max 20
NULL, LARGE = S.TRUTHS[0], next(t for t in S.TRUTHS if t.name == "large (2 SD)")
REPS = [(NULL, 200), (LARGE, 50)]


@pytest.fixture(scope="module")
def table() -> dict[tuple[str, str], S.Row]:
    rows = S.rows(DESIGNS, REPS, S.run(DESIGNS, REPS, workers=2, judge="engine"))
    return {(r.design, r.truth): r for r in rows}


@pytest.mark.parametrize("design", [d.name for d in DESIGNS])
def test_type_one_error_within_monte_carlo_error(table, design):
    row = table[(design, NULL.name)]
    assert row.crashes == 0 and row.campaigns == 200
    assert row.rate <= S.ALPHA + 3 * math.sqrt(S.ALPHA * (1 - S.ALPHA) / row.campaigns)


@pytest.mark.parametrize("design", [d.name for d in DESIGNS[1:]])
def test_a_large_effect_is_decided_with_fewer_runs(table, design):
    row = table[(design, LARGE.name)]
    assert row.rate == 1.0
    assert row.runs_pct <= 60


def test_the_replay_gives_the_engines_tallies():
    """Every design of the bench, on the same seeded campaigns at an effect where designs
    stop at different looks, some for futility: the vectorised replay and ``evaluate``
    count the same significant campaigns, the same runs and the same disagreements
    with the fixed design."""
    reps = [(next(t for t in S.TRUTHS if t.name == "fixed power 80 %"), 50)]
    engine = S.run(S.DESIGNS, reps, workers=2, judge="engine")
    fast = S.run(S.DESIGNS, reps, workers=2, judge="replay")
    assert engine.cells == fast.cells
    assert len({t.runs for t in fast.cells.values()}) > 3  # the designs did stop at different looks
