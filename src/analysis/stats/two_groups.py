"""Two groups: IPv4 vs IPv6 within a cell, open vs WPA2.

Welch by default (variances differ between stacks and OSes); pooled only when
asked.  Mann–Whitney for heavy-tailed metrics, TOST for "no difference".
"""

from __future__ import annotations

import math

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


EXACT_ARRANGEMENTS = 5000  # tied samples with at most this many group arrangements get the exact test


def mann_whitney(a, b, alternative: str = "two-sided") -> RankTest:
    """Mann–Whitney U (W in R), chosen the way R's wilcox.test chooses, except
    for small tied samples.

    Exact when both n < 50 and there are no ties. With ties, the exact
    permutation distribution when the groups can be arranged in at most
    EXACT_ARRANGEMENTS ways (R's normal approximation is anti-conservative
    there: 0.036 where the exact p of 0,0,0,1 vs 2,2,2 is 2/35 = 0.057);
    otherwise the normal approximation with tie and continuity corrections.
    """
    a, b = _pair(a, b)
    tied = np.unique(np.concatenate([a, b])).size < a.size + b.size
    method: str | stats.PermutationMethod = "asymptotic"
    if not tied and a.size < 50 and b.size < 50:
        method = "exact"
    elif tied and math.comb(a.size + b.size, a.size) <= EXACT_ARRANGEMENTS:
        method = stats.PermutationMethod(n_resamples=np.inf)
    res = stats.mannwhitneyu(a, b, alternative=alternative, use_continuity=True, method=method)
    return RankTest(test="Mann-Whitney U", statistic=float(res.statistic),
                    p=float(res.pvalue), n_a=int(a.size), n_b=int(b.size))


def hodges_lehmann(a, b, conf: float = 0.95) -> Interval:
    """Hodges–Lehmann shift of a over b (median of all differences a_i − b_j)
    with the CI that inverts :func:`mann_whitney` (R's wilcox.test conf.int):
    the shifts d for which a − d against b is not rejected, so the interval
    excludes 0 exactly when the rank test is significant at 1 − conf.

    The rank statistic changes only at the pairwise differences, so the test
    is run at each difference and between neighbours (with heavy ties, as loss
    0 %, a difference itself can be the only shift kept)."""
    a, b = _pair(a, b)
    diffs = np.unique(np.subtract.outer(a, b).ravel())
    estimate = float(np.median(np.subtract.outer(a, b)))
    if diffs.size == 1:  # every a − b equal: the shift is known exactly
        return Interval(estimate, float(diffs[0]), float(diffs[0]), conf)
    middles = (diffs[:-1] + diffs[1:]) / 2
    points = np.sort(np.concatenate([[diffs[0] - 1], diffs, middles, [diffs[-1] + 1]]))
    is_difference = np.isin(points, diffs)

    def kept(i: int) -> bool:
        return mann_whitney(a - points[i], b).p >= 1 - conf

    near = int(np.searchsorted(points, estimate))
    start = next((i for i in (near, near - 1, near + 1) if 0 <= i < points.size and kept(i)), None)
    if start is None:  # the shift of largest p is always kept; search all when it is not next to the estimate
        start = next((i for i in range(points.size) if kept(i)), None)
    if start is None:
        return Interval(estimate, float("nan"), float("nan"), conf)
    low, high = _first_kept(kept, 0, start), _last_kept(kept, start, points.size - 1)
    return Interval(estimate, _end(points, is_difference, low, -1), _end(points, is_difference, high, +1), conf)


def _end(points: np.ndarray, is_difference: np.ndarray, i: int, way: int) -> float:
    """An end of the kept shifts: the difference itself, the difference beyond a
    kept midpoint (the interval's closure), or unbounded past the last one."""
    if i in (0, points.size - 1):
        return float("-inf") if way < 0 else float("inf")
    return float(points[i] if is_difference[i] else points[i + way])


def _first_kept(kept, lo: int, hi: int) -> int:
    """Smallest i in [lo, hi] with kept(i), given kept(hi) and kept monotone on the way."""
    while lo < hi:
        mid = (lo + hi) // 2
        if kept(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _last_kept(kept, lo: int, hi: int) -> int:
    """Largest i in [lo, hi] with kept(i), given kept(lo)."""
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if kept(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def probability_of_superiority(a, b) -> float:
    """P(A > B) + P(A = B)/2 over all pairs: the effect a rank test is about (U / mn)."""
    a, b = _pair(a, b)
    diff = np.subtract.outer(a, b)
    return float(((diff > 0).sum() + 0.5 * (diff == 0).sum()) / diff.size)


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
