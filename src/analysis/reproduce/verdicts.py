"""Classify and judge each published claim from the printed numbers alone.

Per cell of a claim (one combination of its ``per`` factors):

- *tested*: the difference of means is printed (two means, or the difference
  itself) and so are both SDs and the runs per point -> Welch t from the
  summaries, two-sided; p adjusted across the claim's tested cells (Holm);
- *descriptive*: a difference (or percentage) is printed but not the SDs or
  the runs -> the sign is checked, no p-value;
- *unjudged*: nothing printed for the cell; the missing numbers are named.

A claim is tested if any cell is, else descriptive if any cell is, else
untestable; "all sizes" claims are judged only at the cells with numbers,
and the table says at which.

Every study claim is *post hoc* (``registration``): its direction is read
from the study's text, written after its authors saw their data.  A
one-sided test is honest only for a direction registered before the data
existed, so a greater/less claim is tested two-sided (post hoc,
exploratory): supported when p_adj < α and the difference points the
claimed way, contradicted when p_adj < α the other way, else inconclusive.
The one-sided p-values are kept beside it (``p_adj_one_sided``), and a claim
whose verdict they would have changed says so, with both p-values, in its
note.
"""

from __future__ import annotations

import re
from itertools import combinations, product
from typing import Any

import numpy as np
import pandas as pd

from analysis.errors import ClaimsError
from analysis.reproduce.claims import Claim
from analysis.stats import adjust, directional_p, hedges_g_from_stats, tost_from_stats, welch_from_stats
from analysis.verdicts.registration import POST_HOC
from analysis.verdicts.rules import (Verdict, aggregate, over_groups, sign_aggregate, sign_verdict, tested_verdict,
                                     where_printed)
from analysis.verdicts.text import claim_text
from analysis.reproduce.stated_sizes import DIRECTION, source_row
from analysis.reproduce.lookup import (DIFF_STATS, KEY_COLUMNS, MEAN_STATS, PCT_STATS, Record, level_label,
                                      crosses, half_unit, said_again, same_sentence, scope_conflicts,
                                      single_value)

CLASSES = ("tested", "descriptive", "untestable")
ALPHA = 0.05
# A study's claims are read from its text after its authors saw the data: none was registered before.
REGISTRATION = POST_HOC.label
WELCH_TEST = "Welch t, two-sided (post hoc, exploratory)"
TOST_TEST = "TOST, two one-sided Welch tests of the margin (post hoc, exploratory)"
WHY_TWO_SIDED = "a direction read from the text after the data is not a pre-registered one-sided hypothesis"
CLAIM_COLUMNS = [
    "id", "quote", "source", "headline", "study_verdict", "metric", "claim", "over", "class", "registration", "verdict",
    "judged", "holds_at", "judged_at", "p_adj", "p_adj_one_sided", "diff", "hedges_g", "missing", "note",
]
CELL_COLUMNS = [
    "id", "cell", "a", "b", "mean_a", "sd_a", "mean_b", "sd_b", "n", "diff", "diff_source",
    "pct", "class", "registration", "test", "statistic", "df", "p", "p_adj", "p_adj_one_sided", "hedges_g",
    "verdict", "verdict_one_sided", "missing", "note",
]


# ---------------------------------------------------------------- cells

def _as_list(value) -> list:
    return value if isinstance(value, list) else [value]


def _per(claim: Claim) -> list[str]:
    """The claim's cell factors: ``per``, plus any factor whose scope lists several levels
    ("at sizes 384 and 640" holds at each of them)."""
    listed = [f for f, v in claim.scope.items() if isinstance(v, list) and f not in claim.per]
    return [*claim.per, *listed]


def _expand(claim: Claim, record: Record) -> list[dict]:
    """Every cell of the claim: scope levels × ``per`` levels (sizes from the design)."""
    per = _per(claim)
    fixed = {f: v for f, v in claim.scope.items() if f not in per}
    levels = []
    for factor in per:
        if factor in claim.scope:
            levels.append(_as_list(claim.scope[factor]))
        elif factor == "size_bytes":
            levels.append(list(record.design_value("sizes_bytes")))
        else:
            levels.append(_record_levels(record, claim.metric, factor, claim.id))
    cells = [{**fixed, **dict(zip(per, combo))} for combo in product(*levels)]
    return [c for c in cells if not _excluded(claim, c)]


def _excluded(claim: Claim, cell: dict) -> bool:
    """A cell the claim's named exceptions (the study's own) leave out."""
    return any(all(cell.get(k) == v for k, v in ex.items()) for ex in claim.exclude)


def _record_levels(record: Record, metric: str, factor: str, claim_id: str) -> list:
    """A per-factor the claim gives no levels for: every level the record prints for the metric."""
    column = record.rows.loc[record.rows["metric"] == metric, factor].dropna()
    levels = sorted({v for v in column if str(v) != ""}, key=str)
    if not levels:
        raise ClaimsError(f"claim {claim_id}: per-factor {factor!r} has no levels in scope or in the record")
    return [int(v) if factor == "ip_version" else v for v in levels]


def _cell_label(claim: Claim, cell: dict) -> str:
    parts = [f"{level_label(f, cell[f]) if f in ('ip_version', 'security') else cell[f]}"
             for f in _per(claim)]
    return ", ".join(str(p) for p in parts) or "all"


def _two_levels(claim: Claim) -> tuple:
    """The compared levels a and b (published claims compare single levels, never groups)."""
    levels = claim.compared.all_levels()
    return levels[0], levels[-1]


def _evidence_for(claim: Claim, cell: dict):
    for ev in claim.evidence:
        if all(cell.get(k) == v for k, v in ev.cell.items()):
            yield ev


