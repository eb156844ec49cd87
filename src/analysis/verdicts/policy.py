"""Which test a claim gets, and the pre-tests shown beside it as diagnostics
(docs/statistics.md, "Which test").

``test: auto`` is Welch's t: the calibration by simulation
(benchmarks/calibrate.py, docs/statistics.md) shows it keeps its error rate
on the designs campaigns have, and choosing the test from a pre-test on the
same data (two-stage testing) changes the error rate of what follows. The
Brown–Forsythe and Shapiro–Wilk checks are still run and reported; they
change nothing."""

from __future__ import annotations

import pandas as pd

from analysis import stats as st
from analysis.stats.results import AssumptionCheck
from analysis.verdicts.cells import SMALL_N
from analysis.verdicts.spec import Hypothesis, canon_column


def assumption_checks(hyp: Hypothesis, data: pd.DataFrame) -> tuple[list[AssumptionCheck], str]:
    """Brown–Forsythe across compared groups × cells and Shapiro–Wilk on the
    standardised residuals, with why none ran: a cell with fewer than
    SMALL_N runs is too small to judge a shape or a spread."""
    if data.empty:
        return [], ""
    cells = data["_group"].astype(str)
    by = hyp.per or hyp.interaction
    if by:
        cells = cells + "|" + canon_column(data[by])
    if cells.nunique() < 2:
        return [], ""
    smallest = int(cells.value_counts().min())
    if smallest < SMALL_N:
        return [], (f"pre-tests skipped: {smallest} run(s) in the smallest cell, "
                    f"fewer than {SMALL_N} say nothing of a shape or a spread")
    y = data[hyp.metric].to_numpy(float)
    residuals = st.standardised_residuals(y, cells.to_numpy())
    if residuals.size < 3:
        return [], "pre-tests skipped: no cell varies"
    return [st.levene(y, cells.to_numpy()), st.shapiro(residuals)], ""


def pick_test(hyp: Hypothesis) -> str:
    """auto: Welch; a rank test only when the claim asks for one."""
    return "welch" if hyp.test == "auto" else hyp.test
