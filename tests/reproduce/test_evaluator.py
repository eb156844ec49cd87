"""The evaluator on the published numbers, checked against hand computation."""
import math

import pytest
from scipy import stats

from analysis.reproduce import evaluate_claims, load_record, mdd_table, minimum_detectable_difference, recompute_derived
from analysis.reproduce.study import reproduce_study


@pytest.fixture(scope="module")
def r000():
    record = load_record("000_4e5320b6fe1e825c")
    return record, *evaluate_claims(record)


@pytest.fixture(scope="module")
def r002():
    record = load_record("002_6c0e8c5c95705e2f")
    return record, *evaluate_claims(record)


def test_table_ii_percentage_is_reproduced_as_difference_over_the_larger(r002):
    derived = recompute_derived(r002[0]).set_index("id")
    row = derived.loc["II-1"]  # (438.68 - 411.83) / 438.68 = 6.12 % -> printed 6.1
    assert row["status"] == "reproduced" and row["formula"] == "(a - b) / a"
    assert row["recomputed"] == pytest.approx(100 * (438.68 - 411.83) / 438.68, abs=1e-4)
    assert (derived.filter(regex="^(II|III|IV)-", axis=0)["status"] == "reproduced").all()


def test_text_percentages_that_contradict_table_iv_are_mismatches(r002):
    derived = recompute_derived(r002[0]).set_index("id")
    assert derived.loc["T-3", "status"] == "mismatch"  # 'about 3.5%' vs 16 and 8.7
    assert derived.loc["T-3", "recomputed"] == pytest.approx(100 * 2.4 / 27.7, abs=1e-4)


def test_tested_claim_gives_the_welch_p_computed_by_hand(r000):
    """000 R2b: XP TCP 1152 bytes, IPv6 37.50 vs IPv4 35.52 Mbps, SD 0.99 / 0.92 (Table 2), n = 40."""
    _, verdicts, cells = r000
    cell = cells[cells["id"] == "R2b"].iloc[0]
    se = math.sqrt(0.99**2 / 40 + 0.92**2 / 40)
    t = (37.50 - 35.52) / se
    df = se**4 / ((0.99**2 / 40) ** 2 / 39 + (0.92**2 / 40) ** 2 / 39)
    assert cell["class"] == "tested" and cell["statistic"] == pytest.approx(t)
    assert cell["p"] == pytest.approx(2 * stats.t.sf(t, df), rel=1e-9)
    assert verdicts.set_index("id").loc["R2b", "verdict"] == "supported"


def test_holm_runs_across_the_cells_of_one_claim(r000):
    _, _, cells = r000
    tested = cells[(cells["id"] == "R3") & (cells["class"] == "tested")].sort_values("p")
    assert list(tested["cell"]) == ["384", "1408"]
    assert tested["p_adj"].iloc[0] == pytest.approx(2 * tested["p"].iloc[0])
    assert tested["p_adj"].iloc[1] == pytest.approx(max(tested["p"].iloc[1], 2 * tested["p"].iloc[0]))


def test_a_printed_exception_contradicts_an_all_operating_systems_claim(r000):
    _, verdicts, cells = r000
    assert verdicts.set_index("id").loc["D1", "verdict"] == "contradicted"
    bad = cells[(cells["id"] == "D1") & (cells["verdict"] == "contradicted")]
    assert list(bad["cell"]) == ["Windows XP, TCP, 1152"]


def test_claim_over_all_sizes_says_where_it_was_judged(r000):
    row = r000[1].set_index("id").loc["R1"]
    assert row["judged"] == "1 of 6" and row["judged_at"] == "128"
    assert "not judged at 5 cell(s)" in row["missing"]


def test_claim_with_only_means_is_descriptive(r002):
    row = r002[1].set_index("id").loc["T1"]  # Table II means, no SD printed anywhere
    assert row["class"] == "descriptive" and row["verdict"] == "agrees" and math.isnan(row["p_adj"])


def test_claim_without_numbers_is_untestable_and_names_what_is_missing(r000, r002):
    a1 = r000[1].set_index("id").loc["A1"]
    assert a1["class"] == "untestable"
    assert "means of Fedora 12 and Windows 7 (or their difference)" in a1["missing"]
    j1 = r002[1].set_index("id").loc["J1"]
    assert j1["class"] == "untestable" and "SD of Windows 7-Server 2008" in j1["missing"]


def test_similar_without_margin_is_untestable():
    verdicts, _ = evaluate_claims(load_record("004_a7738a926cf50bd6"))
    row = verdicts.set_index("id").loc["H3-TCP"]
    assert row["class"] == "untestable" and "equivalence margin" in row["missing"]
    assert "runs per point" in row["missing"]


def test_minimum_detectable_difference_has_80_percent_power():
    from analysis.stats import power_t
    delta = minimum_detectable_difference(0.9, 0.9, 40)
    assert power_t(40, delta, 0.9) == pytest.approx(0.8, abs=1e-9)
    assert 0.55 < delta < 0.58  # about 2.8 * 0.9 * sqrt(2 / 40)


def test_mdd_flags_a_claimed_difference_below_detection(r000):
    record, _, cells = r000
    table = mdd_table(record, cells).set_index(["id", "cell"])
    assert table.loc[("R3", "1408"), "detectable"] == "no"  # 48.27 - 47.88 = 0.39 < 0.58
    assert table.loc[("R1", "128"), "detectable"] == "yes"


def test_audit_finds_the_duplicated_sd_columns_of_000():
    audit = reproduce_study("000_4e5320b6fe1e825c").audit
    dups = audit[audit["rule"] == "duplicated table"]
    assert any("Table 2 column Windows 7 IPv4 = Table 3 column Windows 7 IPv4" in q for q in dups["quote"])