def _collect(claim: Claim, record: Record, cell: dict) -> dict:
    """The printed numbers of one cell: means, SDs, a difference, a percentage."""
    index, factor = record.index, claim.compared.factor
    level_a, level_b = _two_levels(claim)
    key_a, key_b = {**cell, factor: level_a}, {**cell, factor: level_b}
    if claim.cross_cell:  # a cross-cell claim: its evidence only, no side's own cell
        (found_a, mixed_a), (found_b, mixed_b) = (index.rows.iloc[:0], ""), (index.rows.iloc[:0], "")
    else:
        found_a, mixed_a = index.scoped_cell_rows(claim.metric, key_a, MEAN_STATS)
        found_b, mixed_b = index.scoped_cell_rows(claim.metric, key_b, MEAN_STATS)
    mean_a, note_a = single_value(found_a)
    mean_b, note_b = single_value(found_b)
    sd_a, _ = single_value(index.scoped_cell_rows(claim.metric, key_a, ("sd",))[0])
    sd_b, _ = single_value(index.scoped_cell_rows(claim.metric, key_b, ("sd",))[0])
    out: dict[str, Any] = {"a": level_label(factor, level_a), "b": level_label(factor, level_b),
           "mean_a": mean_a, "mean_b": mean_b, "sd_a": sd_a, "sd_b": sd_b,
           "n": record.runs_per_point, "diff": None, "diff_source": "", "pct": None, "direction": None,
           "note": "; ".join(n for n in (note_a, note_b, mixed_a, mixed_b) if n), "snippets": [], "rows": []}
    row = None
    for ev in _evidence_for(claim, cell):
        row = index.evidence_row(ev)
        outside = scope_conflicts(row, cell, factor, index.levels)
        if outside:
            raise ClaimsError(f"claim {claim.id}: evidence {dict(ev.where)} is outside the cell {cell}: "
                              + "; ".join(outside))
        key = "pct" if row["statistic"] in PCT_STATS else "diff"
        out[key] = ev.sign * float(row["value"])
        out["diff_source"] = f"printed ({row['locator']}: {row['value_as_printed']} {row['unit']})"
        out["snippets"], out["rows"] = [row["snippet"]], [row["id"]]
    if out["diff"] is None and mean_a is not None and mean_b is not None and _same_setting(found_a, found_b, cell, factor):
        out["diff"], out["diff_source"] = mean_a - mean_b, "printed means"
        out["snippets"] = [found_a["snippet"].iloc[0], found_b["snippet"].iloc[0]]
        out["rows"] = [found_a["id"].iloc[0], found_b["id"].iloc[0]]
    accept = _across(claim, index) if claim.cross_cell else (lambda r: True)
    if out["diff"] is None:
        out["diff"], row = index.printed_difference(claim.metric, factor, key_a, key_b, DIFF_STATS,
                                                    lambda r: restates(claim, record, r), accept)
        if row is not None:
            out["diff_source"] = f"printed difference ({row['locator']}: {row['value_as_printed']} {row['unit']})"
            out["snippets"], out["rows"] = [row["snippet"]], [row["id"]]
    if out["pct"] is None and out["diff"] is None:
        out["pct"], row = index.printed_difference(claim.metric, factor, key_a, key_b, PCT_STATS,
                                                   lambda r: restates(claim, record, r), accept)
        if row is not None:
            out["diff_source"] = f"printed percentage ({row['locator']}: {row['value_as_printed']}%)"
            out["snippets"], out["rows"] = [row["snippet"]], [row["id"]]
    if out["pct"] is None and out["diff"] is None or _restating_only(claim, record, out["rows"]):
        _order_only(claim, record, out, key_a, key_b, accept)
    # a number known only from the claim's own sentence is no evidence for it, even beside an independent one
    out["restated"] = bool(out["snippets"]) and (any(_own_words(claim, record, t) for t in out["snippets"])
                                                 or any(r in claim.sentence_rows for r in out["rows"]))
    if out["restated"]:
        out["diff_source"] += " — the claim's own sentence"
    elif out["rows"] and all(_in_summary(record, r) for r in out["rows"]):
        out["restated"] = True
        out["diff_source"] += " — the study's own summary (abstract, conclusions or discussion), not a measurement"
    elif row is not None and out["rows"] == [row["id"]] and derived_from_quote(claim.quote, row):
        out["restated"] = True
        out["diff_source"] += " — the difference of the claim's own two numbers"
    return out


def _same_setting(found_a: pd.DataFrame, found_b: pd.DataFrame, cell: dict, factor: str) -> bool:
    """Whether two sides' printed means were printed for the same setting: on every
    qualifier the cell leaves open (testbed, IP version, transport …), the rows of
    one side say what the other's say. Windows' client-server mean beside Ubuntu's
    peer-to-peer mean at one size is no difference of the two OSes."""
    for column in KEY_COLUMNS:
        if column == factor or column in cell:
            continue
        a = {str(v) for v in found_a[column] if pd.notna(v) and str(v) != ""}
        b = {str(v) for v in found_b[column] if pd.notna(v) and str(v) != ""}
        if a != b:
            return False
    return True


def _order_only(claim: Claim, record: Record, out: dict, key_a: dict, key_b: dict, accept) -> None:
    """Where no number is printed for the cell, or only a restatement, an order printed
    independently decides it: a direction said of several sizes
    (:mod:`.stated_sizes`), else one read through a common reference
    (:mod:`.common_reference`). Only its sign is evidence."""
    independent = lambda r: not restates(claim, record, r)  # noqa: E731
    nothing = out["pct"] is None and out["diff"] is None
    direction, row = record.directions.printed_difference(claim.metric, claim.compared.factor, key_a, key_b,
                                                          (DIRECTION,), lambda r: not independent(r), accept)
    if row is not None and (nothing or independent(row)):
        through, source = [row], f"printed order, said of several sizes ({row['locator']}: {row['stated']})"
    elif claim.cross_cell:
        return
    else:
        direction, through = record.references.order(claim.metric, key_a, key_b, independent)
        if direction is None:
            return
        source = "printed order through a common reference (" + "; ".join(map(_statement, through)) + ")"
    out["diff"] = out["pct"] = None
    out["direction"], out["diff_source"] = direction, source
    out["snippets"], out["rows"] = [r["snippet"] for r in through], [source_row(r["id"]) for r in through]


def _statement(row: dict) -> str:
    """A printed difference in a few words: "section 5.3.1: Ubuntu, IPv6, DNS 2 % below Windows Server 2008"."""
    subject = ", ".join(level_label(c, row[c]) for c in KEY_COLUMNS
                        if c != "testbed" and row.get(c) is not None and pd.notna(row[c]) and str(row[c]) != "")
    way = {"subject": "above", "compared": "below"}[str(row["larger_side"])]
    return f"{row['locator']}: {subject} {row['value_as_printed']} {row['unit']} {way} {row['compared_to']}"


def _restating_only(claim: Claim, record: Record, row_ids: list[str]) -> bool:
    """The cell's evidence is all restatement (the claim's sentence, the summary): an
    independent order printed for the cell then decides it instead."""
    rows = [record.index.row(r) for r in row_ids]
    return bool(rows) and all(restates(claim, record, r) for r in rows)


