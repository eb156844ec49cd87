"""The overview reads each study's stored summary while its inputs and the code
are unchanged, and reproduces the study again when one of them changes."""

from __future__ import annotations

import json
import shutil

import pytest

from analysis import config
from analysis.reproduce.study import reproduce_study
from analysis.reproduce.summaries import (audit_frame, overview_tables, remember, study_inputs, study_summary,
                                          summary_key, summary_path)

STUDY = "002_6c0e8c5c95705e2f"  # the quickest to reproduce (under a second of CPU; 001 takes four)


@pytest.fixture(scope="module")
def reproduction():
    return reproduce_study(STUDY)


@pytest.fixture
def processed(tmp_path, monkeypatch):
    monkeypatch.setenv("NETREPRO_PROCESSED", str(tmp_path / "processed"))
    return tmp_path / "processed"


def test_a_summary_is_the_reproductions_counts_read_back_while_current_and_redone_when_not(reproduction,
                                                                                         processed):
    first = study_summary(STUDY)
    assert summary_path(STUDY).parent == processed / "studies"
    assert first["counts"] == reproduction.counts()
    assert first["title"] == reproduction.record.design["title"]
    assert audit_frame(first).equals(reproduction.audit_summary())
    stored = json.loads(summary_path(STUDY).read_text())
    stored["title"] = "read from the stored summary"  # the key still matches: it is used as stored
    summary_path(STUDY).write_text(json.dumps(stored))
    assert study_summary(STUDY)["title"] == "read from the stored summary"
    # a summary stored under another key (other inputs or code) is reproduced again
    summary_path(STUDY).write_text(json.dumps({"key": "inputs of another day", "title": "stale", "counts": {}}))
    again = study_summary(STUDY)
    assert again["title"] == reproduction.record.design["title"] and again["counts"] == reproduction.counts()
    assert json.loads(summary_path(STUDY).read_text())["key"] == summary_key(STUDY)


def test_the_key_follows_the_claims_file(tmp_path, monkeypatch):
    claims = tmp_path / "claims"
    shutil.copytree(config.claims_dir(), claims)
    monkeypatch.setenv("NETREPRO_CLAIMS", str(claims))
    before = summary_key(STUDY)
    with (claims / f"{STUDY}.yaml").open("a") as stream:
        stream.write("# edited\n")
    assert summary_key(STUDY) != before


def test_the_overview_totals_the_stored_studies(reproduction, processed):
    remember(reproduction)  # as the study's page does
    table, audits = overview_tables([STUDY])
    assert list(table["study"]) == [STUDY, "all five"]
    assert table.iloc[0]["claims"] == table.iloc[1]["claims"] == reproduction.counts()["claims"]
    assert set(audits["study"]) == {STUDY}
    assert audits.drop(columns="study").equals(reproduction.audit_summary())


def test_every_file_beside_the_records_is_an_input_of_every_study():
    """The stated sizes or the doubtful rows change verdicts: a stored summary (and a
    study page) keyed without them would outlive a change to them."""
    names = {p.name for p in study_inputs("000_4e5320b6fe1e825c")}
    assert {"designs.yaml", "stated_sizes.csv", "doubtful.csv", "second_reading.csv"} <= names
    assert "004_a7738a926cf50bd6.csv" not in names
