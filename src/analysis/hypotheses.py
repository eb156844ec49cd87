"""Hypothesis registry: claims as YAML data -> one verdict row per claim.

A claim names a metric, a scope (factor levels that filter the runs), what
is compared (a factor and two levels, or named groups of levels), the
expected direction, and over what it must hold (``per`` a factor, ``holds``
all / any / pooled) or an interaction.  The engine picks the test by the
rules in docs/statistics.md and returns supported / contradicted /
inconclusive / untestable with the evidence.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Literal, Union

import numpy as np
import pandas as pd
import statsmodels.formula.api as smf
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from . import stats as st
from .yamlfiles import read_yaml

Scalar = Union[int, float, str]
VERDICTS = ("supported", "contradicted", "inconclusive", "untestable")
HYPOTHESIS_COLUMNS = [
    "id", "statement", "source", "metric", "claim", "test", "verdict", "reason",
    "cell", "statistic", "df_num", "df", "p", "p_adj", "correction", "alpha",
    "estimate_pct", "estimate_ci_low", "estimate_ci_high",
    "diff", "diff_ci_low", "diff_ci_high",
    "effect_name", "effect_size", "effect_ci_low", "effect_ci_high",
    "n", "cells_tested", "cells_failed", "summary", "assumptions",
]
CELL_COLUMNS = [
    "id", "cell", "test", "verdict", "reason", "statistic", "df_num", "df", "p",
    "p_adj", "estimate_pct", "estimate_ci_low", "estimate_ci_high", "diff",
    "diff_ci_low", "diff_ci_high", "effect_name", "effect_size", "effect_ci_low",
    "effect_ci_high", "n_a", "n_b", "power", "summary",
]
ADEQUATE_POWER = 0.8


class HypothesisError(ValueError):
    """A hypothesis file or spec that cannot be evaluated; names id and key."""


class Compare(BaseModel):
    """The factor compared, and either its levels or named groups of levels."""

    model_config = ConfigDict(extra="forbid")
    factor: str
    levels: list[Scalar] | None = None
    groups: dict[str, list[Scalar]] | None = None

    @model_validator(mode="after")
    def _one_of(self):
        if (self.levels is None) == (self.groups is None):
            raise ValueError("give exactly one of 'levels' or 'groups'")
        if len(self.labels()) < 2:
            raise ValueError("compare needs at least two levels or groups")
        return self

    def labels(self) -> list[str]:
        """Group labels in claim order (first is 'a', second 'b')."""
        if self.groups is not None:
            return list(self.groups)
        return [canon(v) for v in self.levels]

    def level_map(self) -> dict[str, str]:
        """Canonical level -> group label."""
        if self.groups is None:
            return {canon(v): canon(v) for v in self.levels}
        return {canon(v): name for name, vals in self.groups.items() for v in vals}


class Hypothesis(BaseModel):
    """One claim.  ``direction`` reads: first level/group <direction> second."""

    model_config = ConfigDict(extra="forbid")
    id: str
    statement: str
    source: str = "user"
    metric: str
    scope: dict[str, Scalar | list[Scalar]] = {}
    compare: Compare
    direction: Literal["greater", "less", "different", "equivalent"]
    margin: float | None = None
    margin_pct: float | None = None
    per: str | None = None
    holds: Literal["all", "any", "pooled"] = "all"
    interaction: str | None = None
    test: Literal["auto", "welch", "mann-whitney"] = "auto"
    alpha: float = 0.05
    correction: Literal["holm", "bh", "bonferroni", "none"] = "holm"
    min_effect_pct: float = 5.0

    @model_validator(mode="after")
    def _consistent(self):
        two = len(self.compare.labels()) == 2
        if self.direction in ("greater", "less", "equivalent") and not two:
            raise ValueError(f"direction '{self.direction}' needs exactly two levels or groups")
        if self.direction == "equivalent" and (self.margin is None) == (self.margin_pct is None):
            raise ValueError("direction 'equivalent' needs exactly one of 'margin' or 'margin_pct'")
        if self.interaction and self.direction != "different":
            raise ValueError("an interaction claim has direction 'different'")
        if self.interaction and self.per:
            raise ValueError("give 'per' or 'interaction', not both")
        if not 0 < self.alpha < 1:
            raise ValueError("alpha must be between 0 and 1")
        return self


def canon(value) -> str:
    """Canonical text of a factor level: 4, 4.0 and '4' are the same level."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# ---------------------------------------------------------------- loading

