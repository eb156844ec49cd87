"""Find what a study printed about one cell: mean, SD, a difference, runs per point.

A cell is a set of factor levels (``key``) over the record's columns.  Only
numbers printed *for that cell* count: an extreme without a size ("44.96 Mbps
for IPv4") is not the mean at any size, so it never fills a cell.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import pandas as pd

from analysis.reproduce.claims import ClaimsFile, Evidence, load_claims
from analysis.reproduce.pooled import Similar, said_of_a_group, similar_statements
from analysis.reproduce.published import load_designs, load_published
from analysis.reproduce.stated_sizes import direction_rows, load_doubtful, load_stated_sizes, unnamed_size_rows

KEY_COLUMNS = ("testbed", "os", "security", "ip_version", "transport", "size_bytes",
               "application", "host")
MEAN_STATS = ("mean", "max", "min")
DIFF_STATS = ("diff", "max_diff")
PCT_STATS = ("pct_diff", "max_pct_diff")
LOW_STATS, HIGH_STATS = ("range_min", "min"), ("range_max", "max")
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

    @cached_property
    def index(self) -> "RowIndex":
        """The rows indexed for lookups (built on first use)."""
        return RowIndex(self.evidence_rows, similar_statements(self.claims), self.rows)

    @cached_property
    def references(self):
        """The printed differences as edges between cells, for orders read through a
        common reference (:mod:`analysis.reproduce.common_reference`)."""
        from analysis.reproduce.common_reference import References  # it builds on this module
        return References(self.index)

    @cached_property
    def evidence_rows(self) -> pd.DataFrame:
        """The rows a claim may be judged on: all but those whose subject the text labels
        doubtfully (:func:`load_doubtful`)."""
        return self.rows[~self.rows["id"].isin(load_doubtful()["row"])]

    @cached_property
    def directions(self) -> "RowIndex":
        """The orders printed differences state at sizes other than their own
        (:mod:`analysis.reproduce.stated_sizes`), indexed like the rows."""
        return RowIndex(direction_rows(self.evidence_rows, self._stated_sizes), similar_statements(self.claims),
                        self.rows)

    @cached_property
    def _stated_sizes(self) -> pd.DataFrame:
        return load_stated_sizes()

    @cached_property
    def one_size_rows(self) -> frozenset[str]:
        """Rows printed for no size that the text ties to one unnamed size
        (:func:`analysis.reproduce.stated_sizes.unnamed_size_rows`)."""
        return unnamed_size_rows(self._stated_sizes)

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


def _numeric(series: pd.Series) -> bool:
    return series.dtype.kind in "iuf" or str(series.dtype) == "Int64"


def _same(series: pd.Series, value) -> pd.Series:
    """Column equals value; None matches a missing value (NA or empty text)."""
    if value is None:
        return series.isna() | (series.astype(str) == "")
    if _numeric(series):
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


def single_value(found: pd.DataFrame) -> tuple[float | None, str]:
    """The printed value, and a note when the text prints it twice differently."""
    if found.empty:
        return None, ""
    values = sorted(set(found["value"]))
    note = "" if len(values) == 1 else f"printed differently: {', '.join(f'{v:g}' for v in values)}"
    return float(found["value"].iloc[0]), note


_IP = re.compile(r"\bIPv([46])\b")


def _short_names(factor: str, level, levels) -> set:
    """A level the text also names without its first word ("G.711.2" for VoIP G.711.2,
    "Server 2003" for Windows Server 2003, "Quake3" for games Quake3), where that
    remainder is three characters or more and no other level's name."""
    if factor not in ("os", "application"):
        return set()
    words = str(level).split(" ", 1)
    rest = words[1] if len(words) == 2 else ""
    if len(rest) < 3 or any(rest == str(other) for other in levels):
        return set()
    return {rest}


def levels_named(text: str, factor: str, levels) -> set:
    """The levels of ``factor`` that a free-text ``compared_to`` names."""
    return set(_levels_named(text, factor, tuple(levels)))


@lru_cache(maxsize=1 << 16)  # a study's few thousand compared_to texts are read tens of thousands of times
def _levels_named(text: str, factor: str, levels: tuple) -> frozenset:
    if factor == "ip_version":
        return frozenset(int(v) for v in _IP.findall(text))
    named = set()
    for level in levels:
        labels = {str(level), level_label(factor, level)} | _short_names(factor, level, levels)
        if any(re.search(rf"(?<![\w-]){re.escape(lb)}(?![\w-])", text) for lb in labels if lb):
            named.add(level)
    # "games Quake3" names Quake3, not also the generic level "games" its name contains
    return frozenset(level for level in named
                     if not any(other != level and str(level) in str(other) for other in named))


