"""The test of one cell of a campaign claim, on the runs of that cell.

Each function returns the cell's evidence as a frozen record: a
:class:`CellTest` (a test ran: its p in both directions and the estimate
the test is about, with its CI) or a :class:`NoTest` (no test applies, and
why; or a verdict that needs none, such as two identical constants inside an
equivalence margin). Verdicts are given after the p-values of a family are
adjusted (engine)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from analysis import stats as st
from analysis.naming import is_clock_offset, unit_of
from analysis.verdicts.rules import Verdict
from analysis.verdicts.spec import Hypothesis, canon_column

NAN = math.nan
SMALL_N = 5  # below this many runs in a group, pre-tests say nothing and a planned n is rough


@dataclass(frozen=True)
class CellTest:
    """A cell that was tested. ``p`` is about the claimed direction and
    ``p_outside`` about the other (both the same two-sided p for a claim not
    registered in advance); ``diff`` is the estimate the test is about
    (``estimate`` names it) and its CI has the test's level."""

    test: str
    p: float
    p_outside: float = NAN
    statistic: float = NAN
    df_num: float = NAN
    df: float = NAN
    estimate: str = ""
    diff: float = NAN
    diff_ci_low: float = NAN
    diff_ci_high: float = NAN
    conf: float = NAN
    estimate_pct: float = NAN
    estimate_ci_low: float = NAN
    estimate_ci_high: float = NAN
    effect_name: str = ""
    effect_size: float = NAN
    effect_ci_low: float = NAN
    effect_ci_high: float = NAN
    n_a: float = NAN
    n_b: float = NAN
    cv: float = NAN  # pooled SD over b's mean: what a plan of equal groups needs (runs needed, engine)
    se_rel: float = NAN  # the test's standard error over b's mean: its power with these runs (engine)
    margin: float = NAN
    note: str = ""

    def direction(self) -> float:
        """Which way the tested effect points (> 0: a above b): the sign of the
        quantity the test is about — P(a > b) − ½ for a rank test, whose
        Hodges–Lehmann shift can be 0 when most runs tie (loss 0 %)."""
        return self.effect_size - 0.5 if self.effect_name == "P(a>b)" else self.diff


@dataclass(frozen=True)
class NoTest:
    """A cell no test applies to (verdict untestable), or one decided without a
    test (two identical constants inside an equivalence margin). ``diff`` is a
    deterministic difference, when the groups are constants."""

    reason: str
    verdict: Verdict = Verdict.UNTESTABLE
    diff: float = NAN
    n_a: float = NAN
    n_b: float = NAN


Evidence = CellTest | NoTest


RELATIVE_SPREAD = 1e-12  # a spread this small against the values' size is rounding (0.1 + 0.2 vs 0.3)


def no_spread(spread: float, values) -> bool:
    """A spread that is only floating-point rounding of the values' size."""
    scale = float(np.max(np.abs(values))) if np.size(values) else 0.0
    return bool(spread <= RELATIVE_SPREAD * scale)


def constant(x: np.ndarray) -> bool:
    """Every value the same, up to rounding (a std of 1e-16, or 0.1 + 0.2 against 0.3, is no spread)."""
    return bool(x.size) and no_spread(float(np.ptp(x)), x)


def _both_sided(p_claimed: float, p_other: float, one_sided: bool, p_two: float) -> tuple[float, float]:
    """(p, p_outside): the two one-sided p of a registered directional claim,
    else the two-sided p for both (a significant result's sign then decides)."""
    return (p_claimed, p_other) if one_sided else (p_two, p_two)


def test_level(hyp: Hypothesis, one_sided: bool) -> float:
    """The CI level that agrees with the test: 1 − α, or 1 − 2α for a one-sided test
    (its bound on the claimed side is the one-sided bound)."""
    return 1 - 2 * hyp.alpha if one_sided else 1 - hyp.alpha


def _margin(hyp: Hypothesis, b: np.ndarray) -> float:
    """The equivalence margin in metric units (margin_pct: of the second group's mean)."""
    return hyp.margin if hyp.margin is not None else (hyp.margin_pct or 0) / 100 * abs(b.mean())


