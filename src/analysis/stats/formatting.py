"""benchstat-style one-line summaries for reports.

``-3.1% [-4.0, -2.2] (p=0.002, n=10+10)`` when significant, ``~ (p=0.41,
n=10+10)`` when not: the reader sees size, uncertainty and evidence at once.
"""

from __future__ import annotations

import math


def _missing(x) -> bool:
    return x is None or math.isnan(x)


def format_p(p: float) -> str:
    """p=0.002, p<0.001, p=0.41, p=n/a."""
    if _missing(p):
        return "p=n/a"
    if p < 0.001:
        return "p<0.001"
    return f"p={p:.3f}" if p < 0.1 else f"p={p:.2f}"


def format_change(pct: float, ci_low: float, ci_high: float, p: float,
                  n_a: int, n_b: int, alpha: float = 0.05) -> str:
    """Percent change (signed) with its CI, or ``~`` when p >= alpha."""
    tail = f"({format_p(p)}, n={n_a}+{n_b})"
    if _missing(p) or p >= alpha or _missing(pct):
        return f"~ {tail}"
    return f"{pct:+.1f}% [{ci_low:.1f}, {ci_high:.1f}] {tail}"


def format_difference(diff: float, ci_low: float, ci_high: float, p: float,
                      n_a: int, n_b: int, alpha: float = 0.05) -> str:
    """Absolute difference a − b with its CI, for when no percent change is
    defined (a group mean of 0, or values <= 0): ``diff -0.06 [-0.17, 0.05]``."""
    tail = f"({format_p(p)}, n={n_a}+{n_b})"
    if _missing(p) or p >= alpha or _missing(diff):
        return f"~ {tail}"
    return f"diff {diff:+.4g} [{ci_low:.4g}, {ci_high:.4g}] {tail}"


def change_from_ratio(ratio: float, low: float, high: float) -> tuple[float, float, float]:
    """Ratio a/b and its CI -> percent change of a relative to b."""
    return (100 * (ratio - 1), 100 * (low - 1), 100 * (high - 1))


def format_f(f: float, df_num: float, df_denom: float, p: float, n: int,
             alpha: float = 0.05) -> str:
    """Omnibus line: ``F(2, 17.1)=5.18 (p=0.017, n=30)``, ``~`` when p >= alpha."""
    tail = f"({format_p(p)}, n={int(n)})"
    if _missing(p) or p >= alpha:
        return f"~ {tail}"
    return f"F({df_num:.3g}, {df_denom:.3g})={f:.3g} {tail}"