_THE_OTHERS = re.compile(r"(the )?(other|rest of the|any (of the )?other)\b[^,(]*\b(OS|OSes|operating systems)\b",
                         re.IGNORECASE)


def others_named(row, factor: str, levels) -> set:
    """The OSes a ``compared_to`` such as "other five OSes" or "any of the other operating
    systems" names: every OS of the study but the row's own (empty for another factor, or
    a ``compared_to`` that names its OSes or does not start so)."""
    if factor != "os" or not _THE_OTHERS.match(str(row.get("compared_to", "") or "")):
        return set()
    return {level for level in levels if str(level) != "" and level != row.get("os")}


def half_unit(printed) -> float:
    """Half a unit of the last printed digit ("0.19" -> 0.005): how far a value may lie
    from a number and still be printed as it."""
    text = str(printed).replace(",", "")
    return 0.5 * 10 ** -(len(text.split(".")[1]) if "." in text else 0)


_OF_EXTREMES = re.compile(r"\((minima|maxima)\)")


def crosses(row, open_factors, levels_of) -> bool:
    """Whether a printed difference compares across one of ``open_factors`` ("Ubuntu IPv4
    was 2 % above Fedora IPv6"): its ``compared_to`` names a level other than its own."""
    text = str(row.get("compared_to", "") or "")
    return any(levels_named(text, f, levels_of(f)) - {row[f]} for f in open_factors
               if f in row and pd.notna(row[f]) and str(row[f]) != "")


def _pins_all(key: dict, row, compared: str, levels_of) -> bool:
    """Whether the cell fixes every qualifier the row was printed with (its size, and a
    qualifier with one level in the whole study, aside): a statement naming several levels
    ("2.6 % more than Windows Server 2008 and Windows 7") is taken for each of them only
    in a cell that leaves nothing of the statement open."""
    return all(key.get(column) is not None for column in KEY_COLUMNS
               if column not in (compared, "size_bytes") and column in row
               and pd.notna(row[column]) and str(row[column]) != "" and len(levels_of(column)) > 1)


def scope_conflicts(row, key: dict, compared: str, levels_of) -> list[str]:
    """Why a printed row cannot be evidence for the cell ``key`` of a comparison of
    ``compared`` (empty when it can): a qualifier of the row that is not the cell's
    (a number about IPv6 against a claim about IPv4), or a ``compared_to`` that names
    another level of a factor the cell fixes (each OS's number compared with OpenSUSE's)."""
    why = []
    for column in KEY_COLUMNS:
        wanted = key.get(column)
        if column == compared or wanted is None or column not in row:
            continue
        have = row[column]
        if pd.notna(have) and str(have) != "" and not _equal(have, wanted):
            why.append(f"its {column} is {have}, the cell's is {wanted}")
    text = str(row.get("compared_to", "") or "")
    for column in KEY_COLUMNS:
        wanted = key.get(column)
        if column == compared or wanted is None or not text:
            continue
        named = levels_named(text, column, levels_of(column))
        if named and not any(_equal(level, wanted) for level in named):
            why.append(f"it is compared with {text!r}, outside the cell's {column} {wanted}")
    return why


def _words(text: str) -> str:
    return " ".join(str(text).split()).lower()


def same_sentence(quote: str, snippet: str) -> bool:
    """The evidence is the claim's own sentence (one contains the other): a restatement, not evidence."""
    q, t = _words(quote), _words(snippet)
    return bool(q and t) and (q in t or t in q)


_MEASURE = re.compile(r"(?<![\w.-])\d+(?:\.\d+)?\s*(?:%|mbps|ms)(?!\w)")
_TOKEN = re.compile(r"[\w.%-]+")
_SENTENCE_END = re.compile(r"(?<=[.;])\s+(?=[A-Z])")
# the formula a sentence opens with to cite its figure: said alike of different findings, it is no part of them
_OPENER = re.compile(r"^(?:based on the graph \w+ in figure [\w.-]+,|according to figure [\w.-]+,)(?: it can be \w+ that,?)?\s*")
SAID_AGAIN_WORDS = 12  # a claim this long, or longer,
SAID_AGAIN_SHARE = 0.85  # and one sentence of the other text share this much of the shorter's words, in order


