"""Result records shared by the statistics modules.

Plain frozen dataclasses so that a result is both an object (attribute access
in code) and a row (``as_row()``) in the tidy tables the notebooks show.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Row:
    """Base: every result turns into a flat dict with stable keys."""

    def as_row(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Interval(Row):
    """A point estimate with its confidence interval."""

    estimate: float
    ci_low: float
    ci_high: float
    conf: float


@dataclass(frozen=True)
class TwoGroupTest(Row):
    """A test of group a against group b; diff is mean_a - mean_b."""

    test: str
    statistic: float
    df: float
    p: float
    n_a: int
    n_b: int
    mean_a: float
    mean_b: float
    diff: float
    diff_ci_low: float
    diff_ci_high: float
    conf: float


@dataclass(frozen=True)
class RankTest(Row):
    """A rank-based test (no mean difference, no df)."""

    test: str
    statistic: float
    p: float
    n_a: int
    n_b: int


@dataclass(frozen=True)
class EquivalenceTest(Row):
    """TOST: p is the larger of the two one-sided p-values."""

    test: str
    margin_low: float
    margin_high: float
    p: float
    statistic_low: float
    p_low: float
    statistic_high: float
    p_high: float
    df: float
    diff: float
    n_a: int
    n_b: int


@dataclass(frozen=True)
class OmnibusTest(Row):
    """An F or chi-squared test over k groups."""

    test: str
    statistic: float
    df_num: float
    df_denom: float
    p: float
    k: int
    n: int


@dataclass(frozen=True)
class AssumptionCheck(Row):
    """One assumption check and the fallback it triggers when it fails."""

    check: str
    statistic: float
    p: float
    passed: bool
    fallback: str
