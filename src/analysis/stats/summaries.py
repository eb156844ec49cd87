"""Cell summaries: the studies' "mean and SD per point", done right.

Every cell gets a t-interval for the mean, a distribution-free interval for
the median (network metrics are often skewed) and the harmonic mean, which is
the right average for rates when each run moved the same amount of work
(Hoefler & Belli, SC'15, rule 3).

A t-interval is symmetric, so for a metric near the edge of what it can take
(loss near 0 %, CPU near 100 %) it reaches values no run can have. The
interval is clipped to the metric's range (:func:`metric_range`, from the unit
in the column name) and ``ci_clipped`` says so. The true mean lies inside the
range, so clipping drops only impossible values and never lowers coverage.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

SUMMARY_COLUMNS = [
    "metric", "n", "mean", "sd", "se", "ci_low", "ci_high",
    "median", "median_ci_low", "median_ci_high", "min", "max", "cv", "hmean", "ci_clipped",
]
# What a metric can take, by the unit in its name: percentages of something
# (loss, CPU of all cores) lie in [0, 100]; rates, times and sizes are not
# negative, except one-way delays between hosts whose clocks are not
# synchronised (as ingest.schema.MAY_BE_NEGATIVE).
PERCENT = (0.0, 100.0)
NON_NEGATIVE = (0.0, np.inf)
UNBOUNDED = (-np.inf, np.inf)
NON_NEGATIVE_SUFFIXES = ("_mbps", "_ms", "_per_s", "_bytes", "_s")
MAY_BE_NEGATIVE_PREFIXES = ("owd_", "delay_")


def metric_range(metric: str) -> tuple[float, float]:
    """The values ``metric`` can take, from the unit in its name (``*_pct``:
    [0, 100]; ``*_mbps``, ``*_ms``, ``*_per_s``, ``*_bytes``, ``*_s``: [0, inf));
    unbounded for one-way delays and for a name without a known unit."""
    if metric.endswith("_pct"):
        return PERCENT
    if metric.startswith(MAY_BE_NEGATIVE_PREFIXES):
        return UNBOUNDED
    if metric.endswith(NON_NEGATIVE_SUFFIXES):
        return NON_NEGATIVE
    return UNBOUNDED


def clip_interval(low: float, high: float, bounds: tuple[float, float], values=()) -> tuple[float, float, bool]:
    """(low, high) clipped to ``bounds`` and whether it was. A range that the
    values themselves leave (netperf prints remote CPU above 100 % in some
    runs) is widened to them first: the interval never ends inside the data."""
    x = clean(values)
    lo_bound = min(bounds[0], x.min()) if x.size else bounds[0]
    hi_bound = max(bounds[1], x.max()) if x.size else bounds[1]
    if np.isnan(low) or np.isnan(high):
        return low, high, False
    clipped = low < lo_bound or high > hi_bound
    return max(low, lo_bound), min(high, hi_bound), bool(clipped)


def clean(values) -> np.ndarray:
    """Float array without NaN: unreported values never count as data."""
    arr = np.asarray(values, dtype=float)
    return arr[~np.isnan(arr)]


def mean_ci(values, conf: float = 0.95) -> tuple[float, float]:
    """Student t interval for the mean (NaN when n < 2)."""
    x = clean(values)
    if x.size < 2:
        return (np.nan, np.nan)
    se = x.std(ddof=1) / np.sqrt(x.size)
    half = stats.t.ppf(0.5 + conf / 2, x.size - 1) * se
    return (x.mean() - half, x.mean() + half)


def median_ci(values, conf: float = 0.95) -> tuple[float, float]:
    """Distribution-free CI for the median from binomial order statistics.

    The widest symmetric pair of order statistics whose coverage is at least
    ``conf``; NaN when n is too small to reach it (n < 6 at 95%).
    """
    x = np.sort(clean(values))
    n = x.size
    if n == 0:
        return (np.nan, np.nan)
    # P(X_(j) <= median <= X_(n-j+1)) = 1 - 2*P(Bin(n, .5) <= j-1)
    j = int(stats.binom.ppf((1 - conf) / 2, n, 0.5))
    while j >= 1 and 1 - 2 * stats.binom.cdf(j - 1, n, 0.5) < conf:
        j -= 1
    if j < 1:
        return (np.nan, np.nan)
    return (x[j - 1], x[n - j])


def harmonic_mean(values) -> float:
    """Harmonic mean, NaN unless all values are positive."""
    x = clean(values)
    if x.size == 0 or np.any(x <= 0):
        return np.nan
    return float(stats.hmean(x))


def summarize(values, conf: float = 0.95, bounds: tuple[float, float] = UNBOUNDED) -> dict:
    """All summary statistics of one sample, keyed by SUMMARY_COLUMNS; the
    interval of the mean clipped to ``bounds`` (``ci_clipped`` says when)."""
    x = clean(values)
    means = mean_summary(x, conf, bounds)
    n, mean = means["n"], means["mean"]
    sd = x.std(ddof=1) if n > 1 else np.nan
    mlo, mhi = median_ci(x, conf)
    return {
        **means, "sd": sd, "se": sd / np.sqrt(n) if n else np.nan,
        "median": np.median(x) if n else np.nan,
        "median_ci_low": mlo, "median_ci_high": mhi,
        "min": x.min() if n else np.nan, "max": x.max() if n else np.nan,
        "cv": sd / mean if n > 1 and mean != 0 else np.nan,
        "hmean": harmonic_mean(x),
    }


MEAN_COLUMNS = ["n", "mean", "ci_low", "ci_high", "ci_clipped"]


def mean_summary(values, conf: float = 0.95, bounds: tuple[float, float] = UNBOUNDED) -> dict:
    """n, mean and its t-interval clipped to ``bounds``, keyed by MEAN_COLUMNS:
    what a figure of means draws, without the median interval and harmonic
    mean it does not (half of a figure's build)."""
    x = clean(values)
    lo, hi, clipped = clip_interval(*mean_ci(x, conf), bounds, x)
    return {"n": x.size, "mean": x.mean() if x.size else np.nan, "ci_low": lo, "ci_high": hi, "ci_clipped": clipped}


def _per_cell(runs: pd.DataFrame, metrics: Sequence[str], by: Sequence[str], summary, columns: list[str]) -> pd.DataFrame:
    """``summary(values, bounds=...)`` of each metric in each cell of the ``by`` factors, one row each."""
    rows = []
    columns_read = list(dict.fromkeys(metrics))  # a cell of these only: slicing every column was most of the time
    grouped = runs.groupby(list(by), sort=True, dropna=False)[columns_read] if by else [((), runs[columns_read])]
    for key, cell in grouped:
        key = key if isinstance(key, tuple) else (key,)
        for metric in metrics:
            rows.append({**dict(zip(by, key)), "metric": metric, **summary(cell[metric], bounds=metric_range(metric))})
    return pd.DataFrame(rows, columns=[*by, *columns])


def cell_summaries(runs: pd.DataFrame, metrics: str | Sequence[str],
                   by: Sequence[str], conf: float = 0.95) -> pd.DataFrame:
    """One row per cell of the ``by`` factors and per metric (long format);
    each mean's interval clipped to the metric's range (:func:`metric_range`)."""
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    return _per_cell(runs, metrics, by, lambda v, bounds: summarize(v, conf, bounds), SUMMARY_COLUMNS)


def mean_intervals(runs: pd.DataFrame, metric: str, by: Sequence[str], conf: float = 0.95) -> pd.DataFrame:
    """One row per cell of the ``by`` factors: n, mean and its interval
    (:func:`mean_summary`), as :func:`cell_summaries` gives them."""
    return _per_cell(runs, [metric], by, lambda v, bounds: mean_summary(v, conf, bounds), MEAN_COLUMNS)
