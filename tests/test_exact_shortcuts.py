"""The shortcuts ingest takes for speed give the same values as the long way.

* units: moving the decimal point of a float's printed form (``_shifted``)
  equals the decimal arithmetic of ``_scale`` by the same power of ten;
* values: ``json_number``'s float shortcut equals the general reading;
* schema: the plain-pandas reading of a schema (``plainly_valid``) passes
  exactly the tables pandera passes, on a real campaign's tables and on
  copies broken one way each.
"""

from __future__ import annotations

import math
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pandera.pandas as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from analysis.ingest.ingest import ingest_campaign
from analysis.ingest.schema import INTERVALS_SCHEMA, RUNS_SCHEMA, plainly_valid
from analysis.parsers import units
from analysis.parsers.values import finite, json_number

ROOT = Path(__file__).resolve().parents[1]


@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-(10**30), 10**30)),
       st.sampled_from([-6, -3, 3]))
def test_shifted_equals_decimal_scaling(value, exponent):
    times, per = (Decimal(10) ** exponent, Decimal(1)) if exponent > 0 else (Decimal(1), Decimal(10) ** -exponent)
    try:
        expected = units._scale(value, times, per)
    except OverflowError:
        with pytest.raises(OverflowError):
            units._shifted(value, exponent)
        return
    got = units._shifted(value, exponent)
    assert got == expected or (math.isnan(got) and math.isnan(expected))
    assert math.copysign(1, got) == math.copysign(1, expected)


def test_shifted_printed_examples():
    assert units.bits_per_s_to_mbps(8.2e9) == 8200.0
    assert units.bits_per_s_to_mbps(6111602822.074727) == 6111.602822074727
    assert units.us_to_ms(73) == 0.073 and units.us_to_ms(0.0) == 0.0


def _general_json_number(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return finite(float(value))
    except OverflowError:
        return None


@given(st.one_of(st.floats(), st.integers(-(10**400), 10**400), st.booleans(), st.none(), st.text(max_size=3)))
def test_json_number_shortcut_equals_general_reading(value):
    got, expected = json_number(value), _general_json_number(value)
    assert got == expected or (got is not None and expected is not None and math.isnan(got) and math.isnan(expected))


@pytest.fixture(scope="module")
def demo_tables():
    result = ingest_campaign(ROOT / "data/raw/demo-loopback", progress=False)
    return result.runs, result.intervals


def _pandera_passes(frame: pd.DataFrame, schema: pa.DataFrameSchema) -> bool:
    try:
        schema.validate(frame, lazy=True)
    except pa.errors.SchemaErrors:
        return False
    return True


def _broken(runs: pd.DataFrame) -> dict[str, pd.DataFrame]:
    def with_value(column, value):
        out = runs.copy()
        out.loc[out.index[3], column] = value
        return out

    no_column = runs.drop(columns=["jitter_ms"])
    as_int = runs.assign(bytes=runs["bytes"].round().astype("Int64"))
    return {
        "negative throughput": with_value("throughput_mbps", -1.0),
        "loss over 100 %": with_value("loss_pct", 100.5),
        "unknown direction": with_value("direction", "sideways"),
        "null tool": with_value("tool", pd.NA),
        "unknown ip version": with_value("ip_version", 5),
        "missing column": no_column,
        "integer dtype for a float column": as_int,
    }


def test_plain_reading_passes_what_pandera_passes(demo_tables):
    runs, intervals = demo_tables
    assert plainly_valid(runs, RUNS_SCHEMA) and _pandera_passes(runs, RUNS_SCHEMA)
    assert plainly_valid(intervals, INTERVALS_SCHEMA) and _pandera_passes(intervals, INTERVALS_SCHEMA)


BROKEN = ["negative throughput", "loss over 100 %", "unknown direction", "null tool", "unknown ip version",
          "missing column", "integer dtype for a float column"]


@pytest.mark.parametrize("how", BROKEN)
def test_plain_reading_refuses_what_pandera_refuses(demo_tables, how):
    broken = _broken(demo_tables[0])[how]
    assert not plainly_valid(broken, RUNS_SCHEMA)
    assert not _pandera_passes(broken, RUNS_SCHEMA), f"{how}: pandera passes it too; the case tests nothing"


def test_nan_counts_as_null(demo_tables):
    runs = demo_tables[0].copy()
    runs["jitter_ms"] = np.nan  # nullable: passes both readings
    assert plainly_valid(runs, RUNS_SCHEMA) and _pandera_passes(runs, RUNS_SCHEMA)


def test_object_strings_judged_as_pandera_judges_them(demo_tables):
    """pandera's own dtype test reads an object column of strings as strings: both pass it."""
    runs = demo_tables[0]
    as_object = runs.assign(tool=runs["tool"].astype(object))
    assert plainly_valid(as_object, RUNS_SCHEMA) == _pandera_passes(as_object, RUNS_SCHEMA)
    as_object.loc[as_object.index[0], "tool"] = 7
    assert not plainly_valid(as_object, RUNS_SCHEMA) and not _pandera_passes(as_object, RUNS_SCHEMA)


def _numbers(node):
    if isinstance(node, dict):
        for value in node.values():
            yield from _numbers(value)
    elif isinstance(node, list):
        for value in node:
            yield from _numbers(value)
    elif isinstance(node, (int, float)) and not isinstance(node, bool):
        yield node


def test_shifted_on_every_number_of_the_genuine_iperf3_outputs():
    """Every number in the iperf3 JSON fixtures and benchmark seeds, shifted
    both ways: the rates and RTTs the shortcut converts in practice."""
    import json

    folders = [ROOT / "tests/fixtures/iperf3", ROOT / "benchmarks/iperf3_outputs"]
    numbers = set()
    for path in sorted(p for folder in folders for p in folder.glob("*.json")):
        try:
            numbers.update(_numbers(json.loads(path.read_text(encoding="utf-8"))))
        except ValueError:  # several documents, events, a prefix: not one strict document
            continue
    assert len(numbers) > 1000
    for value in numbers:
        for exponent in (-6, -3):
            assert units._shifted(value, exponent) == units._scale(value, Decimal(1), Decimal(10) ** -exponent), value
