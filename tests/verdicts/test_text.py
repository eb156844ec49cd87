"""The verdict engine's choices that a reader sees in one line: one-sided
directional claims, margins and % changes on groups of zeros, the assumption
text, and a power statement that never says 'inf runs'.  SYNTHETIC data."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis.verdicts import evaluate


def runs(a, b, metric="loss_pct"):
    return pd.DataFrame({"ip_version": [4] * len(a) + [6] * len(b), metric: list(a) + list(b), "status": "ok"})


def claim(direction, metric="loss_pct", **extra):
    return {"id": "C", "statement": "s", "metric": metric, "direction": direction,
            "compare": {"factor": "ip_version", "levels": [4, 6]}, **extra}


A = [10.2, 10.9, 11.4, 10.6, 11.1, 10.4]
B = [10.0, 10.3, 10.1, 10.6, 9.8, 10.2]


def test_greater_is_tested_one_sided_in_its_own_direction():
    row = evaluate(runs(A, B, "throughput_mbps"), [claim("greater", "throughput_mbps", test="welch")]).table.iloc[0]
    two_sided = stats.ttest_ind(A, B, equal_var=False)
    assert row["test"] == "Welch t, one-sided"
    assert row["p"] == pytest.approx(two_sided.pvalue / 2)
    assert row["verdict"] == "supported"


def test_the_opposite_direction_contradicts_and_its_summary_shows_the_evidence():
    row = evaluate(runs(A, B, "throughput_mbps"), [claim("less", "throughput_mbps", test="welch")]).table.iloc[0]
    assert row["verdict"] == "contradicted"
    assert row["p"] == pytest.approx(1 - stats.ttest_ind(A, B, equal_var=False).pvalue / 2)  # its own direction
    assert "significant in the other direction (one-sided p_adj=" in row["reason"]
    assert row["summary"].startswith("+")  # the effect against the claim, not '~'


def test_a_margin_pct_of_a_zero_mean_is_untestable_not_a_zero_margin():
    row = evaluate(runs([0, 0.1, 0, 0.2, 0], [0] * 5), [claim("equivalent", margin_pct=5)]).table.iloc[0]
    assert row["verdict"] == "untestable"
    assert "give an absolute 'margin'" in row["reason"]


def test_a_group_of_zeros_gets_an_absolute_difference_not_a_percent_interval_below_minus_100():
    row = evaluate(runs([0] * 5, [0, 0.1, 0, 0.2, 0]), [claim("equivalent", margin=0.5)]).table.iloc[0]
    assert row["verdict"] == "supported"
    assert np.isnan(row["estimate_pct"])
    assert row["summary"].startswith("diff -0.06 [") and "%" not in row["summary"]


def test_the_assumption_text_names_only_what_the_claim_got():
    data = runs([0, 0.1, 0, 0.2, 0], [0.02, 0.01, 0.03, 0.01, 0.02, 0.02])  # residuals far from normal
    row = evaluate(data, [claim("equivalent", margin=0.5)]).table.iloc[0]
    assert "Shapiro-Wilk" in row["assumptions"] and "fails" in row["assumptions"]
    assert "rank test" not in row["assumptions"] and "Mann-Whitney" not in row["assumptions"]
    assert row["assumptions"].endswith("used: TOST on Welch t")


def test_a_hopeless_spread_says_so_instead_of_inf_runs():
    rng = np.random.default_rng(3)
    a, b = rng.lognormal(0, 3, 5), rng.lognormal(0, 3, 5)  # CV in the hundreds
    row = evaluate(runs(a, b, "throughput_mbps"),
                   [claim("greater", "throughput_mbps", test="welch", min_effect_pct=0.001)]).table.iloc[0]
    assert row["verdict"] == "inconclusive"
    assert "inf" not in row["reason"] and "no number of runs reaches 80 % power" in row["reason"]