def _across(claim: Claim, index):
    """For a cross-cell claim, the printed differences that compare across a factor its
    scope leaves open (the pair it speaks of), never one side's cell against its neighbour."""
    open_factors = [f for f in KEY_COLUMNS if f not in claim.scope and f not in (claim.compared.factor, "size_bytes")
                    and f not in _per(claim)]
    return lambda row: crosses(row, open_factors, index.levels)


def restates(claim: Claim, record: Record, row) -> bool:
    """A printed row that restates the claim (its own sentence, the study's summary, or a
    difference of two numbers the claim itself prints): taken only when nothing
    independent is printed for the cell."""
    return (_own_words(claim, record, str(row["snippet"])) or source_row(row["id"]) in claim.sentence_rows
            or _in_summary(record, source_row(row["id"]))
            or derived_from_quote(claim.quote, row))


_MEASURED = re.compile(r"(?<![\w.-])(\d+(?:\.\d+)?)\s*(Mbps|Gbps|Kbps|kbps|ms|pps)\b")


def derived_from_quote(quote: str, row) -> bool:
    """A difference printed beside a claim that is its own measured numbers' difference
    ("562 Mbps and 486 Mbps ... higher by 76 Mbps"; "690 Mbps" then "IPv6 reached 560 Mbps,
    giving the difference of 130 Mbps"; a percentage of either as base), to the printed
    precision: the claim said again, not a second measurement. Only numbers printed with
    the same unit pair up (a figure number or a codec's name is no measurement)."""
    if row["statistic"] not in DIFF_STATS + PCT_STATS:
        return False
    slack = half_unit(row["value_as_printed"])
    value = abs(float(row["value"]))
    own = [(float(n), u) for n, u in _MEASURED.findall(quote)]
    beside = [(float(n), u) for n, u in _MEASURED.findall(str(row["snippet"]))]
    if row["statistic"] in DIFF_STATS:
        own = [(n, u) for n, u in own if u == row["unit"]]
        beside = [(n, u) for n, u in beside if u == row["unit"] and n != value]
    pairs = [(x, y) for (x, u), (y, v) in combinations(own, 2) if u == v]
    if row["statistic"] in DIFF_STATS:  # the other operand may stand in the difference's own sentence
        pairs += [(x, y) for x, _ in own for y, _ in beside]
    for x, y in pairs:
        candidates = [abs(x - y)] if row["statistic"] in DIFF_STATS else [
            100 * abs(x - y) / base for base in (x, y) if base]
        if any(abs(c - value) <= slack for c in candidates):
            return True
    return False


def _own_words(claim: Claim, record: Record, snippet) -> bool:
    """Text that only says the claim again: its own sentence or, for a claim of the body
    (not of the summary), its finding printed again in another section in nearly its words
    (:func:`~analysis.reproduce.lookup.said_again`). A summary's claim is checked against
    the body it sums up, so the body's printing stays its evidence."""
    return same_sentence(claim.quote, str(snippet)) or (
        not _summary_locator(record, claim.source.split(", ", 1)[-1]) and said_again(claim.quote, str(snippet)))


def _in_summary(record: Record, row_id: str) -> bool:
    """A number printed in the study's abstract or conclusions, or in a section that
    restates findings printed elsewhere (designs.yaml's ``restating_sections``: 004's
    discussion chapter): the authors' summary of their results, so evidence for no
    claim (a restatement, judged ``restated``)."""
    return _summary_locator(record, record.index.locator_of(row_id))


def _summary_locator(record: Record, locator: str) -> bool:
    """Whether a locator ("section 6.3, Figure 5-2-22") is in the study's headline or restating sections."""
    section = locator.split(", ")[0]
    restating = record.design.get("restating_sections") or []
    return is_headline(record, f"{record.study}.txt, {locator}") or any(
        section == s or section.startswith(s + ".") for s in restating)


def _missing(claim: Claim, c: dict) -> str:
    """The numbers this cell would need to be tested."""
    need = []
    if c["diff"] is None:
        for side in ("a", "b"):
            if c[f"mean_{side}"] is None:
                need.append(f"mean of {c[side]}")
        if len(need) == 2 and c["pct"] is None:
            need = [f"means of {c['a']} and {c['b']} (or their difference)"]
    for side in ("a", "b"):
        if c[f"sd_{side}"] is None:
            need.append(f"SD of {c[side]}")
    if c["n"] is None:
        need.append("runs per point")
    if claim.sense == "equivalent" and claim.margin is None:
        need.append("an equivalence margin (the study says 'similar' without one)")
    return ", ".join(need)


def _classify(claim: Claim, c: dict) -> str:
    no_margin = claim.sense == "equivalent" and claim.margin is None
    if no_margin:
        return Verdict.UNJUDGED
    if c["diff"] is not None and None not in (c["sd_a"], c["sd_b"], c["n"]) and not c["restated"]:
        return "tested"
    if c["diff"] is not None or c["pct"] is not None or c.get("direction") is not None:
        return "descriptive"
    return Verdict.UNJUDGED


# ---------------------------------------------------------------- tests

def _welch(c: dict, sense: str) -> dict:
    """Welch t and Hedges' g of a − b; only the difference of the means matters.

    Two-sided: the claim is post hoc, so a greater/less claim's p is the
    two-sided p for both directions (``p``, ``p_outside``) and the sign of
    the difference says which way a significant result points.  The
    one-sided p of the claimed direction and of the other (what a
    pre-registered claim would be tested with) are kept beside it."""
    mean_a = c["mean_a"] if c["diff_source"] == "printed means" else c["diff"]
    mean_b = c["mean_b"] if c["diff_source"] == "printed means" else 0.0
    res = welch_from_stats(mean_a, c["sd_a"], c["n"], mean_b, c["sd_b"], c["n"])
    g = hedges_g_from_stats(mean_a, c["sd_a"], c["n"], mean_b, c["sd_b"], c["n"])
    out = {"test": WELCH_TEST, "statistic": res.statistic, "df": res.df, "p": res.p, "hedges_g": g.estimate}
    if sense in ("greater", "less"):
        one, other = directional_p(res.statistic, res.df, sense)
        out |= {"p_outside": res.p, "p_one_sided": one, "p_outside_one_sided": other}
    return out


def _tost(c: dict, margin: float) -> dict:
    """Two one-sided Welch tests of |a − b| < margin from the printed numbers."""
    return tost_from_stats(c["diff"], c["sd_a"], c["sd_b"], c["n"], margin) | {"hedges_g": np.nan,
                                                                                 "test": TOST_TEST}


