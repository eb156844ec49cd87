"""The order of two cells read through a third that the text compares both with.

"Windows Server 2008 was ... 2 % lower than Fedora" and "Windows 7 ... 10 % lower
than Fedora" print no Windows 7 / Windows Server 2008 difference, but order the
two: Windows 7 is the lower. Likewise a chain: "OpenSUSE IPv6 was 2 % higher than
Ubuntu IPv4" and "Ubuntu IPv4 was 5 % higher than IPv6" put OpenSUSE IPv6 above
Ubuntu IPv6. Only the order is evidence (the percentages' bases differ), and only
when it is beyond the printed precision: of opposite signs, or of one sign with
both statements read the same way round (each side against the reference, or the
reference against each) and apart by more than half a unit of each printed digit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from analysis.reproduce.lookup import (DIFF_STATS, KEY_COLUMNS, PCT_STATS, RowIndex, half_unit, levels_named,
                                       others_named, side_sign)


_HEDGED = re.compile(r"[([]|presum|probabl|not stated|other|similar|sic", re.IGNORECASE)


@dataclass(frozen=True)
class Edge:
    """One printed difference seen from one side: that side minus the reference."""

    reference: tuple
    signed: float
    kind: tuple  # (pct or diff, unit): only like numbers are set side by side
    reference_is_subject: bool
    slack: float
    row: dict


def _plain(value):
    if value is None or (not isinstance(value, str) and pd.isna(value)) or str(value) == "":
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


class References:
    """Every printed difference of a metric as an edge between its subject's cell and
    the cell its ``compared_to`` names (the subject's own level where it names none)."""

    def __init__(self, index: RowIndex):
        self._index = index
        self._by_metric: dict[str, tuple[list[tuple[tuple, tuple, dict]], dict, dict]] = {}

    def _pairs(self, metric: str) -> tuple[list[tuple[tuple, tuple, dict]], dict, dict]:
        """The metric's edges, and where each cell column's level occurs among their
        subjects and referents (so a cell's edges are found by set intersection)."""
        if metric not in self._by_metric:
            pairs: list[tuple[tuple, tuple, dict]] = []
            for row in self._index.rows.to_dict("records"):
                if row["metric"] != metric or row["statistic"] not in DIFF_STATS + PCT_STATS \
                        or side_sign(row) is None:
                    continue
                subject = tuple(_plain(row.get(c)) for c in KEY_COLUMNS)
                pairs.extend((subject, referent, row) for referent in self._referents(row) if referent != subject)
            by_subject: dict[tuple, set[int]] = {}
            by_referent: dict[tuple, set[int]] = {}
            for n, (subject, referent, _) in enumerate(pairs):
                for i, (s_level, r_level) in enumerate(zip(subject, referent)):
                    by_subject.setdefault((i, s_level), set()).add(n)
                    by_referent.setdefault((i, r_level), set()).add(n)
            self._by_metric[metric] = (pairs, by_subject, by_referent)
        return self._by_metric[metric]

    def _referents(self, row: dict) -> list[tuple]:
        """The cells ``compared_to`` names: each of them where it lists several levels of
        one factor plainly ("8 % lower than Windows 7 and Fedora", "than the other five
        OSes": :func:`others_named`), none where it lists
        several of two factors or qualifies the list ("probably", "(IPv6 and IPv4 similar)")."""
        text = str(row.get("compared_to", "") or "")
        cell: list[list] = []
        for column in KEY_COLUMNS:
            levels = self._index.levels(column)
            named = (levels_named(text, column, levels) or others_named(row, column, levels)) if text else set()
            cell.append(sorted((_plain(level) for level in named), key=str) if named else [_plain(row.get(column))])
        several = [levels for levels in cell if len(levels) > 1]
        if several and (len(several) > 1 or _HEDGED.search(text)):
            return []
        return [tuple(levels[0] if len(levels) == 1 else level for levels in cell)
                for level in (several[0] if several else [None])]

    def touches(self, row: dict, key: dict) -> bool:
        """Whether a printed difference has the cell ``key`` at one of its ends (its
        subject, or what its ``compared_to`` names): the scope check of an order read
        through a reference."""
        key = {"size_bytes": None, **key}
        wanted = [(i, _plain(key[c])) for i, c in enumerate(KEY_COLUMNS) if c in key]
        subject = tuple(_plain(row.get(c)) for c in KEY_COLUMNS)
        ends = [subject, *self._referents(row)]
        return any(all(end[i] == v for i, v in wanted) for end in ends)

    def _edges(self, metric: str, key: dict, independent) -> list[Edge]:
        key = {"size_bytes": None, **key}
        wanted = [(i, _plain(key[c])) for i, c in enumerate(KEY_COLUMNS) if c in key]
        pairs, by_subject, by_referent = self._pairs(metric)
        subject_fits = set.intersection(*(by_subject.get(w, set()) for w in wanted))
        referent_fits = set.intersection(*(by_referent.get(w, set()) for w in wanted))
        edges = []
        for n in sorted(subject_fits ^ referent_fits):
            subject, referent, row = pairs[n]
            if not independent(row):
                continue
            kind = ("pct" if row["statistic"] in PCT_STATS else "diff", row["unit"])
            value = (side_sign(row) or 0) * float(row["value"])  # never 0: unsigned rows are not edges
            slack = half_unit(row["value_as_printed"])
            if n in subject_fits:
                edges.append(Edge(referent, value, kind, False, slack, row))
            else:
                edges.append(Edge(subject, -value, kind, True, slack, row))
        return edges

    def order(self, metric: str, key_a: dict, key_b: dict, independent=lambda row: True) -> tuple[int | None, list[dict]]:
        """+1 when a is above b, -1 below, through every reference both are compared with
        (None when none orders them, or two references disagree), and the rows used."""
        found: dict[int, list[dict]] = {}
        for a in self._edges(metric, key_a, independent):
            for b in self._edges(metric, key_b, independent):
                if a.reference != b.reference or a.kind != b.kind:
                    continue
                gap = a.signed - b.signed
                same_sign = (a.signed > 0) == (b.signed > 0) and a.signed != 0 and b.signed != 0
                if same_sign and a.reference_is_subject != b.reference_is_subject:
                    continue  # percentages of different bases: their sizes do not compare
                if abs(gap) <= a.slack + b.slack + 1e-9:  # 1.8 - 1.7 is 0.10000000000000009
                    continue
                found.setdefault(1 if gap > 0 else -1, []).extend([a.row, b.row])
        if len(found) != 1:
            return None, []
        sign, rows = next(iter(found.items()))
        return sign, rows
