"""The engine is total: every claim that validates gets one verdict row with
a reason, on the data real campaigns have (constant groups, n = 2, ties,
zeros, NaN, several records per run); only invalid input raises, and only a
HypothesisError.  SYNTHETIC data, built in each test."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from scipy import stats

from analysis.errors import HypothesisError
from analysis.ingest.campaign import load_campaign
from analysis.ingest.per_run import one_row_per_run
from analysis.stats import power_for_change
from analysis.verdicts import VERDICTS, evaluate

from budget import examples

ROOT = Path(__file__).resolve().parents[2]


def runs(a, b, metric="loss_pct", c=None):
    groups = [(4, a), (6, b)] + ([(8, c)] if c is not None else [])
    return pd.DataFrame({"ip_version": [k for k, v in groups for _ in v], metric: [x for _, v in groups for x in v],
                         "status": "ok"})


def claim(direction, metric="loss_pct", levels=(4, 6), **extra):
    return {"id": "C", "statement": "s", "metric": metric, "direction": direction,
            "compare": {"factor": "ip_version", "levels": list(levels)}, **extra}


def row_of(data, spec, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no divide-by-zero or other warning reaches the reader
        return evaluate(data, [spec], **kw).table.iloc[0]


@pytest.mark.parametrize("direction", ["greater", "less", "different"])
def test_two_identical_constant_groups_are_untestable_not_a_crash(direction):
    row = row_of(runs([5, 5, 5], [5, 5, 5]), claim(direction))
    assert row["verdict"] == "untestable"
    assert row["reason"] == "no variance: every run of both groups gave 5%; no test applies"
    assert row["summary"] == "IPv4 − IPv6: +0 points in every run (no variance)"


def test_zero_loss_in_both_groups_is_equivalent_without_a_test_and_says_so():
    row = row_of(runs([0.0] * 5, [0.0] * 5), claim("equivalent", margin=0.5))
    assert row["verdict"] == "supported"
    assert row["reason"] == ("equivalent (no variance, identical values): every run of both groups gave 0%, "
                             "inside the margin ±0.5%")
    assert np.isnan(row["p"])


def test_two_different_constants_are_a_deterministic_difference_not_p_zero():
    row = row_of(runs([5, 5, 5], [7, 7, 7], "rtt_ms"), claim("less", "rtt_ms"))
    assert row["verdict"] == "untestable"
    assert row["reason"] == ("no variance: every run gave 5 ms in one group and 7 ms in the other, "
                             "a deterministic difference of -2 ms; no test applies")
    assert row["diff"] == -2 and np.isnan(row["p"])


@pytest.mark.parametrize("margin, key", [("0", "margin"), ("-1", "margin"), ("0", "margin_pct")])
def test_a_margin_that_is_no_margin_is_refused_at_its_line(tmp_path, margin, key):
    path = tmp_path / "h.yaml"
    path.write_text("hypotheses:\n  - id: M\n    statement: s\n    metric: loss_pct\n    direction: equivalent\n"
                    f"    compare: {{factor: ip_version, levels: [4, 6]}}\n    {key}: {margin}\n")
    with pytest.raises(HypothesisError, match=rf"^{path}:7: hypothesis M: key '{key}': .*greater than 0"):
        evaluate(runs([1, 2], [1, 2]), path)


def cells(gaps, n=6, seed=1):
    """SYNTHETIC: one cell per gap, IPv4 = 100 + gap, IPv6 = 100, noise SD 1."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame([{"size": size, "ip_version": ip, "status": "ok",
                          "throughput_mbps": 100 + (gap if ip == 4 else 0) + rng.normal(0, 1)}
                         for size, gap in enumerate(gaps, 1) for ip in (4, 6) for _ in range(n)])


def test_any_with_one_of_two_cells_supporting_says_one_of_two():
    row = row_of(cells([5.0, 0.0]), claim("greater", "throughput_mbps", per="size", holds="any"))
    assert row["verdict"] == "supported"
    assert row["reason"].startswith("1/2 cells support; deciding cell size=1: significant in the claimed direction")


def test_all_with_an_untestable_cell_names_that_cell_not_the_supporting_one():
    data = cells([5.0, 0.0])
    data.loc[data["size"] == 2, "throughput_mbps"] = 100.0
    row = row_of(data, claim("greater", "throughput_mbps", per="size"))
    assert row["verdict"] == "untestable" and row["cell"] == "size=2"
    assert row["reason"] == ("1/2 cells support; deciding cell size=2: "
                             "no variance: every run of both groups gave 100 Mbit/s; no test applies")


