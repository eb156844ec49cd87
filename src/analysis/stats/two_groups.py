"""Two groups: IPv4 vs IPv6 within a cell, open vs WPA2.

Welch by default (variances differ between stacks and OSes); pooled only when
asked.  Mann–Whitney for heavy-tailed metrics, TOST for "no difference".
"""

from __future__ import annotations

import numpy as np
from scipy import stats
from statsmodels.stats.weightstats import ttost_ind

from analysis.stats.from_summaries import hedges_g_from_stats, welch_from_stats
from analysis.stats.results import EquivalenceTest, Interval, RankTest, TwoGroupTest
from analysis.stats.summaries import clean


def _moments(x: np.ndarray) -> tuple[float, float, int]:
    return float(x.mean()), float(x.std(ddof=1)), int(x.size)


def _pair(a, b) -> tuple[np.ndarray, np.ndarray]:
    """Cleaned samples; a test needs at least two values on each side."""
    a, b = clean(a), clean(b)
    if a.size < 2 or b.size < 2:
        raise ValueError(f"need at least 2 values per group, got {a.size}+{b.size}")
    return a, b


def t_test(a, b, conf: float = 0.95, equal_var: bool = False) -> TwoGroupTest:
    """Welch (default) or pooled t-test of mean(a) - mean(b)."""
    a, b = _pair(a, b)
    return welch_from_stats(*_moments(a), *_moments(b), conf=conf,
                            equal_var=equal_var)


def hedges_g(a, b, conf: float = 0.95) -> Interval:
    """Hedges' g of a against b with an approximate CI."""
    a, b = _pair(a, b)
    return hedges_g_from_stats(*_moments(a), *_moments(b), conf=conf)


def ratio_of_means(a, b, conf: float = 0.95) -> Interval:
    """Ratio a/b from a Welch t-interval on log values.

    This is the ratio of geometric means: the multiplicative effect, right
    for rates whose spread grows with their level.  NaN unless all > 0.
    """
    a, b = _pair(a, b)
    if np.any(a <= 0) or np.any(b <= 0):
        return Interval(np.nan, np.nan, np.nan, conf)
    res = t_test(np.log(a), np.log(b), conf)
    return Interval(float(np.exp(res.diff)), float(np.exp(res.diff_ci_low)),
                    float(np.exp(res.diff_ci_high)), conf)


def mann_whitney(a, b, alternative: str = "two-sided") -> RankTest:
    """Mann–Whitney U (W in R), chosen the way R's wilcox.test chooses.

    Exact when both n < 50 and there are no ties, otherwise the normal
    approximation with tie and continuity corrections.
    """
    a, b = _pair(a, b)
    tied = np.unique(np.concatenate([a, b])).size < a.size + b.size
    exact = a.size < 50 and b.size < 50 and not tied
    res = stats.mannwhitneyu(a, b, alternative=alternative, use_continuity=True,
                             method="exact" if exact else "asymptotic")
    return RankTest(test="Mann-Whitney U", statistic=float(res.statistic),
                    p=float(res.pvalue), n_a=int(a.size), n_b=int(b.size))


def tost(a, b, margin: float | tuple[float, float],
         equal_var: bool = False) -> EquivalenceTest:
    """Two one-sided tests: is mean(a) - mean(b) inside (low, high)?

    ``margin`` is a symmetric bound m (meaning (-m, m)) or a (low, high) pair,
    in the metric's units.
    """
    a, b = _pair(a, b)
    low, high = margin if isinstance(margin, tuple) else (-margin, margin)
    p, (t_low, p_low, df), (t_high, p_high, _) = ttost_ind(
        a, b, low, high, usevar="pooled" if equal_var else "unequal")
    return EquivalenceTest(
        test="TOST (pooled t)" if equal_var else "TOST (Welch t)",
        margin_low=float(low), margin_high=float(high), p=float(p),
        statistic_low=float(t_low), p_low=float(p_low),
        statistic_high=float(t_high), p_high=float(p_high), df=float(df),
        diff=float(a.mean() - b.mean()), n_a=int(a.size), n_b=int(b.size))
