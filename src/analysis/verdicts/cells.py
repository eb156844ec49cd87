"""The test of one cell of a campaign claim, on the runs of that cell.

Each function returns a plain dict of the cell's evidence (test, statistic,
df, p, difference and its CI, % change, effect size, n, power); the verdict
is given after the p-values of all cells are adjusted (engine)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis import stats as st
from analysis.verdicts.spec import Hypothesis, canon


def untestable(reason: str) -> dict:
    return {"verdict": "untestable", "reason": reason}


def _change_pct(a, b) -> tuple[float, float, float]:
    """Percent change of a over b from the ratio of geometric means (a
    t-interval on logs). Not defined when a value is <= 0 (a loss of 0 %, a
    group of zeros): then NaN, and the summary gives the absolute difference,
    never a % interval that reaches below -100 %."""
    ratio = st.ratio_of_means(a, b)
    if np.isnan(ratio.estimate):
        return np.nan, np.nan, np.nan
    return st.change_from_ratio(ratio.estimate, ratio.ci_low, ratio.ci_high)


def _margin(hyp: Hypothesis, b: np.ndarray) -> float:
    """The equivalence margin in metric units (margin_pct: of the second group's mean)."""
    return hyp.margin if hyp.margin is not None else (hyp.margin_pct or 0) / 100 * abs(b.mean())


def two_groups(hyp: Hypothesis, a: np.ndarray, b: np.ndarray, test: str) -> dict:
    """Test one cell with two groups. greater/less: one-sided in the claimed
    direction (p) and in the other (p_outside, which contradicts)."""
    if hyp.direction == "equivalent" and not _margin(hyp, b) > 0:
        return untestable(f"margin_pct {hyp.margin_pct:g}% of a mean of {b.mean():g} is no margin; "
                          "give an absolute 'margin' in metric units")
    welch = st.t_test(a, b)
    pct, pct_lo, pct_hi = _change_pct(a, b)
    g = st.hedges_g(a, b)
    row = {"diff": welch.diff, "diff_ci_low": welch.diff_ci_low,
           "diff_ci_high": welch.diff_ci_high, "estimate_pct": pct,
           "estimate_ci_low": pct_lo, "estimate_ci_high": pct_hi,
           "effect_name": "hedges_g", "effect_size": g.estimate,
           "effect_ci_low": g.ci_low, "effect_ci_high": g.ci_high,
           "n_a": a.size, "n_b": b.size, "df_num": np.nan}
    directional = hyp.direction in ("greater", "less")
    if hyp.direction == "equivalent":
        margin = _margin(hyp, b)
        equivalence = st.tost(a, b, margin)
        row.update(test=f"{equivalence.test}, margin ±{margin:.4g}", statistic=equivalence.statistic_low,
                   df=equivalence.df, p=equivalence.p,
                   p_outside=min(1 - equivalence.p_low, 1 - equivalence.p_high))
    elif test == "mann-whitney":
        if directional:
            other = "less" if hyp.direction == "greater" else "greater"
            rank = st.mann_whitney(a, b, alternative=hyp.direction)
            row.update(test=f"{rank.test}, one-sided", statistic=rank.statistic, df=np.nan, p=rank.p,
                       p_outside=st.mann_whitney(a, b, alternative=other).p)
        else:
            rank = st.mann_whitney(a, b)
            row.update(test=rank.test, statistic=rank.statistic, df=np.nan, p=rank.p)
    elif directional:
        p, p_other = st.directional_p(welch.statistic, welch.df, hyp.direction)
        row.update(test=f"{welch.test}, one-sided", statistic=welch.statistic, df=welch.df, p=p,
                   p_outside=p_other)
    else:
        row.update(test=welch.test, statistic=welch.statistic, df=welch.df, p=welch.p)
    sides = 1 if directional else 2
    cv = np.sqrt((a.var(ddof=1) + b.var(ddof=1)) / 2) / abs(b.mean()) if b.mean() else np.nan
    row["power"] = st.power_for_change(hyp.min_effect_pct, cv, a.size, b.size, hyp.alpha, sides=sides)
    row["runs_needed"] = st.runs_needed(hyp.min_effect_pct, cv, hyp.alpha, sides=sides) if cv > 0 else np.nan
    return row


def many_groups(groups: dict[str, np.ndarray]) -> dict:
    """More than two groups, direction 'different': Welch's ANOVA."""
    y = np.concatenate(list(groups.values()))
    g = np.concatenate([[k] * v.size for k, v in groups.items()])
    res = st.one_way(y, g, use_var="unequal")
    return {"test": res.test, "statistic": res.statistic, "df_num": res.df_num,
            "df": res.df_denom, "p": res.p, "n_a": y.size, "n_b": 0,
            "effect_name": "", "power": np.nan}


def per_cell(hyp: Hypothesis, data: pd.DataFrame, test: str = "welch") -> dict:
    """One cell: check it has data for every group, then test."""
    labels = hyp.compare.labels()
    groups = {k: data.loc[data["_group"] == k, hyp.metric].to_numpy(float) for k in labels}
    short = [f"{k} (n={v.size})" for k, v in groups.items() if v.size < 2]
    if short:
        return untestable(f"fewer than 2 successful runs with {hyp.metric} for {', '.join(short)}")
    if len(labels) > 2:
        return many_groups(groups)
    return two_groups(hyp, groups[labels[0]], groups[labels[1]], test)


def pooled(hyp: Hypothesis, data: pd.DataFrame) -> dict:
    """All levels of ``per`` at once: the difference adjusted for ``per`` (OLS, HC3)."""
    if len(hyp.compare.labels()) > 2:
        return per_cell(hyp, data)
    a_label = hyp.compare.labels()[0]
    counts = data["_group"].value_counts()
    if len(counts) < 2 or counts.min() < 2:
        return untestable(f"fewer than 2 successful runs in a compared group ({dict(counts)})")
    try:
        fit = st.blocked_difference(data[hyp.metric], data["_group"] == a_label, data[hyp.per].map(canon))
    except ValueError as err:
        return untestable(f"pooled over {hyp.per}: {err}")
    base = fit.pop("base_mean")
    test = f"OLS {hyp.metric} ~ group + {hyp.per} (HC3)"
    if hyp.direction in ("greater", "less"):
        fit["p"], fit["p_outside"] = st.directional_p(fit["statistic"], fit["df"], hyp.direction)
        test += ", one-sided"
    if not base:
        return {**fit, "test": test, "df_num": np.nan, "estimate_pct": np.nan, "estimate_ci_low": np.nan,
                "estimate_ci_high": np.nan, "effect_name": "", "power": np.nan}
    return {**fit, "test": test, "df_num": np.nan,
            "estimate_pct": 100 * fit["diff"] / base, "estimate_ci_low": 100 * fit["diff_ci_low"] / base,
            "estimate_ci_high": 100 * fit["diff_ci_high"] / base, "effect_name": "", "power": np.nan}


def interaction(hyp: Hypothesis, data: pd.DataFrame) -> dict:
    """Two-way ANOVA group × interaction factor; the claim is the interaction term."""
    other = hyp.interaction
    levels = data[other].map(canon).nunique()
    if levels < 2:
        return untestable(f"{other!r} has a single level in scope; no interaction to test")
    frame = data.assign(_other=data[other].map(canon))
    counts = frame.groupby(["_group", "_other"]).size()
    if len(counts) < len(hyp.compare.labels()) * levels or counts.min() < 2:
        return untestable(f"some {hyp.compare.factor} × {other} cells have fewer than 2 runs")
    res = st.interaction_test(frame, hyp.metric, "_group", "_other")
    return {"test": "two-way ANOVA interaction" + (" (HC3)" if res["robust"] else ""),
            "statistic": res["statistic"], "df_num": res["df_num"], "df": res["df"], "p": res["p"],
            "effect_name": "partial_eta_sq", "effect_size": res["partial_eta_sq"],
            "n_a": int(len(frame)), "n_b": 0, "power": np.nan,
            "assumption": "used: HC3-robust F (unequal cell variances)" if res["robust"] else None}