def blocks(shift=1.5, seed=2):
    """SYNTHETIC: three groups in four blocks 10 apart; group 8 is `shift` higher in every block."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame([{"ip_version": g, "size": blk, "status": "ok",
                          "throughput_mbps": 10 * blk + (shift if g == 8 else 0) + rng.normal()}
                         for blk in range(4) for g in (4, 6, 8) for _ in range(5)])


def test_pooled_with_three_groups_fits_the_blocked_model_it_was_asked_for():
    row = row_of(blocks(), claim("different", "throughput_mbps", levels=(4, 6, 8), per="size", holds="pooled"))
    assert row["verdict"] == "supported"
    assert row["test"] == "OLS throughput_mbps ~ group + size (HC3), F on group"
    assert row["p"] < 0.001 and row["df_num"] == 2
    cell = evaluate(blocks(), [claim("different", "throughput_mbps", levels=(4, 6, 8), per="size",
                                     holds="pooled")]).cells.iloc[0]
    assert cell["note"].startswith("pairwise (HC3 t, Holm): 4 − 6 ")
    assert "4 − 8 -1." in cell["note"] and "6 − 8 -1." in cell["note"]


def test_a_rank_test_shows_the_hodges_lehmann_shift_and_its_sign_decides():
    a, b = [3.1, 3.3, 2.9, 3.6, 3.2, 9.0], [2.1, 2.4, 2.0, 2.6, 2.2, 2.3]
    row = row_of(runs(a, b, "rtt_ms"), claim("less", "rtt_ms", test="mann-whitney"))
    shift = np.median(np.subtract.outer(a, b))
    assert row["estimate"] == "Hodges-Lehmann shift" and row["diff"] == pytest.approx(shift)
    assert row["p"] == pytest.approx(stats.mannwhitneyu(a, b, method="exact").pvalue)
    assert row["verdict"] == "contradicted"  # the shift is positive: IPv4 higher, against 'less'
    assert row["summary"].startswith("IPv4 vs IPv6: shift +") and "of IPv6's median, IPv4 higher" in row["summary"]


def test_a_rank_test_that_cannot_reach_alpha_says_so():
    row = row_of(runs([1.0, 2.0, 3.0], [1.5, 2.5, 3.5], "rtt_ms"), claim("different", "rtt_ms", test="mann-whitney"))
    assert row["verdict"] == "inconclusive"
    assert "with 3+3 runs no shift can be significant at this level" in row["reason"]


def test_auto_is_welch_even_for_a_latency_the_pre_tests_only_report():
    a = [0.2, 0.21, 0.19, 0.22, 0.2, 1.9]
    b = [0.3, 0.31, 0.29, 0.33, 0.3, 0.32]
    row = row_of(runs(a, b, "rtt_ms"), claim("less", "rtt_ms"))
    assert row["test"] == "Welch t" and row["estimate"] == "mean difference"
    assert "Shapiro-Wilk normal residuals" in row["assumptions"] and "(fails -> diagnostic only" in row["assumptions"]


def test_the_documented_runs_table_counts_each_run_once():
    campaign = load_campaign(ROOT / "data/raw/demo-loopback")
    path = ROOT / "data/hypotheses/demo-loopback.yaml"
    assert campaign.runs["source_path"].duplicated().any()  # a sender and a receiver row per run
    direct = evaluate(campaign.runs, path).table
    collapsed = evaluate(one_row_per_run(campaign.runs), path).table
    pd.testing.assert_frame_equal(direct, collapsed)


def test_several_sides_without_a_file_to_group_them_by_are_refused():
    data = runs([1.0, 2.0, 3.0], [1.5, 2.5, 3.5]).assign(side=["sender", "receiver"] * 3)
    with pytest.raises(HypothesisError, match="column 'side' holds several sides .*pass one row per run"):
        evaluate(data, [claim("different")])


def test_family_file_corrects_across_the_claims_of_a_file():
    data = cells([1.5], n=8, seed=5)
    specs = [claim("different", "throughput_mbps", id=f"F{i}", family="file") for i in range(3)]
    alone = evaluate(data, [claim("different", "throughput_mbps")]).table.iloc[0]
    together = evaluate(data, specs).table
    assert alone["p_adj"] == alone["p"] < 0.05
    assert together["p_adj"].tolist() == pytest.approx([min(1.0, 3 * alone["p"])] * 3)  # Holm over 3 equal p
    assert (together["family"] == "file").all()


def test_claims_of_one_file_family_must_share_correction_and_alpha():
    specs = [claim("different", id="A", family="file"), claim("different", id="B", family="file", correction="bh")]
    with pytest.raises(HypothesisError, match="hypothesis B: key 'family': claims corrected as one file share"):
        evaluate(runs([1, 2], [1, 2]), specs)


def test_tiny_groups_skip_the_pre_tests_and_call_the_runs_needed_rough():
    row = row_of(runs([10.0, 12.0, 11.0], [10.5, 11.5, 12.5], "throughput_mbps"), claim("greater", "throughput_mbps"))
    assert row["verdict"] == "inconclusive"
    assert row["assumptions"].startswith("pre-tests skipped: 3 run(s) in the smallest cell")
    assert "power not stated: the spread of so few runs is too uncertain (rough: need " in row["reason"]


def test_power_is_stated_from_ten_runs_at_the_tests_df_and_alpha_over_the_family():
    rng = np.random.default_rng(8)
    data = pd.DataFrame([{"size": size, "ip_version": ip, "status": "ok", "throughput_mbps": rng.normal(100, 10)}
                         for size in (1, 2) for ip in (4, 6) for _ in range(12)])
    table = evaluate(data, [claim("different", "throughput_mbps", per="size")]).cells
    for cell in table.itertuples():
        sub = data[data["size"] == int(cell.cell.split("=")[1])]
        a, b = (sub.loc[sub["ip_version"] == v, "throughput_mbps"].to_numpy() for v in (4, 6))
        cv = np.sqrt((a.var(ddof=1) + b.var(ddof=1)) / 2) / b.mean()
        welch_df = stats.ttest_ind(a, b, equal_var=False).df
        assert cell.power == pytest.approx(power_for_change(5, cv, 12, 12, 0.05 / 2, df=welch_df))
        assert "underpowered: power " in cell.reason


def test_an_interval_clear_of_zero_beside_an_adjusted_non_result_says_it_is_unadjusted():
    data = cells([1.2, 0.0, 0.0], n=8, seed=2)
    table = evaluate(data, [claim("different", "throughput_mbps", per="size")]).cells
    first = table.iloc[0]
    assert first["diff_ci_low"] > 0 and first["p"] < 0.05 <= first["p_adj"]  # the case at hand
    assert first["summary"].startswith("~ ")
    assert first["summary"].endswith("n=8+8; its CI is not adjusted for the 3 tests corrected together)")


def test_many_groups_with_a_constant_group_use_a_robust_f_not_welch():
    row = row_of(runs([0.0] * 5, [0.1, 0.3, 0.2, 0.4, 0.2], c=[1.1, 1.3, 1.2, 1.0, 1.4]),
                 claim("different", levels=(4, 6, 8)))
    assert row["test"] == "OLS F on group (HC3; Welch's ANOVA needs variance in every group)"
    assert row["verdict"] == "supported"


def test_an_interaction_without_variance_in_its_cells_is_untestable():
    data = pd.DataFrame({"ip_version": [4, 4, 6, 6] * 2, "size": [1] * 4 + [2] * 4, "status": "ok",
                         "loss_pct": [0.0] * 8})
    row = row_of(data, claim("different", interaction="size"))
    assert row["verdict"] == "untestable"
    assert row["reason"] == "no variance within the ip_version × size cells; no test applies"


def test_infinite_values_are_named_not_tested():
    row = row_of(runs([1.0, np.inf, 2.0], [1.0, 2.0, 3.0]), claim("different"))
    assert row["verdict"] == "untestable" and row["reason"] == "non-finite values of loss_pct in 4"


VALUES = hs.lists(hs.sampled_from([0.0, 0.0, 1.0, 2.5, 1e6, np.nan, 3.0, 3.0]), min_size=1, max_size=7)
SPECS = [claim("greater"), claim("less", test="mann-whitney"), claim("different"),
         claim("equivalent", margin=0.5), claim("equivalent", margin_pct=10)]


@pytest.mark.slow  # seconds of CPU: out of `make test-fast`, in `make test`
@settings(max_examples=examples(150))
@given(a=VALUES, b=VALUES, per=hs.booleans())
def test_any_data_gets_one_row_per_claim_with_a_reason(a, b, per):
    data = runs(a, b)
    specs = [dict(s, id=f"S{i}") for i, s in enumerate(SPECS)]
    if per:
        data["size"] = [i % 2 for i in range(len(data))]
        specs = [dict(s, per="size") for s in specs]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = evaluate(data, specs).table
    assert len(table) == len(specs)
    assert set(table["verdict"]) <= set(VERDICTS)
    assert table["reason"].str.len().gt(0).all()


def test_the_python_and_cli_paths_give_the_same_table(tmp_path):
    from typer.testing import CliRunner

    from analysis.cli import app

    campaign, path = ROOT / "data/raw/demo-loopback", ROOT / "data/hypotheses/demo-loopback.yaml"
    result = CliRunner().invoke(app, ["verdicts", str(campaign), str(path), "--csv", str(tmp_path / "v.csv")])
    assert result.exit_code == 0, result.output
    cli = pd.read_csv(tmp_path / "v.csv", keep_default_na=False)
    python = evaluate(load_campaign(campaign).runs, path).table
    assert list(cli["id"]) == list(python["id"]) and list(cli["verdict"]) == list(python["verdict"])
    assert cli["p_adj"].astype(float).tolist() == pytest.approx(python["p_adj"].tolist(), nan_ok=True)
    assert list(cli["summary"]) == list(python["summary"])


# Found by a second reader trying to break the engine (SYNTHETIC data)

def test_groups_constant_up_to_rounding_are_constant():
    row = row_of(runs([0.7] * 6, [1.0] * 6, "throughput_mbps"), claim("different", "throughput_mbps"))
    assert row["verdict"] == "untestable" and row["reason"].startswith("no variance: every run gave 0.7 Mbit/s")


def test_a_pooled_model_that_fits_exactly_is_untestable_not_p_zero():
    data = pd.DataFrame({"ip_version": [4] * 6 + [6] * 6, "size": ([64] * 3 + [128] * 3) * 2, "status": "ok",
                         "throughput_mbps": [10] * 3 + [30] * 3 + [20] * 3 + [40] * 3})
    row = row_of(data, claim("different", "throughput_mbps", per="size", holds="pooled"))
    assert row["verdict"] == "untestable" and "the fit is exact" in row["reason"]


def test_a_group_that_shares_no_block_cannot_be_compared_pooled():
    data = pd.DataFrame({"ip_version": [4] * 6 + [6] * 6 + [8] * 3, "size": [1, 1, 1, 2, 2, 2] * 2 + [3] * 3,
                         "status": "ok", "throughput_mbps": [10, 11, 12, 20, 21, 22] * 2 + [50, 51, 52]})
    row = row_of(data, claim("different", "throughput_mbps", levels=(4, 6, 8), per="size", holds="pooled"))
    assert row["verdict"] == "untestable"
    assert "group 8 shares no size level with another group" in row["reason"]


def test_a_rank_test_on_mostly_zero_loss_takes_its_direction_from_p_a_above_b():
    a, b = [0] * 8 + [1, 2, 1, 3, 1, 2], [0] * 14
    row = row_of(runs(a, b), claim("greater", test="mann-whitney"))
    assert row["diff"] == 0 and row["effect_size"] > 0.5  # the median shift is 0, P(a > b) is not ½
    assert row["verdict"] == "supported" and "IPv4 higher" in row["summary"]


def test_a_small_tied_rank_test_is_exact_not_the_normal_approximation():
    row = row_of(runs([0, 0, 0, 1], [2, 2, 2]), claim("less", test="mann-whitney"))
    assert row["p"] == pytest.approx(2 / 35) and row["verdict"] == "inconclusive"


def test_more_than_one_constant_group_has_no_omnibus_test():
    row = row_of(runs([1.0] * 3, [2.0] * 3, c=[1.0, 2.0, 3.0]), claim("different", levels=(4, 6, 8)))
    assert row["verdict"] == "untestable" and row["reason"].startswith("no variance in 2 groups")


def test_huge_values_are_untestable_not_a_crash():
    row = row_of(runs([1e78, 2e78, 3e78], [1e78, 2e78, 4e78]), claim("different"))
    assert row["verdict"] == "untestable" and row["reason"].startswith("no test could be computed")


def test_a_contradicted_row_carries_the_p_of_the_other_direction():
    from analysis.verdicts import Registration

    a, b = [10.2, 10.9, 11.4, 10.6, 11.1, 10.4], [10.0, 10.3, 10.1, 10.6, 9.8, 10.2]
    row = evaluate(runs(a, b, "throughput_mbps"), [claim("less", "throughput_mbps")],
                   Registration(True, "registered")).table.iloc[0]
    assert row["verdict"] == "contradicted" and row["p_adj"] > 0.9 and row["p_other_adj"] < 0.05
    assert f"p_adj={row['p_other_adj']:.3g}" in row["reason"]


def test_one_way_delays_get_no_percent_change():
    row = row_of(runs([1.2, 1.4, 1.3, 1.5, 1.1], [2.2, 2.4, 2.3, 2.5, 2.1], "owd_ms"), claim("less", "owd_ms"))
    assert np.isnan(row["estimate_pct"]) and row["summary"].startswith("IPv4 vs IPv6: -1 ms [")


def test_confidence_levels_are_printed_unrounded():
    row = row_of(runs([10.0, 11, 12, 13, 10], [10.5, 11, 12, 12.5, 10], "throughput_mbps"),
                 claim("equivalent", "throughput_mbps", margin=2, alpha=0.001))
    assert "the 99.8% CI" in row["reason"] and "(99.8% CI)" in row["summary"]


def test_a_level_named_twice_is_refused():
    with pytest.raises(HypothesisError, match="level 4 is named twice"):
        evaluate(runs([1, 2], [1, 2]), [claim("different", levels=(4, 4.0))])


# Found by a second review round (SYNTHETIC data)

def test_values_one_rounding_step_apart_are_constant():
    row = row_of(runs([0.5] * 5, [0.3] * 4 + [0.1 + 0.2]), claim("greater"))
    assert row["verdict"] == "untestable" and row["reason"].startswith("no variance: every run gave 0.5%")
    row = row_of(runs([0.1 + 0.2] * 5, [0.3] * 5), claim("equivalent", margin=0.1))
    assert row["verdict"] == "supported" and row["reason"].startswith("equivalent (no variance, identical values)")


def test_a_pooled_fit_is_judged_on_the_levels_both_groups_share():
    data = pd.DataFrame({"ip_version": [4] * 9 + [6] * 6, "size": [1] * 3 + [2] * 3 + [3] * 3 + [1] * 3 + [2] * 3,
                         "status": "ok", "throughput_mbps": [10] * 3 + [20] * 3 + [50, 55, 60] + [30] * 3 + [40] * 3})
    row = row_of(data, claim("different", "throughput_mbps", per="size", holds="pooled"))
    assert row["verdict"] == "untestable"
    assert row["reason"].endswith("the fit is exact and no test applies (3 run(s) in size levels holding one group left out)")


def test_heavy_ties_give_the_shift_interval_the_rank_test_keeps():
    row = row_of(runs([0] * 12 + [1], [0] * 13), claim("greater", test="mann-whitney"))
    assert row["verdict"] == "inconclusive" and (row["diff_ci_low"], row["diff_ci_high"]) == (0, 0)
    assert "no shift can be significant" not in row["reason"]


def test_a_percent_margin_of_a_one_way_delay_is_refused():
    with pytest.raises(HypothesisError, match="key 'margin_pct': owd_ms is a one-way delay"):
        evaluate(runs([1.0, 2, 3], [1.0, 2, 3], "owd_ms"), [claim("equivalent", "owd_ms", margin_pct=20)])


def test_one_way_delay_percentiles_get_no_percent_change_or_power():
    row = row_of(runs([5.0 + i / 10 for i in range(12)], [5.5 + i / 10 for i in range(12)], "delay_p99_ms"),
                 claim("less", "delay_p99_ms"))
    assert np.isnan(row["estimate_pct"]) and "power" not in row["reason"]


def test_stated_power_counts_unequal_groups_as_the_welch_test_does():
    rng = np.random.default_rng(4)
    a, b = rng.normal(100, 12, 10), rng.normal(100, 3, 40)
    cell = evaluate(runs(a, b, "throughput_mbps"), [claim("different", "throughput_mbps")]).cells.iloc[0]
    se = np.sqrt(a.var(ddof=1) / 10 + b.var(ddof=1) / 40)
    welch_df = stats.ttest_ind(a, b, equal_var=False).df
    crit = stats.t.ppf(0.975, welch_df)
    assert cell["power"] == pytest.approx(stats.nct.sf(crit, welch_df, 0.05 * b.mean() / se))


def test_family_rules_hold_for_hypothesis_objects_too():
    from analysis.verdicts import parse_hypotheses

    first, second = (parse_hypotheses([claim("different", id=i, family="file", correction=c)])[0]
                     for i, c in (("A", "holm"), ("B", "none")))
    with pytest.raises(HypothesisError, match="hypothesis B: key 'family'"):
        evaluate(runs([1, 2], [1, 2]), [first, second])
