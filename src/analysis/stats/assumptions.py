"""Assumption checks reported beside each test, each naming its fallback.

A failed check does not silently change the analysis: the result records
which fallback the check calls for, and the verdict engine applies it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from analysis.stats.many_groups import groups_of
from analysis.stats.results import AssumptionCheck
from analysis.stats.summaries import clean


def levene(y, g, center: str = "median", alpha: float = 0.05) -> AssumptionCheck:
    """Brown–Forsythe (center="median", R car::leveneTest default) or Levene."""
    groups = groups_of(y, g)
    res = stats.levene(*groups.values(), center=center)
    name = "Brown-Forsythe" if center == "median" else "Levene"
    passed = bool(res.pvalue >= alpha)
    return AssumptionCheck(check=f"{name} equal variances", statistic=float(res.statistic),
                           p=float(res.pvalue), passed=passed,
                           fallback="" if passed else
                           "unequal-variance methods (Welch t, Welch ANOVA + Games-Howell, HC3)")


def shapiro(residuals, alpha: float = 0.05) -> AssumptionCheck:
    """Shapiro–Wilk normality of residuals (n from 3 to 5000)."""
    x = clean(residuals)
    if x.size < 3:
        return AssumptionCheck("Shapiro-Wilk normal residuals", np.nan, np.nan, True,
                               "not checked: fewer than 3 residuals")
    res = stats.shapiro(x)
    passed = bool(res.pvalue >= alpha)
    return AssumptionCheck(check="Shapiro-Wilk normal residuals",
                           statistic=float(res.statistic), p=float(res.pvalue),
                           passed=passed,
                           fallback="" if passed else "rank test (Mann-Whitney / Kruskal-Wallis + Dunn)")


def group_residuals(y, g) -> np.ndarray:
    """Residuals of the one-way model: each value minus its group mean."""
    return np.concatenate([v - v.mean() for v in groups_of(y, g).values()])


def standardised_residuals(y, g) -> np.ndarray:
    """Each value minus its group mean, over its group's SD: on a normal QQ plot
    these lie on y = x when the groups are normal, whatever their units and
    spreads. A group with no variance (or one value) has no standardised
    residual and is left out, never shown as a row of zeros."""
    parts = [(v - v.mean()) / v.std(ddof=1) for v in groups_of(y, g).values()
             if v.size >= 2 and v.std(ddof=1) > 0]
    return np.concatenate(parts) if parts else np.array([])


def qq_data(residuals) -> pd.DataFrame:
    """Theoretical normal quantiles vs ordered residuals, for a QQ plot."""
    (theoretical, ordered), _ = stats.probplot(clean(residuals), dist="norm")
    return pd.DataFrame({"theoretical": theoretical, "sample": ordered})
