"""Group-sequential tests: look at the data as it comes, stop when the answer is known.

A campaign that looks at its runs after every block and stops at the first
significant result tests many times; each look spends part of α. The
Lan–DeMets spending function says how much α is spent by information fraction
t (the share of the planned maximum information seen so far), so looks need
not be planned exactly. Per side of the test, with α_s the side's α:

- O'Brien–Fleming type: f(t) = 2 − 2Φ(Φ⁻¹(1 − α_s/2)/√t)  (spends almost nothing early)
- Pocock type:          f(t) = α_s · ln(1 + (e − 1)t)      (spends evenly)

(Lan & DeMets 1983; the forms of R's gsDesign sfLDOF/sfLDPocock and, with
α_s = α/2 for a two-sided test, of R's ldbounds.) The boundary c_k of look k
solves P₀(no crossing before k, Z_k ≥ c_k) = f(t_k) − f(t_{k−1}), computed by
recursive numerical integration of the density of the statistic on the
continuation region (Armitage, McPherson & Rowe 1969; Jennison & Turnbull
2000, ch. 19), here Simpson's rule on a fine grid. The boundaries are
symmetric (±c_k): a two-sided test spends α/2 on each side; a registered
one-sided test spends α on its claimed side and watches the other side at α
too, as the fixed-design engine reports a contradiction.

The statistic is on the z scale with independent increments. Welch's t with
its estimated variance enters through its p value (the "significance level
approach", Jennison & Turnbull 2000, §3.8): the t of look k is mapped to the
z with the same tail probability.

Also here: the stage-wise ordered p value at stopping (Fairbanks & Madsen
1982; Jennison & Turnbull §8.4), repeated confidence intervals (Jennison &
Turnbull 1989: estimate ± c_k·SE covers the true difference at every look
with probability 1 − 2α_s) and conditional power under the current trend,
the futility rule (non-binding: the efficacy boundaries ignore it, so α is
kept whether or not a futility stop is obeyed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
from scipy import optimize, stats

Spending = Literal["obf", "pocock"]
SPENDINGS: tuple[str, ...] = ("obf", "pocock")
GRID_STEP = 0.01  # z-units between grid points: boundaries agree with published tables to 1e-4
TAIL = 10.0  # the grid ends this many SDs from the statistic's mean (density < 1e-22 beyond)
FAR = 40.0  # a boundary no statistic reaches: a look that spends no α


def spent(spending: Spending, t: float | np.ndarray, alpha_side: float) -> np.ndarray:
    """α spent on one side by information fraction ``t`` (0 at t = 0, α_side at t ≥ 1)."""
    t = np.clip(np.asarray(t, float), 0.0, 1.0)
    if spending == "obf":
        with np.errstate(divide="ignore"):
            return np.where(t > 0, 2 - 2 * stats.norm.cdf(stats.norm.ppf(1 - alpha_side / 2) / np.sqrt(t)), 0.0)
    if spending == "pocock":
        return alpha_side * np.log1p((math.e - 1) * t)
    raise ValueError(f"unknown spending function {spending!r} (known: {', '.join(SPENDINGS)})")


def _check_fractions(fractions) -> np.ndarray:
    t = np.asarray(fractions, float)
    if t.ndim != 1 or t.size == 0:
        raise ValueError("information fractions: need at least one look")
    if not (np.all(t > 0) and np.all(t <= 1) and np.all(np.diff(t) > 0)):
        raise ValueError(f"information fractions must increase strictly within (0, 1], got {t.tolist()}")
    return t


def _simpson(lo: float, hi: float, mean: float) -> tuple[np.ndarray, np.ndarray]:
    """Grid points and Simpson weights on (lo, hi) ∩ mean ± TAIL."""
    lo, hi = max(lo, mean - TAIL), min(hi, mean + TAIL)
    if hi <= lo:
        return np.empty(0), np.empty(0)
    intervals = 2 * max(1, math.ceil((hi - lo) / GRID_STEP / 2))
    z = np.linspace(lo, hi, intervals + 1)
    w = np.ones(intervals + 1)
    w[1:-1:2], w[2:-1:2] = 4.0, 2.0
    return z, w * (hi - lo) / intervals / 3


class _Recursion:
    """The sub-density of Z_k on the continuation region, look after look.

    Z_k = S_k/√t_k where S has independent N(θΔt, Δt) increments (θ: the drift,
    the mean of Z at t = 1). ``exits(lower, upper)`` gives the probabilities of
    leaving below/above at the next look; ``advance`` moves the density there."""

    def __init__(self, drift: float):
        self.drift = drift
        self.t = 0.0
        self.z = np.empty(0)
        self.mass = np.empty(0)  # density × weight at each grid point

    def _moments(self, t: float) -> tuple[np.ndarray, float]:
        """Mean and SD of S_t given each grid point of the last look."""
        step = t - self.t
        return self.z * math.sqrt(self.t) + self.drift * step, math.sqrt(step)

    def exits(self, t: float, lower: float, upper: float) -> tuple[float, float]:
        if self.t == 0.0:
            first = self.drift * math.sqrt(t)
            return float(stats.norm.cdf(lower - first)), float(stats.norm.sf(upper - first))
        mean, sd = self._moments(t)
        root = math.sqrt(t)
        return (float(self.mass @ stats.norm.cdf((lower * root - mean) / sd)),
                float(self.mass @ stats.norm.sf((upper * root - mean) / sd)))

    def advance(self, t: float, lower: float, upper: float) -> None:
        z, w = _simpson(lower, upper, self.drift * math.sqrt(t))
        if self.t == 0.0:
            density = stats.norm.pdf(z - self.drift * math.sqrt(t))
        else:
            mean, sd = self._moments(t)
            root = math.sqrt(t)
            density = (stats.norm.pdf((z[:, None] * root - mean[None, :]) / sd) @ self.mass) * root / sd
        self.t, self.z, self.mass = t, z, density * w


def exit_probabilities(fractions, upper, lower=None, drift: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """P(first leaving the continuation region at look k, below) and (above), per look.
    ``lower`` defaults to −upper (a symmetric design); ±inf for a side never crossed."""
    t = _check_fractions(fractions)
    upper = np.broadcast_to(np.asarray(upper, float), t.shape)
    lower = -upper if lower is None else np.broadcast_to(np.asarray(lower, float), t.shape)
    rec = _Recursion(drift)
    below, above = np.zeros(t.size), np.zeros(t.size)
    for k, tk in enumerate(t):
        below[k], above[k] = rec.exits(tk, lower[k], upper[k])
        if k + 1 < t.size:
            rec.advance(tk, lower[k], upper[k])
    return below, above


@dataclass(frozen=True)
class Boundaries:
    """A design's critical |z| at each look (the test stops when |Z_k| ≥ z[k]), and the α spent by then."""

    fractions: tuple[float, ...]
    z: tuple[float, ...]
    spent: tuple[float, ...]  # per side, cumulative
    alpha: float
    sides: int
    spending: str

    @property
    def alpha_side(self) -> float:
        return self.alpha / 2 if self.sides == 2 else self.alpha

    def nominal(self, k: int) -> float:
        """The p of a fixed test (two-sided for a two-sided design, one-sided otherwise) that crosses look k's boundary."""
        return float(self.sides * stats.norm.sf(self.z[k]))


