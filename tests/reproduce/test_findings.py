"""The audit's regression guard: a finding never vanishes without a logged
reason, and a new one is registered before it lands (issue 23, item 7)."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.errors import ClaimsError
from analysis.reproduce import findings
from analysis.reproduce.claims import studies
from analysis.reproduce.study import reproduce_study


@pytest.mark.slow  # seconds of CPU: out of `make test-fast`, in `make test`
@pytest.mark.parametrize("study", studies())
def test_the_audit_and_its_register_agree(study, reproduced):
    gone, new = findings.disagreements(study, reproduced(study).audit)
    assert not gone, f"findings no longer found, without a logged reason: {gone} (scripts/register_findings.py --why)"
    assert not new, f"findings not yet registered: {new} (scripts/register_findings.py)"


@pytest.mark.slow  # seconds of CPU: out of `make test-fast`, in `make test`
def test_every_finding_id_is_unique_and_stable_across_runs():
    study = studies()[2]
    first, second = reproduce_study(study).audit["id"], reproduce_study(study).audit["id"]
    assert first.is_unique and list(first) == list(second)
    assert all(i.startswith("auto:") and len(i) >= 15 for i in first if i.startswith("auto:"))


def audit(*ids):
    return pd.DataFrame({"id": list(ids), "rule": "r", "severity": "major"})


def test_a_vanished_finding_needs_a_reason_and_a_new_one_is_registered(tmp_path, monkeypatch):
    monkeypatch.setattr(findings, "claims_dir", lambda: tmp_path)
    findings.write_register("S", findings.updated_register("S", audit("a", "b")))
    with pytest.raises(ClaimsError, match=r"1 finding\(s\) no longer found \(b\): say why with --why"):
        findings.updated_register("S", audit("a", "c"))
    table = findings.updated_register("S", audit("a", "c"), why="the record was corrected")
    assert table.set_index("id")[["status", "reason"]].to_dict("index") == {
        "a": {"status": "current", "reason": ""}, "b": {"status": "retired", "reason": "the record was corrected"},
        "c": {"status": "current", "reason": ""}}


def test_a_retired_finding_without_a_reason_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(findings, "claims_dir", lambda: tmp_path)
    (tmp_path / "findings").mkdir()
    (tmp_path / "findings" / "S.csv").write_text("id,rule,severity,status,reason\na,r,major,retired,\n")
    with pytest.raises(ClaimsError, match=r"S.csv:2: status must be current, or retired with a reason"):
        findings.load_register("S")
