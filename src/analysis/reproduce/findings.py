"""The audit's regression guard: every finding a study's audit has ever had,
kept in data/claims/findings/<study>.csv with its stable id.

A finding that stops being found is either a fix (the record or a rule was
wrong) or a regression (a rule stopped seeing a real problem); only a reason
logged beside it tells which. So the register lists each finding as
``current`` or ``retired`` with the reason, and the guard fails when the audit
and the register disagree: a finding gone without a reason, or a new one not
yet registered. ``scripts/register_findings.py`` updates it.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from analysis.artefacts import replace_whole
from analysis.config import claims_dir
from analysis.errors import ClaimsError

REGISTER_COLUMNS = ["id", "rule", "severity", "status", "reason"]


def register_path(study: str) -> Path:
    return claims_dir() / "findings" / f"{study}.csv"


def load_register(study: str) -> pd.DataFrame:
    """The study's register (empty when it has none yet)."""
    path = register_path(study)
    if not path.is_file():
        return pd.DataFrame(columns=REGISTER_COLUMNS)
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    if list(table.columns) != REGISTER_COLUMNS:
        raise ClaimsError(f"{path}: expected the columns {', '.join(REGISTER_COLUMNS)}")
    bad = table[~table["status"].isin(["current", "retired"]) | ((table["status"] == "retired")
                                                                  & (table["reason"].str.strip() == ""))]
    if not bad.empty:
        row = bad.index[0] + 2  # the header is line 1
        raise ClaimsError(f"{path}:{row}: status must be current, or retired with a reason")
    return table


def disagreements(study: str, audit: pd.DataFrame) -> tuple[list[str], list[str]]:
    """(registered as current but no longer found, found but not registered)."""
    register = load_register(study)
    current = set(register.loc[register["status"] == "current", "id"])
    known = set(register["id"])
    found = set(audit["id"])
    return sorted(current - found), sorted(found - known)


def updated_register(study: str, audit: pd.DataFrame, why: str = "") -> pd.DataFrame:
    """The register with new findings added as current and vanished ones
    retired with ``why``; refused (naming them) when findings vanish and no reason is given."""
    register = load_register(study)
    gone, new = disagreements(study, audit)
    if gone and not why.strip():
        raise ClaimsError(f"{register_path(study)}: {len(gone)} finding(s) no longer found "
                          f"({', '.join(gone)}): say why with --why")
    register.loc[register["id"].isin(gone), ["status", "reason"]] = ["retired", why.strip()]
    found = audit.set_index("id")
    back = register["id"].isin(found.index) & (register["status"] == "retired")
    register.loc[back, ["status", "reason"]] = ["current", ""]  # found again
    added = pd.DataFrame({"id": new, "rule": [found.loc[i, "rule"] for i in new],
                          "severity": [found.loc[i, "severity"] for i in new], "status": "current", "reason": ""})
    return pd.concat([register, added], ignore_index=True)[REGISTER_COLUMNS]


def write_register(study: str, table: pd.DataFrame) -> Path:
    """Write the register whole or not at all."""
    return replace_whole(register_path(study), lambda stream: table.to_csv(stream, index=False, lineterminator="\n"))
