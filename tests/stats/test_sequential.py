"""Group-sequential boundaries, p values, repeated CIs and conditional power
against published tables and, where no table exists, simulation (seeded)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats

from analysis.stats.sequential import (boundaries, conditional_power, exit_probabilities, futility_bound,
                                       repeated_ci, spent, stagewise_p, t_critical, z_of_t)

FIVE = np.arange(1, 6) / 5

# Lan-DeMets spending boundaries, K = 5 equal looks, two-sided alpha 0.05 (alpha/2 a side):
# DeMets & Lan (1994), Stat Med 13:1341, Table I; the same figures are printed by R's
# ldbounds (Reboussin et al. 2000, Control Clin Trials 21:190), ldBounds(5, iuse=1|2).
LD_OBF_5 = [4.877, 3.357, 2.680, 2.290, 2.031]
LD_POCOCK_5 = [2.438, 2.427, 2.410, 2.397, 2.386]


@pytest.mark.parametrize("spending, table", [("obf", LD_OBF_5), ("pocock", LD_POCOCK_5)])
def test_lan_demets_boundaries_match_the_published_table(spending, table):
    design = boundaries(FIVE, alpha=0.05, spending=spending, sides=2)
    assert np.allclose(design.z, table, atol=6e-4)


@pytest.mark.parametrize("spending", ["obf", "pocock"])
def test_a_design_spends_exactly_alpha_under_the_null(spending):
    design = boundaries([0.15, 0.4, 0.55, 0.9, 1.0], alpha=0.05, spending=spending)
    below, above = exit_probabilities(design.fractions, design.z)
    assert below.sum() + above.sum() == pytest.approx(0.05, abs=1e-7)
    assert np.cumsum(above) == pytest.approx(np.asarray(design.spent), abs=1e-7)


# Classical (not spending) constants, two-sided alpha 0.05: Jennison & Turnbull (2000),
# Table 2.1 (Pocock C_P) and Table 2.3 (O'Brien & Fleming C_B): K=2: 2.178, 1.977; K=5: 2.413, 2.040.
@pytest.mark.parametrize("looks, pocock, obrien_fleming", [(2, 2.178, 1.977), (5, 2.413, 2.040)])
def test_the_recursion_gives_the_classical_constants(looks, pocock, obrien_fleming):
    t = np.arange(1, looks + 1) / looks

    def level(shape):
        return lambda c: sum(p.sum() for p in exit_probabilities(t, c * shape)) - 0.05

    assert optimize.brentq(level(np.ones(looks)), 1.5, 4) == pytest.approx(pocock, abs=1e-3)
    assert optimize.brentq(level(np.sqrt(looks / np.arange(1, looks + 1))), 1.5, 4) == \
        pytest.approx(obrien_fleming, abs=1e-3)


def test_one_look_is_the_fixed_test():
    design = boundaries([1.0], alpha=0.05)
    assert design.z[0] == pytest.approx(stats.norm.isf(0.025))
    drift = stats.norm.isf(0.025) + stats.norm.isf(0.2)  # the drift a fixed test has 80 % power at
    below, above = exit_probabilities([1.0], design.z, drift=drift)
    assert above[0] + below[0] == pytest.approx(0.8, abs=1e-4)
    assert stagewise_p(design, 0, 1.5)[0] == pytest.approx(stats.norm.sf(1.5))


def test_obrien_fleming_loses_little_power_at_the_fixed_designs_size():
    # Jennison & Turnbull (2000) Table 2.4: for K = 5 the O'Brien-Fleming maximum is 1.026 fixed sizes at power 0.9
    drift = stats.norm.isf(0.025) + stats.norm.isf(0.1)
    obf = boundaries(FIVE, spending="obf")
    pocock = boundaries(FIVE, spending="pocock")
    power_obf = sum(p.sum() for p in exit_probabilities(FIVE, obf.z, drift=drift))
    power_pocock = sum(p.sum() for p in exit_probabilities(FIVE, pocock.z, drift=drift))
    assert 0.885 < power_obf < 0.9
    assert power_pocock < power_obf


def test_spending_functions_end_at_alpha():
    assert spent("obf", 1.0, 0.025) == pytest.approx(0.025)
    assert spent("pocock", 1.0, 0.025) == pytest.approx(0.025)
    assert spent("obf", 0.0, 0.025) == 0.0
    with pytest.raises(ValueError, match="unknown spending"):
        spent("haybittle", 0.5, 0.025)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [[], [0.5, 0.5], [0.2, 1.2], [0.0, 1.0]])
def test_fractions_must_increase_within_the_unit_interval(bad):
    with pytest.raises(ValueError, match="information fractions"):
        boundaries(bad)


def _null_paths(seed: int, paths: int, fractions: np.ndarray) -> np.ndarray:
    """Z at each look of Brownian paths with no drift (rows: paths)."""
    steps = np.diff(fractions, prepend=0.0)
    s = np.cumsum(np.random.default_rng(seed).normal(0.0, np.sqrt(steps), (paths, fractions.size)), axis=1)
    return s / np.sqrt(fractions)


def test_stagewise_p_is_uniform_under_the_null_and_agrees_with_the_boundary():
    design = boundaries(FIVE, spending="pocock")
    z = _null_paths(7, 4000, FIVE)
    crossed = np.abs(z) >= np.asarray(design.z)
    stop = np.where(crossed.any(axis=1), crossed.argmax(axis=1), FIVE.size - 1)
    p = np.array([2 * min(stagewise_p(design, k, z[i, k])) for i, k in enumerate(stop[:400])])
    assert np.array_equal(p <= 0.05, crossed[np.arange(400), stop[:400]])
    se = math.sqrt(0.2 * 0.8 / 400)
    assert abs(np.mean(p <= 0.2) - 0.2) < 4 * se


def test_repeated_cis_cover_at_every_look_at_once():
    design = boundaries(FIVE, spending="obf")
    z = _null_paths(11, 20000, FIVE)  # estimate at look k: Z_k·SE_k, true difference 0
    se = 1 / np.sqrt(FIVE)
    low, high = repeated_ci(z * se, se, np.asarray(design.z))
    covered = np.all((low <= 0) & (high >= 0), axis=1).mean()
    assert covered == pytest.approx(0.95, abs=4 * math.sqrt(0.05 * 0.95 / 20000))


def test_welch_t_enters_through_its_p_value():
    assert z_of_t(2.5, 8) == pytest.approx(stats.norm.isf(stats.t.sf(2.5, 8)))
    assert z_of_t(-2.5, 8) == pytest.approx(-z_of_t(2.5, 8))
    assert t_critical(2.031, 12) > 2.031
    assert z_of_t(t_critical(2.031, 12), 12) == pytest.approx(2.031)
    low, high = repeated_ci(1.0, 0.5, 2.031, df=12)
    assert (high - low) / 2 == pytest.approx(t_critical(2.031, 12) * 0.5)


def test_conditional_power_under_the_current_trend():
    # B(0.5) = 1·√0.5, drift B/t = √2: the final B has mean √2, SD 0
    # plus √0.5 for the remaining half: P(N(√2, 0.5) ≥ 1.96)
    assert conditional_power(1.0, 0.5, 1.96) == pytest.approx(stats.norm.sf((1.96 - math.sqrt(2)) / math.sqrt(0.5)))
    assert conditional_power(-3.0, 0.5, 1.96) > 0.9
    assert conditional_power(0.1, 0.8, 2.0) < 0.01
    assert conditional_power(2.1, 1.0, 2.0) == 1.0


@pytest.mark.parametrize("spending", ["obf", "pocock"])
def test_welch_t_at_four_runs_a_group_keeps_alpha(spending):
    # the significance-level approach on Welch's t from 4 runs a group on: 20000 seeded
    # null campaigns, rejection when a look's two-sided p is at most its nominal level
    looks = [4, 8, 12, 16, 20]
    design = boundaries([n / 20 for n in looks], 0.05, spending)
    rng = np.random.default_rng(27)
    a, b = rng.normal(size=(2, 20000, 20))
    rejected = np.zeros(20000, bool)
    for k, n in enumerate(looks):
        rejected |= stats.ttest_ind(a[:, :n], b[:, :n], axis=1, equal_var=False).pvalue <= design.nominal(k)
    assert rejected.mean() == pytest.approx(0.05, abs=3 * math.sqrt(0.05 * 0.95 / 20000))


@pytest.mark.parametrize("fraction, threshold", [(0.2, 0.1), (0.5, 0.1), (0.8, 0.2), (0.6, 0.02)])
def test_the_futility_bound_is_where_conditional_power_meets_the_threshold(fraction, threshold):
    c = futility_bound(fraction, 2.0, threshold)
    if c == 0:  # even z = 0 keeps the conditional power above the threshold
        assert conditional_power(0.0, fraction, 2.0) >= threshold
    else:
        assert conditional_power(c, fraction, 2.0) == pytest.approx(threshold)
        assert conditional_power(0.99 * c, fraction, 2.0) < threshold < conditional_power(1.01 * c, fraction, 2.0)
