"""Which test a claim gets: assumption checks, then the documented choice
(docs/statistics.md, "Which test")."""

from __future__ import annotations

import pandas as pd

from analysis import stats as st
from analysis.verdicts.spec import Hypothesis, canon

HEAVY_TAILED_SUFFIX = "_ms"  # latencies and jitter: right-skewed, outliers


def assumption_checks(hyp: Hypothesis, data: pd.DataFrame) -> list:
    """Brown–Forsythe across compared groups × cells, Shapiro–Wilk on residuals."""
    cells = data["_group"].astype(str)
    by = hyp.per or hyp.interaction
    if by:
        cells = cells + "|" + data[by].map(canon)
    if cells.nunique() < 2 or cells.value_counts().min() < 2:
        return []
    y = data[hyp.metric].to_numpy(float)
    return [st.levene(y, cells.to_numpy()), st.shapiro(st.group_residuals(y, cells.to_numpy()))]


def pick_test(hyp: Hypothesis, checks: list) -> str:
    """auto: Welch, unless the metric is a latency/jitter (heavy-tailed) or
    Shapiro–Wilk rejects normal residuals: then Mann–Whitney."""
    if hyp.test != "auto":
        return hyp.test
    non_normal = any(c.check.startswith("Shapiro") and not c.passed for c in checks)
    return "mann-whitney" if hyp.metric.endswith(HEAVY_TAILED_SUFFIX) or non_normal else "welch"