def _format_errors(hid: str, err: ValidationError) -> str:
    parts = [f"key '{'.'.join(str(x) for x in e['loc']) or '(hypothesis)'}': {e['msg']}"
             for e in err.errors()]
    return f"hypothesis {hid}: " + "; ".join(parts)


def parse_hypotheses(specs: Iterable[Mapping], defaults: Mapping | None = None) -> list[Hypothesis]:
    """Validate raw dicts (with file-level defaults) into Hypothesis objects."""
    out, seen = [], set()
    for i, raw in enumerate(specs):
        if not isinstance(raw, Mapping):
            raise HypothesisError(f"hypothesis #{i + 1}: expected a mapping, got {type(raw).__name__}")
        hid = str(raw.get("id", f"#{i + 1}"))
        try:
            hyp = Hypothesis(**{**(defaults or {}), **raw})
        except ValidationError as err:
            raise HypothesisError(_format_errors(hid, err)) from None
        if hyp.id in seen:
            raise HypothesisError(f"hypothesis {hyp.id}: duplicate id")
        seen.add(hyp.id)
        out.append(hyp)
    return out


def load_hypotheses(path: str | Path) -> list[Hypothesis]:
    """Read a YAML file: ``hypotheses: [...]`` (+ optional ``defaults``) or a list."""
    doc = read_yaml(path, HypothesisError)
    if isinstance(doc, list):
        return parse_hypotheses(doc)
    if not isinstance(doc, Mapping) or not isinstance(doc.get("hypotheses"), list):
        raise HypothesisError(f"{path}: expected a list or a mapping with a 'hypotheses' list")
    return parse_hypotheses(doc["hypotheses"], doc.get("defaults"))


def _as_hypotheses(path_or_specs) -> list[Hypothesis]:
    if isinstance(path_or_specs, (str, Path)):
        return load_hypotheses(path_or_specs)
    specs = list(path_or_specs)
    if all(isinstance(s, Hypothesis) for s in specs):
        return specs
    return parse_hypotheses(specs)


def check_against(hyp: Hypothesis, runs: pd.DataFrame) -> None:
    """Raise HypothesisError when the claim names a column or level the data lacks."""
    def fail(msg):
        raise HypothesisError(f"hypothesis {hyp.id}: {msg}")

    if hyp.metric not in runs.columns:
        fail(f"key 'metric': unknown metric {hyp.metric!r}")
    if not pd.api.types.is_numeric_dtype(runs[hyp.metric]):
        fail(f"key 'metric': column {hyp.metric!r} is not numeric")
    wanted = [("scope", f, v if isinstance(v, list) else [v]) for f, v in hyp.scope.items()]
    compared = hyp.compare.levels or [v for vals in hyp.compare.groups.values() for v in vals]
    wanted.append(("compare", hyp.compare.factor, compared))
    for key, factor in (("per", hyp.per), ("interaction", hyp.interaction)):
        if factor and factor not in runs.columns:
            fail(f"key '{key}': unknown factor {factor!r}")
    for key, factor, levels in wanted:
        if factor not in runs.columns:
            fail(f"key '{key}': unknown factor {factor!r}")
        have = sorted({canon(v) for v in runs[factor].dropna()})
        for level in levels:
            if canon(level) not in have:
                fail(f"key '{key}': level {level!r} of {factor!r} not in the data (have: {', '.join(have)})")


# ---------------------------------------------------------------- selection

def _select(hyp: Hypothesis, runs: pd.DataFrame) -> pd.DataFrame:
    """Successful runs in scope, with the compared group as column '_group'."""
    data = runs[runs["status"] == "ok"] if "status" in runs.columns else runs
    for factor, value in hyp.scope.items():
        values = {canon(v) for v in (value if isinstance(value, list) else [value])}
        data = data[data[factor].map(canon).isin(values)]
    mapping = hyp.compare.level_map()
    group = data[hyp.compare.factor].map(lambda v: mapping.get(canon(v)))
    data = data.assign(_group=group).dropna(subset=["_group", hyp.metric])
    return data