def _as_pct(hyp: Hypothesis, a: np.ndarray, b: np.ndarray, base: float, diff: float, low: float, high: float):
    """The estimate and its CI as % of the baseline (b's mean or median). Only
    on a ratio scale: every value > 0 and the interval above −100 %, and not
    for a one-way delay (its level is a clock offset); otherwise NaN and the
    summary gives the difference in the metric's units."""
    if is_clock_offset(hyp.metric) or not (np.all(a > 0) and np.all(b > 0) and base > 0):
        return {}
    pct = {"estimate_pct": 100 * diff / base, "estimate_ci_low": 100 * low / base,
           "estimate_ci_high": 100 * high / base}
    return pct if pct["estimate_ci_low"] > -100 else {}


def _se_rel(a: np.ndarray, b: np.ndarray) -> float:
    """Welch's standard error of a − b over b's mean."""
    return float(np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size) / abs(b.mean())) if b.mean() else NAN


def _cv(a: np.ndarray, b: np.ndarray) -> float:
    """Pooled SD over b's mean: the spread a change of min_effect_pct is measured against."""
    return float(np.sqrt((a.var(ddof=1) + b.var(ddof=1)) / 2) / abs(b.mean())) if b.mean() else NAN


def _no_variance(hyp: Hypothesis, a: np.ndarray, b: np.ndarray, margin: float) -> NoTest:
    """Both groups constant: a deterministic difference, which no test is about."""
    unit = unit_of(hyp.metric) if unit_of(hyp.metric) in ("", "%") else f" {unit_of(hyp.metric)}"
    x_a, x_b = float(a[0]), float(b[0])
    if math.isclose(x_a, x_b, rel_tol=RELATIVE_SPREAD):
        x_b = x_a  # identical up to rounding
    sizes = {"n_a": float(a.size), "n_b": float(b.size), "diff": x_a - x_b}
    inside = not math.isnan(margin) and abs(x_a - x_b) < margin
    within = f", inside the margin ±{margin:g}{unit}" if inside else ""
    if x_a == x_b and hyp.direction == "equivalent" and within:
        return NoTest(f"equivalent (no variance, identical values): every run of both groups gave {x_a:g}{unit}"
                      f"{within}", Verdict.SUPPORTED, **sizes)
    if x_a == x_b:
        return NoTest(f"no variance: every run of both groups gave {x_a:g}{unit}; no test applies",
                      Verdict.UNTESTABLE, **sizes)
    outside = f", outside the margin ±{margin:g}{unit}" if hyp.direction == "equivalent" and not within else within
    return NoTest(f"no variance: every run gave {x_a:g}{unit} in one group and {x_b:g}{unit} in the other, "
                  f"a deterministic difference of {x_a - x_b:+g}{unit}{outside}; no test applies",
                  Verdict.UNTESTABLE, **sizes)


def _welch(hyp: Hypothesis, a: np.ndarray, b: np.ndarray, one_sided: bool) -> CellTest:
    """Welch t on the means; the estimate is the mean difference (and % of b's mean)."""
    conf = test_level(hyp, one_sided)
    welch = st.t_test(a, b, conf=conf)
    p, outside = (st.directional_p(welch.statistic, welch.df, hyp.direction)
                  if hyp.direction in ("greater", "less") else (NAN, NAN))
    p, outside = _both_sided(p, outside, one_sided, welch.p)
    g = st.hedges_g(a, b)
    return CellTest(test=welch.test + (", one-sided" if one_sided else ""), p=p, p_outside=outside,
                    statistic=welch.statistic, df=welch.df, estimate="mean difference", diff=welch.diff,
                    diff_ci_low=welch.diff_ci_low, diff_ci_high=welch.diff_ci_high, conf=conf,
                    **_as_pct(hyp, a, b, float(b.mean()), welch.diff, welch.diff_ci_low, welch.diff_ci_high),
                    effect_name="hedges_g", effect_size=g.estimate, effect_ci_low=g.ci_low, effect_ci_high=g.ci_high,
                    n_a=a.size, n_b=b.size, cv=_cv(a, b), se_rel=_se_rel(a, b))


