"""Untestable claims whose scope holds printed numbers (issue 23, item 4).

A claim left ``untestable`` while the record prints, within its scope, values
of its metric for both levels it compares may be decidable: its cells did not
meet those numbers (a claim that names no size, sizes paired per IP version)
rather than the study printing nothing. Each such claim must be decided, or
carry in its claims file the ``reason`` a reader gives for leaving it.
"""

from __future__ import annotations

import pandas as pd

from analysis.reproduce.claims import Claim
from analysis.reproduce.lookup import Record

VALUE_STATS = ("mean", "max", "min", "range_min", "range_max", "diff", "max_diff", "pct_diff", "max_pct_diff")


def printed_in_scope(claim: Claim, record: Record) -> pd.DataFrame:
    """The record's values of the claim's metric within its fixed scope, at its compared levels."""
    rows = record.rows[(record.rows["metric"] == claim.metric) & record.rows["statistic"].isin(VALUE_STATS)]
    for factor, value in claim.scope.items():
        if factor in rows:
            wanted = {str(v) for v in (value if isinstance(value, list) else [value])}
            rows = rows[rows[factor].astype(str).isin(wanted)]
    factor = claim.compared.factor
    return rows[rows[factor].astype(str).isin({str(v) for v in claim.compared.all_levels()})]


def unjustified_untestable(record: Record, verdicts: pd.DataFrame) -> list[str]:
    """Claims judged untestable, without a reason, whose scope prints values at both compared levels."""
    untestable = set(verdicts.loc[verdicts["verdict"] == "untestable", "id"])
    out = []
    for claim in record.claims.claims:
        if claim.id not in untestable or claim.reason.strip() or claim.compare is None:
            continue
        found = printed_in_scope(claim, record)
        levels = {str(v) for v in claim.compared.all_levels()}
        if levels <= set(found[claim.compared.factor].astype(str)):
            out.append(claim.id)
    return out