def _descriptive_verdict(claim: Claim, c: dict) -> str:
    value = next(v for v in (c["diff"], c["pct"], c.get("direction"), 0.0) if v is not None)
    if claim.sense == "equivalent" and c["diff"] is None:  # a percentage says nothing of a margin in units
        return Verdict.RESTATED if c.get("restated") else Verdict.UNJUDGED
    return sign_verdict(claim.sense, value, claim.margin, restated=c.get("restated", False))


def _judge_cells(claim: Claim, cells: list[dict]) -> None:
    """Tests, Holm across the claim's tested cells, then each cell's verdict:
    two-sided (``verdict``) and, for a greater/less claim, what the one-sided
    tests would give (``verdict_one_sided``, Holm alike)."""
    tested = [c for c in cells if c["class"] == "tested"]
    for c in tested:
        c.update(_tost(c, claim.margin) if claim.sense == "equivalent" and claim.margin is not None
                 else _welch(c, claim.sense))
    p_adj = adjust([c["p"] for c in tested], "holm")
    outside = adjust([c.get("p_outside", np.nan) for c in tested], "holm")
    one = adjust([c.get("p_one_sided", np.nan) for c in tested], "holm")
    one_outside = adjust([c.get("p_outside_one_sided", np.nan) for c in tested], "holm")
    for c, p, out, p1, p1_out in zip(tested, p_adj, outside, one, one_outside):
        c["p_adj"], c["p_outside_adj"] = p, out
        c["verdict"] = tested_verdict(claim.sense, c["diff"], p, ALPHA, out)
        if claim.sense in ("greater", "less"):
            c["p_adj_one_sided"], c["p_outside_adj_one_sided"] = p1, p1_out
            c["verdict_one_sided"] = tested_verdict(claim.sense, c["diff"], p1, ALPHA, p1_out)
            if c["verdict_one_sided"] != c["verdict"]:
                c["note"] = "; ".join(filter(None, [c["note"], _change_text(c)]))
    for c in cells:
        if c["class"] == "descriptive":
            c["verdict"] = _descriptive_verdict(claim, c)
        elif c["class"] == "unjudged":
            c["verdict"] = Verdict.UNJUDGED


def _p(p: float) -> str:
    return "n/a" if np.isnan(p) else "<0.001" if p < 0.001 else f"{p:.3f}" if p < 0.1 else f"{p:.2f}"


def _change_text(c: dict) -> str:
    """Why a tested cell's verdict is not what the one-sided tests gave: both p-values."""
    new, old = c["verdict"], c["verdict_one_sided"]
    now = {Verdict.SUPPORTED: f"two-sided p_adj {_p(c['p_adj'])} < {ALPHA:g} in the claimed direction",
           Verdict.CONTRADICTED: f"two-sided p_adj {_p(c['p_adj'])} < {ALPHA:g} the other way"}.get(
        new, f"two-sided p_adj {_p(c['p_adj'])} ≥ {ALPHA:g}")
    one, other = _p(c["p_adj_one_sided"]), _p(c["p_outside_adj_one_sided"])
    before = {Verdict.SUPPORTED: f"the one-sided test formerly used gave {one} (supported)",
              Verdict.CONTRADICTED: f"the one-sided test the other way formerly gave {other} (contradicted)"}.get(
        old, f"the one-sided tests formerly used gave {one} in the claimed direction and {other} the other way "
             f"({old})")
    return f"{now}; {before}"


# ---------------------------------------------------------------- ranges

def _range_verdict(holds: str, a: tuple, b: tuple) -> tuple[str, str] | None:
    """What the printed extremes over sizes say of 'a > b' (a, b = (low, high)).

    all: every point of a above every point of b proves it at every size; b's
    highest above a's highest (or a's lowest below b's lowest) disproves it at
    the size where that extreme occurs.  any: the mirror image.  most: only
    what holds at every size decides (one size against it refutes nothing)."""
    (lo_a, hi_a), (lo_b, hi_b) = a, b
    if holds == "most":
        if lo_a is not None and hi_b is not None and lo_a > hi_b:
            return Verdict.AGREES, f"a's lowest {lo_a:g} > b's highest {hi_b:g}: a > b at every size"
        if hi_a is not None and lo_b is not None and hi_a < lo_b:
            return Verdict.DISAGREES, f"a's highest {hi_a:g} < b's lowest {lo_b:g}: a < b at every size"
        return _overlap(a, b)
    if holds == "any":
        if hi_a is not None and hi_b is not None and hi_a > hi_b:
            return Verdict.AGREES, f"a's highest {hi_a:g} > b's highest {hi_b:g}: a > b at that size"
        if hi_a is not None and lo_b is not None and hi_a < lo_b:
            return Verdict.DISAGREES, f"a's highest {hi_a:g} < b's lowest {lo_b:g}: a < b at every size"
        return None
    if lo_a is not None and hi_b is not None and lo_a > hi_b:
        return Verdict.AGREES, f"a's lowest {lo_a:g} > b's highest {hi_b:g}: a > b at every size"
    if hi_a is not None and hi_b is not None and hi_b > hi_a:
        return Verdict.DISAGREES, f"b's highest {hi_b:g} > a's highest {hi_a:g}: a < b where b peaks"
    if lo_a is not None and lo_b is not None and lo_a < lo_b:
        return Verdict.DISAGREES, f"a's lowest {lo_a:g} < b's lowest {lo_b:g}: a < b where a is lowest"
    return _overlap(a, b)


def _overlap(a: tuple, b: tuple) -> tuple[str, str] | None:
    """Ranges printed on both sides that decide nothing (noted, never a verdict)."""
    (lo_a, hi_a), (lo_b, hi_b) = a, b
    if None not in (lo_a, hi_a, lo_b, hi_b):
        return Verdict.UNDECIDED, f"ranges overlap (a {lo_a:g}–{hi_a:g}, b {lo_b:g}–{hi_b:g}): not decided by them"
    return None


