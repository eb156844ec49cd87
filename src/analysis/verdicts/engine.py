"""Claims on a campaign -> a verdict table and its evidence, computed once.

select the runs -> split into cells -> test each cell -> adjust p across
cells -> each cell's verdict (rules) -> one verdict per claim (rules), with
the deciding cell's evidence and the wording of ``text``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from analysis import stats as st
from analysis.verdicts import cells as C
from analysis.verdicts.policy import assumption_checks, pick_test
from analysis.verdicts.rules import aggregate, tested_verdict
from analysis.verdicts.selection import select, split_cells
from analysis.verdicts.spec import Hypothesis, as_hypotheses, check_against
from analysis.verdicts.text import assumptions_text, cell_summary, claim_text, n_text, weak_reason

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


class Verdicts(NamedTuple):
    """The verdict table (one row per claim) and the evidence (one row per cell)."""

    table: pd.DataFrame
    cells: pd.DataFrame


def evaluate(runs: pd.DataFrame, path_or_specs) -> Verdicts:
    """Every claim of a hypothesis file (or list of specs) on a runs table."""
    rows, cells = [], []
    for hyp in as_hypotheses(path_or_specs):
        row, table = _evaluate(hyp, runs)
        rows.append(row)
        cells.append(table)
    cell_table = pd.concat(cells, ignore_index=True) if cells else pd.DataFrame(columns=CELL_COLUMNS)
    return Verdicts(pd.DataFrame(rows, columns=HYPOTHESIS_COLUMNS), cell_table)


def evaluate_hypotheses(runs: pd.DataFrame, path_or_specs) -> pd.DataFrame:
    """One verdict row per hypothesis (columns: HYPOTHESIS_COLUMNS)."""
    return evaluate(runs, path_or_specs).table


def evaluate_cells(runs: pd.DataFrame, path_or_specs) -> pd.DataFrame:
    """Every cell test of every hypothesis (the evidence behind the verdicts)."""
    return evaluate(runs, path_or_specs).cells


def _evaluate(hyp: Hypothesis, runs: pd.DataFrame) -> tuple[dict, pd.DataFrame]:
    check_against(hyp, runs)
    data = select(hyp, runs)
    checks = assumption_checks(hyp, data)
    test = pick_test(hyp, checks)
    if hyp.interaction:
        cells = [("all", C.interaction(hyp, data))]
    elif hyp.per and hyp.holds == "pooled":
        cells = [(f"pooled over {hyp.per}", C.pooled(hyp, data))]
    else:
        cells = [(name, C.per_cell(hyp, cell, test)) for name, cell in split_cells(hyp, data)]
    if not cells:
        cells = [("all", C.untestable("no successful runs with this metric in scope"))]
    table = _finish_cells(hyp, cells)
    return _summarize(hyp, table, _assumptions(hyp, table, checks, test)), table


def _cell_reason(hyp: Hypothesis, row: dict, verdict: str) -> str:
    p = row["p_adj"]
    if hyp.direction == "equivalent":
        what = {"supported": "equivalent within the margin",
                "contradicted": "difference significantly larger than the margin"}.get(
            verdict, "not shown equivalent (CI exceeds the margin)")
    elif verdict == "inconclusive":
        what = f"not significant (p_adj={p:.3g}{', one-sided' if hyp.direction != 'different' else ''})"
    elif hyp.direction == "different":
        return f"significant (p_adj={p:.3g})"
    else:
        what = (f"significant in the claimed direction (one-sided p_adj={p:.3g})" if verdict == "supported"
                else f"significant in the other direction (one-sided p_adj={row['p_outside_adj']:.3g})")
    if verdict == "inconclusive":
        return weak_reason(what, row.get("power", np.nan), hyp.min_effect_pct, row.get("runs_needed", np.nan))
    return what


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
        row["verdict"] = tested_verdict(hyp.direction, row["diff"], p, hyp.alpha, outside)
        row["reason"] = _cell_reason(hyp, row, row["verdict"])
        # a contradicted cell shows the evidence against the claim: the p the other way
        shown = {**row, "p_adj": outside} if row["verdict"] == "contradicted" else row
        row["summary"] = cell_summary(shown, hyp.alpha)
    return pd.DataFrame(rows)


def _deciding(hyp: Hypothesis, table: pd.DataFrame, verdict: str) -> pd.Series:
    """The cell whose evidence the verdict row shows."""
    tested = table[table["verdict"] != "untestable"]
    if verdict == "untestable":
        return table.iloc[0]
    if verdict == "contradicted":  # the strongest evidence against the claim
        against = tested[tested["verdict"] == "contradicted"]
        return against.loc[against["p_adj"].idxmin()]
    if hyp.holds == "any" and verdict == "supported":
        return tested.loc[tested["p_adj"].idxmin()]
    return tested.loc[tested["p_adj"].idxmax()]


def _summarize(hyp: Hypothesis, table: pd.DataFrame, assumptions: str) -> dict:
    """Hypothesis row: the verdict and the deciding cell's evidence."""
    holds = "any" if hyp.holds == "any" and hyp.per else "all"
    verdict = aggregate(holds, list(table["verdict"]), "supported", "contradicted",
                        ("inconclusive", "untestable"))
    if set(table["verdict"]) == {"untestable"}:
        verdict = "untestable"
    failed = table[table["verdict"] != "supported"] if verdict != "supported" else table.iloc[0:0]
    tested = table[table["verdict"] != "untestable"]
    deciding = _deciding(hyp, table, verdict)
    reason = deciding["reason"]
    if len(table) > 1:
        reason = f"{len(table) - len(failed)}/{len(table)} cells support; deciding cell {deciding['cell']}: {reason}"
    return {
        "id": hyp.id, "statement": hyp.statement, "source": hyp.source, "metric": hyp.metric,
        "claim": claim_text(hyp.compare.factor, hyp.compare.labels(), hyp.direction, margin=hyp.margin,
                            margin_pct=hyp.margin_pct, per=hyp.per, holds=hyp.holds,
                            interaction=hyp.interaction),
        "test": deciding.get("test"), "verdict": verdict, "reason": reason, "cell": deciding["cell"],
        **{k: deciding.get(k) for k in (
            "statistic", "df_num", "df", "p", "p_adj", "estimate_pct", "estimate_ci_low",
            "estimate_ci_high", "diff", "diff_ci_low", "diff_ci_high", "effect_name",
            "effect_size", "effect_ci_low", "effect_ci_high", "summary")},
        "correction": hyp.correction, "alpha": hyp.alpha,
        "n": n_text(tested),
        "cells_tested": int(len(tested)),
        "cells_failed": "; ".join(f"{r.cell}: {r.verdict} ({r.reason})" for r in failed.itertuples()),
        "assumptions": assumptions,
    }


