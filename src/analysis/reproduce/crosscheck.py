"""Cross-checks of a study's whole published record, run automatically.

Each rule reads every row of the record (no hand-picked items) and returns
findings: the rule, a severity, the locators and verbatim text involved,
and the numbers that fail.

- ``printed twice differently``: one quantity (same cell, metric, statistic
  and comparison) printed more than once with different values;
- ``outside its printed range``: a value at a size outside the range, or
  beyond the maximum / minimum, printed for the same cell over sizes;
- ``percentage does not follow``: a percentage whose two operands are both
  printed, reproduced by neither base (a − b)/a nor (a − b)/b;
- ``above the link rate`` / ``percentage outside 0-100`` / ``negative
  value`` / ``jitter above delay``: plausibility against physics and method.

Severity: ``major`` when the finding changes what a reader concludes (values
that differ by more than 10 %, a point outside its range, a percentage no
base gives); ``minor`` for rounding-level disagreements; ``plausibility``
for numbers that physics or the method cannot give.
"""

from __future__ import annotations

import hashlib
import re

import pandas as pd

from analysis.reproduce.lookup import KEY_COLUMNS, Record, half_unit
from analysis.reproduce.pooled import said_of_a_group

FINDING_COLUMNS = ["id", "rule", "severity", "source", "quote", "recomputation", "found_by"]
LEVEL_STATS = ("mean", "level")
RANGE_LOW, RANGE_HIGH = ("range_min", "min"), ("range_max", "max")
PERCENT_METRICS = ("cpu_pct", "loss_pct")
MAJOR_SPREAD = 0.10


def _cell_key(row) -> tuple:
    return tuple("" if pd.isna(row[c]) else str(row[c]) for c in KEY_COLUMNS)


def _label(row) -> str:
    parts = [f"{c}={row[c]}" for c in KEY_COLUMNS if c != "testbed" and not pd.isna(row[c]) and str(row[c])]
    return ", ".join(parts) or "(no qualifiers)"


def _finding(record: Record, rule: str, severity: str, rows: list, text: str) -> dict:
    locators = sorted({str(r["locator"]) for r in rows})
    quotes = []
    for r in rows:
        if r["snippet"] not in quotes:
            quotes.append(r["snippet"])
    return {"id": "", "rule": rule, "severity": severity,
            "source": f"{record.study}.txt, " + "; ".join(locators),
            "quote": " … ".join(quotes), "recomputation": text, "found_by": "cross-check"}


UP_TO = ("max", "max_diff", "max_pct_diff")


def _within_the_groups_bound(group: pd.DataFrame) -> pd.DataFrame:
    """An 'up to' said of a group of OSes bounds each member's own 'up to' from above,
    to its printed precision: a member at or below it is no second, different printing
    of one number. Any other pairing is left to compare as it is."""
    said = group["_group"]
    if group["statistic"].iat[0] not in UP_TO or said.all() or not said.any():  # asked first: most groups end here
        return group
    bound, own = group[said], group[~said]
    if bound["value"].nunique() != 1:
        return group
    top = bound.iloc[0]
    slack = half_unit(top["value_as_printed"])
    return own if (own["value"] <= top["value"] + slack).all() else group


def repeated_quantities(record: Record) -> list[dict]:
    """The same quantity printed more than once, with different values."""
    rows = record.rows
    out = []
    keyed = rows.assign(_key=[(_cell_key(r), r["metric"], r["statistic"], str(r["compared_to"]).strip().lower())
                              for _, r in rows.iterrows()], _group=said_of_a_group(rows))
    for _, group in keyed.groupby("_key", sort=False):
        group = _within_the_groups_bound(group)
        values = sorted(set(group["value"]))
        if len(values) < 2 or group.iloc[0]["metric"] == "unspecified" or not group.iloc[0]["compared_to"] and \
                group.iloc[0]["statistic"] in ("pct_diff", "max_pct_diff", "diff", "max_diff"):
            continue  # a difference that names no comparison is no single quantity
        lo, hi = values[0], values[-1]
        spread = (hi - lo) / max(abs(hi), abs(lo)) if hi or lo else 0.0
        first = group.iloc[0]
        out.append(_finding(record, "printed twice differently", "major" if spread > MAJOR_SPREAD else "minor",
                            [r for _, r in group.iterrows()],
                            f"{first['metric']} {first['statistic']} at {_label(first)}"
                            + (f" vs {first['compared_to']}" if first["compared_to"] else "")
                            + f": printed as {', '.join(sorted(set(group['value_as_printed'])))}"))
    return out


