"""Tests from mean, SD and n alone.

The studies print only means and standard deviations; these functions test
their claims from those numbers.  The raw-data tests in ``two_groups`` call
them too, so the arithmetic lives in one place.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import special, stats
from statsmodels.stats.oneway import anova_generic

from analysis.stats.results import Interval, OmnibusTest, TwoGroupTest


def _welch_df(va: float, na: int, vb: float, nb: int) -> float:
    """Welch–Satterthwaite degrees of freedom (NaN when both groups are constant)."""
    qa, qb = va / na, vb / nb
    denom = qa**2 / (na - 1) + qb**2 / (nb - 1)
    return (qa + qb) ** 2 / denom if denom > 0 else np.nan


def welch_from_stats(mean_a: float, sd_a: float, n_a: int,
                     mean_b: float, sd_b: float, n_b: int,
                     conf: float = 0.95, equal_var: bool = False) -> TwoGroupTest:
    """Welch (default) or pooled two-sample t-test of a - b from summaries."""
    va, vb = sd_a**2, sd_b**2
    df: float
    if equal_var:
        df = n_a + n_b - 2
        pooled = ((n_a - 1) * va + (n_b - 1) * vb) / df
        se = np.sqrt(pooled * (1 / n_a + 1 / n_b))
    else:
        df = _welch_df(va, n_a, vb, n_b)
        se = np.sqrt(va / n_a + vb / n_b)
    diff = mean_a - mean_b
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.float64(diff) / se  # two constant groups: no test (NaN), never a crash
    half = stats.t.ppf(0.5 + conf / 2, df) * se
    return TwoGroupTest(
        test="pooled t" if equal_var else "Welch t",
        statistic=float(t), df=float(df), p=float(2 * stats.t.sf(abs(t), df)),
        n_a=int(n_a), n_b=int(n_b), mean_a=float(mean_a), mean_b=float(mean_b),
        diff=float(diff), diff_ci_low=float(diff - half),
        diff_ci_high=float(diff + half), conf=conf)


def directional_p(statistic: float, df: float, direction: str) -> tuple[float, float]:
    """One-sided p of the claim 'a greater than b' (or 'less') from a t statistic
    of a − b (``df`` NaN or inf: the normal), and the one-sided p of the
    opposite claim: a directional claim is tested in its own direction, and
    is contradicted only by significance the other way."""
    if direction not in ("greater", "less"):
        raise ValueError(f"direction must be 'greater' or 'less', got {direction!r}")
    # the tails scipy.stats' t and norm compute, without freezing a distribution
    # (~0.5 ms each: the engine asks once per cell, the simulations thousands of times)
    if np.isfinite(df):
        upper, lower = float(special.stdtr(df, -statistic)), float(special.stdtr(df, statistic))
    else:
        upper, lower = float(special.ndtr(-statistic)), float(special.ndtr(statistic))
    return (upper, lower) if direction == "greater" else (lower, upper)


def hedges_g_from_stats(mean_a: float, sd_a: float, n_a: int,
                        mean_b: float, sd_b: float, n_b: int,
                        conf: float = 0.95) -> Interval:
    """Hedges' g (bias-corrected standardized difference, pooled SD).

    CI from the large-sample variance of Hedges & Olkin (1985, eq. 5.14).
    """
    df = n_a + n_b - 2
    sp = np.sqrt(((n_a - 1) * sd_a**2 + (n_b - 1) * sd_b**2) / df)
    correction = 1 - 3 / (4 * df - 1)
    g = (mean_a - mean_b) / sp * correction
    se = np.sqrt((n_a + n_b) / (n_a * n_b) + g**2 / (2 * (n_a + n_b)))
    z = stats.norm.ppf(0.5 + conf / 2)
    return Interval(float(g), float(g - z * se), float(g + z * se), conf)


def anova_from_stats(means: Sequence[float], sds: Sequence[float],
                     ns: Sequence[int], use_var: str = "equal") -> OmnibusTest:
    """One-way ANOVA (``use_var="equal"``) or Welch ANOVA from summaries."""
    res = anova_generic(np.asarray(means, float), np.asarray(sds, float) ** 2,
                        np.asarray(ns, float), use_var=use_var)
    df_num, df_denom = res.df
    return OmnibusTest(
        test="one-way ANOVA" if use_var == "equal" else "Welch ANOVA",
        statistic=float(res.statistic), df_num=float(df_num),
        df_denom=float(df_denom), p=float(res.pvalue),
        k=len(means), n=int(np.sum(ns)))


def tost_from_stats(diff: float, sd_a: float, sd_b: float, n: int, margin: float) -> dict:
    """Two one-sided Welch tests of |a − b| < margin from a difference, two SDs and n per group.

    ``p`` is the larger one-sided p (equivalence shown when small);
    ``p_outside`` tests |a − b| > margin (difference beyond the margin).
    """
    se = np.sqrt((sd_a ** 2 + sd_b ** 2) / n)
    df = _welch_df(sd_a ** 2, n, sd_b ** 2, n)
    p_low = stats.t.sf((diff + margin) / se, df)
    p_high = stats.t.cdf((diff - margin) / se, df)
    outside = stats.t.sf((abs(diff) - margin) / se, df)
    return {"statistic": float((abs(diff) - margin) / se), "df": float(df),
            "p": float(max(p_low, p_high)), "p_outside": float(outside)}