def _checks(hyp: Hypothesis, data: pd.DataFrame) -> list:
    """Brown–Forsythe across compared groups × cells, Shapiro–Wilk on residuals."""
    cells = data["_group"].astype(str)
    by = hyp.per or hyp.interaction
    if by:
        cells = cells + "|" + data[by].map(canon)
    if cells.nunique() < 2 or cells.value_counts().min() < 2:
        return []
    y = data[hyp.metric].to_numpy(float)
    return [st.levene(y, cells.to_numpy()), st.shapiro(st.group_residuals(y, cells.to_numpy()))]


def _pick_test(hyp: Hypothesis, checks: list) -> str:
    """auto: Welch, unless the metric is a latency/jitter (*_ms, heavy-tailed)
    or Shapiro–Wilk rejects normal residuals: then Mann–Whitney."""
    if hyp.test != "auto":
        return hyp.test
    non_normal = any(c.check.startswith("Shapiro") and not c.passed for c in checks)
    return "mann-whitney" if hyp.metric.endswith("_ms") or non_normal else "welch"


# ---------------------------------------------------------------- cell tests

def _untestable(reason: str) -> dict:
    return {"verdict": "untestable", "reason": reason}


def _change_pct(a, b, diff_ci) -> tuple[float, float, float]:
    """Percent change of a over b: ratio interval on logs, else diff / mean(b)."""
    ratio = st.ratio_of_means(a, b)
    if not np.isnan(ratio.estimate):
        return st.change_from_ratio(ratio.estimate, ratio.ci_low, ratio.ci_high)
    base = np.mean(b)
    return tuple(100 * x / base for x in (np.mean(a) - base, *diff_ci))


def _two_group_cell(hyp: Hypothesis, a: np.ndarray, b: np.ndarray, test: str) -> dict:
    """Test one cell with two groups; verdict is decided after correction."""
    welch = st.t_test(a, b)
    pct, pct_lo, pct_hi = _change_pct(a, b, (welch.diff_ci_low, welch.diff_ci_high))
    g = st.hedges_g(a, b)
    row = {"diff": welch.diff, "diff_ci_low": welch.diff_ci_low,
           "diff_ci_high": welch.diff_ci_high, "estimate_pct": pct,
           "estimate_ci_low": pct_lo, "estimate_ci_high": pct_hi,
           "effect_name": "hedges_g", "effect_size": g.estimate,
           "effect_ci_low": g.ci_low, "effect_ci_high": g.ci_high,
           "n_a": a.size, "n_b": b.size, "df_num": np.nan}
    if hyp.direction == "equivalent":
        margin = hyp.margin if hyp.margin is not None else hyp.margin_pct / 100 * abs(b.mean())
        res = st.tost(a, b, margin)
        row.update(test=f"{res.test}, margin ±{margin:.4g}", statistic=res.statistic_low,
                   df=res.df, p=res.p, p_outside=min(1 - res.p_low, 1 - res.p_high))
    elif test == "mann-whitney":
        res = st.mann_whitney(a, b)
        row.update(test=res.test, statistic=res.statistic, df=np.nan, p=res.p)
    else:
        row.update(test=welch.test, statistic=welch.statistic, df=welch.df, p=welch.p)
    cv = np.sqrt((a.var(ddof=1) + b.var(ddof=1)) / 2) / abs(b.mean()) if b.mean() else np.nan
    row["power"] = st.power_for_change(hyp.min_effect_pct, cv, a.size, b.size, hyp.alpha)
    row["runs_needed"] = (st.runs_needed(hyp.min_effect_pct, cv, hyp.alpha)
                          if cv > 0 else np.nan)
    return row


def _many_group_cell(groups: dict[str, np.ndarray]) -> dict:
    """More than two groups, direction 'different': Welch's ANOVA."""
    y = np.concatenate(list(groups.values()))
    g = np.concatenate([[k] * v.size for k, v in groups.items()])
    res = st.one_way(y, g, use_var="unequal")
    return {"test": res.test, "statistic": res.statistic, "df_num": res.df_num,
            "df": res.df_denom, "p": res.p, "n_a": y.size, "n_b": 0,
            "effect_name": "", "power": np.nan}


def _test_cell(hyp: Hypothesis, data: pd.DataFrame, test: str = "welch") -> dict:
    """Dispatch one cell: check it has data for every group, then test."""
    labels = hyp.compare.labels()
    groups = {k: data.loc[data["_group"] == k, hyp.metric].to_numpy(float) for k in labels}
    short = [f"{k} (n={v.size})" for k, v in groups.items() if v.size < 2]
    if short:
        return _untestable(f"fewer than 2 successful runs with {hyp.metric} for {', '.join(short)}")
    if len(labels) > 2:
        return _many_group_cell(groups)
    return _two_group_cell(hyp, groups[labels[0]], groups[labels[1]], test)


