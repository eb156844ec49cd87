"""Untestable claims whose scope prints numbers that compare its levels (issue 23, item 4).

A claim left ``untestable`` while the record prints, within its scope, a
comparison of the two levels it compares — a difference or percentage of one
level against the other, or the means of both at the same cell — may be
decidable: its cells did not meet those numbers (a claim that names no size,
sizes paired per IP version) rather than the study printing nothing. Each such
claim must be decided, or carry in its claims file the ``reason`` a reader
gives for leaving it.
"""

from __future__ import annotations

import pandas as pd

from analysis.reproduce.claims import Claim
from analysis.reproduce.lookup import (DIFF_STATS, KEY_COLUMNS, PCT_STATS, Record, levels_named,
                                      side_sign)
from analysis.reproduce.verdicts import about_exceptions, restates


def _in_scope(claim: Claim, record: Record, statistics) -> pd.DataFrame:
    """The record's rows of the claim's metric with ``statistics`` printed for its fixed scope
    (and, for a claim that names no application, for the experiments without one)."""
    rows = record.evidence_rows
    rows = rows[(rows["metric"] == claim.metric) & rows["statistic"].isin(statistics)]
    for factor, value in {"application": None, **claim.scope}.items():
        if factor in rows:
            have = rows[factor].astype(object).where(rows[factor].notna(), "").astype(str)
            wanted = {""} if value is None else {str(v) for v in (value if isinstance(value, list) else [value])}
            rows = rows[have.isin(wanted)]
    return rows


def comparisons_in_scope(claim: Claim, record: Record) -> pd.DataFrame:
    """Rows that compare the claim's two levels within its scope: a signed difference of
    one level against the other, or a mean of one level printed at a cell where the
    other level's mean is printed too."""
    if claim.cross_cell:  # each side's cell alone is outside its scope: only its evidence decides it
        return record.rows.iloc[:0]
    factor = claim.compared.factor
    a, b = (str(v) for v in (claim.compared.all_levels()[0], claim.compared.all_levels()[-1]))
    levels = record.index.levels(factor)
    diffs = _in_scope(claim, record, DIFF_STATS + PCT_STATS)
    subject = diffs[factor].astype(str)
    named = diffs["compared_to"].fillna("").astype(str).map(lambda t: {str(v) for v in levels_named(t, factor, levels)})
    paired = [(s == a and n == {b}) or (s == b and n == {a}) for s, n in zip(subject, named)]
    signed = diffs.apply(lambda r: side_sign(r) is not None, axis=1) if len(diffs) else pd.Series(dtype=bool)
    found = diffs[pd.Series(paired, index=diffs.index, dtype=bool) & signed]
    means = _in_scope(claim, record, ("mean",))
    means = means[means[factor].astype(str).isin({a, b})]
    others = [c for c in KEY_COLUMNS if c != factor and c in means]
    keys = means[others].astype(str).agg("|".join, axis=1) if len(means) else pd.Series(dtype=str)
    both = {k for k, g in means.groupby(keys) if g[factor].astype(str).nunique() == 2}
    rows = pd.concat([found, means[keys.isin(both)]])
    excluded = [any(all(str(r.get(k)) == str(v) for k, v in ex.items()) for ex in claim.exclude)
                for r in rows.to_dict("records")]
    own = [restates(claim, record, r) or about_exceptions(claim, record, r)  # a restatement decides nothing
           for r in rows.to_dict("records")]
    return rows[[not (e or o) for e, o in zip(excluded, own)]]  # nor do the exceptions the claim names


def unjustified_untestable(record: Record, verdicts: pd.DataFrame) -> list[str]:
    """Claims judged untestable, without a reason, whose scope prints a comparison of their levels."""
    untestable = set(verdicts.loc[verdicts["verdict"] == "untestable", "id"])
    return [claim.id for claim in record.claims.claims
            if claim.id in untestable and not claim.reason.strip() and claim.compare is not None
            and not comparisons_in_scope(claim, record).empty]
