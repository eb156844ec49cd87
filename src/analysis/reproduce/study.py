"""Everything one study's notebook shows, computed once and written to its report folder."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from analysis.artefacts import save_table
from analysis.reproduce.audit import audit_table, severity_counts
from analysis.reproduce.changes import verdict_changes
from analysis.reproduce.derived import recompute_derived
from analysis.reproduce.lookup import Record, load_record
from analysis.reproduce.mdd import mdd_summary, mdd_table
from analysis.reproduce.os_contrast import study_os_claims
from analysis.reproduce.own_data import own_data_table
from analysis.reproduce.second_reading import (apply_readings, reading_counts, verdict_reading_counts,
                                               verdicts_with_readings)
from analysis.reproduce.tables import rebuild_tables
from analysis.reproduce.verdicts import evaluate_claims, summary_counts
from analysis.verdicts.rules import CLAIM_ORDER


EVIDENCE_COLUMNS = ["id", "cell", "a", "b", "mean_a", "sd_a", "mean_b", "sd_b", "n", "diff", "diff_source", "pct",
                    "class", "registration", "test", "p_adj", "p_adj_one_sided", "hedges_g", "verdict", "note"]


@dataclass
class Reproduction:
    record: Record
    verdicts: pd.DataFrame
    cells: pd.DataFrame
    derived: pd.DataFrame
    mdd: pd.DataFrame
    audit: pd.DataFrame
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    reading: dict = field(default_factory=dict)  # findings re-read by a second reader, and changed

    @property
    def study(self) -> str:
        return self.record.study

    @property
    def title(self) -> str:
        """The study's title (designs.yaml) and its file name."""
        return f"{self.record.design.get('title', self.study)} ({self.study}.txt)"

    def changes(self) -> pd.DataFrame:
        """Earlier verdicts matched to the reconciled claims, with why each change happened."""
        return verdict_changes(self.study, self.verdicts)

    def audit_summary(self) -> pd.DataFrame:
        """Findings per rule and severity."""
        return severity_counts(self.audit)

    def reading_text(self) -> str:
        """What the second reading found: findings and verdicts re-read, refuted, changed."""
        r = self.reading
        if not r.get("reread") and not r.get("verdicts_reread"):
            return "No finding or verdict of this study has had a second reading yet."
        return (f"**Second reading** (a separate reader with a fresh context tried to refute each against the text; "
                f"`data/raw/published/reconciliation/second_reading.csv`): {r['reread']} audit findings re-read, "
                f"{r['reread_refuted']} refuted and dropped, {r['reread_changed']} changed (refuted or another "
                f"severity); {r['verdicts_reread']} verdicts re-read, {r['verdicts_refuted']} refuted "
                f"({r['verdicts_fixed']} since fixed; the others show the reader's dissent in `second_reading`).")

    def design(self) -> pd.DataFrame:
        """The design as printed (designs.yaml), one row per item."""
        items = self.record.design.get("design", [])
        return pd.DataFrame([{"field": i["field"], "value": i["value"], "snippet": i["snippet"]} for i in items])

    def counts(self) -> dict:
        """The overview numbers of this study."""
        return {"study": self.study, "numbers": len(self.record.rows), "tables": len(self.tables),
                "figures": len(self.record.claims.figures), **summary_counts(self.verdicts),
                "derived": len(self.derived),
                "derived_reproduced": int((self.derived["status"] == "reproduced").sum()),
                "inconsistencies": len(self.audit),
                **{f"audit_{s}": int((self.audit["severity"] == s).sum()) for s in ("major", "minor", "plausibility")},
                **self.reading,
                "verdicts_changed": int(self.changes()["changed"].sum())}

    def own_data(self) -> pd.DataFrame:
        """Each claim re-tested on our mirror dataset, beside the study's verdict."""
        return own_data_table(self.study, self.verdicts, record=self.record)

    def os_claims_beside_ours(self) -> pd.DataFrame | None:
        """The study's OS claims beside our own OS contrast (None when that campaign is not here)."""
        return study_os_claims(self.record.claims.claims)

    def mdd_text(self) -> str:
        return mdd_summary(self.record)

    def judged_cells(self) -> pd.DataFrame:
        """The cells that carry printed evidence (tested or descriptive)."""
        return self.cells[self.cells["class"].isin(["tested", "descriptive"])].reset_index(drop=True)

    def evidence_table(self) -> pd.DataFrame:
        """The judged cells as the study page shows them: the printed numbers, the test
        (two-sided, post hoc), both p-values and the verdict, with why where they differ."""
        return self.judged_cells()[EVIDENCE_COLUMNS]

    def write(self, out: str | Path) -> None:
        """CSV tables under ``out/tables`` (stable names; figures go in out/figures)."""
        for name in ("verdicts", "cells", "derived", "mdd", "audit"):
            save_table(getattr(self, name), out, name)
        save_table(self.changes(), out, "changes")


def reproduce_study(study: str) -> Reproduction:
    """Load the record and claims of ``study`` and run every reproduction step."""
    record = load_record(study)
    verdicts, cells = evaluate_claims(record)
    verdicts = verdicts_with_readings(study, verdicts)
    derived = recompute_derived(record)
    mdd = mdd_table(record, cells)
    found = audit_table(record, verdicts, cells, derived, mdd)
    return Reproduction(record, verdicts, cells, derived, mdd, apply_readings(study, found), rebuild_tables(record),
                        reading_counts(study, found) | verdict_reading_counts(verdicts))