def _pooled_cell(hyp: Hypothesis, data: pd.DataFrame) -> dict:
    """All levels of ``per`` at once: OLS y ~ group + per, HC3-robust SE.

    The group coefficient is the difference adjusted for the per-factor
    (sizes differ in level); HC3 because variances differ between cells.
    """
    if len(hyp.compare.labels()) > 2:
        return _test_cell(hyp, data)
    a_label, b_label = hyp.compare.labels()
    frame = pd.DataFrame({"y": data[hyp.metric].astype(float),
                          "grp": np.where(data["_group"] == a_label, "a", "b"),
                          "blk": data[hyp.per].map(canon)})
    counts = frame.groupby("grp").size()
    if len(counts) < 2 or counts.min() < 2:
        return _untestable(f"fewer than 2 successful runs in a compared group ({dict(counts)})")
    fit = smf.ols("y ~ C(grp, Treatment('b')) + C(blk)", frame).fit(cov_type="HC3", use_t=True)
    name = "C(grp, Treatment('b'))[T.a]"
    lo, hi = fit.conf_int().loc[name]
    coef, base = fit.params[name], frame.loc[frame.grp == "b", "y"].mean()
    return {"test": f"OLS {hyp.metric} ~ group + {hyp.per} (HC3)",
            "statistic": fit.tvalues[name], "df_num": np.nan, "df": fit.df_resid,
            "p": fit.pvalues[name], "diff": coef, "diff_ci_low": lo, "diff_ci_high": hi,
            "estimate_pct": 100 * coef / base, "estimate_ci_low": 100 * lo / base,
            "estimate_ci_high": 100 * hi / base, "effect_name": "",
            "n_a": int(counts["a"]), "n_b": int(counts["b"]), "power": np.nan}


def _interaction_cell(hyp: Hypothesis, data: pd.DataFrame) -> dict:
    """Two-way ANOVA group × interaction factor; the claim is the interaction term.

    HC3-robust F when Brown–Forsythe rejects equal variances across cells.
    """
    other = hyp.interaction
    levels = data[other].map(canon).nunique()
    if levels < 2:
        return _untestable(f"{other!r} has a single level in scope; no interaction to test")
    frame = data.assign(_other=data[other].map(canon))
    counts = frame.groupby(["_group", "_other"]).size()
    if len(counts) < len(hyp.compare.labels()) * levels or counts.min() < 2:
        return _untestable(f"some {hyp.compare.factor} × {other} cells have fewer than 2 runs")
    spread = st.levene(frame[hyp.metric], frame["_group"] + "|" + frame["_other"])
    robust = None if spread.passed else "hc3"
    table = st.factorial_anova(frame, hyp.metric, ["_group", "_other"], robust=robust)
    row = table[table["term"] == "_group:_other"].iloc[0]
    resid = table[table["term"] == "Residual"].iloc[0]
    return {"test": "two-way ANOVA interaction" + (" (HC3)" if robust else ""),
            "statistic": row["F"], "df_num": row["df"], "df": resid["df"], "p": row["p"],
            "effect_name": "partial_eta_sq", "effect_size": row["partial_eta_sq"],
            "n_a": int(len(frame)), "n_b": 0, "power": np.nan,
            "assumption": None if spread.passed else "used: HC3-robust F (unequal cell variances)"}


# ---------------------------------------------------------------- verdicts

def _cell_verdict(hyp: Hypothesis, row: dict) -> tuple[str, str]:
    """Verdict of one tested cell from its adjusted p."""
    p, alpha = row["p_adj"], hyp.alpha
    if hyp.direction == "equivalent":
        if p < alpha:
            return "supported", "equivalent within the margin"
        if row["p_outside_adj"] < alpha:
            return "contradicted", "difference significantly larger than the margin"
        return "inconclusive", _weak(hyp, row, "not shown equivalent (CI exceeds the margin)")
    if p >= alpha:
        return "inconclusive", _weak(hyp, row, f"not significant (p_adj={p:.3g})")
    if hyp.direction == "different":
        return "supported", f"significant (p_adj={p:.3g})"
    right = row["diff"] > 0 if hyp.direction == "greater" else row["diff"] < 0
    if right:
        return "supported", f"significant in the claimed direction (p_adj={p:.3g})"
    return "contradicted", f"significant in the other direction (p_adj={p:.3g})"


