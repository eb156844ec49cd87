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
from enum import Enum


class Verdict(str, Enum):
    """Every verdict a claim or a cell can get, campaigns' and studies' alike.
    A member is its string ("supported" == Verdict.SUPPORTED), so tables keep plain text."""

    def __str__(self) -> str:
        return self.value

    SUPPORTED = "supported"
    CONTRADICTED = "contradicted"
    INCONCLUSIVE = "inconclusive"
    UNTESTABLE = "untestable"
    AGREES = "agrees"
    DISAGREES = "disagrees"
    TIE = "tie"
    RESTATED = "restated"
    SUPPORTED_WHERE_PRINTED = "supported where printed"
    AGREES_WHERE_PRINTED = "agrees where printed"
    DISAGREES_WHERE_PRINTED = "disagrees where printed"  # against it where printed, too few cells to refute it
    UNJUDGED = "unjudged"  # a study's cell with no printed number
    UNDECIDED = "undecided"  # printed ranges that overlap
    NOT_COMPARABLE = "not comparable"  # a study's claim our own data cannot speak to


VERDICTS = (Verdict.SUPPORTED, Verdict.CONTRADICTED, Verdict.INCONCLUSIVE, Verdict.UNTESTABLE)
SIGN_VERDICTS = (Verdict.AGREES, Verdict.DISAGREES, Verdict.TIE, Verdict.RESTATED)
CLAIM_ORDER = (Verdict.SUPPORTED, Verdict.SUPPORTED_WHERE_PRINTED, Verdict.AGREES, Verdict.AGREES_WHERE_PRINTED,
               Verdict.CONTRADICTED, Verdict.DISAGREES, Verdict.DISAGREES_WHERE_PRINTED, Verdict.INCONCLUSIVE, Verdict.TIE, Verdict.RESTATED,
               Verdict.UNTESTABLE)  # how pages count and list a table's verdicts


def where_printed(verdict: str) -> Verdict:
    """A study's support, or refutation, that its printed numbers show at too few of
    the claim's cells to decide the claim as quantified."""
    return {Verdict.SUPPORTED: Verdict.SUPPORTED_WHERE_PRINTED,
            Verdict.AGREES: Verdict.AGREES_WHERE_PRINTED,
            Verdict.CONTRADICTED: Verdict.DISAGREES_WHERE_PRINTED,
            Verdict.DISAGREES: Verdict.DISAGREES_WHERE_PRINTED}[Verdict(verdict)]


def tested_verdict(direction: str, diff: float, p_adj: float, alpha: float,
                   p_outside_adj: float = math.nan) -> Verdict:
    """Verdict of one tested cell from its adjusted p and its estimate ``diff``.

    different: two-sided p. greater/less: ``p_adj`` is the p of the claimed
    direction and ``p_outside_adj`` that of the other: the two one-sided p
    of a registered claim, or the same two-sided p twice for a post-hoc one.
    The sign of the estimate the test is about decides which way a
    significant result points. equivalent: TOST p, and the p that the
    difference lies outside the margin."""
    if direction == "different":
        return Verdict.SUPPORTED if p_adj < alpha else Verdict.INCONCLUSIVE
    if direction in ("greater", "less") and math.isnan(p_outside_adj) and not math.isnan(p_adj):
        raise ValueError("a directional claim needs the p of both directions (p and p_outside: both one-sided p-values, or the two-sided p twice)")
    if direction == "equivalent":
        if p_adj < alpha:
            return Verdict.SUPPORTED
        return Verdict.CONTRADICTED if p_outside_adj < alpha else Verdict.INCONCLUSIVE
    right = diff > 0 if direction == "greater" else diff < 0
    wrong = diff < 0 if direction == "greater" else diff > 0
    if p_adj < alpha and right:
        return Verdict.SUPPORTED
    return Verdict.CONTRADICTED if p_outside_adj < alpha and wrong else Verdict.INCONCLUSIVE


def sign_verdict(direction: str, value: float, margin: float | None = None,
                 restated: bool = False) -> Verdict:
    """Verdict of a cell where only a printed difference (or percentage) is known."""
    if restated:
        return Verdict.RESTATED
    if direction == "equivalent":
        return Verdict.AGREES if margin is not None and abs(value) <= margin else Verdict.DISAGREES
    if value == 0:
        return Verdict.TIE
    if direction == "different":
        return Verdict.AGREES
    right = value > 0 if direction == "greater" else value < 0
    return Verdict.AGREES if right else Verdict.DISAGREES


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
    evidence = [v for v in verdicts if v != Verdict.RESTATED]
    if not evidence:
        return Verdict.RESTATED
    return aggregate(holds, evidence, Verdict.AGREES, Verdict.DISAGREES, (Verdict.TIE,))


_FOR = (Verdict.SUPPORTED, Verdict.AGREES)
_FOR_WHERE_PRINTED = (Verdict.SUPPORTED_WHERE_PRINTED, Verdict.AGREES_WHERE_PRINTED)
_AGAINST = (Verdict.CONTRADICTED, Verdict.DISAGREES)


def over_groups(holds: str, verdicts: Sequence[str]) -> Verdict:
    """A claim's verdict from the verdicts of its groups, each already judged under
    its own inner quantifier (an OS's sizes "overall"): the outer quantifier
    ``holds`` counts the groups decided for and against it; a group decided only
    where printed makes the claim at most "where printed"."""
    verdicts = [Verdict(v) for v in verdicts]
    pro = [v for v in verdicts if v in _FOR]
    con = [v for v in verdicts if v in _AGAINST]
    leaning_pro = pro + [v for v in verdicts if v in _FOR_WHERE_PRINTED]
    leaning_con = con + [v for v in verdicts if v == Verdict.DISAGREES_WHERE_PRINTED]
    refuted = {"all": bool(con), "most": len(con) > len(verdicts) / 2, "any": len(con) == len(verdicts)}[holds]
    proven = {"all": len(pro) == len(verdicts), "most": len(pro) > len(verdicts) / 2, "any": bool(pro)}[holds]
    if refuted:
        return Verdict.CONTRADICTED if Verdict.CONTRADICTED in con else Verdict.DISAGREES
    if proven:
        return Verdict.SUPPORTED if pro and all(v == Verdict.SUPPORTED for v in pro) else Verdict.AGREES
    if leaning_con and (holds == "all" or len(leaning_con) >= len(leaning_pro)):
        return Verdict.DISAGREES_WHERE_PRINTED
    for weak in (Verdict.INCONCLUSIVE, Verdict.TIE):  # 'all': a group tested and undecided leaves it so
        if holds == "all" and weak in verdicts:
            return weak
    if leaning_pro:
        return (Verdict.SUPPORTED_WHERE_PRINTED if Verdict.SUPPORTED in leaning_pro
                or Verdict.SUPPORTED_WHERE_PRINTED in leaning_pro else Verdict.AGREES_WHERE_PRINTED)
    for weak in (Verdict.INCONCLUSIVE, Verdict.TIE, Verdict.RESTATED):
        if weak in verdicts:
            return weak
    return Verdict.UNTESTABLE
