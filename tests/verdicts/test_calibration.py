"""Calibration by simulation, the CI subset (the full run is `make bench`,
benchmarks/bench_calibration.py): a few thousand seeded campaigns with a known
truth, judged by the engine, every error rate within α + 3 Monte Carlo SE and
the stated power within tolerance. The seed is fixed (benchmarks/calibrate.py),
so every run draws the same campaigns: the test is not flaky, and a change of
the engine that moves a rate past its bound fails it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import calibrate as C  # noqa: E402 - the harness lives with the benchmarks, not in the package

MC_SES = 3
CI_DESIGNS = [
    C.Design("normal, n=5", (C.Claim("greater"),), 300, n=(5, 5)),
    C.Design("lognormal s=1, n=10", (C.Claim("greater"),), 150, shape="lognormal", cv=0.3),
    C.Design("normal, 4 cells, n=5", (C.Claim("greater", "any"),), 60, cells=4, n=(5, 5)),
    C.Design("2 of 4 cells constant 0, n=5", (C.Claim("greater"),), 30, cells=4, n=(5, 5), cv=0.3, base=2.0,
             constant_cells=2, metric="loss_pct"),
    C.Design("normal, n=10, diff = margin", (C.Claim("equivalent", margin="abs"),), 250, truth="margin"),
    C.Design("normal, n=10, +5 % at CV 6 %", (C.Claim("greater", test="welch"),), 150, cv=0.06, truth="change"),
]


@pytest.fixture(scope="module")
def rows() -> list[C.Row]:
    return C.table(CI_DESIGNS, C.run(CI_DESIGNS, workers=2), MC_SES)


@pytest.mark.slow  # seconds of CPU: out of `make test-fast`, in `make test`
def test_every_path_meets_its_target(rows):
    missed = [r for r in rows if r.passed is False]
    assert not missed, "\n" + C.render(missed)