def _weak(hyp: Hypothesis, row: dict, what: str) -> str:
    """Say whether a non-result is underpowered for the smallest effect of interest."""
    power = row.get("power", np.nan)
    if power is None or np.isnan(power):
        return what
    if power < ADEQUATE_POWER:
        return (f"{what}; underpowered: power {power:.2f} to detect {hyp.min_effect_pct:g}% "
                f"(need {row['runs_needed']} runs per group)")
    return f"{what}; power {power:.2f} to detect {hyp.min_effect_pct:g}%"


def _cells(hyp: Hypothesis, data: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    if hyp.per and hyp.holds in ("all", "any"):
        return [(f"{hyp.per}={k}", g) for k, g in data.groupby(data[hyp.per].map(canon), sort=False)]
    return [("all", data)]


def _sort_cells(cells, per):
    """Numeric-aware order of per-factor cells (128 before 1024)."""
    def key(item):
        value = item[0].split("=", 1)[-1]
        try:
            return (0, float(value), "")
        except ValueError:
            return (1, 0.0, value)
    return sorted(cells, key=key) if per else cells


def evaluate_cells(runs: pd.DataFrame, path_or_specs) -> pd.DataFrame:
    """Every cell test of every hypothesis (the evidence behind the verdicts)."""
    return pd.concat([_evaluate(h, runs)[1] for h in _as_hypotheses(path_or_specs)],
                     ignore_index=True)


def evaluate_hypotheses(runs: pd.DataFrame, path_or_specs) -> pd.DataFrame:
    """One verdict row per hypothesis (columns: HYPOTHESIS_COLUMNS)."""
    hyps = _as_hypotheses(path_or_specs)
    return pd.DataFrame([_evaluate(h, runs)[0] for h in hyps], columns=HYPOTHESIS_COLUMNS)


def _evaluate(hyp: Hypothesis, runs: pd.DataFrame) -> tuple[dict, pd.DataFrame]:
    check_against(hyp, runs)
    data = _select(hyp, runs)
    checks = _checks(hyp, data)
    test = _pick_test(hyp, checks)
    if hyp.interaction:
        cells = [("all", _interaction_cell(hyp, data))]
    elif hyp.per and hyp.holds == "pooled":
        cells = [(f"pooled over {hyp.per}", _pooled_cell(hyp, data))]
    else:
        cells = [(name, _test_cell(hyp, cell, test))
                 for name, cell in _sort_cells(_cells(hyp, data), hyp.per)]
    if not cells:
        cells = [("all", _untestable("no successful runs with this metric in scope"))]
    table = _finish_cells(hyp, cells)
    return _summarize(hyp, table, _assumptions(hyp, table, checks, test)), table


def _finish_cells(hyp: Hypothesis, cells) -> pd.DataFrame:
    """Adjust p across tested cells, then give each cell its verdict."""
    rows = [{col: np.nan for col in CELL_COLUMNS}
            | {"p_outside": np.nan, "runs_needed": np.nan, "assumption": None}
            | {"id": hyp.id, "cell": name} | row for name, row in cells]
    tested = [r for r in rows if r.get("verdict") != "untestable"]
    p_adj = st.adjust([r["p"] for r in tested], hyp.correction)
    outside_adj = st.adjust([r["p_outside"] for r in tested], hyp.correction)
    for row, p, outside in zip(tested, p_adj, outside_adj):
        row.update(p_adj=p, p_outside_adj=outside)
        row["verdict"], row["reason"] = _cell_verdict(hyp, row)
        row["summary"] = _cell_summary(hyp, row)
    return pd.DataFrame(rows)


def _cell_summary(hyp: Hypothesis, row: dict) -> str:
    """benchstat-style line: % change for two groups, F for omnibus tests."""
    if np.isnan(row["df_num"]):
        return st.format_change(row["estimate_pct"], row["estimate_ci_low"],
                                row["estimate_ci_high"], row["p_adj"], row["n_a"],
                                row["n_b"], hyp.alpha)
    return st.format_f(row["statistic"], row["df_num"], row["df"], row["p_adj"],
                       row["n_a"] + row["n_b"], hyp.alpha)


def _aggregate(hyp: Hypothesis, verdicts: pd.Series) -> str:
    """all: every cell must support; any: one suffices (see docs/statistics.md)."""
    v = set(verdicts)
    if v == {"untestable"}:
        return "untestable"
    if hyp.holds == "any" and hyp.per:
        if "supported" in v:
            return "supported"
        return "contradicted" if v == {"contradicted"} else "inconclusive"
    for verdict in ("contradicted", "inconclusive", "untestable"):
        if verdict in v:
            return verdict
    return "supported"


def _summarize(hyp: Hypothesis, table: pd.DataFrame, assumptions: str) -> dict:
    """Hypothesis row: the verdict and the deciding cell's evidence."""
    verdict = _aggregate(hyp, table["verdict"])
    failed = table[table["verdict"] != "supported"] if verdict != "supported" else table.iloc[0:0]
    tested = table[table["verdict"] != "untestable"]
    if verdict == "untestable":
        deciding = table.iloc[0]
    elif verdict == "contradicted":  # the strongest evidence against the claim
        against = tested[tested["verdict"] == "contradicted"]
        deciding = against.loc[against["p_adj"].idxmin()]
    elif hyp.holds == "any" and verdict == "supported":
        deciding = tested.loc[tested["p_adj"].idxmin()]
    else:
        deciding = tested.loc[tested["p_adj"].idxmax()]
    reason = deciding["reason"]
    if len(table) > 1:
        reason = f"{len(table) - len(failed)}/{len(table)} cells support; deciding cell {deciding['cell']}: {reason}"
    return {
        "id": hyp.id, "statement": hyp.statement, "source": hyp.source,
        "metric": hyp.metric, "claim": _claim_text(hyp), "test": deciding.get("test"),
        "verdict": verdict, "reason": reason, "cell": deciding["cell"],
        **{k: deciding.get(k) for k in (
            "statistic", "df_num", "df", "p", "p_adj", "estimate_pct", "estimate_ci_low",
            "estimate_ci_high", "diff", "diff_ci_low", "diff_ci_high", "effect_name",
            "effect_size", "effect_ci_low", "effect_ci_high", "summary")},
        "correction": hyp.correction, "alpha": hyp.alpha,
        "n": _n_text(tested),
        "cells_tested": int(len(tested)),
        "cells_failed": "; ".join(f"{r.cell}: {r.verdict} ({r.reason})" for r in failed.itertuples()),
        "assumptions": assumptions,
    }


def _n_text(tested: pd.DataFrame) -> str:
    """'5+5' per cell, or the range when cells differ."""
    pairs = sorted({f"{int(a)}+{int(b)}" if b else f"{int(a)}"
                    for a, b in zip(tested["n_a"], tested["n_b"]) if not np.isnan(a)})
    return ", ".join(pairs)


def _claim_text(hyp: Hypothesis) -> str:
    labels = hyp.compare.labels()
    sym = {"greater": ">", "less": "<", "different": "≠", "equivalent": "≈"}[hyp.direction]
    text = f"{hyp.compare.factor}: {f' {sym} '.join(labels)}"
    if hyp.direction == "equivalent":
        text += f" within ±{hyp.margin:g}" if hyp.margin is not None else f" within ±{hyp.margin_pct:g}%"
    if hyp.interaction:
        return f"{text}: effect differs across {hyp.interaction} (interaction)"
    if hyp.per:
        return f"{text}, {hyp.holds} {hyp.per}"
    return text


def _assumptions(hyp: Hypothesis, table: pd.DataFrame, checks: list, test: str) -> str:
    """What was checked, and the fallback each failed check triggered."""
    notes = [f"{c.check} p={c.p:.3g}" + ("" if c.passed else f" (fails -> {c.fallback})")
             for c in checks]
    notes += [str(x) for x in table["assumption"].dropna()]
    if hyp.interaction or hyp.holds == "pooled" and hyp.per:
        return "; ".join(notes)
    if hyp.direction == "equivalent":
        notes.append("used: TOST on Welch t")
    else:
        notes.append({"welch": "used: Welch t (no equal-variance assumption)",
                      "mann-whitney": "used: Mann-Whitney (no normality assumption)"}[test])
    return "; ".join(notes)
