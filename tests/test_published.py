"""The published record against the studies' own texts.

The record was read twice by independent readers and reconciled field by field
(data/raw/published/reconciliation/); these tests make that reading checkable:
every number is found, as printed, inside text that occurs verbatim in its
study, the qualifiers are the subject's, and counts are pinned so an accidental
deletion or duplication fails.
"""
from __future__ import annotations

import pandas as pd
import pandera.errors
import pytest

from analysis.config import published_dir
from analysis.reproduce.claims import load_claims, studies
from analysis.reproduce.published import SCHEMA, load_designs, load_published

ROWS_PER_STUDY = {
    "000_4e5320b6fe1e825c": 188,
    "001_67ed56f85540d5f7": 165,
    "002_6c0e8c5c95705e2f": 65,
    "003_78d69edb35c6dd71": 111,
    "004_a7738a926cf50bd6": 1171,
}
# every cell of every SD table: 000 Tables 2-5 (6 sizes x 6 columns), 001 Tables 1-2 (6 x 8)
SD_CELLS = {"000_4e5320b6fe1e825c": 144, "001_67ed56f85540d5f7": 96}
DIFFERENCES = ("diff", "pct_diff", "max_diff", "max_pct_diff", "upper_bound", "bound")


@pytest.fixture(scope="module")
def record() -> pd.DataFrame:
    return load_published()


def test_row_counts_per_study(record):
    assert record.groupby("study").size().to_dict() == ROWS_PER_STUDY


def test_every_study_has_its_reconciliation_log(record):
    logs = {p.stem for p in (published_dir() / "reconciliation").glob("[0-9][0-9][0-9]_*.csv")}
    assert {"000_4e5320b6fe1e825c", "001_67ed56f85540d5f7", "002_6c0e8c5c95705e2f", "003_78d69edb35c6dd71",
            "004_a7738a926cf50bd6"} <= logs
    for study in logs:
        log = pd.read_csv(published_dir() / "reconciliation" / f"{study}.csv", dtype=str, keep_default_na=False)
        assert {"field", "reader1", "reader2", "decision", "reason"} <= set(log.columns)
        assert (log["reason"].str.len() > 0).all(), f"{study}: a disagreement decided without a reason"


def test_sd_tables_complete(record):
    sd = record[record["statistic"] == "sd"]
    assert sd.groupby("study").size().to_dict() == SD_CELLS
    cells = sd[["study", "locator", "os", "security", "ip_version", "size_bytes"]]
    assert not cells.duplicated().any()


def test_known_cells(record):
    """A few cells read off the printed tables by hand."""
    def cell(study, locator, os, ip, size, security=""):
        rows = record[(record.study == study) & (record.locator == locator) & (record.os == os)
                      & (record.ip_version == ip) & (record.size_bytes == size) & (record.security == security)
                      & (record.statistic == "sd")]
        assert len(rows) == 1
        return rows["value"].iloc[0]

    assert cell("000_4e5320b6fe1e825c", "Table 2", "Windows XP", 4, 128, "open") == 0.55
    assert cell("000_4e5320b6fe1e825c", "Table 5", "Fedora 12", 6, 1152, "open") == 0.05
    assert cell("001_67ed56f85540d5f7", "Table 1", "Windows 7", 6, 1408, "WPA2") == 0.58
    assert cell("001_67ed56f85540d5f7", "Table 2", "Fedora 12", 4, 384, "open") == 0.06


def _rows_of(record, study, fragment, printed):
    rows = record[(record.study == study) & record.snippet.str.contains(fragment, regex=False)
                  & (record.value_as_printed == printed)]
    assert len(rows) >= 1, (fragment, printed)
    return rows


@pytest.mark.skipif(not (published_dir() / "reconciliation" / "004_a7738a926cf50bd6.csv").is_file(),
                    reason="004's double-entry reading is not installed yet")
def test_004_rows_carry_the_subjects_qualifiers(record):
    """Classes of error the earlier extraction made, each checked on one sentence."""
    s = "004_a7738a926cf50bd6"
    # the subject is the OS the sentence is about, not the one it is compared with
    assert set(_rows_of(record, s, "outperforming Linux Fedora by 5%", "5")["os"]) == {"Windows Server 2008"}
    # a leading decimal point is kept
    assert set(_rows_of(record, s, "by up to .4% on frame", ".4")["value"]) == {0.4}
    # an absolute CPU level is a level, not a difference
    assert set(_rows_of(record, s, "dwelled around 1.4% and 1.7%", "1.4")["statistic"]) == {"level"}
    # a sign the text states ("shown as negative") is kept
    assert set(_rows_of(record, s, "this is shown as negative", "1.8")["value"]) == {-1.8}


def test_value_matches_printed_form(record):
    printed = record["value_as_printed"].str.replace(",", "", regex=False).astype(float)
    assert (printed == record["value"].abs()).all()


def test_value_occurs_in_snippet(record):
    missing = record[[v not in s for v, s in zip(record["value_as_printed"], record["snippet"])]]
    assert missing.empty, missing[["study", "value_as_printed", "snippet"]].head().to_string()


def test_larger_side_only_on_differences(record):
    sided = record[record["larger_side"] != ""]
    assert sided["statistic"].isin(DIFFERENCES).all()


def test_every_study_text_has_rows(record, paper_text):
    assert set(paper_text) == set(record["study"])


def test_snippets_occur_verbatim(record, paper_text, normalised):
    absent = [(r.study, r.snippet) for r in record.itertuples() if normalised(r.snippet) not in paper_text[r.study]]
    assert not absent, absent[:5]


def test_design_snippets_occur_verbatim(paper_text, normalised):
    designs = load_designs()
    assert set(designs) == set(ROWS_PER_STUDY)
    absent = [(study, item["snippet"]) for study, entry in designs.items()
              for item in entry["design"] if normalised(item["snippet"]) not in paper_text[study]]
    assert not absent, absent


@pytest.mark.slow  # seconds of CPU: out of `make test-fast`, in `make test`
def test_every_claim_links_only_rows_that_exist(record):
    ids = set(record["id"])
    for study in studies():
        dangling = {(c.id, r) for c in load_claims(study).claims for r in c.rows if r not in ids}
        assert not dangling, (study, sorted(dangling)[:5])


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
