"""Tables handed on as CSV and shown in the notebooks."""

import numpy as np
import pandas as pd

import pytest

from analysis.artefacts import earlier_table, read_table, save_table, steady_digits

# A mean square of the demo campaign's jitter data, exactly on a rounding tie
# of pandas' 4-decimal scientific display, as two machines computed it: one bit
# apart. The throughput mean square beside it makes the column scientific.
TIE = 0.0007940750000000001
TIE_OTHER_CPU = np.nextafter(TIE, 0.0)
THROUGHPUT_MS = 2.7181e7


def _shown(table: pd.DataFrame) -> str:
    with pd.option_context("display.precision", 4):
        return table.to_html()


def _anova(ms: float) -> pd.DataFrame:
    return pd.DataFrame({"term": ["Residual", "size", "C(tool)"], "ms": [ms, np.nan, THROUGHPUT_MS]})


def test_a_last_bit_difference_flips_the_shown_digit_without_rounding():
    assert "7.9408e-04" in _shown(_anova(TIE))
    assert "7.9407e-04" in _shown(_anova(TIE_OTHER_CPU))


def test_steady_digits_shows_the_same_digits_on_both_cpus():
    tables = [steady_digits(_anova(ms)) for ms in (TIE, TIE_OTHER_CPU)]
    assert _shown(tables[0]) == _shown(tables[1])
    assert tables[0]["ms"].iloc[0] == 0.000794075
    assert np.isnan(tables[0]["ms"].iloc[1])
    assert tables[0]["ms"].iloc[2] == THROUGHPUT_MS
    assert list(tables[0]["term"]) == ["Residual", "size", "C(tool)"]


def test_steady_digits_keeps_twelve_significant_digits_and_integers():
    table = pd.DataFrame({"x": [123456.789012345678, -1e-20 / 3], "n": [10, 20]})
    steady = steady_digits(table)
    assert steady["x"].tolist() == [123456.789012, -3.33333333333e-21]
    assert steady["n"].dtype == table["n"].dtype
    assert table["x"].iloc[0] == 123456.789012345678  # the input is not changed


def test_saved_table_reads_back(tmp_path):
    table = pd.DataFrame({"tool": ["iperf3"], "mean": [941.123456789]})
    path = save_table(table, tmp_path, "summaries")
    assert path == tmp_path / "tables" / "summaries.csv"
    pd.testing.assert_frame_equal(read_table(tmp_path, "summaries"), table)
    assert read_table(tmp_path, "absent") is None


def test_earlier_table_is_the_same_whether_or_not_the_earlier_notebook_ran(tmp_path):
    """nbval runs 04_figures alone or after 03_hypotheses: both must see one table."""
    computed = pd.DataFrame({"id": ["H1"], "estimate_pct": [1 / 3]})
    calls = []

    def compute():
        calls.append(1)
        return computed

    alone = earlier_table(tmp_path / "alone", "verdicts", compute)
    save_table(computed, tmp_path / "after", "verdicts")  # what the earlier notebook writes
    after = earlier_table(tmp_path / "after", "verdicts", compute)
    pd.testing.assert_frame_equal(alone, after)
    assert calls == [1]  # computed only where no notebook had written it
    assert (tmp_path / "alone" / "tables" / "verdicts.csv").is_file()
    assert alone["estimate_pct"].iloc[0] != 1 / 3  # read back from the CSV's 10 digits, as the others read it


def test_a_failed_save_leaves_no_partial_file(tmp_path):
    class Unwritable(pd.DataFrame):
        def to_csv(self, *args, **kwargs):
            raise OSError("disk full")

    save_table(pd.DataFrame({"x": [1]}), tmp_path, "kept")
    with pytest.raises(OSError, match="disk full"):
        save_table(Unwritable({"x": [2]}), tmp_path, "kept")
    assert read_table(tmp_path, "kept")["x"].tolist() == [1]
    assert [p.name for p in (tmp_path / "tables").iterdir()] == ["kept.csv"]
