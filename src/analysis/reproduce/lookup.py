"""Find what a study printed about one cell: mean, SD, a difference, runs per point.

A cell is a set of factor levels (``key``) over the record's columns.  Only
numbers printed *for that cell* count: an extreme without a size ("44.96 Mbps
for IPv4") is not the mean at any size, so it never fills a cell.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pandas as pd

from analysis.reproduce.claims import ClaimsFile, Evidence, load_claims
from analysis.reproduce.published import load_designs, load_published

KEY_COLUMNS = ("testbed", "os", "security", "ip_version", "transport", "size_bytes",
               "application", "host")
MEAN_STATS = ("mean", "max", "min")
DIFF_STATS = ("diff", "max_diff")
PCT_STATS = ("pct_diff", "max_pct_diff")
SECURITY_LABELS = {"open": "open system", "WPA2": "WPA2"}


@dataclass
class Record:
    """One study's published rows, its design and its claims file."""

    study: str
    rows: pd.DataFrame
    design: dict
    claims: ClaimsFile = field(default_factory=lambda: ClaimsFile(study="", claims=[]))

    @property
    def runs_per_point(self) -> int | None:
        """Runs per point as printed (None when the study does not print it)."""
        for item in self.design.get("design", []):
            if item["field"] == "runs_per_point":
                return item["value"]
        return None

    def design_value(self, name: str):
        for item in self.design.get("design", []):
            if item["field"] == name:
                return item["value"]
        return None


def load_record(study: str) -> Record:
    """The published record, design and claims of one study (by file stem)."""
    return Record(study, load_published(study), load_designs()[study], load_claims(study))


def level_label(factor: str, level) -> str:
    """How the record's ``compared_to`` text names a level (IPv6, open system, ...)."""
    if factor == "ip_version":
        return f"IPv{int(level)}"
    if factor == "security":
        return SECURITY_LABELS.get(level, str(level))
    return str(level)


def _same(series: pd.Series, value) -> pd.Series:
    """Column equals value; None matches a missing value (NA or empty text)."""
    if value is None:
        return series.isna() | (series.astype(str) == "")
    if series.dtype.kind in "iuf" or str(series.dtype) == "Int64":
        return series.astype("Float64").eq(float(value)).fillna(False)
    return series.astype(str) == str(value)


def match(rows: pd.DataFrame, key: dict) -> pd.Series:
    """Rows whose cell columns equal the key's levels (columns the key omits are free)."""
    mask = pd.Series(True, index=rows.index)
    for column, value in key.items():
        if column == "snippet_contains":
            mask &= rows["snippet"].str.contains(str(value), regex=False)
        else:
            mask &= _same(rows[column], value)
    return mask


_SUBSETS: dict[tuple[int, str, tuple], tuple[pd.DataFrame, pd.DataFrame]] = {}


def _subset(rows: pd.DataFrame, metric: str, statistics) -> pd.DataFrame:
    """The rows of one metric and statistics, computed once per record (a thesis has
    ~900 rows and ~1,600 claims: filtering the whole table per cell took minutes)."""
    key = (id(rows), metric, tuple(statistics))
    if key not in _SUBSETS:
        if len(_SUBSETS) > 512:
            _SUBSETS.clear()
        # the table itself is kept beside its subset, so its id cannot be reused while cached
        _SUBSETS[key] = (rows, rows[(rows["metric"] == metric) & rows["statistic"].isin(statistics)])
    return _SUBSETS[key][1]


def cell_rows(rows: pd.DataFrame, metric: str, key: dict, statistics) -> pd.DataFrame:
    """The cell's rows with one of ``statistics`` (size always part of the key)."""
    key = {"size_bytes": None, **key}
    subset = _subset(rows, metric, statistics)
    found = subset[match(subset, key)] if len(subset) else subset
    if key["size_bytes"] is None:  # an extreme over sizes is no cell's mean
        found = found[~found["statistic"].isin(("max", "min"))]
    return found


def single_value(found: pd.DataFrame) -> tuple[float | None, str]:
    """The printed value, and a note when the text prints it twice differently."""
    if found.empty:
        return None, ""
    values = sorted(set(found["value"]))
    note = "" if len(values) == 1 else f"printed differently: {', '.join(f'{v:g}' for v in values)}"
    return float(found["value"].iloc[0]), note


_IP = re.compile(r"\bIPv([46])\b")


def levels_named(text: str, factor: str, levels) -> set:
    """The levels of ``factor`` that a free-text ``compared_to`` names."""
    if factor == "ip_version":
        return {int(v) for v in _IP.findall(text)}
    named = set()
    for level in levels:
        labels = {str(level), level_label(factor, level)}
        if any(re.search(rf"(?<![\w-]){re.escape(lb)}(?![\w-])", text) for lb in labels if lb):
            named.add(level)
    return named


def side_sign(row: pd.Series) -> int | None:
    """+1 when the row's subject is the larger side, −1 when what it is compared with is, None when unstated."""
    side = str(row.get("larger_side", "") or "")
    return {"subject": 1, "compared": -1}.get(side)


def printed_difference(rows: pd.DataFrame, metric: str, factor: str, key_a: dict, key_b: dict,
                       statistics) -> tuple[float | None, pd.Series | None]:
    """Signed a − b from a printed difference on cell a (or b) whose ``compared_to``
    names the other level (and no third one); the sign is the record's ``larger_side``.
    A difference whose larger side the text does not state gives no sign: not used."""
    levels = rows[factor].dropna().unique() if factor in rows else []
    for key, other, sign in ((key_a, key_b, 1), (key_b, key_a, -1)):
        found = cell_rows(rows, metric, key, statistics)
        for _, row in found.iterrows():
            named = levels_named(str(row["compared_to"]), factor, levels)
            if named != {other[factor]}:
                continue
            larger = side_sign(row)
            if larger is not None:
                return sign * larger * float(row["value"]), row
    return None, None


def evidence_row(rows: pd.DataFrame, evidence: Evidence) -> pd.Series:
    """The one record row an explicit evidence entry names (error if not exactly one)."""
    found = rows[match(rows, evidence.where)]
    if len(found) != 1:
        raise LookupError(f"evidence {evidence.where} selects {len(found)} rows, expected 1")
    return found.iloc[0]


def operand_value(rows: pd.DataFrame, where: dict) -> float:
    """A derived number's operand: the value of the rows ``where`` selects (all equal)."""
    found = rows[match(rows, where)]
    values = set(found["value"])
    if len(values) != 1:
        raise LookupError(f"operand {where} selects values {sorted(values)}, expected one value")
    return float(values.pop())


LOW_STATS, HIGH_STATS = ("range_min", "min"), ("range_max", "max")


def extremes(rows: pd.DataFrame, metric: str, key: dict) -> tuple[float | None, float | None, list[str]]:
    """Lowest and highest value printed for a cell over all sizes (a range,
    or a minimum / maximum printed without its size), and their snippets."""
    found = rows[match(rows, {"size_bytes": None, **key}) & (rows["metric"] == metric)]
    low = found[found["statistic"].isin(LOW_STATS)]
    high = found[found["statistic"].isin(HIGH_STATS)]
    lo = float(low["value"].min()) if not low.empty else None
    hi = float(high["value"].max()) if not high.empty else None
    return lo, hi, list(low["snippet"]) + list(high["snippet"])
