"""The consistency audit: where a study's numbers or statements disagree.

One table, five sources: the automatic cross-checks of the whole record
(``crosscheck``), duplicated table columns, derived numbers that no formula
reproduces, claims that the study's own printed numbers contradict, designs
too small for the difference claimed (``mdd``), and the items found by
reading (the claims file's ``audit``).  Every finding names its rule and a
severity: major (changes a conclusion), minor, or plausibility.
"""

from __future__ import annotations

import pandas as pd

from analysis.reproduce.crosscheck import FINDING_COLUMNS, cross_check
from analysis.reproduce.lookup import Record
from analysis.reproduce.tables import rebuild_tables
from analysis.verdicts.rules import Verdict

AUDIT_COLUMNS = FINDING_COLUMNS
SEVERITIES = ("major", "minor", "plausibility")


def _hand(record: Record) -> list[dict]:
    return [{"id": a.id, "rule": a.kind, "severity": a.severity, "source": a.source,
             "quote": " … ".join(a.quotes), "recomputation": a.recomputation, "found_by": "reading"}
            for a in record.claims.audit]


def _derived(derived: pd.DataFrame) -> list[dict]:
    return [{"id": f"derived:{r.id}", "rule": "percentage does not follow",
             "severity": "major" if abs(r.recomputed - float(r.printed)) > 1 else "minor",
             "source": r.source, "quote": r.quote,
             "recomputation": f"printed {r.printed}; nearest {r.formula} = {r.recomputed:.4g} "
                              f"(a={r.a:g}, b={r.b:g}); {r.alternatives}",
             "found_by": "recomputation"}
            for r in derived.itertuples() if r.status == "mismatch"]


def _cell_text(c) -> str:
    if c.verdict == Verdict.CONTRADICTED:
        return (f"at {c.cell}: {c.a} − {c.b} = {c.diff:.4g} from {c.diff_source}; "
                f"Welch p_adj = {c.p_adj:.2g}, significant the other way")
    if pd.isna(c.diff) and pd.isna(c.pct):  # printed ranges or peaks: what they say
        return f"at {c.cell}: {c.note} ({c.diff_source})"
    value = f"{c.diff:.4g}" if pd.notna(c.diff) else f"{c.pct:.4g}%"
    return f"at {c.cell}: {c.a} − {c.b} = {value} from {c.diff_source}"


REFUTED = (Verdict.CONTRADICTED, Verdict.DISAGREES)
AGAINST_WHERE_PRINTED = (Verdict.DISAGREES_WHERE_PRINTED,)


def _claims(record: Record, verdicts: pd.DataFrame, cells: pd.DataFrame) -> list[dict]:
    """A claim the verdict table refutes (major) or finds against it only where
    printed (minor), with the cells against it. A cell against a claim that holds
    as quantified ('any', 'most', its named exceptions) refutes nothing: the audit
    and the verdicts tell one story."""
    sentences: dict[tuple, list[tuple[str, str, str]]] = {}  # one finding per sentence: its claims, each with its cells
    bad = cells[cells["verdict"].isin(REFUTED)]
    claims = verdicts.set_index("id")
    for claim_id, part in bad.groupby("id", sort=False):
        claim = claims.loc[claim_id]
        if claim["verdict"] not in (*REFUTED, *AGAINST_WHERE_PRINTED):
            continue
        text = f"claimed {claim['claim']}; " + "; ".join(_cell_text(c) for c in part.itertuples())
        sentences.setdefault((claim["source"], claim["quote"]), []).append((claim_id, claim["verdict"], text))
    rows = []
    for (source, quote), found in sentences.items():
        found.sort(key=lambda f: f[1] not in REFUTED)  # the finding is named after a claim refuted as stated, if any
        # major only when a claim of the sentence as stated is refuted; against it only where printed changes no conclusion
        several = len(found) > 1
        rows.append({"id": f"claim:{found[0][0]}", "rule": "claim contradicted by the study's own numbers",
                     "severity": "major" if any(v in REFUTED for _, v, _ in found) else "minor",
                     "source": source, "quote": quote,
                     "recomputation": " | ".join((f"{cid}: " if several else "") + text for cid, _, text in found),
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
                rows.append({"id": f"dup:{loc_a} {name_a}={loc_b} {name_b}", "rule": "duplicated table",
                             "severity": "major",
                             "source": f"{record.study}.txt, {loc_a} and {loc_b}",
                             "quote": f"{loc_a} column {name_a} = {loc_b} column {name_b}",
                             "recomputation": f"all {len(vals_a)} values identical: {' '.join(vals_a)}",
                             "found_by": "recomputation"})
    return rows


def _too_small(mdd: pd.DataFrame, verdicts: pd.DataFrame) -> list[dict]:
    """Claimed differences smaller than what the design could detect (80 % power)."""
    rows = []
    small = mdd[mdd["detectable"] == "no"]
    for claim_id, part in small.groupby("id", sort=False):
        claim = verdicts.set_index("id").loc[claim_id]
        cells = "; ".join(f"{c.cell}: claimed {c.claimed:.3g} < δ {c.mdd:.3g}" for c in part.itertuples())
        rows.append({"id": f"mdd:{claim_id}", "rule": "design too small for the claimed effect",
                     "severity": "plausibility", "source": claim["source"], "quote": claim["quote"],
                     "recomputation": f"{len(part)} cell(s) below the minimum detectable difference: {cells}",
                     "found_by": "recomputation"})
    return rows


def audit_table(record: Record, verdicts: pd.DataFrame, cells: pd.DataFrame,
                derived: pd.DataFrame, mdd: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every inconsistency found, by cross-check, recomputation, evaluation or reading."""
    rows = (cross_check(record) + _duplicated_columns(record) + _derived(derived)
            + _claims(record, verdicts, cells)
            + (_too_small(mdd, verdicts) if mdd is not None else []) + _hand(record))
    return pd.DataFrame(rows, columns=AUDIT_COLUMNS)


def severity_counts(audit: pd.DataFrame) -> pd.DataFrame:
    """Findings per rule and severity (the overview's audit table)."""
    return (audit.groupby(["rule", "severity"]).size().unstack("severity", fill_value=0)
            .reindex(columns=list(SEVERITIES), fill_value=0).reset_index())
