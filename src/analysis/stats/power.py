"""Planning: power and runs per cell.

The studies ran 10 or 40 runs per point without saying why; these answer
"how many runs to detect an X% difference at the CV we observe?".

Two-sample t-test, two-sided by default (``sides=1`` for a directional
claim), computed as R's power.t.test (strict = FALSE: the far tail is
ignored; ``alternative = "one.sided"`` for sides=1) from scipy's noncentral t.  statsmodels'
TTestIndPower returns NaN for large effects at n = 2, which planning hits.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special, stats

MAX_RUNS = 10**6


def _beyond_critical(df: float, ncp: float, alpha: float, sides: int) -> float:
    """P(noncentral t(df, ncp) > the test's critical t): the power. scipy.special's
    functions themselves, as scipy.stats.nct.sf and t.ppf compute it without their
    argument checks (some 100 µs a call; planning a study makes thousands of calls);
    stats' own where nctdtr gives up (NaN for a noncentrality near 40, power ≈ 1)."""
    critical = special.stdtrit(df, 1 - alpha / sides)
    power = 1.0 - special.nctdtr(df, ncp, critical)
    if np.isnan(power) and not (np.isnan(df) or np.isnan(ncp)):
        return float(stats.nct.sf(critical, df, ncp))
    return float(np.clip(power, 0.0, 1.0))


def power_t(n: float, delta: float, sd: float = 1.0, alpha: float = 0.05,
            ratio: float = 1.0, sides: int = 2, df: float | None = None) -> float:
    """Power of a t-test (two-sided, or one-sided in the effect's direction
    with ``sides=1``) with n in group a and ratio·n in group b; ``df`` the
    test's degrees of freedom (Welch's from the data), n + n_b − 2 by default."""
    n_b = ratio * n
    df = n + n_b - 2 if df is None else df
    ncp = abs(delta) / (sd * np.sqrt(1 / n + 1 / n_b))
    return _beyond_critical(df, ncp, alpha, sides)


def power_of_test(effect: float, se: float, df: float, alpha: float = 0.05, sides: int = 2) -> float:
    """Power of a t test with standard error ``se`` and ``df`` (Welch's, from
    the data) to detect ``effect``: the groups' own variances and sizes, so
    unequal n and spreads are counted as the test counts them."""
    if not (se > 0 and df > 0):
        return np.nan
    return _beyond_critical(df, abs(effect) / se, alpha, sides)


def n_per_group(delta: float, sd: float = 1.0, alpha: float = 0.05,
                power: float = 0.8, sides: int = 2) -> float:
    """Fractional n per group reaching ``power`` (round up to plan runs)."""
    def gap(n):
        return power_t(n, delta, sd, alpha, sides=sides) - power
    if gap(2) >= 0:
        return 2.0
    if gap(MAX_RUNS) < 0:
        return math.inf  # noise this large hides the change at any practical n
    return float(optimize.brentq(gap, 2, MAX_RUNS, xtol=1e-10))


def power_for_change(change_pct: float, cv: float, n_a: int, n_b: int,
                     alpha: float = 0.05, sides: int = 2, df: float | None = None) -> float:
    """Power to detect a relative change of change_pct % at coefficient of variation cv."""
    if not (cv > 0 and n_a >= 2 and n_b >= 2):
        return np.nan
    return power_t(n_a, change_pct / 100, sd=cv, alpha=alpha, ratio=n_b / n_a, sides=sides, df=df)


def runs_needed(change_pct: float, cv: float, alpha: float = 0.05,
                power: float = 0.8, sides: int = 2) -> float:
    """Runs per group to detect change_pct % at coefficient of variation cv
    (>= 2; inf when more than MAX_RUNS would be needed)."""
    n = n_per_group(change_pct / 100, sd=cv, alpha=alpha, power=power, sides=sides)
    return math.ceil(n) if math.isfinite(n) else math.inf


def minimum_detectable_difference(sd_a: float, sd_b: float, n: int, alpha: float = 0.05,
                                  power: float = 0.8) -> float:
    """δ at which a two-sided t-test with n runs per group reaches ``power``, SDs pooled."""
    sd = math.sqrt((sd_a ** 2 + sd_b ** 2) / 2)
    if not (sd > 0 and n and n >= 2):
        return float("nan")
    return float(optimize.brentq(lambda d: power_t(n, d, sd, alpha) - power, 1e-12, 100 * sd + 1))