def _range_cells(claim: Claim, record: Record, cells: list[dict]) -> list[dict]:
    """One cell per group of the claim's non-size cells, judged on the printed
    ranges / extremes over sizes (claims over sizes, ordering directions)."""
    if claim.cross_cell:  # the printed extremes and differences are each side's own cell's
        return []
    if "size_bytes" not in _per(claim) or claim.sense not in ("greater", "less"):
        return []
    if "size_bytes" in claim.scope:  # extremes over all sizes may lie at sizes the claim does not speak of
        return []
    factor = claim.compared.factor
    level_a, level_b = _two_levels(claim)
    if claim.sense == "less":
        level_a, level_b = level_b, level_a
    out, seen = [], []
    for cell in cells:
        group = {k: v for k, v in cell.items() if k != "size_bytes"}
        if group in seen:
            continue
        seen.append(group)
        lo_a, hi_a, rows_a = record.index.extremes(claim.metric, {**group, factor: level_a})
        lo_b, hi_b, rows_b = record.index.extremes(claim.metric, {**group, factor: level_b})
        found = _range_verdict(claim.holds, (lo_a, hi_a), (lo_b, hi_b))
        if found is None:
            continue
        verdict, why = found
        used = record.index.rows_at(rows_a + rows_b)
        restated = all(_own_words(claim, record, t) for t in used["snippet"]) or all(
            _in_summary(record, r) for r in used["id"])
        label = ", ".join(str(level_label(f, group[f]) if f in ("ip_version", "security") else group[f])
                          for f in _per(claim) if f != "size_bytes")
        out.append({"id": claim.id, "cell": f"{label + ', ' if label else ''}over sizes (printed ranges)",
                    "a": level_label(factor, level_a), "b": level_label(factor, level_b),
                    "class": "range", "verdict": Verdict.RESTATED if restated else verdict, "_group": group,
                    "rows": list(used["id"]), "_cell": group,
                    "diff_source": "printed ranges" + (" — the claim's own sentence or the study's summary"
                                                       if restated else ""),
                    "note": why, "missing": ""})
    return out


def _no_size_range_cells(claim: Claim, record: Record, cells: list[dict]) -> list[dict]:
    """Printed ranges for a claim that names no size, per group judged over sizes:
    ranges apart decide every size of the group; else a's highest above b's
    highest puts a above b at one size (a's peak), and the lower of the two
    lowest values puts its side below the other at one size (its lowest) —
    "where printed" evidence."""
    if claim.cross_cell:  # the printed extremes and differences are each side's own cell's
        return []
    if _names_size(claim) or claim.sense not in ("greater", "less"):
        return []
    factor = claim.compared.factor
    level_a, level_b = _two_levels(claim)
    if claim.sense == "less":
        level_a, level_b = level_b, level_a
    out: list[dict] = []
    for group_cells in _groups(cells).values():
        first = group_cells[0]
        if "size_bytes" not in first["_cell"] and first["class"] != Verdict.UNJUDGED and not first["restated"]:
            continue  # judged on a number printed without a size
        group = group_cells[0]["_key"]
        lo_a, hi_a, rows_a = _printed_extremes(claim, record, group_cells, level_a)
        lo_b, hi_b, rows_b = _printed_extremes(claim, record, group_cells, level_b)
        if rows_a.empty and rows_b.empty:
            continue
        restated = any(not side.empty and all(_own_words(claim, record, t) or _in_summary(record, r)
                                              for t, r in zip(side["snippet"], side["id"]))
                       for side in (rows_a, rows_b))  # one side known only from the claim itself
        if claim.over_sizes in ("peak", "lowest"):  # the deciding extreme known only from the claim itself
            pick = 1 if claim.over_sizes == "peak" else 0
            restated = restated or any(_only_restated(claim, record, side, (lo, hi)[pick])
                                       for side, lo, hi in ((rows_a, lo_a, hi_a), (rows_b, lo_b, hi_b)))
        apart = _range_verdict("most", (lo_a, hi_a), (lo_b, hi_b))
        found: list[tuple[str, str, str]] = []
        if claim.over_sizes == "peak":  # "the highest throughput": the printed peaks decide it
            if hi_a is not None and hi_b is not None and hi_a != hi_b:
                found.append(("peak", Verdict.AGREES if hi_a > hi_b else Verdict.DISAGREES,
                              f"peaks: a's highest printed {hi_a:g}, b's highest printed {hi_b:g}"))
        elif claim.over_sizes == "lowest":  # "the lowest RTT is on Fedora": the printed minima decide it
            if lo_a is not None and lo_b is not None and lo_a != lo_b:
                found.append(("peak", Verdict.AGREES if lo_a > lo_b else Verdict.DISAGREES,
                              f"minima: a's lowest printed {lo_a:g}, b's lowest printed {lo_b:g}"))
        elif apart is not None and apart[0] != Verdict.UNDECIDED:
            found.append(("range", *apart))
        else:
            if hi_a is not None and hi_b is not None and hi_a != hi_b:
                found.append(("overall", Verdict.AGREES if hi_a > hi_b else Verdict.DISAGREES,
                              f"a's highest {hi_a:g} vs b's highest {hi_b:g}: the order at one size"))
            if lo_a is not None and lo_b is not None and lo_a != lo_b:
                found.append(("overall", Verdict.DISAGREES, f"a's lowest {lo_a:g} < b's lowest {lo_b:g}: "
                              "a < b where a is lowest") if lo_a < lo_b else
                             ("overall", Verdict.AGREES, f"b's lowest {lo_b:g} < a's lowest {lo_a:g}: "
                              "a > b where b is lowest"))
        label = group_cells[0]["cell"].rsplit(", ", 1)[0] if ", " in group_cells[0]["cell"] else ""
        for kind, verdict, why in found:
            out.append({"id": claim.id, "cell": f"{label + ', ' if label else ''}over sizes (printed ranges)",
                        "a": level_label(factor, level_a), "b": level_label(factor, level_b), "class": kind,
                        "verdict": Verdict.RESTATED if restated else verdict, "_group": group, "_cell": group,
                        "rows": [*rows_a["id"], *rows_b["id"]], "missing": "", "note": why,
                        "diff_source": "printed ranges" + (" — the claim's own sentence or the study's summary"
                                                           if restated else "")})
    return out


def _printed_extremes(claim: Claim, record: Record, group_cells: list[dict],
                      level) -> tuple[float | None, float | None, pd.DataFrame]:
    """Lowest and highest value printed for one level of a group over sizes: its
    range or extremes printed without a size and, for a claim of the peaks or
    minima, also the extremes printed at a size ("the highest RTT of 0.19 ms at
    the largest packet size") and the means printed at the claim's sizes, which
    can only raise a printed peak or lower a printed minimum: a mean alone is no
    peak (the curve may peak at a size the text gives no number for)."""
    factor = claim.compared.factor
    lo, hi, positions = record.index.extremes(claim.metric, {**group_cells[0]["_key"], factor: level})
    rows = record.index.rows_at(positions)
    if claim.over_sizes not in ("peak", "lowest"):
        return lo, hi, rows
    keys = [{**c["_cell"], factor: level} for c in group_cells if "size_bytes" in c["_cell"]]
    frames = {stat: [record.index.scoped_cell_rows(claim.metric, key, (stat,))[0] for key in keys]
              for stat in ("max", "min", "mean")}
    found = {stat: pd.concat([rows.iloc[:0], *f]) for stat, f in frames.items()}
    values = {stat: found[stat]["value"].astype(float).tolist() for stat in found}
    if hi is not None or values["max"]:
        hi = max([v for v in (hi,) if v is not None] + values["max"] + values["mean"])
    if lo is not None or values["min"]:
        lo = min([v for v in (lo,) if v is not None] + values["min"] + values["mean"])
    return lo, hi, pd.concat([rows, *found.values()])