def _rank(hyp: Hypothesis, a: np.ndarray, b: np.ndarray, one_sided: bool) -> CellTest:
    """Mann–Whitney; the estimate is the Hodges–Lehmann shift with the CI that
    inverts the same test, and % of b's median. No t-based power is claimed."""
    conf = test_level(hyp, one_sided)
    two = st.mann_whitney(a, b)
    p, outside = two.p, two.p
    if one_sided:
        other = "less" if hyp.direction == "greater" else "greater"
        p, outside = st.mann_whitney(a, b, hyp.direction).p, st.mann_whitney(a, b, other).p
    shift = st.hodges_lehmann(a, b, conf=conf)
    return CellTest(test=two.test + (", one-sided" if one_sided else ""), p=p, p_outside=outside,
                    statistic=two.statistic, estimate="Hodges-Lehmann shift", diff=shift.estimate,
                    diff_ci_low=shift.ci_low, diff_ci_high=shift.ci_high, conf=conf,
                    **_as_pct(hyp, a, b, float(np.median(b)), shift.estimate, shift.ci_low, shift.ci_high),
                    effect_name="P(a>b)", effect_size=st.probability_of_superiority(a, b),
                    n_a=a.size, n_b=b.size)


def _tost(hyp: Hypothesis, a: np.ndarray, b: np.ndarray, margin: float) -> CellTest:
    """TOST on Welch t: equivalence at α is the (1 − 2α) CI inside the margin."""
    conf = test_level(hyp, one_sided=True)  # TOST: two one-sided tests at α
    welch = st.t_test(a, b, conf=conf)
    equivalence = st.tost(a, b, margin)
    g = st.hedges_g(a, b)
    return CellTest(test=equivalence.test, p=equivalence.p,
                    p_outside=min(1 - equivalence.p_low, 1 - equivalence.p_high),
                    statistic=equivalence.statistic_low, df=equivalence.df, estimate="mean difference",
                    diff=welch.diff, diff_ci_low=welch.diff_ci_low, diff_ci_high=welch.diff_ci_high, conf=conf,
                    **_as_pct(hyp, a, b, float(b.mean()), welch.diff, welch.diff_ci_low, welch.diff_ci_high),
                    effect_name="hedges_g", effect_size=g.estimate, effect_ci_low=g.ci_low,
                    effect_ci_high=g.ci_high, n_a=a.size, n_b=b.size, margin=margin)


def two_groups(hyp: Hypothesis, a: np.ndarray, b: np.ndarray, test: str, one_sided: bool) -> Evidence:
    """Test one cell with two groups, or say why no test applies."""
    margin = _margin(hyp, b) if hyp.direction == "equivalent" else NAN
    if hyp.direction == "equivalent" and not margin > 0:
        return NoTest(f"margin_pct {hyp.margin_pct:g}% of a mean of {b.mean():g} is no margin; "
                      "give an absolute 'margin' in metric units", n_a=a.size, n_b=b.size)
    if constant(a) and constant(b):
        return _no_variance(hyp, a, b, margin)
    if hyp.direction == "equivalent":
        return _tost(hyp, a, b, margin)
    return _rank(hyp, a, b, one_sided) if test == "mann-whitney" else _welch(hyp, a, b, one_sided)


def _contrast_note(table: pd.DataFrame, how: str) -> str:
    """'pairwise (Games-Howell): B − A +0.03 [−0.6, 0.7] p_adj=0.92; ...'."""
    parts = [f"{r.group_a} − {r.group_b} {r.diff:+.4g} [{r.ci_low:.4g}, {r.ci_high:.4g}] p_adj={r.p_adj:.3g}"
             for r in table.itertuples()]
    return f"pairwise ({how}): " + "; ".join(parts)