@lru_cache(maxsize=1 << 16)  # asked of the same claim and row for each of a claim's cells
def said_again(quote: str, snippet: str) -> bool:
    """A second printing of the claim's finding ("Moreover, Figure 5-1-3 concluded that
    excluding frame size 4329 Bytes ... Windows Server 2003 on IPv4 produced 8% lower
    throughput values than the rest", after 5.1.1 said the same): one sentence of the
    other text prints the measures the claim prints and no other (percentages, Mbps, ms), and the
    shorter of the two is nearly all in the longer, in order (difflib's matching blocks,
    leaving out the formula that cites a figure: the thesis's "Based on the graph
    presented in Figure …, it can be said that" opens many sentences that are not it).
    Short texts never count: "IPv4 outperformed IPv6" is in many sentences."""
    quote = _OPENER.sub("", quote.strip().lower())
    words = _TOKEN.findall(quote)
    measures = {m.replace(" ", "") for m in _MEASURE.findall(quote)}
    if len(words) < SAID_AGAIN_WORDS or not measures:
        return False
    for sentence in _SENTENCE_END.split(snippet):
        text = _OPENER.sub("", sentence.strip().lower())
        other = _TOKEN.findall(text)
        if len(other) < SAID_AGAIN_WORDS or measures != {m.replace(" ", "") for m in _MEASURE.findall(text)}:
            continue  # a sentence that adds a number of its own says more than the claim
        blocks = difflib.SequenceMatcher(None, words, other, autojunk=False).get_matching_blocks()
        if sum(b.size for b in blocks) >= SAID_AGAIN_SHARE * min(len(words), len(other)):
            return True
    return False


def _equal(have, wanted) -> bool:
    try:
        return float(have) == float(wanted)
    except (TypeError, ValueError):
        return str(have) == str(wanted)


def side_sign(row) -> int | None:
    """+1 when the row's subject is the larger side, −1 when what it is compared with is, None when unstated."""
    side = str(row.get("larger_side", "") or "")
    return {"subject": 1, "compared": -1}.get(side)


def _normalised(series: pd.Series) -> list:
    """A column as plain Python values compared the way :func:`_same` compares them:
    None for missing (NA or empty text), floats for numeric columns, text otherwise."""
    missing = (series.isna() | (series.astype(str) == "")).tolist()
    if _numeric(series):
        values = series.astype("Float64").tolist()
    else:
        values = series.astype(str).tolist()
    return [None if gone else v for v, gone in zip(values, missing)]


