"""The verdict engine's choices that a reader sees in one line: one-sided
tests for registered directional claims only, margins and % changes on
groups of zeros, the assumption text, and a power statement that never says
'inf runs'.  SYNTHETIC data."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis.verdicts import Registration, evaluate

REGISTERED = Registration(True, "registered 2026-12-01T00:00:00Z (sha256 0123abcd…) before the first run")


def runs(a, b, metric="loss_pct"):
    return pd.DataFrame({"ip_version": [4] * len(a) + [6] * len(b), metric: list(a) + list(b), "status": "ok"})


def claim(direction, metric="loss_pct", **extra):
    return {"id": "C", "statement": "s", "metric": metric, "direction": direction,
            "compare": {"factor": "ip_version", "levels": [4, 6]}, **extra}


A = [10.2, 10.9, 11.4, 10.6, 11.1, 10.4]
B = [10.0, 10.3, 10.1, 10.6, 9.8, 10.2]


def test_a_registered_greater_is_tested_one_sided_in_its_own_direction():
    row = evaluate(runs(A, B, "throughput_mbps"), [claim("greater", "throughput_mbps", test="welch")],
                   REGISTERED).table.iloc[0]
    two_sided = stats.ttest_ind(A, B, equal_var=False)
    assert row["test"] == "Welch t, one-sided" and row["registration"] == "registered"
    assert row["p"] == pytest.approx(two_sided.pvalue / 2)
    assert row["verdict"] == "supported" and row["conf"] == pytest.approx(0.90)


def test_a_post_hoc_greater_is_tested_two_sided_and_says_so():
    row = evaluate(runs(A, B, "throughput_mbps"), [claim("greater", "throughput_mbps")]).table.iloc[0]
    two_sided = stats.ttest_ind(A, B, equal_var=False)
    assert row["test"] == "Welch t" and row["registration"] == "post hoc"
    assert row["p"] == pytest.approx(two_sided.pvalue)
    assert row["verdict"] == "supported"
    assert row["reason"] == f"significant in the claimed direction (two-sided p_adj={two_sided.pvalue:.3g})"
    assert "two-sided: post hoc: not registered; exploratory" in row["assumptions"]


def test_a_post_hoc_one_sided_p_under_alpha_is_no_longer_support():
    """Two-sided p between α and 2α in the claimed direction: one-sided it would be 'supported'."""
    a, b = [10.0, 10.6, 11.1, 10.3, 10.9], [10.0, 10.3, 10.1, 10.4, 9.8]
    p_two = stats.ttest_ind(a, b, equal_var=False).pvalue
    assert 0.05 < p_two < 0.10
    post_hoc = evaluate(runs(a, b, "throughput_mbps"), [claim("greater", "throughput_mbps")]).table.iloc[0]
    registered = evaluate(runs(a, b, "throughput_mbps"), [claim("greater", "throughput_mbps")], REGISTERED).table.iloc[0]
    assert post_hoc["verdict"] == "inconclusive" and registered["verdict"] == "supported"
    assert post_hoc["reason"].startswith(f"not significant (p_adj={p_two:.3g}, two-sided)")


def test_the_opposite_direction_contradicts_and_its_summary_shows_the_evidence():
    row = evaluate(runs(A, B, "throughput_mbps"), [claim("less", "throughput_mbps", test="welch")],
                   REGISTERED).table.iloc[0]
    assert row["verdict"] == "contradicted"
    assert row["p"] == pytest.approx(1 - stats.ttest_ind(A, B, equal_var=False).pvalue / 2)  # its own direction
    assert "significant in the other direction (one-sided p_adj=" in row["reason"]
    assert row["summary"].startswith("IPv4 vs IPv6: +")  # the effect against the claim, not '~'
    assert row["summary"].endswith(f"of IPv6's mean, IPv4 higher (p={stats.ttest_ind(A, B, equal_var=False).pvalue / 2:.3f}, n=6+6)")


def test_an_inconclusive_row_shows_the_effect_and_its_interval():
    a, b = [10.0, 14.0, 7.0, 12.0, 9.0], [9.0, 13.0, 8.0, 12.5, 8.5]
    row = evaluate(runs(a, b, "throughput_mbps"), [claim("greater", "throughput_mbps")]).table.iloc[0]
    welch = stats.ttest_ind(a, b, equal_var=False)
    low, high = welch.confidence_interval(0.95)
    pct = 100 * (np.mean(a) - np.mean(b)) / np.mean(b)
    assert row["verdict"] == "inconclusive"
    assert row["summary"] == (f"~ IPv4 vs IPv6: {pct:+.1f}% [{100 * low / np.mean(b):+.1f}, "
                              f"{100 * high / np.mean(b):+.1f}] of IPv6's mean (p={welch.pvalue:.2f}, n=5+5)")


def test_a_margin_pct_of_a_zero_mean_is_untestable_not_a_zero_margin():
    row = evaluate(runs([0, 0.1, 0, 0.2, 0], [0] * 5), [claim("equivalent", margin_pct=5)]).table.iloc[0]
    assert row["verdict"] == "untestable"
    assert "give an absolute 'margin'" in row["reason"]


def test_a_group_of_zeros_gets_an_absolute_difference_not_a_percent_interval_below_minus_100():
    row = evaluate(runs([0] * 5, [0, 0.1, 0, 0.2, 0]), [claim("equivalent", margin=0.5)]).table.iloc[0]
    assert row["verdict"] == "supported"
    assert np.isnan(row["estimate_pct"])
    assert row["summary"].startswith("IPv4 vs IPv6: -0.06 points [-0.1") and "(90% CI), margin ±0.5 points" in row["summary"]


def test_the_assumption_text_names_only_what_the_claim_got():
    data = runs([0, 0.1, 0, 0.2, 0, 0, 2.0], [0.02, 0.01, 0.03, 0.01, 0.02, 0.02, 0.4])  # residuals far from normal
    row = evaluate(data, [claim("equivalent", margin=0.5)]).table.iloc[0]
    assert "Shapiro-Wilk" in row["assumptions"] and "fails -> diagnostic only" in row["assumptions"]
    assert "Mann-Whitney" not in row["assumptions"]
    assert row["assumptions"].endswith("used: TOST (Welch t)")


def test_a_hopeless_spread_says_so_instead_of_inf_runs():
    rng = np.random.default_rng(3)
    a, b = rng.lognormal(0, 3, 5), rng.lognormal(0, 3, 5)  # CV in the hundreds
    row = evaluate(runs(a, b, "throughput_mbps"),
                   [claim("greater", "throughput_mbps", test="welch", min_effect_pct=0.001)]).table.iloc[0]
    assert row["verdict"] == "inconclusive"
    assert "inf" not in row["reason"] and "no number of runs reaches 80 % power" in row["reason"]