def points_outside_ranges(record: Record) -> list[dict]:
    """A value printed at a size must lie within what is printed for its cell over sizes."""
    rows = record.rows
    over_sizes = rows[rows["size_bytes"].isna() & rows["statistic"].isin(RANGE_LOW + RANGE_HIGH)]
    points = rows[rows["size_bytes"].notna() & rows["statistic"].isin(LEVEL_STATS + ("max", "min"))]
    out = []
    for _, bound in over_sizes.iterrows():
        key = [c for c in KEY_COLUMNS if c != "size_bytes"]
        same = points[(points["metric"] == bound["metric"])]
        for c in key:
            same = same[same[c].astype(str).fillna("") == ("" if pd.isna(bound[c]) else str(bound[c]))]
        low = bound["statistic"] in RANGE_LOW
        bad = same[same["value"] < bound["value"]] if low else same[same["value"] > bound["value"]]
        for _, point in bad.iterrows():
            word = "below the lowest" if low else "above the highest"
            out.append(_finding(record, "outside its printed range", "major", [bound, point],
                                f"{point['metric']} at {_label(point)} is {point['value_as_printed']}, "
                                f"{word} value printed for it over sizes ({bound['value_as_printed']})"))
    return out


class _PrintedLevels:
    """The rows printing a level (mean, level, max, min), found by metric and
    cell: each cell named by its key columns as text, worked out once for the
    record (filtering the whole record again for each of study 004's 1,048
    percentages was 40 % of its reproduction)."""

    def __init__(self, rows: pd.DataFrame):
        self.rows = rows
        self.none = rows.iloc[:0]  # most comparisons name a cell printed nowhere
        texts = {c: rows[c].astype(str).fillna("") for c in KEY_COLUMNS}
        levels = rows["statistic"].isin(LEVEL_STATS + ("max", "min")) & rows["metric"].notna()
        self.cells: dict[tuple, list[int]] = {}
        for i in levels.to_numpy().nonzero()[0]:
            key = (rows["metric"].iat[i], *(texts[c].iat[i] for c in KEY_COLUMNS))
            self.cells.setdefault(key, []).append(i)

    def of(self, row, levels: dict) -> pd.DataFrame:
        """The printed level of the cell that ``row``'s comparison names (its other levels kept)."""
        wanted = [levels.get(c, row[c]) for c in KEY_COLUMNS]
        key = (row["metric"], *("" if pd.isna(w) else str(w) for w in wanted))
        found = self.cells.get(key)
        return self.rows.iloc[found] if found else self.none


_IP = re.compile(r"\bIPv([46])\b")


def _levels_named(text: str, vocabulary: dict[str, set]) -> dict:
    """The factor levels a ``compared_to`` text names (one level per factor, else unknown)."""
    named: dict = {}
    for column, levels in vocabulary.items():
        hits = {lv for lv in levels if lv and re.search(rf"(?<![\w-]){re.escape(lv)}(?![\w-])", text)}
        if column == "ip_version":
            hits = set(_IP.findall(text))
        if len(hits) == 1:
            named[column] = hits.pop()
        elif len(hits) > 1:
            named[column] = None
    return named


