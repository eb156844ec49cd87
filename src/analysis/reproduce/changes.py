"""Where a claim's verdict changed since the earlier reading, and why.

The earlier verdicts (data/claims/previous/<study>.csv, before the studies
were read twice and reconciled) are matched to the new claims by quote: a new
claim matches an earlier one when one quote contains the other.  The reason
is the rule that now decides the verdict (restated, printed ranges, a
difference whose larger side the text does not state, ...), taken from the
new verdict row, so the notebook says why without anyone writing it by hand.
"""

from __future__ import annotations

import pandas as pd

from analysis.config import claims_dir
from analysis.verdicts.rules import Verdict

CHANGE_COLUMNS = ["previous_id", "previous_verdict", "id", "verdict", "class", "changed", "why", "quote"]


def _words(text: str) -> str:
    return " ".join(str(text).split()).lower().rstrip(".")


def previous_verdicts(study: str) -> pd.DataFrame:
    """The earlier verdict table of ``study`` (empty when there is none)."""
    path = claims_dir() / "previous" / f"{study}.csv"
    return pd.read_csv(path, dtype=str, keep_default_na=False) if path.is_file() else pd.DataFrame(
        columns=["id", "quote", "verdict", "class"])


def _why(new: pd.Series, previous: str) -> str:
    verdict, note, missing = new["verdict"], str(new.get("note") or ""), str(new.get("missing") or "")
    if verdict == Verdict.RESTATED:
        return "the only printed number is in the claim's own sentence: a restatement, not evidence"
    if verdict == Verdict.DISAGREES and "printed ranges" in note:
        return "printed ranges or extremes over sizes contradict it at some size: " + note
    if verdict == Verdict.DISAGREES:
        return "a printed value goes the other way: " + note
    if verdict == Verdict.TIE:
        return "the printed values are equal: a tie, not a contradiction"
    if verdict == Verdict.UNTESTABLE:
        return "no independent printed number bears on it: " + (missing or "see the claim's reason")
    if previous == Verdict.UNTESTABLE:
        return f"numbers now read from the text bear on it (judged at {new['judged_at']})"
    return f"judged on the reconciled record ({new['judged']} cells; holds at {new['holds_at']})"


def verdict_changes(study: str, verdicts: pd.DataFrame) -> pd.DataFrame:
    """Every earlier claim with the new claim(s) it became and, where the verdict differs, why."""
    rows = []
    new_quotes = [(_words(q), i) for i, q in zip(verdicts.index, verdicts["quote"])]
    for old in previous_verdicts(study).itertuples():
        q = _words(old.quote)
        matches = [i for nq, i in new_quotes if q and nq and (q in nq or nq in q)]
        if not matches:
            rows.append({"previous_id": old.id, "previous_verdict": old.verdict, "id": "", "verdict": "",
                         "class": "", "changed": True,
                         "why": "no claim of the reconciled reading asserts this sentence in these words",
                         "quote": old.quote})
            continue
        for i in matches:
            new = verdicts.loc[i]
            changed = new["verdict"] != old.verdict
            rows.append({"previous_id": old.id, "previous_verdict": old.verdict, "id": new["id"],
                         "verdict": new["verdict"], "class": new["class"], "changed": changed,
                         "why": _why(new, old.verdict) if changed else "", "quote": new["quote"]})
    return pd.DataFrame(rows, columns=CHANGE_COLUMNS)
