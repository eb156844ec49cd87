"""The consistency audit: where a study's numbers or statements disagree.

Three sources, one table: the items found by reading (the claims file's
``audit``), derived numbers that no formula reproduces, and claims that the
study's own printed numbers contradict (a tested cell significant the other
way, or a printed difference with the wrong sign).
"""

from __future__ import annotations

import pandas as pd

from analysis.reproduce.lookup import Record
from analysis.reproduce.tables import rebuild_tables

AUDIT_COLUMNS = ["id", "kind", "source", "quote", "recomputation", "found_by"]


def _hand(record: Record) -> list[dict]:
    return [{"id": a.id, "kind": a.kind, "source": a.source, "quote": " … ".join(a.quotes),
             "recomputation": a.recomputation, "found_by": "reading"} for a in record.claims.audit]


def _derived(derived: pd.DataFrame) -> list[dict]:
    return [{"id": f"derived:{r.id}", "kind": "percentage does not follow", "source": r.source,
             "quote": r.quote,
             "recomputation": f"printed {r.printed}; nearest {r.formula} = {r.recomputed:.4g} "
                              f"(a={r.a:g}, b={r.b:g}); {r.alternatives}",
             "found_by": "recomputation"}
            for r in derived.itertuples() if r.status == "mismatch"]


def _cell_text(c) -> str:
    if c.verdict == "contradicted":
        return (f"at {c.cell}: {c.a} − {c.b} = {c.diff:.4g} from {c.diff_source}; "
                f"Welch p_adj = {c.p_adj:.2g}, significant the other way")
    value = f"{c.diff:.4g}" if pd.notna(c.diff) else f"{c.pct:.4g}%"
    return f"at {c.cell}: {c.a} − {c.b} = {value} from {c.diff_source}"


def _claims(record: Record, verdicts: pd.DataFrame, cells: pd.DataFrame) -> list[dict]:
    rows = []
    bad = cells[cells["verdict"].isin(["contradicted", "disagrees"])]
    for claim_id, part in bad.groupby("id", sort=False):
        claim = verdicts.set_index("id").loc[claim_id]
        rows.append({"id": f"claim:{claim_id}", "kind": "claim contradicted by the study's own numbers",
                     "source": claim["source"], "quote": claim["quote"],
                     "recomputation": f"claimed {claim['claim']}; " + "; ".join(_cell_text(c) for c in part.itertuples()),
                     "found_by": "evaluation"})
    return rows


def _duplicated_columns(record: Record) -> list[dict]:
    """Table columns printed twice with identical values (e.g. one OS's SDs in two tables)."""
    columns = [(loc, col, tuple(table[col])) for loc, table in rebuild_tables(record).items()
               if table.index.name == "size_bytes" for col in table.columns]
    rows = []
    for i, (loc_a, col_a, vals_a) in enumerate(columns):
        for loc_b, col_b, vals_b in columns[i + 1:]:
            if vals_a == vals_b and loc_a != loc_b:
                name_a, name_b = " ".join(map(str, col_a)), " ".join(map(str, col_b))
                rows.append({"id": f"dup:{loc_a} {name_a}={loc_b} {name_b}", "kind": "duplicated table",
                             "source": f"{record.study}.txt, {loc_a} and {loc_b}",
                             "quote": f"{loc_a} column {name_a} = {loc_b} column {name_b}",
                             "recomputation": f"all {len(vals_a)} values identical: {' '.join(vals_a)}",
                             "found_by": "recomputation"})
    return rows


def audit_table(record: Record, verdicts: pd.DataFrame, cells: pd.DataFrame,
                derived: pd.DataFrame) -> pd.DataFrame:
    """Every inconsistency found, by reading, recomputation or evaluation."""
    rows = (_hand(record) + _duplicated_columns(record) + _derived(derived)
            + _claims(record, verdicts, cells))
    return pd.DataFrame(rows, columns=AUDIT_COLUMNS)
