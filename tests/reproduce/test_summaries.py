"""The overview reads each study's stored summary, and its page the stored
reproduction, while its inputs and the code are unchanged; the study is
reproduced again when one of them changes."""

from __future__ import annotations

import copy
import json
import pickle
import shutil
from concurrent.futures import ThreadPoolExecutor

import pandas as pd
import pytest

from analysis import config
from analysis.reproduce import summaries
from analysis.reproduce.study import reproduce_study
from analysis.reproduce.summaries import (audit_frame, overview_tables, remember, reproduction_path, stored_reproduction,
                                          study_inputs, study_summary, summary_key, summary_path)

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


# --- the stored reproduction: what the study pages read -----------------------------------
def _counting_reproductions(monkeypatch, reproduction) -> list[str]:
    """Each study reproduced from here on (the store reproduces through analysis.reproduce.study):
    a copy of the module's real reproduction, which it would give again (the store is what is
    tested here, not the reproduction; each real one took half a second of CPU)."""
    import analysis.reproduce.study as study_module

    calls: list[str] = []
    monkeypatch.setattr(study_module, "reproduce_study", lambda study: calls.append(study) or copy.deepcopy(reproduction))
    return calls


def _same_reproduction(got, expected) -> None:
    for name in ("verdicts", "cells", "derived", "mdd", "audit"):
        pd.testing.assert_frame_equal(getattr(got, name), getattr(expected, name))
    assert got.counts() == expected.counts()


def test_a_stored_reproduction_is_read_back_while_current_and_redone_when_not(reproduction, processed, monkeypatch):
    calls = _counting_reproductions(monkeypatch, reproduction)
    first = stored_reproduction(STUDY)
    assert calls == [STUDY] and reproduction_path(STUDY).parent == processed / "studies"
    _same_reproduction(first, reproduction)
    assert json.loads(summary_path(STUDY).read_text())["key"] == summary_key(STUDY)  # the summary stored with it
    first.verdicts.loc[0, "verdict"] = "changed by a caller"
    again = stored_reproduction(STUDY)
    assert calls == [STUDY]  # read back, not reproduced
    _same_reproduction(again, reproduction)  # a new copy: the caller's change is not in it
    assert study_summary(STUDY)["counts"] == reproduction.counts() and calls == [STUDY]


@pytest.mark.parametrize("stored", ["other inputs", "other libraries", "truncated", "not a pickle"])
def test_a_stored_reproduction_of_other_inputs_or_libraries_or_damaged_is_reproduced_again(reproduction, processed,
                                                                                            monkeypatch, stored):
    calls = _counting_reproductions(monkeypatch, reproduction)
    stored_reproduction(STUDY)
    calls.clear()
    path = reproduction_path(STUDY)
    good = path.read_bytes()
    if stored == "truncated":
        path.write_bytes(good[: len(good) // 2])
    elif stored == "not a pickle":
        path.write_text("a file that is no pickle\n")
    else:
        key = summaries._pickle_key(summary_key(STUDY))
        other = "inputs of another day" if stored == "other inputs" else key.replace(f"pandas {pd.__version__}", "pandas 0.1")
        assert other != key
        with path.open("wb") as stream:
            pickle.dump(other, stream)
            pickle.dump("what that day stored", stream)
    _same_reproduction(stored_reproduction(STUDY), reproduction)
    assert calls == [STUDY]
    assert path.read_bytes() != b"" and stored_reproduction(STUDY) is not None and calls == [STUDY]  # stored again


def test_processes_asking_at_once_reproduce_a_study_once(reproduction, processed, monkeypatch):
    """The second asker waits for the first one's store (a file lock), as the report's
    kernels and the test workers ask side by side."""
    calls = _counting_reproductions(monkeypatch, reproduction)
    with ThreadPoolExecutor(2) as pool:  # flock: each thread opens the lock itself, as a process would
        got = list(pool.map(stored_reproduction, [STUDY, STUDY]))
    assert calls == [STUDY]
    _same_reproduction(got[0], got[1])