def _assumptions(hyp: Hypothesis, table: pd.DataFrame, checks: list, test: str) -> str:
    """What was checked, what a failed check changed for this claim (or why
    nothing), and the test used: never a fallback the claim did not get."""
    extra = [str(x) for x in table["assumption"].dropna()]
    two = len(hyp.compare.labels()) == 2
    if hyp.interaction:
        used, spread, shape = None, "HC3-robust F", "F test kept: no rank test for an interaction here"
    elif hyp.holds == "pooled" and hyp.per:
        used, spread, shape = None, "HC3 standard errors (used anyway)", "OLS kept: no rank test for a pooled claim here"
    elif hyp.direction == "equivalent":
        used = "TOST on Welch t"
        spread, shape = "Welch t allows it", "TOST on Welch t kept: no rank-based equivalence test here"
    elif not two:
        used = "Welch ANOVA (no equal-variance assumption)"
        spread, shape = "Welch ANOVA allows it", "Welch ANOVA kept: no rank test for more than two groups here"
    elif test == "mann-whitney":
        used = "Mann-Whitney (no normality assumption)"
        spread, shape = "Mann-Whitney kept (a shift in spread, not only in location, can make it significant)", "Mann-Whitney"
    else:
        used = "Welch t (no equal-variance assumption)"
        spread, shape = "Welch t allows it", "Welch t kept (the claim asks for test: welch)"
    if used and hyp.direction in ("greater", "less"):
        used += ", one-sided"
    consequence = {"Brown-Forsythe": spread, "Levene": spread, "Shapiro-Wilk": shape}
    return assumptions_text(checks, extra, used, consequence)