def many_groups(hyp: Hypothesis, groups: dict[str, np.ndarray]) -> Evidence:
    """More than two groups, direction 'different': Welch's ANOVA with
    Games–Howell contrasts; an HC3-robust F when a group has no variance
    (Welch weighs each group by n/variance); no test when none has any."""
    fixed = [k for k, v in groups.items() if constant(v)]
    n = sum(v.size for v in groups.values())
    if len(fixed) == len(groups):
        values = ", ".join(f"{k}: {v[0]:g}" for k, v in groups.items())
        return NoTest(f"no variance: every run of each group gave one value ({values}); no test applies", n_a=n)
    y = np.concatenate(list(groups.values()))
    g = np.concatenate([[k] * v.size for k, v in groups.items()])
    if fixed:
        if len(fixed) > 1:
            values = ", ".join(f"{k}: {groups[k][0]:g}" for k in fixed)
            return NoTest(f"no variance in {len(fixed)} groups (every run gave one value: {values}); their "
                          "difference is deterministic and no test of all groups applies", n_a=n)
        fit = st.blocked_groups(y, g)
        # Wald contrasts are a − b; the note names them that way
        return CellTest(test="OLS F on group (HC3; Welch's ANOVA needs variance in every group)", p=fit["p"],
                        statistic=fit["statistic"], df_num=fit["df_num"], df=fit["df"], n_a=n, n_b=0,
                        note=_contrast_note(fit["contrasts"], "HC3 t, Holm"))
    res = st.one_way(y, g, use_var="unequal")
    pairs = st.games_howell(y, g).rename(columns={"group_a": "group_b", "group_b": "group_a"})
    return CellTest(test=res.test, p=res.p, statistic=res.statistic, df_num=res.df_num, df=res.df_denom,
                    n_a=n, n_b=0, note=_contrast_note(pairs, "Games-Howell"))


def per_cell(hyp: Hypothesis, data: pd.DataFrame, test: str, one_sided: bool) -> Evidence:
    """One cell: check it has usable data for every group, then test."""
    labels = hyp.compare.labels()
    group, values = data["_group"].to_numpy(), data[hyp.metric].to_numpy(float)
    groups = {k: values[group == k] for k in labels}
    infinite = [k for k, v in groups.items() if not np.all(np.isfinite(v))]
    if infinite:
        return NoTest(f"non-finite values of {hyp.metric} in {', '.join(infinite)}")
    short = [f"{k} (n={v.size})" for k, v in groups.items() if v.size < 2]
    if short:
        return NoTest(f"fewer than 2 successful runs with {hyp.metric} for {', '.join(short)}")
    if len(labels) > 2:
        return many_groups(hyp, groups)
    return two_groups(hyp, groups[labels[0]], groups[labels[1]], test, one_sided)


def pooled(hyp: Hypothesis, data: pd.DataFrame, one_sided: bool) -> Evidence:
    """All levels of ``per`` at once: the group effect adjusted for ``per``
    as a block (OLS, HC3): the difference a − b for two groups, the F test
    on group with its pairwise contrasts for more."""
    counts = data["_group"].value_counts()
    if len(counts) < len(hyp.compare.labels()) or counts.min() < 2:
        have = ", ".join(f"{k}: {v}" for k, v in counts.items()) or "none"
        return NoTest(f"fewer than 2 successful runs in a compared group (runs per group: {have})")
    if not np.all(np.isfinite(data[hyp.metric].to_numpy(float))):
        return NoTest(f"non-finite values of {hyp.metric}")
    block = canon_column(data[hyp.per])
    shared = data.groupby(block)["_group"].transform("nunique") > 1  # a block of one group says nothing
    left_out = int((~shared).sum())
    alone = sorted(set(data["_group"]) - set(data.loc[shared, "_group"]))
    if alone:
        return NoTest(f"pooled over {hyp.per}: group {', '.join(alone)} shares no {hyp.per} level with another "
                      "group: its difference from the others cannot be told from the level's")
    data, block = data[shared], block[shared]
    note = f"{left_out} run(s) in {hyp.per} levels holding one group left out" if left_out else ""
    spread = data.groupby([data["_group"], block])[hyp.metric].agg(np.ptp)
    if data.empty or no_spread(float(spread.max()), data[hyp.metric]):
        return NoTest(f"no variance within the {hyp.compare.factor} × {hyp.per} cells that hold more than one "
                      "group: every cell's runs gave one value, the fit is exact and no test applies"
                      + (f" ({note})" if note else ""))
    try:
        if len(hyp.compare.labels()) > 2:
            fit = st.blocked_groups(data[hyp.metric], data["_group"], block)
            return _finite(CellTest(test=f"OLS {hyp.metric} ~ group + {hyp.per} (HC3), F on group", p=fit["p"],
                                    statistic=fit["statistic"], df_num=fit["df_num"], df=fit["df"], n_a=fit["n"],
                                    n_b=0, note="; ".join(filter(None, [
                                        note, _contrast_note(fit["contrasts"], "HC3 t, Holm")]))))
        return _finite(replace(_pooled_difference(hyp, data, block, one_sided), note=note))
    except ValueError as err:
        return NoTest(f"pooled over {hyp.per}: {err}")


