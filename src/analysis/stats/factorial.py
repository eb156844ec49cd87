"""Factorial designs: ANOVA over any factors, Jain's allocation of variation,
and 2^k·r effects with confidence intervals.

The ANOVA is statsmodels OLS with sum-to-zero contrasts: Type II sums of
squares for balanced data, Type III when cells have unequal counts (then the
main effects stay meaningful in the presence of interactions).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pandas as pd
import statsmodels.api as sm
import statsmodels.formula.api as smf
from scipy import stats

ANOVA_COLUMNS = ["term", "ss", "df", "ms", "F", "p", "partial_eta_sq",
                 "omega_sq", "share"]
EFFECT_COLUMNS = ["term", "effect", "ci_low", "ci_high", "ss", "share", "significant"]


def is_balanced(data: pd.DataFrame, factors: Sequence[str]) -> bool:
    """True when every observed cell of the factors has the same count."""
    return data.groupby(list(factors), observed=True).size().nunique() == 1


def _model_frame(data, response, factors, log):
    """Rename to safe identifiers (f0, f1, ...) and drop missing responses."""
    frame = pd.DataFrame({f"f{i}": data[f].astype(str) for i, f in enumerate(factors)})
    frame["y"] = np.log(data[response]) if log else data[response]
    return frame.dropna()


def _formula(n_factors: int, order: int) -> str:
    """All main effects and interactions up to ``order`` with Sum contrasts."""
    names = [f"C(f{i}, Sum)" for i in range(n_factors)]
    terms = [":".join(c) for r in range(1, order + 1) for c in combinations(names, r)]
    return "y ~ " + " + ".join(terms)


def _term_name(label: str, factors: Sequence[str]) -> str:
    """'C(f0, Sum):C(f1, Sum)' -> 'os:ip_version'."""
    if label == "Residual":
        return label
    return ":".join(factors[int(part[3:].split(",")[0])] for part in label.split(":"))


def factorial_anova(data: pd.DataFrame, response: str, factors: Sequence[str],
                    order: int | None = None, typ: int | None = None,
                    robust: str | None = None, log: bool = False) -> pd.DataFrame:
    """ANOVA table with effect sizes and Jain's allocation of variation.

    order: highest interaction order (default: full factorial).
    typ: 2 or 3; default 2 when balanced, else 3.
    robust: e.g. "hc3" for heteroscedasticity-robust F tests (SS are then
        the classical ones, F and p the robust Wald tests).
    log: model log(response): effects become ratios.
    share = SS / SST, the fraction of total variation each term explains
    (sums to 1 with the residual for balanced data).
    """
    factors = list(factors)
    frame = _model_frame(data, response, factors, log)
    typ = typ or (2 if is_balanced(frame, [f"f{i}" for i in range(len(factors))]) else 3)
    model = smf.ols(_formula(len(factors), order or len(factors)), frame).fit()
    table = sm.stats.anova_lm(model, typ=typ, robust=robust).drop(
        index="Intercept", errors="ignore")
    if robust:
        classical = sm.stats.anova_lm(model, typ=typ).drop(index="Intercept", errors="ignore")
        table["sum_sq"] = classical["sum_sq"]
    return _effect_sizes(table, frame["y"], factors)


def _effect_sizes(table: pd.DataFrame, y: pd.Series, factors) -> pd.DataFrame:
    """Add MS, partial eta², omega² and share of SST to an anova_lm table."""
    sse, df_e = table.loc["Residual", "sum_sq"], table.loc["Residual", "df"]
    mse = sse / df_e
    sst = float(((y - y.mean()) ** 2).sum())
    out = pd.DataFrame({
        "term": [_term_name(t, factors) for t in table.index],
        "ss": table["sum_sq"].to_numpy(), "df": table["df"].to_numpy(),
        "F": table["F"].to_numpy(), "p": table["PR(>F)"].to_numpy()})
    out["ms"] = out["ss"] / out["df"]
    effect = out["term"] != "Residual"
    out["partial_eta_sq"] = np.where(effect, out["ss"] / (out["ss"] + sse), np.nan)
    out["omega_sq"] = np.where(effect, (out["ss"] - out["df"] * mse) / (sst + mse), np.nan)
    out["share"] = out["ss"] / sst
    return out[ANOVA_COLUMNS].reset_index(drop=True)


def _signs(data: pd.DataFrame, factors: Sequence[str]) -> pd.DataFrame:
    """Code each two-level factor -1 (first sorted level) / +1 (second)."""
    coded = {}
    for f in factors:
        levels = sorted(data[f].dropna().unique())
        if len(levels) != 2:
            raise ValueError(f"2^k design needs two levels of {f!r}, found {levels}")
        coded[f] = np.where(data[f] == levels[1], 1.0, -1.0)
    return pd.DataFrame(coded, index=data.index)


def two_level_effects(data: pd.DataFrame, response: str, factors: Sequence[str],
                      conf: float = 0.90) -> pd.DataFrame:
    """Effects of a 2^k·r design with CIs (Jain 1991, ch. 18).

    q_I is the grand mean; q_S the half-difference contrast of each term.
    SS_S = 2^k·r·q_S², share = SS_S/SST; the CIs use s_e² = SSE/(2^k(r-1)).
    Jain's default confidence is 90%.
    """
    factors = list(factors)
    frame = data.dropna(subset=[response])
    signs = _signs(frame, factors)
    y = frame[response].to_numpy(float)
    counts = frame.groupby(factors).size()
    k, r = len(factors), int(counts.iloc[0])
    if counts.nunique() != 1 or len(counts) != 2**k or r < 2:
        raise ValueError("2^k·r design needs all 2^k cells with the same r >= 2 runs")
    cell_mean = frame.groupby(factors)[response].transform("mean").to_numpy()
    sse = float(((y - cell_mean) ** 2).sum())
    sst = float(((y - y.mean()) ** 2).sum())
    df_e = 2**k * (r - 1)
    half = stats.t.ppf(0.5 + conf / 2, df_e) * np.sqrt(sse / df_e) / np.sqrt(2**k * r)
    rows = [("I", float(y.mean()), np.nan)]
    for size in range(1, k + 1):
        for combo in combinations(factors, size):
            q = float(np.mean(y * signs[list(combo)].prod(axis=1).to_numpy()))
            rows.append((":".join(combo), q, 2**k * r * q**2))
    out = pd.DataFrame(rows, columns=["term", "effect", "ss"])
    out["ci_low"], out["ci_high"] = out["effect"] - half, out["effect"] + half
    out["share"] = out["ss"] / sst
    out["significant"] = (out["ci_low"] > 0) | (out["ci_high"] < 0)
    error = {"term": "Residual", "effect": np.nan, "ci_low": np.nan, "ci_high": np.nan,
             "ss": sse, "share": sse / sst, "significant": False}
    return pd.concat([out, pd.DataFrame([error])], ignore_index=True)[EFFECT_COLUMNS]
