"""The second reading applied to the audit and the verdicts (issue 23, item 6)."""

import pandas as pd
import pytest

from analysis.errors import ClaimsError
from analysis.reproduce import second_reading
from analysis.reproduce.claims import studies

COLUMNS = second_reading.COLUMNS


def _write(tmp_path, monkeypatch, rows):
    folder = tmp_path / "published" / "reconciliation"
    folder.mkdir(parents=True)
    pd.DataFrame(rows, columns=COLUMNS).to_csv(folder / "second_reading.csv", index=False)
    monkeypatch.setattr(second_reading, "published_dir", lambda: tmp_path / "published")
    second_reading._all_readings.cache_clear()


@pytest.fixture(autouse=True)
def _fresh_cache():
    second_reading._all_readings.cache_clear()
    yield
    second_reading._all_readings.cache_clear()


def test_refuted_findings_leave_the_audit_and_others_take_the_readers_severity(tmp_path, monkeypatch):
    _write(tmp_path, monkeypatch, [
        ["S", "f1", "refuted", "", "", "a range, not one value (l. 3)", "r"],
        ["S", "f2", "severity", "minor", "", "rounding only (l. 9)", "r"],
        ["S", "f3", "confirmed", "major", "", "the two tables differ (l. 4, l. 8)", "r"],
        ["S", "verdict:C1", "refuted", "", "agrees", "the 11% is IPv6's (l. 5)", "r"]])
    audit = pd.DataFrame({"id": ["f1", "f2", "f3", "f4"], "severity": ["major"] * 4})
    after = second_reading.apply_readings("S", audit)
    assert list(after["id"]) == ["f2", "f3", "f4"]
    assert list(after["severity"]) == ["minor", "major", "major"]
    assert list(after["second_reading"]) == ["severity", "confirmed", ""]
    counts = second_reading.reading_counts("S", audit)
    assert counts == {"reread": 3, "reread_refuted": 1, "reread_changed": 2}
    verdicts = pd.DataFrame({"id": ["C1", "C2"], "verdict": ["disagrees", "agrees"]})
    shown = second_reading.verdicts_with_readings("S", verdicts)
    assert shown["second_reading"].iloc[0].startswith("refuted: should be agrees — the 11% is IPv6's")
    assert shown["second_reading"].iloc[1] == ""
    fixed = second_reading.verdicts_with_readings("S", verdicts.assign(verdict=["agrees", "agrees"]))
    assert fixed["second_reading"].iloc[0].startswith("refuted, fixed")
    assert second_reading.verdict_reading_counts(fixed) == {"verdicts_reread": 1, "verdicts_refuted": 1,
                                                            "verdicts_fixed": 1}


@pytest.mark.parametrize("row, message", [
    (["S", "f1", "maybe", "major", "", "why", "r"], "outcome 'maybe'"),
    (["S", "f1", "confirmed", "", "", "why", "r"], "needs its severity"),
    (["S", "f1", "confirmed", "major", "", " ", "r"], "needs its reason"),
])
def test_a_reading_without_outcome_severity_or_reason_is_refused_with_its_line(tmp_path, monkeypatch, row, message):
    _write(tmp_path, monkeypatch, [row])
    with pytest.raises(ClaimsError, match=rf"second_reading.csv:2: .*{message}"):
        second_reading.readings("S")


@pytest.mark.slow  # seconds of CPU: out of `make test-fast`, in `make test`
def test_every_major_finding_and_decided_headline_verdict_has_had_a_second_reading(reproduced):
    """The studies' published findings: none major without a reading, none refuted still shown."""
    unread = []
    for study in studies():
        r = reproduced(study)
        major = r.audit[r.audit["severity"] == "major"]
        verdict_read = r.verdicts.set_index("id")["second_reading"].ne("")
        read = [reading != "" or (i.startswith("claim:") and verdict_read[i.split(":", 1)[1]])
                for i, reading in zip(major["id"], major["second_reading"])]
        unread += [f"{study} {i}" for i, ok in zip(major["id"], read) if not ok]
        headline = r.verdicts[r.verdicts["headline"] & r.verdicts["verdict"].isin(
            ["agrees", "disagrees", "supported", "contradicted"])]
        unread += [f"{study} verdict {i}" for i in headline.loc[headline["second_reading"] == "", "id"]]
        assert not (r.audit["second_reading"] == "refuted").any()
    assert not unread, unread


def test_a_later_round_confirming_a_refuted_verdict_shows_it_fixed(tmp_path, monkeypatch):
    _write(tmp_path, monkeypatch, [
        ["S", "verdict:C1", "refuted", "", "agrees", "out of scope (l. 5)", "round 1"],
        ["S", "verdict:C1", "confirmed", "", "", "now judged on IPv4's own number (l. 7)", "round 2"],
        ["S", "verdict:C2", "refuted", "", "tie", "a pooled figure (l. 9)", "round 2"]])
    shown = second_reading.verdicts_with_readings("S", pd.DataFrame({"id": ["C1", "C2"],
                                                                     "verdict": ["agrees", "agrees"]}))
    assert shown["second_reading"].iloc[0].startswith("refuted, fixed")
    assert shown["second_reading"].iloc[1].startswith("refuted: should be tie")
    assert second_reading.verdict_reading_counts(shown) == {"verdicts_reread": 2, "verdicts_refuted": 2,
                                                            "verdicts_fixed": 1}


def test_one_finding_read_twice_in_one_round_is_refused(tmp_path, monkeypatch):
    _write(tmp_path, monkeypatch, [["S", "f1", "confirmed", "major", "", "why", "r"],
                                   ["S", "f1", "refuted", "", "", "why not", "r"]])
    with pytest.raises(ClaimsError, match="read twice in one reading"):
        second_reading.readings("S")