def boundaries(fractions, alpha: float = 0.05, spending: Spending = "obf", sides: int = 2) -> Boundaries:
    """Lan–DeMets boundaries at the looks' information fractions (the last is 1 when the
    design's maximum is reached: it then spends all of α)."""
    t = _check_fractions(fractions)
    if sides not in (1, 2):
        raise ValueError(f"sides must be 1 or 2, got {sides}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    alpha_side = alpha / sides
    cumulative = spent(spending, t, alpha_side)
    targets = np.diff(cumulative, prepend=0.0)
    rec = _Recursion(0.0)
    z = []
    for tk, target in zip(t, targets):
        if target <= 0:
            c = FAR
        elif rec.t == 0.0:
            c = float(stats.norm.isf(target))
        else:
            reachable = rec.exits(tk, -np.inf, 0.0)[1]
            c = 0.0 if target >= reachable else float(optimize.brentq(
                lambda c: rec.exits(tk, -c, c)[1] - target, 0.0, FAR, xtol=1e-10))
        z.append(c)
        rec.advance(tk, -c, c)
    return Boundaries(tuple(t.tolist()), tuple(z), tuple(cumulative.tolist()), alpha, sides, spending)


def z_of_t(t_stat: float, df: float) -> float:
    """The z with the same tail probability as Welch's t on ``df`` degrees of freedom."""
    if math.isinf(df):
        return t_stat
    tail = stats.t.sf(abs(t_stat), df)
    return math.copysign(float(stats.norm.isf(tail)), t_stat)


def t_critical(z_bound: float, df: float) -> float:
    """The |t| on ``df`` degrees of freedom with the tail probability of the z boundary."""
    return float(stats.t.isf(stats.norm.sf(z_bound), df)) if z_bound < FAR else math.inf


def stagewise_p(design: Boundaries, look: int, z: float) -> tuple[float, float]:
    """(p above, p below): the stage-wise ordered one-sided p values of stopping at
    ``look`` (0-based) with statistic ``z``. Outcomes more extreme above: crossing
    the upper boundary at an earlier look, or reaching ``look`` with Z ≥ z. A two-sided
    p is 2·min of the two. Crossing at ``look`` gives p ≤ the α spent by then."""
    above, below, rec = _before(design.fractions[: look + 1], design.z[:look])
    t = design.fractions[look]
    p_up = rec.exits(t, -np.inf, z)[1]
    p_down = rec.exits(t, z, np.inf)[0]
    return min(1.0, above + p_up), min(1.0, below + p_down)


@lru_cache(maxsize=64)
def _before(fractions: tuple[float, ...], bounds: tuple[float, ...]) -> tuple[float, float, _Recursion]:
    """Null probabilities of crossing above and below before the last look, and the
    density of continuing to it (kept: a campaign asks for the p of many cells of one design)."""
    rec = _Recursion(0.0)
    above = below = 0.0
    for tk, c in zip(fractions[:-1], bounds):
        lo, hi = rec.exits(tk, -c, c)
        above, below = above + hi, below + lo
        rec.advance(tk, -c, c)
    return above, below, rec


def conditional_power(z: float, fraction: float, final_z: float) -> float:
    """The chance of crossing the final boundary ``final_z`` in the direction of the
    current trend, if the effect is what the data show so far (B-value
    formulation: B(t) = Z√t, drift B(t)/t). Intermediate looks are ignored,
    so it understates the chance of a decision; 1 at the final look when crossed."""
    if fraction >= 1:
        return 1.0 if abs(z) >= final_z else 0.0
    b = abs(z) * math.sqrt(fraction)
    drift = b / fraction
    return float(stats.norm.sf((final_z - b - drift * (1 - fraction)) / math.sqrt(1 - fraction)))


def futility_bound(fraction: float, final_z: float, threshold: float) -> float:
    """The |z| at information ``fraction`` below which :func:`conditional_power` is under
    ``threshold``: √t·(c_K − Φ⁻¹(1 − threshold)·√(1 − t)), from the same B-value formula
    (the conditional power is Φ̄((c_K − |z|/√t)/√(1 − t))); 0 when no |z| is that futile."""
    if not 0 < fraction < 1:
        raise ValueError(f"information fraction must be in (0, 1) for a futility look, got {fraction}")
    return max(0.0, math.sqrt(fraction) * (final_z - float(stats.norm.isf(threshold)) * math.sqrt(1 - fraction)))


def repeated_ci(estimate: float, se: float, z_bound: float, df: float = math.inf) -> tuple[float, float]:
    """The repeated CI of a look: estimate ± c_k·SE, c_k turned into a t quantile on Welch's
    df. Its coverage holds at every look at once (level 1 − 2α_s), so it stays valid
    whenever the campaign stops."""
    half = t_critical(z_bound, df) * se if not math.isinf(df) else z_bound * se
    return estimate - half, estimate + half