def percentages_follow(record: Record) -> list[dict]:
    """A percentage whose subject and comparison are both printed must follow from them."""
    rows = record.rows
    vocabulary = {c: set(rows[c].dropna().astype(str)) for c in ("os", "application", "transport", "host")}
    vocabulary["ip_version"] = {"4", "6"}
    out = []
    pct = rows[rows["statistic"].isin(["pct_diff"]) & (rows["compared_to"].astype(str) != "")]
    printed = _PrintedLevels(rows)
    for _, row in pct.iterrows():
        named = _levels_named(str(row["compared_to"]), vocabulary)
        if not named or None in named.values():
            continue
        a = printed.of(row, {})
        b = printed.of(row, named)
        if a.empty or b.empty or len(set(a["value"])) > 1 or len(set(b["value"])) > 1:
            continue
        va, vb = float(a["value"].iloc[0]), float(b["value"].iloc[0])
        if va == vb or min(va, vb) <= 0:
            continue
        candidates = {"(a − b)/a": 100 * abs(va - vb) / va, "(a − b)/b": 100 * abs(va - vb) / vb}
        tolerance = half_unit(row["value_as_printed"]) + 1e-9
        if any(abs(v - row["value"]) <= tolerance for v in candidates.values()):
            continue
        nearest = min(candidates, key=lambda f: abs(candidates[f] - row["value"]))
        off = abs(candidates[nearest] - row["value"])
        out.append(_finding(record, "percentage does not follow", "major" if off > 1 else "minor",
                            [row, a.iloc[0], b.iloc[0]],
                            f"printed {row['value_as_printed']}% between a = {va:g} ({_label(a.iloc[0])}) and "
                            f"b = {vb:g} ({_label(b.iloc[0])}); " +
                            "; ".join(f"{f} = {v:.3g}%" for f, v in candidates.items()) + "; no base gives it"))
    return out


def plausibility(record: Record) -> list[dict]:
    """Numbers that the link, the metric's definition or the method cannot give."""
    rows, out = record.rows, []
    link = record.design_value("link_rate_mbps")
    levels = rows[rows["statistic"].isin(LEVEL_STATS + ("max", "range_max"))]
    if link:
        fast = levels[(levels["metric"] == "throughput_mbps") & (levels["value"] > float(link))]
        for _, r in fast.iterrows():
            out.append(_finding(record, "above the link rate", "plausibility", [r],
                                f"throughput {r['value_as_printed']} Mbps at {_label(r)} exceeds the "
                                f"{float(link):g} Mbps the link can carry"))
    pct = levels[levels["metric"].isin(PERCENT_METRICS) & ((levels["value"] > 100) | (levels["value"] < 0))]
    for _, r in pct.iterrows():
        out.append(_finding(record, "percentage outside 0-100", "plausibility", [r],
                            f"{r['metric']} {r['value_as_printed']} at {_label(r)} is not a percentage"))
    jitter = levels[levels["metric"] == "jitter_ms"]
    for _, j in jitter.iterrows():
        delay = rows[(rows["metric"].isin(["owd_ms", "rtt_ms"])) & rows["statistic"].isin(LEVEL_STATS)]
        delay = delay[[all(str(d[c]) == str(j[c]) for c in KEY_COLUMNS) for _, d in delay.iterrows()]]
        for _, d in delay.iterrows():
            if j["value"] > d["value"]:
                out.append(_finding(record, "jitter above delay", "plausibility", [j, d],
                                    f"jitter {j['value_as_printed']} ms above the mean {d['metric']} "
                                    f"{d['value_as_printed']} ms at {_label(j)}: the delay's variation "
                                    "cannot exceed the delay by that much on a stable link"))
    return out


def duplicate_findings(findings: list[dict]) -> list[dict]:
    """One finding per rule and set of quotes (a repeated exception is one finding)."""
    seen, out = set(), []
    for f in findings:
        key = (f["rule"], f["quote"])
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def cross_check(record: Record) -> list[dict]:
    """Every automatic rule on the whole record, duplicates merged, each with a
    stable id: its rule, places and verbatim quotes hashed, so a finding keeps
    its id while other findings come and go (the regression guard's key)."""
    findings = duplicate_findings(repeated_quantities(record) + points_outside_ranges(record)
                                  + percentages_follow(record) + plausibility(record))
    seen: dict[str, int] = {}
    for f in findings:
        digest = hashlib.sha1("\n".join((f["rule"], f["source"], f["quote"])).encode()).hexdigest()[:10]
        seen[digest] = seen.get(digest, 0) + 1
        f["id"] = f"auto:{digest}" + (f".{seen[digest]}" if seen[digest] > 1 else "")
    return findings


__all__ = ["FINDING_COLUMNS", "cross_check"]
