"""Numbers said of a group of OSes, and what the text says of one OS alone.

A thesis often sums a figure up for a group ("apart from Microsoft Windows
Server 2003, the remaining of the operating systems ... IPv4 outperformed IPv6
by 2.7%"); the record copies that one number to each member, one row each.
Where the same text, speaking of one member alone, calls the pair *similar* at
a size ("on frames sizes 2455, 3392, 5266 and 8037 Bytes, IPv6 and IPv4
produced similar values"), the group's number is not that member's evidence
there: the specific statement prevails over the pooled one. "Similar" prints
no number, so the record cannot hold it; the claims file does, as a claim with
direction ``equivalent`` (the registered reading of that sentence).

A group statement that agrees with what each member's own text says, or of
which the text says nothing else ("they all yielded the same value, 41.8 %
less"), stays evidence: only a member's own "similar" at that very cell
removes it.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from analysis.reproduce.claims import Claim, ClaimsFile

GROUP_MEMBERS = 3  # one printed number recorded for this many OSes or more is a statement about the group


def said_of_a_group(rows: pd.DataFrame) -> pd.Series:
    """Rows that copy one printed number to each member of a group of OSes ("all of the
    operating systems ... by up to 31 %")."""
    if rows.empty:
        return pd.Series(False, index=rows.index, dtype=bool)
    members = rows.groupby(["metric", "statistic", "value", "snippet"], dropna=False)["os"].transform("nunique")
    return members >= GROUP_MEMBERS


@dataclass(frozen=True)
class Similar:
    """Cells a sentence naming fewer than ``GROUP_MEMBERS`` OSes calls similar: the two
    ``levels`` of ``factor`` on ``metric`` wherever every ``scope`` factor has one of its levels."""

    claim: str
    metric: str
    factor: str
    levels: frozenset
    scope: tuple[tuple[str, tuple], ...]

    def covers(self, metric: str, factor: str, key_a: dict, key_b: dict) -> bool:
        """Whether the pair of cells ``key_a``, ``key_b`` (they differ in ``factor``) is one it calls similar."""
        if metric != self.metric or factor != self.factor or {key_a[factor], key_b[factor]} != self.levels:
            return False
        return all(column in key_a and key_a[column] in levels for column, levels in self.scope)


def _levels(value) -> tuple:
    return tuple(value) if isinstance(value, list) else (value,)


def _oses(claims: list[Claim]) -> set:
    """The OSes a sentence's claims name, in scope or as compared levels."""
    named: set = set()
    for claim in claims:
        named.update(v for v in _levels(claim.scope.get("os")) if v is not None)
        if claim.compare is not None and claim.compare.factor == "os":
            named.update(claim.compare.all_levels())
    return named


def similar_statements(claims: ClaimsFile) -> list[Similar]:
    """Every "similar" the study says of one or two OSes by name (equivalence claims whose
    sentence names fewer than ``GROUP_MEMBERS`` OSes and whose scope fixes the OS)."""
    by_quote: dict[str, list[Claim]] = {}
    for claim in claims.claims:
        by_quote.setdefault(claim.quote, []).append(claim)
    out = []
    for claim in claims.claims:
        if claim.direction != "equivalent" or claim.compare is None or claim.compare.factor == "os":
            continue
        if "os" not in claim.scope or len(_oses(by_quote[claim.quote])) >= GROUP_MEMBERS:
            continue
        out.append(Similar(claim.id, claim.metric, claim.compare.factor, frozenset(claim.compare.all_levels()),
                           tuple((f, _levels(v)) for f, v in claim.scope.items())))
    return out