def _only_restated(claim: Claim, record: Record, rows: pd.DataFrame, value: float | None) -> bool:
    """Whether a side's deciding extreme is printed only in the claim's own sentence or the study's summary."""
    if value is None:
        return False
    deciding = rows[rows["value"].astype(float) == value]
    return not deciding.empty and all(_own_words(claim, record, t) or _in_summary(record, r)
                                      for t, r in zip(deciding["snippet"], deciding["id"]))


def _overall_cells(claim: Claim, record: Record, cells: list[dict]) -> list[dict]:
    """One cell per group of a claim over sizes that has no number at any of its
    sizes, judged on a difference printed for the group without a size (an
    average over sizes, or an "up to"): it shows the direction at one size at
    least, so it can refute 'all' and support 'any', never decide 'most'."""
    if claim.cross_cell:  # the printed extremes and differences are each side's own cell's
        return []
    if "size_bytes" not in _per(claim) or claim.sense not in ("greater", "less", "different"):
        return []
    if "size_bytes" in claim.scope:  # a number printed for no size may come from sizes outside the claim's
        return []
    factor = claim.compared.factor
    level_a, level_b = _two_levels(claim)
    out: list[dict] = []
    for group_cells in _groups(cells).values():
        if any(c["class"] in ("tested", "descriptive") and not c["restated"] for c in group_cells):
            continue  # (cells that only restate the claim leave room for a number printed for no size)
        group = group_cells[0]["_key"]
        key_a, key_b = {**group, factor: level_a}, {**group, factor: level_b}
        for statistics in (DIFF_STATS, PCT_STATS):
            value, row = record.index.printed_difference(claim.metric, factor, key_a, key_b, statistics,
                                                         lambda r: restates(claim, record, r))
            if row is not None:
                break
        if row is None or value is None or about_exceptions(claim, record, row):
            continue
        restated = _own_words(claim, record, row["snippet"]) or _in_summary(record, row["id"])
        label = ", ".join(str(level_label(f, group[f]) if f in ("ip_version", "security") else group[f])
                          for f in _per(claim) if f != "size_bytes")
        out.append({"id": claim.id, "cell": f"{label + ', ' if label else ''}over sizes (printed without a size)",
                    "a": level_label(factor, level_a), "b": level_label(factor, level_b), "class": "overall",
                    "diff": value if statistics == DIFF_STATS else None,
                    "pct": value if statistics == PCT_STATS else None,
                    "verdict": sign_verdict(claim.sense, value, claim.margin, restated=restated),
                    "_group": group, "_cell": group, "rows": [row["id"]], "missing": "",
                    "diff_source": f"printed without a size ({row['locator']}: {row['value_as_printed']} {row['unit']})",
                    "note": "a difference printed for no size: the direction at one size at least"})
    return out


def about_exceptions(claim: Claim, record: Record, row) -> bool:
    """A number printed for no size in the sentence of the claim's own named
    exception ("However, frame sizes 5266 and 8037 Bytes required up to 0.2 %
    more"): it speaks of the sizes the claim excepts, not of those it holds at."""
    excepted = {ex["size_bytes"] for ex in claim.exclude if set(ex) == {"size_bytes"}}
    for other in record.claims.claims:
        sizes = set(_as_list(other.scope.get("size_bytes", [])))
        if other.kind == "exception" and sizes and sizes <= excepted and same_sentence(other.quote, str(row["snippet"])):
            return True
    return False


def _groups(cells: list[dict]) -> dict[str, list[dict]]:
    """The claim's cells grouped by everything but size."""
    groups: dict[str, list[dict]] = {}
    for c in cells:
        groups.setdefault(repr(c["_key"]), []).append(c)
    return groups


# ---------------------------------------------------------------- claims

def _combined(holds: str, tested_verdicts: list[str], signs: list[str]) -> str:
    """The claim's verdict from tested cells' verdicts and sign-only evidence
    (descriptive cells, printed ranges).  all: a significant contradiction
    decides; then a printed value the wrong way (untested: 'disagrees'); then
    a non-significant cell; any: one supporting cell suffices."""
    evidence = [v for v in signs if v != Verdict.RESTATED]
    if holds == "any":
        if Verdict.SUPPORTED in tested_verdicts:
            return Verdict.SUPPORTED
        if Verdict.AGREES in evidence and not tested_verdicts:
            return Verdict.AGREES
    elif holds == "all":
        if Verdict.CONTRADICTED in tested_verdicts:
            return Verdict.CONTRADICTED
        if Verdict.DISAGREES in evidence:
            return Verdict.DISAGREES
    elif tested_verdicts and Verdict.DISAGREES in evidence:  # most: signs against count beside the tests
        judged = tested_verdicts + evidence
        against = sum(v in REFUTING for v in judged)
        if against > len(judged) / 2:
            return Verdict.CONTRADICTED if Verdict.CONTRADICTED in tested_verdicts else Verdict.DISAGREES
        if against >= sum(v in (Verdict.SUPPORTED, Verdict.AGREES) for v in judged):
            return Verdict.DISAGREES_WHERE_PRINTED
    if tested_verdicts:
        return aggregate(holds, tested_verdicts, Verdict.SUPPORTED, Verdict.CONTRADICTED, (Verdict.INCONCLUSIVE,))
    return sign_aggregate(holds, signs)


# A claim that names no size ("Fedora outperformed Ubuntu over IPv4") speaks of
# the sizes overall: judged at the study's sizes, it holds for an OS, an IP
# version ... when more than half of them are for it, and is refuted there when
# more than half are against it; its own quantifier then counts those groups.
OVER_SIZES = "most"