class RowIndex:
    """The record's rows indexed for the verdicts' many small lookups.

    A thesis has ~1,200 rows and ~2,400 claims, each asking for a handful of
    cells: a full-table pandas mask per lookup took minutes.  Rows are grouped
    once by (metric, statistic), compared as plain Python values, and each
    answer is kept, so a cell asked for by many claims is found once.
    """

    def __init__(self, rows: pd.DataFrame, similar: list[Similar] | None = None, levels_of: pd.DataFrame | None = None):
        self.rows = rows
        self._levels_of = rows if levels_of is None else levels_of  # the record whose levels name sides
        self._pooled = said_of_a_group(rows).tolist()
        self._similar: dict[tuple[str, str], list[Similar]] = {}  # by (metric, factor): most lookups meet none
        for statement in similar or []:
            self._similar.setdefault((statement.metric, statement.factor), []).append(statement)
        self._numeric = {c for c in rows.columns if _numeric(rows[c])}
        self._columns = {c: _normalised(rows[c]) for c in rows.columns
                         if c in (*KEY_COLUMNS, "metric", "statistic", "locator", "unit", "id")}
        self._by_metric_stat: dict[tuple, list[int]] = {}
        for pos, ms in enumerate(zip(rows["metric"].tolist(), rows["statistic"].tolist())):
            self._by_metric_stat.setdefault(ms, []).append(pos)
        self._records = rows.to_dict("records")
        self._locators = dict(zip(self._columns["id"], self._columns["locator"]))
        self._answers: dict[tuple, list[int]] = {}
        self._frames: dict[tuple, pd.DataFrame] = {}
        self._scoped: dict[tuple, tuple[pd.DataFrame, str]] = {}
        self._levels: dict[str, list] = {}

    def _positions(self, metric: str | None, statistics, key: dict) -> list[int]:
        if metric is None:
            candidates: list[int] = list(range(len(self.rows)))
        else:
            candidates = sorted(p for s in statistics for p in self._by_metric_stat.get((metric, s), []))
        for column, value in key.items():
            if column not in self._columns:  # free text (snippet_contains) or a rare column
                ok = match(self.rows.iloc[candidates], {column: value}).tolist()
                candidates = [p for p, keep in zip(candidates, ok) if keep]
                continue
            wanted = None if value is None else float(value) if column in self._numeric else str(value)
            values = self._columns[column]
            candidates = [p for p in candidates if values[p] == wanted]
        return candidates

    def _cached(self, key: dict, metric: str | None, statistics, no_extremes: bool = False) -> list[int]:
        # the key's items by their repr (1 and 1.0 and "1" apart), as one string: built in C, not item by item
        cache_key = (metric, tuple(statistics), no_extremes, repr(sorted(key.items())))
        if cache_key not in self._answers:
            found = self._positions(metric, statistics, key)
            if no_extremes:
                stats = self._columns["statistic"]
                found = [p for p in found if stats[p] not in ("max", "min")]
            self._answers[cache_key] = found
        return self._answers[cache_key]

    def select(self, key: dict, metric: str | None = None, statistics=()) -> pd.DataFrame:
        """Rows matching ``key`` (of ``metric`` with one of ``statistics`` when given);
        the same frame as ``rows[match(rows, key)]``, in the record's order."""
        return self._frame(self._cached(key, metric, statistics))

    def _frame(self, positions: list[int]) -> pd.DataFrame:
        """The rows at ``positions`` (one frame per distinct answer: a take costs ~1 ms)."""
        key = tuple(positions)
        if key not in self._frames:
            self._frames[key] = self.rows.iloc[positions]
        return self._frames[key]

    def levels(self, factor: str) -> list:
        """The levels the record names for ``factor`` (for reading ``compared_to``)."""
        if factor not in self._levels:
            of = self._levels_of
            self._levels[factor] = list(of[factor].dropna().unique()) if factor in of else []
        return self._levels[factor]

    def _cell(self, metric: str, key: dict, statistics) -> list[int]:
        key = {"size_bytes": None, **key}
        # an extreme over sizes is no cell's mean
        return self._cached(key, metric, statistics, no_extremes=key["size_bytes"] is None)

    def cell_rows(self, metric: str, key: dict, statistics) -> pd.DataFrame:
        """The cell's rows with one of ``statistics`` (size always part of the key)."""
        return self._frame(self._cell(metric, key, statistics))

    def scoped_cell_rows(self, metric: str, key: dict, statistics) -> tuple[pd.DataFrame, str]:
        """The cell's rows (:meth:`cell_rows`), refused when they span levels of a
        factor the cell does not fix (a claim silent on transport judged on TCP's
        number and UDP's): which of them the claim speaks of is not known. Then
        no rows, and why."""
        positions = self._cell(metric, key, statistics)
        free = tuple(c for c in KEY_COLUMNS if c not in key and c in self._columns)  # _columns: each key column of rows
        cache_key = (tuple(positions), free)
        if cache_key not in self._scoped:
            self._scoped[cache_key] = self._one_scope(positions, free)
        return self._scoped[cache_key]

    def _one_scope(self, positions: list[int], free: tuple[str, ...]) -> tuple[pd.DataFrame, str]:
        found = self._frame(positions)
        for column in free:
            levels = {str(v) for v in (self._records[p][column] for p in positions) if pd.notna(v) and str(v) != ""}
            if len(levels) > 1:
                return found.iloc[0:0], f"printed for several {column} levels ({', '.join(sorted(levels))}): not used"
        return found, ""

    def printed_difference(self, metric: str, factor: str, key_a: dict, key_b: dict, statistics,
                           summary=lambda row: False, accept=lambda row: True) -> tuple[float | None, dict | None]:
        """Signed a − b from a printed difference on cell a (or b) whose ``compared_to``
        names the other level: alone, or beside others in a cell that pins every qualifier of
        the statement (:func:`_pins_all`); the sign is the record's ``larger_side``.
        A difference whose larger side the text does not state gives no sign: not used.
        A row that restates the claim (``summary``: its own sentence, the study's summary) is taken only when no other is printed.
        A number said of a group of OSes is not taken for a pair the text, naming that OS,
        calls similar (:mod:`analysis.reproduce.pooled`)."""
        levels = self.levels(factor)
        found = []
        similar = any(s.covers(metric, factor, key_a, key_b) for s in self._similar.get((metric, factor), ()))
        for key, other, sign in ((key_a, key_b, 1), (key_b, key_a, -1)):
            for pos in self._cell(metric, key, statistics):
                row = self._records[pos]
                if _OF_EXTREMES.search(str(row["compared_to"])) or self._of_peaks(metric, row, key, other):
                    continue  # a difference of two curves' minima or maxima is no cell's difference
                named = levels_named(str(row["compared_to"]), factor, levels)
                others = set() if named else others_named(row, factor, levels)
                named = named or others
                each = len(named) > 1 and key[factor] not in named and _pins_all(key, row, factor, self.levels)
                if not (named == {other[factor]} or (each and other[factor] in named)) \
                        or scope_conflicts(row, key, factor, self.levels):
                    continue
                if similar and (self._pooled[pos] or others):
                    continue  # the group's number, where this OS's own sentence says "similar"
                if not accept(row):
                    continue
                larger = side_sign(row)
                if larger is not None:
                    found.append((sign * larger * float(row["value"]), row))
        found.sort(key=lambda item: bool(summary(item[1])))  # stable: the record's order otherwise
        return found[0] if found else (None, None)

    def _of_peaks(self, metric: str, row: dict, key: dict, other: dict) -> bool:
        """A difference printed for no size that is the two curves' printed peaks apart ("IPv4
        reached 652 Mbps while IPv6 reached 568 … higher by 84 Mbps"): the order at the peaks,
        not over the sizes; the peaks themselves bear on the claim as printed extremes."""
        if key.get("size_bytes") is not None or not pd.isna(row.get("size_bytes")):
            return False
        hi_a, hi_b = self.extremes(metric, key)[1], self.extremes(metric, other)[1]
        if hi_a is None or hi_b is None or hi_a == hi_b:
            return False
        slack = half_unit(row["value_as_printed"])
        value = float(row["value"])
        if row["statistic"] in DIFF_STATS:
            return abs(abs(hi_a - hi_b) - value) <= slack
        return any(abs(100 * abs(hi_a - hi_b) / base - value) <= slack for base in (hi_a, hi_b) if base)

    def row(self, row_id: str) -> dict:
        """The record row ``row_id`` (a plain dict)."""
        if not hasattr(self, "_by_id"):
            self._by_id = {r["id"]: r for r in self._records}
        return self._by_id[row_id]

    def locator_of(self, row_id: str) -> str:
        """Where in the text the row ``row_id`` was printed (section, figure or table)."""
        return str(self._locators[row_id])

    def evidence_row(self, evidence: Evidence) -> pd.Series:
        """The one record row an explicit evidence entry names (error if not exactly one)."""
        found = self.select(evidence.where)
        if len(found) != 1:
            raise LookupError(f"evidence {evidence.where} selects {len(found)} rows, expected 1")
        return found.iloc[0]

    def operand_value(self, where: dict) -> float:
        """A derived number's operand: the value of the rows ``where`` selects (all equal)."""
        values = set(self.select(where)["value"])
        if len(values) != 1:
            raise LookupError(f"operand {where} selects values {sorted(values)}, expected one value")
        return float(values.pop())

    def extremes(self, metric: str, key: dict) -> tuple[float | None, float | None, list[int]]:
        """Lowest and highest value printed for a cell over all sizes (a range,
        or a minimum / maximum printed without its size), and the positions of
        the rows they come from (:meth:`rows_at`)."""
        key = {"size_bytes": None, **key}
        low = self._cached(key, metric, LOW_STATS)
        high = self._cached(key, metric, HIGH_STATS)
        lo = float(self._frame(low)["value"].min()) if low else None
        hi = float(self._frame(high)["value"].max()) if high else None
        return lo, hi, low + high

    def rows_at(self, positions: list[int]) -> pd.DataFrame:
        """The record's rows at ``positions``, in that order (as ``pd.concat`` of
        the parts would give them, without its cost on every small lookup)."""
        return self._frame(positions)
