"""The record's index answers every lookup exactly as the full-table mask does."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.reproduce.lookup import KEY_COLUMNS, match

from budget import examples

STUDIES = ["000_4e5320b6fe1e825c", "003_78d69edb35c6dd71", "004_a7738a926cf50bd6"]


@pytest.mark.slow  # seconds of CPU: out of `make test-fast`, in `make test`
@pytest.mark.parametrize("study", STUDIES)
@settings(max_examples=examples(60))
@given(data=st.data())
def test_select_equals_the_mask_over_the_whole_table(study, data, record_of):
    record = _record(study, record_of)
    rows = record.evidence_rows  # what the index holds: the record but rows of doubtful subject
    row = rows.iloc[data.draw(st.integers(0, len(rows) - 1))]
    columns = data.draw(st.lists(st.sampled_from(KEY_COLUMNS), max_size=4, unique=True))
    key = {c: (None if _missing(row[c]) else row[c]) for c in columns}
    if data.draw(st.booleans()):  # also keys no row has
        column = data.draw(st.sampled_from(["os", "size_bytes"]))
        key[column] = "no such OS" if column == "os" else 123457
    statistics = data.draw(st.lists(st.sampled_from(sorted(set(rows["statistic"]))), min_size=1, max_size=3,
                                    unique=True))
    expected = rows[match(rows, key) & (rows["metric"] == row["metric"]) & rows["statistic"].isin(statistics)]
    found = record.index.select(key, row["metric"], statistics)
    assert found.index.tolist() == expected.index.tolist()
    assert record.index.select(key).index.tolist() == rows[match(rows, key)].index.tolist()


_RECORDS: dict = {}


def _record(study, record_of):
    """The study's record, one copy for all of a study's examples (its index is built once)."""
    if study not in _RECORDS:
        _RECORDS[study] = record_of(study)
    return _RECORDS[study]


def _missing(value) -> bool:
    try:
        return value is None or value != value or str(value) == ""
    except TypeError:  # pd.NA
        return True