def _claim_verdict(claim: Claim, sized: list[dict], ranges: list[dict],
                   key: str = "verdict") -> tuple[str, list[dict]]:
    """The claim's verdict and the cells where it holds, from its cells' verdicts
    (``key``: ``verdict`` two-sided, ``verdict_one_sided`` as the one-sided tests
    gave; only tested cells differ). A claim that names no size is judged in two
    steps: each group of cells over sizes under :data:`OVER_SIZES`, then the
    groups under the claim's own quantifier."""
    if _names_size(claim):
        return _quantified(claim.holds, sized, ranges, key)
    verdicts, holding = [], []
    for group in _groups(sized).values():
        printed = [r for r in ranges if r["_group"] == group[0]["_key"]]
        peaks = [r["verdict"] for r in printed if r["class"] == "peak"]
        if claim.over_sizes in ("peak", "lowest"):  # the printed extremes decide it, or nothing does
            verdict = peaks[0] if peaks else Verdict.UNTESTABLE
            holds_at = group if verdict == Verdict.AGREES else []
        else:
            verdict, holds_at = _quantified(claim.over_sizes or OVER_SIZES, group, printed, key)
            if verdict == Verdict.INCONCLUSIVE and holds_at:  # supported at some sizes, refuted at none
                verdict = Verdict.SUPPORTED_WHERE_PRINTED
        verdicts.append(verdict)
        holding += holds_at
    return over_groups(claim.holds, verdicts), holding


def _quantified(holds: str, sized: list[dict], ranges: list[dict], key: str) -> tuple[str, list[dict]]:
    """The verdict of ``sized`` cells (and printed ranges) under one quantifier."""
    tested = [c[key] for c in sized if c["class"] == "tested"]
    signs = [c["verdict"] for c in sized if c["class"] == "descriptive" and c["verdict"] != Verdict.UNJUDGED]
    signs += [c["verdict"] for c in ranges if c["verdict"] != Verdict.UNDECIDED]
    if not tested and not signs:
        return Verdict.UNTESTABLE, []
    verdict = _combined(holds, tested, signs)
    if verdict == Verdict.TIE and Verdict.DISAGREES in signs:
        verdict = Verdict.DISAGREES_WHERE_PRINTED  # printed values against it at some cells, for it at as many
    proven = [c["_group"] for c in ranges  # a printed range that puts it at every size of the group
              if c["class"] == "range" and c["verdict"] == Verdict.AGREES]
    holding = [c for c in sized if c.get(key) in (Verdict.SUPPORTED, Verdict.AGREES) or c.get("_key") in proven]
    need = len(sized) if holds == "all" else len(sized) // 2 + 1 if holds == "most" else 1
    if verdict in (Verdict.SUPPORTED, Verdict.AGREES) and len(holding) < need:
        verdict = where_printed(verdict)  # the printed evidence covers too few of the claim's cells
    if verdict in REFUTING and not _refuted(holds, sized, ranges, key):
        verdict = where_printed(verdict)  # too few of the claim's cells printed to refute 'most' or 'any'
    return verdict, holding


REFUTING = (Verdict.CONTRADICTED, Verdict.DISAGREES)


def _refuted(holds: str, sized: list[dict], ranges: list[dict], key: str) -> bool:
    """Whether the cells against the claim are enough to refute it as quantified:
    one for 'all'; more than half of the claim's cells for 'most', every cell
    for 'any' (cells with no printed number may hold). A printed range against
    the claim at every size of a group counts each of that group's cells."""
    if holds == "all":
        return True
    everywhere = [c["_group"] for c in ranges if c["class"] == "range" and c["verdict"] == Verdict.DISAGREES]
    against = [c for c in sized if c.get(key) in REFUTING or c.get("_key") in everywhere]
    return len(against) > len(sized) / 2 if holds == "most" else len(against) == len(sized)


def _two_sided_note(tested: list[dict], verdict: str, former: str) -> str:
    """Why the claim's verdict is not the one the one-sided tests gave: each changed cell's p-values."""
    changed = [c for c in tested if c["verdict"] != c["verdict_one_sided"]]
    where = "; ".join((f"at {c['cell']}: " if len(tested) > 1 else "") + _change_text(c) for c in changed)
    return f"{verdict}, not {former}, tested two-sided (post hoc): {where} — {WHY_TWO_SIDED}"


def _claim_row(claim: Claim, cells: list[dict]) -> dict:
    sized = [c for c in cells if c["class"] not in ("range", "overall", "peak")]
    ranges = [c for c in cells if c["class"] in ("range", "overall", "peak")]
    tested = [c for c in sized if c["class"] == "tested"]
    descriptive = [c for c in sized if c["class"] == "descriptive"]
    row: dict[str, Any] = {"id": claim.id, "quote": claim.quote, "source": claim.source,
           "study_verdict": claim.study_verdict, "metric": claim.metric, "claim": _claim_text(claim),
           "over": claim.over, "registration": REGISTRATION, "note": claim.note, "p_adj": np.nan,
           "p_adj_one_sided": np.nan, "diff": np.nan, "hedges_g": np.nan}
    if not (tested or descriptive or [c for c in ranges if c["verdict"] != Verdict.UNDECIDED]):
        missing = [claim.reason] if claim.reason else []  # a reader's reason for leaving printed numbers aside
        missing += sorted({c["missing"] for c in cells if c["missing"]})
        return row | {"class": "untestable", "verdict": Verdict.UNTESTABLE, "judged": f"0 of {len(sized)}",
                      "holds_at": "", "judged_at": "", "missing": "; ".join(missing)}
    verdict, holding = _claim_verdict(claim, sized, ranges)
    if tested:
        against = [c for c in tested if c["verdict"] == Verdict.CONTRADICTED]
        deciding = against[0] if against else max(tested, key=lambda c: c["p_adj"])
        row |= {"p_adj": deciding["p_adj"], "p_adj_one_sided": deciding.get("p_adj_one_sided", np.nan),
                "diff": deciding["diff"], "hedges_g": deciding["hedges_g"]}
        former, _ = _claim_verdict(claim, sized, ranges, "verdict_one_sided")
        if former != verdict:
            row["note"] = "; ".join(filter(None, [row["note"], _two_sided_note(tested, verdict, former)]))
    disagree = [c["cell"] for c in descriptive + ranges if c["verdict"] == Verdict.DISAGREES]
    if disagree:
        row["note"] = "; ".join(filter(None, [row["note"], "printed values disagree at " + ", ".join(disagree)]))
    if verdict == Verdict.DISAGREES_WHERE_PRINTED and not _names_size(claim):
        row["note"] += ("; too few to refute it: a claim that names no size is refuted for an OS, IP version … "
                        "only by more than half of the study's sizes against it")
    elif verdict == Verdict.DISAGREES_WHERE_PRINTED:
        share = "more than half" if claim.holds == "most" else "every one"
        row["note"] += f"; too few to refute '{claim.holds}': that needs {share} of the {len(sized)} cells against it"
    for c in ranges:
        row["note"] = "; ".join(filter(None, [row["note"], f"{c['cell']}: {c['note']}"]))
    judged = tested + [c for c in descriptive if c["verdict"] != Verdict.RESTATED]
    unjudged = [c for c in sized if c["class"] == "unjudged"]
    kind = "tested" if tested else "descriptive"
    return row | {"class": kind, "verdict": verdict,
                  "judged": f"{len(judged)} of {len(sized)}",
                  "holds_at": f"{len(holding)} of {len(sized)}",
                  "judged_at": " | ".join(c["cell"] for c in judged + ranges if c["verdict"] != Verdict.UNDECIDED),
                  "missing": f"not judged at {len(unjudged)} cell(s): no mean or difference printed"
                  if unjudged else ""}