def _pooled_difference(hyp: Hypothesis, data: pd.DataFrame, block: pd.Series, one_sided: bool) -> CellTest:
    conf = test_level(hyp, one_sided)
    a_label = hyp.compare.labels()[0]
    fit = st.blocked_difference(data[hyp.metric], data["_group"] == a_label, block, conf=conf)
    p, outside = (st.directional_p(fit["statistic"], fit["df"], hyp.direction)
                  if hyp.direction in ("greater", "less") else (NAN, NAN))
    p, outside = _both_sided(p, outside, one_sided, fit["p"])
    a = data.loc[data["_group"] == a_label, hyp.metric].to_numpy(float)
    b = data.loc[data["_group"] != a_label, hyp.metric].to_numpy(float)
    pct = _as_pct(hyp, a, b, fit["base_mean"], fit["diff"], fit["diff_ci_low"], fit["diff_ci_high"])
    return CellTest(test=f"OLS {hyp.metric} ~ group + {hyp.per} (HC3)" + (", one-sided" if one_sided else ""),
                    p=p, p_outside=outside, statistic=fit["statistic"], df=fit["df"],
                    estimate=f"difference adjusted for {hyp.per}", diff=fit["diff"],
                    diff_ci_low=fit["diff_ci_low"], diff_ci_high=fit["diff_ci_high"], conf=conf,
                    n_a=fit["n_a"], n_b=fit["n_b"], **pct)


def _finite(cell: CellTest) -> Evidence:
    """A model that fits the data exactly has no error to test against: say so."""
    if math.isnan(cell.p):
        return NoTest("no variance within the model's cells: the fit is exact and no test applies",
                      n_a=cell.n_a, n_b=cell.n_b)
    return cell


def interaction(hyp: Hypothesis, data: pd.DataFrame) -> Evidence:
    """Two-way ANOVA group × interaction factor; the claim is the interaction term."""
    other = hyp.interaction
    levels = canon_column(data[other]).nunique()
    if levels < 2:
        return NoTest(f"{other!r} has a single level in scope; no interaction to test")
    frame = data.assign(_other=canon_column(data[other]))
    counts = frame.groupby(["_group", "_other"]).size()
    if len(counts) < len(hyp.compare.labels()) * levels or counts.min() < 2:
        return NoTest(f"some {hyp.compare.factor} × {other} cells have fewer than 2 runs")
    if not np.all(np.isfinite(frame[hyp.metric].to_numpy(float))):
        return NoTest(f"non-finite values of {hyp.metric}")
    if no_spread(float(frame.groupby(["_group", "_other"])[hyp.metric].agg(np.ptp).max()), frame[hyp.metric]):
        return NoTest(f"no variance within the {hyp.compare.factor} × {other} cells; no test applies",
                      n_a=len(frame))
    res = st.interaction_test(frame, hyp.metric, "_group", "_other")
    return _finite(CellTest(test="two-way ANOVA interaction (HC3)", p=res["p"], statistic=res["statistic"],
                            df_num=res["df_num"], df=res["df"], effect_name="partial_eta_sq",
                            effect_size=res["partial_eta_sq"], n_a=len(frame), n_b=0))
