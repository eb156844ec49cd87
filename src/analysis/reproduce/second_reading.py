"""What a second reader made of the audit's findings
(data/raw/published/reconciliation/second_reading.csv).

A finding is published only after a separate reader with a fresh context
tried to refute it against the text: ``confirmed`` findings stand, with the
severity the reader judged from their consequence; ``refuted`` ones are
dropped from the audit (the register retires them with the reader's reason);
``severity`` keeps the finding at the severity the reader gives; ``unclear``
keeps it as found. Each outcome carries its reason, quoting the text.

Verdicts are re-read the same way (``verdict:<claim id>``): the verdict table
shows each reading beside the verdict — a refuted verdict with what the reader
says it should be, so a reader of the page sees the dissent until the claim's
encoding is fixed (then the verdict is what the reader said: ``fixed``).
"""

from __future__ import annotations

from functools import lru_cache

import pandas as pd

from analysis.config import published_dir
from analysis.errors import ClaimsError

COLUMNS = ["study", "finding", "outcome", "severity", "should_be", "reason", "reading"]
VERDICT = "verdict:"
OUTCOMES = ("confirmed", "refuted", "severity", "unclear")
SEVERITIES = ("major", "minor", "plausibility")


def _path():
    return published_dir() / "reconciliation" / "second_reading.csv"


@lru_cache(maxsize=1)
def _all_readings(path) -> pd.DataFrame:
    if not path.is_file():
        return pd.DataFrame(columns=COLUMNS)
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    if list(table.columns) != COLUMNS:
        raise ClaimsError(f"{path}: expected the columns {', '.join(COLUMNS)}")
    for line, row in zip(range(2, len(table) + 2), table.itertuples()):
        if row.outcome not in OUTCOMES:
            raise ClaimsError(f"{path}:{line}: outcome {row.outcome!r} is not one of {', '.join(OUTCOMES)}")
        if not row.finding.startswith(VERDICT) and row.outcome != "refuted" and row.severity not in SEVERITIES:
            raise ClaimsError(f"{path}:{line}: a finding that stands needs its severity ({', '.join(SEVERITIES)})")
        if not row.reason.strip():
            raise ClaimsError(f"{path}:{line}: every outcome needs its reason")
    dupes = table[table.duplicated(["study", "finding", "reading"], keep=False)]
    if not dupes.empty:
        raise ClaimsError(f"{path}: finding {dupes.iloc[0]['finding']!r} of {dupes.iloc[0]['study']} read twice "
                          "in one reading; name each reading (round) differently")
    return table


def readings(study: str, verdicts: bool = False, latest: bool = True) -> pd.DataFrame:
    """The second readings of one study's audit findings (or of its verdicts): the
    latest reading of each (a later round re-reads what an earlier one refuted, once fixed),
    or every round (``latest=False``)."""
    table = _all_readings(_path())
    mine = table[(table["study"] == study) & (table["finding"].str.startswith(VERDICT) == verdicts)]
    if latest:
        mine = mine.drop_duplicates("finding", keep="last")
    return mine.reset_index(drop=True)


def _verdict_note(verdict: str, reading) -> str:
    if reading.outcome == "refuted":
        fixed = reading.should_be and verdict == reading.should_be.split(" (")[0]
        return f"refuted{', fixed' if fixed else ''}: should be {reading.should_be or '?'} — {reading.reason}"
    return f"{reading.outcome}: {reading.reason}" if reading.outcome == "unclear" else "confirmed"


def verdicts_with_readings(study: str, verdicts: pd.DataFrame) -> pd.DataFrame:
    """The verdict table with a ``second_reading`` column (empty where not re-read): the
    latest reading, and for a verdict an earlier round refuted and a later one confirmed,
    that it was fixed."""
    read = readings(study, verdicts=True)
    read = read.assign(id=read["finding"].str.slice(len(VERDICT))).set_index("id")
    refuted_once = set(_ever_refuted(study))
    notes = []
    for claim_id, verdict in zip(verdicts["id"], verdicts["verdict"]):
        if claim_id not in read.index:
            notes.append("")
            continue
        note = _verdict_note(verdict, read.loc[claim_id])
        if claim_id in refuted_once and note == "confirmed":
            note = "refuted, fixed: confirmed on re-reading after the claim was re-encoded"
        notes.append(note)
    return verdicts.assign(second_reading=notes)


def _ever_refuted(study: str) -> list[str]:
    every = readings(study, verdicts=True, latest=False)
    return list(every.loc[every["outcome"] == "refuted", "finding"].str.slice(len(VERDICT)).unique())


def verdict_reading_counts(verdicts: pd.DataFrame) -> dict:
    """Verdicts re-read, refuted at some reading, and of those fixed since."""
    col = verdicts["second_reading"]
    return {"verdicts_reread": int(col.ne("").sum()), "verdicts_refuted": int(col.str.startswith("refuted").sum()),
            "verdicts_fixed": int(col.str.startswith("refuted, fixed").sum())}


def apply_readings(study: str, audit: pd.DataFrame) -> pd.DataFrame:
    """The audit as the second reading leaves it: refuted findings dropped, the
    severity of the others as the reader judged it, and a ``second_reading``
    column (the outcome, or empty where the finding was not re-read)."""
    read = readings(study).set_index("finding")
    audit = audit.copy()
    outcome = audit["id"].map(read["outcome"]).fillna("")
    severity = audit["id"].map(read["severity"]).fillna("")
    stands = outcome.isin(["confirmed", "severity", "unclear"]) & severity.ne("")
    audit.loc[stands, "severity"] = severity[stands]
    audit["second_reading"] = outcome
    return audit[outcome != "refuted"].reset_index(drop=True)


def reading_counts(study: str, audit_before: pd.DataFrame) -> dict:
    """How many of the study's findings were re-read, and how many the reading changed
    (refuted, or given another severity)."""
    read = readings(study)
    found = read[read["finding"].isin(audit_before["id"])]
    before = audit_before.set_index("id")["severity"]
    changed = (found["outcome"] == "refuted") | (
        (found["outcome"] != "refuted") & (found["severity"] != found["finding"].map(before)))
    return {"reread": len(found), "reread_refuted": int((found["outcome"] == "refuted").sum()),
            "reread_changed": int(changed.sum())}