def _claim_text(claim: Claim) -> str:
    if claim.compare is None or claim.direction is None:
        return claim.kind
    return claim_text(claim.compared.factor, claim.compared.labels(), claim.sense,
                      margin=claim.margin, per=claim.per, holds=claim.holds)


def _not_testable(claim: Claim) -> dict:
    """A claim no printed number can bear on (a cause, a comparison nothing is printed for)."""
    return {"id": claim.id, "quote": claim.quote, "source": claim.source, "study_verdict": claim.study_verdict,
            "metric": claim.metric, "claim": _claim_text(claim), "over": claim.over, "note": claim.note,
            "class": "untestable", "registration": REGISTRATION, "verdict": Verdict.UNTESTABLE, "judged": "0 of 0",
            "holds_at": "", "judged_at": "", "p_adj": np.nan, "p_adj_one_sided": np.nan, "diff": np.nan,
            "hedges_g": np.nan,
            "missing": claim.reason or "no printed number bears on it"}


def _names_size(claim: Claim) -> bool:
    return "size_bytes" in _per(claim) or "size_bytes" in claim.scope


def _judged_cell(claim: Claim, record: Record, cell: dict, label: str) -> dict:
    c = {"id": claim.id, "cell": label, **_collect(claim, record, cell),
         "_key": {k: v for k, v in cell.items() if k != "size_bytes"}, "_cell": cell}
    c["class"] = _classify(claim, c)
    c["missing"] = _missing(claim, c) if c["class"] != "tested" else ""
    return c


def _over_sizes(claim: Claim, record: Record, c: dict) -> list[dict]:
    """A cell of a claim that names no size, with no number of its own beyond a
    restatement: its cells at each of the study's sizes, when the text prints
    evidence at any of them (the claim speaks of its sizes overall: see
    :data:`OVER_SIZES`); else the cell as it was."""
    one_size = bool(c["rows"]) and set(c["rows"]) <= record.one_size_rows
    if _names_size(claim) or not (c["class"] == Verdict.UNJUDGED or c["restated"] or one_size):
        return [c]
    sizes = record.design_value("sizes_bytes") or []
    label = "" if c["cell"] == "all" else c["cell"] + ", "
    keys = [{**c["_cell"], "size_bytes": s} for s in sizes]
    sized = [_judged_cell(claim, record, key, f"{label}{key['size_bytes']} B") for key in keys
             if not _excluded(claim, key)]
    found = [s for s in sized if s["class"] != Verdict.UNJUDGED and not s["restated"]]
    restated_only = c["class"] == Verdict.UNJUDGED and any(s["class"] != Verdict.UNJUDGED for s in sized)
    if one_size and not c["restated"]:  # the order at one unnamed size, beside whatever its sizes print
        return sized + [_at_one_size(claim, c, label)]
    return sized if found or restated_only else [c]  # (restatements at its sizes: restated, not untestable)


def _at_one_size(claim: Claim, c: dict, label: str) -> dict:
    """A cell's number that the text ties to one size it does not name, as sign-only
    evidence over sizes: it shows the order at that size, never at the others."""
    value = next(v for v in (c["diff"], c["pct"], c.get("direction")) if v is not None)
    return {**c, "class": "overall", "cell": f"{label}over sizes (one size the text does not name)",
            "verdict": sign_verdict(claim.sense, value, claim.margin), "_group": c["_key"],
            "note": "a number the text ties to one unnamed size: the order at that size only"}


def evaluate_claim(claim: Claim, record: Record) -> tuple[dict, list[dict]]:
    """One claim: its verdict row and the evidence of each of its cells."""
    if not claim.testable or claim.compare is None or claim.direction is None:
        return _not_testable(claim), []
    cells, keys = [], _expand(claim, record)
    for cell in keys:
        cells += _over_sizes(claim, record, _judged_cell(claim, record, cell, _cell_label(claim, cell)))
    _judge_cells(claim, cells)
    cells += (_range_cells(claim, record, keys) + _overall_cells(claim, record, cells)
              + _no_size_range_cells(claim, record, cells))
    for c in cells:  # only a tested cell's verdict depends on the sides of its test
        c["registration"] = REGISTRATION
        c.setdefault("verdict_one_sided", c["verdict"])
    return _claim_row(claim, cells), cells


def evaluate_claims(record: Record) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Verdict table (one row per claim) and cell table (evidence per cell)."""
    rows, cells = [], []
    for claim in record.claims.claims:
        row, claim_cells = evaluate_claim(claim, record)
        rows.append(row)
        cells.extend(claim_cells)
    cell_table = pd.DataFrame(cells).reindex(columns=CELL_COLUMNS)
    table = pd.DataFrame(rows).assign(headline=lambda t: t["source"].map(lambda s: is_headline(record, s)))
    return table.reindex(columns=CLAIM_COLUMNS), cell_table


def is_headline(record: Record, source: str) -> bool:
    """A claim of the study's abstract, conclusions or hypotheses (designs.yaml's
    ``headline_sections``): what a reader quotes, so what must survive a second reader."""
    section = source.split(", ")[1] if ", " in source else source
    return section in (record.design.get("headline_sections") or [])


def summary_counts(verdicts: pd.DataFrame) -> dict:
    """Claims per class and per verdict (for the overview page)."""
    return {"claims": len(verdicts),
            **{c: int((verdicts["class"] == c).sum()) for c in CLASSES},
            **{f"verdict_{v}": int(n) for v, n in verdicts["verdict"].value_counts().sort_index().items()}}
