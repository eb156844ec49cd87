"""The verdict rules, shared by campaign claims (tested on runs) and the
studies' claims (judged from printed numbers).

- A tested cell: supported when the adjusted p is below α in the claimed
  direction, contradicted when below α the other way, else inconclusive
  (equivalence: TOST p, and the test of a difference beyond the margin).
- A cell judged by sign only (no SDs or runs printed): ``agrees`` or
  ``disagrees``; a zero difference is a ``tie`` (it neither supports nor
  contradicts an ordering); a number taken from the claim's own sentence
  is ``restated`` — a repetition of the claim, not evidence for it.
- Over cells: ``all`` needs every judged cell, ``any`` one, ``most`` more
  than half; the verdict always says at how many cells it was judged.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

VERDICTS = ("supported", "contradicted", "inconclusive", "untestable")
SIGN_VERDICTS = ("agrees", "disagrees", "tie", "restated")


def tested_verdict(direction: str, diff: float, p_adj: float, alpha: float,
                   p_outside_adj: float = math.nan) -> str:
    """Verdict of one tested cell from its adjusted p.

    different: two-sided p. greater/less: ``p_adj`` is the one-sided p in
    the claimed direction and ``p_outside_adj`` the one-sided p the other
    way (a directional claim is tested one-sided; only significance the
    other way contradicts it). equivalent: TOST p, and the p that the
    difference lies outside the margin."""
    if direction == "different":
        return "supported" if p_adj < alpha else "inconclusive"
    if direction in ("greater", "less") and math.isnan(p_outside_adj) and not math.isnan(p_adj):
        raise ValueError("a directional claim needs both one-sided p-values (p and p_outside)")
    right = direction == "equivalent" or (diff > 0 if direction == "greater" else diff < 0)
    if p_adj < alpha and right:
        return "supported"
    return "contradicted" if p_outside_adj < alpha else "inconclusive"


def sign_verdict(direction: str, value: float, margin: float | None = None,
                 restated: bool = False) -> str:
    """Verdict of a cell where only a printed difference (or percentage) is known."""
    if restated:
        return "restated"
    if direction == "equivalent":
        return "agrees" if margin is not None and abs(value) <= margin else "disagrees"
    if value == 0:
        return "tie"
    if direction == "different":
        return "agrees"
    right = value > 0 if direction == "greater" else value < 0
    return "agrees" if right else "disagrees"


def aggregate(holds: str, verdicts: Sequence[str], good: str, bad: str,
              weak: Sequence[str] = ()) -> str:
    """One verdict over cells.  all: any bad cell decides, then the weak ones
    in order; any: one good cell suffices; most: more than half."""
    verdicts = list(verdicts)
    fallback = weak[0] if weak else bad
    if holds == "any":
        if good in verdicts:
            return good
        return bad if verdicts and set(verdicts) == {bad} else fallback
    if holds == "most":
        if verdicts.count(good) > len(verdicts) / 2:
            return good
        return bad if verdicts.count(bad) > len(verdicts) / 2 else fallback
    for verdict in (bad, *weak):
        if verdict in verdicts:
            return verdict
    return good


def sign_aggregate(holds: str, verdicts: Sequence[str]) -> str:
    """Claim verdict from sign-only cells: restated cells are no evidence;
    ties count against 'all' but never as a contradiction."""
    evidence = [v for v in verdicts if v != "restated"]
    if not evidence:
        return "restated"
    return aggregate(holds, evidence, "agrees", "disagrees", ("tie",))
