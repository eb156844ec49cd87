"""The published record against the studies' own texts.

Counts are pinned so that an accidental deletion or duplication fails; the
snippet tests are what make the record trustworthy: every number must be found,
as printed, inside text that occurs verbatim in its study.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd
import pandera.errors
import pytest

from analysis.reproduce.published import SCHEMA, load_designs, load_published

REPO = Path(__file__).resolve().parents[1]
PAPERS = Path(os.environ.get("NETREPRO_PAPERS", REPO / ".." / "shared" / "papers"))
needs_papers = pytest.mark.skipif(
    not PAPERS.is_dir(), reason=f"study texts not found at {PAPERS} (set NETREPRO_PAPERS)"
)

ROWS_PER_STUDY = {
    "000_4e5320b6fe1e825c": 188,
    "001_67ed56f85540d5f7": 159,
    "002_6c0e8c5c95705e2f": 58,
    "003_78d69edb35c6dd71": 109,
    "004_a7738a926cf50bd6": 663,
}
# every cell of every SD table: 000 Tables 2-5 (6 sizes x 6 columns), 001 Tables 1-2 (6 x 8)
SD_CELLS = {"000_4e5320b6fe1e825c": 144, "001_67ed56f85540d5f7": 96}


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.fixture(scope="module")
def record() -> pd.DataFrame:
    return load_published()


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    return {p.stem: _norm(p.read_text(encoding="utf-8")) for p in PAPERS.glob("[0-9][0-9][0-9]_*.txt")}


def test_row_counts_per_study(record):
    assert record.groupby("study").size().to_dict() == ROWS_PER_STUDY


def test_sd_tables_complete(record):
    sd = record[record["statistic"] == "sd"]
    assert sd.groupby("study").size().to_dict() == SD_CELLS
    cells = sd[["study", "locator", "os", "security", "ip_version", "size_bytes"]]
    assert not cells.duplicated().any()


def test_known_cells(record):
    """A few cells read off the printed tables by hand."""
    def cell(study, locator, os, ip, size, security=""):
        rows = record[(record.study == study) & (record.locator == locator) & (record.os == os)
                      & (record.ip_version == ip) & (record.size_bytes == size) & (record.security == security)]
        assert len(rows) == 1
        return rows["value"].iloc[0]

    assert cell("000_4e5320b6fe1e825c", "Table 2", "Windows XP", 4, 128) == 0.55
    assert cell("000_4e5320b6fe1e825c", "Table 5", "Fedora 12", 6, 1152) == 0.05
    assert cell("001_67ed56f85540d5f7", "Table 1", "Windows 7", 6, 1408, "WPA2") == 0.58
    assert cell("001_67ed56f85540d5f7", "Table 2", "Fedora 12", 4, 384, "open") == 0.06


def test_value_matches_printed_form(record):
    printed = record["value_as_printed"].str.replace(",", "", regex=False).astype(float)
    assert (printed == record["value"]).all()


def test_value_occurs_in_snippet(record):
    missing = record[[v not in s for v, s in zip(record["value_as_printed"], record["snippet"])]]
    assert missing.empty, missing[["study", "value_as_printed", "snippet"]].head().to_string()


@needs_papers
def test_every_study_text_has_rows(record, texts):
    assert set(texts) == set(record["study"])


@needs_papers
def test_snippets_occur_verbatim(record, texts):
    absent = [(r.study, r.snippet) for r in record.itertuples() if _norm(r.snippet) not in texts[r.study]]
    assert not absent, absent[:5]


@needs_papers
def test_design_snippets_occur_verbatim(texts):
    designs = load_designs()
    assert set(designs) == set(ROWS_PER_STUDY)
    absent = [(study, item["snippet"]) for study, entry in designs.items()
              for item in entry["design"] if _norm(item["snippet"]) not in texts[study]]
    assert not absent, absent


def test_schema_rejects_unknown_metric(record):
    broken = record.head(3).copy()
    broken.loc[broken.index[0], "metric"] = "throughput_mb"
    with pytest.raises(pandera.errors.SchemaError):
        SCHEMA.validate(broken)


def test_load_one_study(record):
    one = load_published("002_6c0e8c5c95705e2f")
    assert len(one) == ROWS_PER_STUDY["002_6c0e8c5c95705e2f"]
    with pytest.raises(KeyError):
        load_published("999_0000000000000000")
