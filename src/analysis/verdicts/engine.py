"""Claims on a campaign -> a verdict table and its evidence, computed once.

one row per run -> select each claim's runs -> split into cells -> test
each cell -> adjust p within each family (a claim, or the whole file) ->
each cell's verdict (rules) -> one verdict per claim (rules), with the
deciding cell's evidence and the wording of ``text``.

Every claim that validates gets a row with a reason: a cell no test applies
to is "untestable" and says why; nothing here raises but
:class:`~analysis.errors.HypothesisError` for a claim the data cannot answer.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from functools import partial
from typing import NamedTuple

import numpy as np
import pandas as pd

from analysis import stats as st
from analysis.errors import HypothesisError
from analysis.ingest.per_run import one_row_per_run
from analysis.naming import is_clock_offset, unit_of
from analysis.verdicts.cells import CellTest, Evidence, NoTest, interaction, per_cell, pooled
from analysis.verdicts.looks import LookPath, SequentialTest, look_paths, sequential_cells, undecided_reason, with_design
from analysis.verdicts.policy import assumption_checks, pick_test
from analysis.verdicts.registration import POST_HOC, Registration
from analysis.verdicts.rules import Verdict, aggregate, tested_verdict
from analysis.verdicts.selection import select, split_cells
from analysis.verdicts.spec import Hypothesis, as_hypotheses, check_against
from analysis.verdicts.text import assumptions_text, cell_summary, claim_text, n_text, percent, weak_reason

HYPOTHESIS_COLUMNS = [
    "id", "statement", "source", "metric", "claim", "registration", "test", "verdict", "reason",
    "cell", "statistic", "df_num", "df", "p", "p_adj", "p_other_adj", "correction", "family", "alpha",
    "estimate", "estimate_pct", "estimate_ci_low", "estimate_ci_high",
    "diff", "diff_ci_low", "diff_ci_high", "conf",
    "effect_name", "effect_size", "effect_ci_low", "effect_ci_high",
    "n", "cells_tested", "cells_failed", "summary", "assumptions", "design", "look",
]
CELL_COLUMNS = [
    "id", "cell", "test", "verdict", "reason", "statistic", "df_num", "df", "p",
    "p_adj", "p_other_adj", "estimate", "estimate_pct", "estimate_ci_low", "estimate_ci_high", "diff",
    "diff_ci_low", "diff_ci_high", "conf", "effect_name", "effect_size", "effect_ci_low",
    "effect_ci_high", "n_a", "n_b", "power", "summary", "note", "design", "look", "decision",
]


TEXT_COLUMNS = ("test", "estimate", "effect_name", "note", "design", "decision")
POWER_MIN_N = 10  # runs a group from which the stated power is within ±5 points of the simulated one


class Verdicts(NamedTuple):
    """The verdict table (one row per claim) and the evidence (one row per cell)."""

    table: pd.DataFrame
    cells: pd.DataFrame


@dataclass(frozen=True)
class Judged:
    """One cell's evidence with its adjusted p and its verdict."""

    name: str
    evidence: Evidence
    verdict: Verdict
    reason: str
    p_adj: float = math.nan
    p_outside_adj: float = math.nan
    summary: str = ""
    power: float = math.nan

    def row(self, hyp_id: str) -> dict:
        """The cell table's row: the evidence's fields ("" for the words a NoTest lacks), then the verdict's."""
        fields = asdict(self.evidence)
        row = {c: fields.get(c, "" if c in TEXT_COLUMNS else math.nan) for c in CELL_COLUMNS}
        return row | {"id": hyp_id, "cell": self.name, "verdict": str(self.verdict), "reason": self.reason,
                      "p_adj": self.p_adj, "p_other_adj": self.p_outside_adj, "summary": self.summary,
                      "power": self.power}


@dataclass(frozen=True)
class Claim:
    """A claim on its runs: the tested cells before adjustment, and what the page says of its checks."""

    hyp: Hypothesis
    cells: list[tuple[str, Evidence]]
    one_sided: bool
    assumptions: str


def evaluate(runs: pd.DataFrame, path_or_specs, registration: Registration = POST_HOC) -> Verdicts:
    """Every claim of a hypothesis file (or list of specs) on a runs table.

    ``runs`` may hold several records per run (a sender and a receiver row,
    as ``load_campaign(...).runs`` does): they are collapsed to one row per
    run first, as the CLI does. ``registration``: whether the file was
    registered before the data existed (:func:`~analysis.verdicts.registration.registration_of`);
    only then is a directional claim tested one-sided."""
    runs = _one_row_per_run(runs)
    hyps = as_hypotheses(path_or_specs)
    families = _family_sizes(hyps, runs) if any(h.stop for h in hyps) else {}
    claims = [_tested(hyp, runs, registration, families.get(hyp.id, 1)) for hyp in hyps]
    adjusted = _adjust(claims)
    rows, cells = [], []
    for claim in claims:
        judged = [_judge(claim, name, ev, *adjusted.get((claim.hyp.id, name), (math.nan, math.nan, 0)))
                  for name, ev in claim.cells]
        table = pd.DataFrame([j.row(claim.hyp.id) for j in judged], columns=CELL_COLUMNS)
        rows.append(_summarize(claim, judged, table, registration))
        cells.append(table)
    cell_table = pd.concat(cells, ignore_index=True) if cells else pd.DataFrame(columns=CELL_COLUMNS)
    return Verdicts(pd.DataFrame(rows, columns=HYPOTHESIS_COLUMNS), cell_table)


def sequential_paths(runs: pd.DataFrame, path_or_specs, registration: Registration = POST_HOC) -> list[LookPath]:
    """Every cell of every ``stop:`` claim, look by look against its boundaries (the
    same runs, sides, family α and replay as :func:`evaluate`): what the report draws."""
    runs = _one_row_per_run(runs)
    hyps = as_hypotheses(path_or_specs)
    if not any(h.stop for h in hyps):
        return []
    families = _family_sizes(hyps, runs)
    paths: list[LookPath] = []
    with _quiet():
        for hyp in hyps:
            if hyp.stop:
                one_sided = registration.registered and hyp.direction in ("greater", "less")
                paths += look_paths(hyp, select(hyp, runs), select(hyp, runs, successful_only=False), one_sided,
                                    families.get(hyp.id, 1))
    return paths


def evaluate_hypotheses(runs: pd.DataFrame, path_or_specs, registration: Registration = POST_HOC) -> pd.DataFrame:
    """One verdict row per hypothesis (columns: HYPOTHESIS_COLUMNS)."""
    return evaluate(runs, path_or_specs, registration).table


def evaluate_cells(runs: pd.DataFrame, path_or_specs, registration: Registration = POST_HOC) -> pd.DataFrame:
    """Every cell test of every hypothesis (the evidence behind the verdicts)."""
    return evaluate(runs, path_or_specs, registration).cells


def _one_row_per_run(runs: pd.DataFrame) -> pd.DataFrame:
    """Runs as the engine counts them: one row each. Several records of one
    source file are collapsed (receiver's figures first); several sides
    without a file to group them by are refused, naming the columns."""
    if "source_path" in runs.columns:
        if not runs["source_path"].duplicated().any():
            return runs
        missing = [c for c in ("side", "flow") if c not in runs.columns]
        if missing:
            raise HypothesisError(f"runs table: several rows per source_path but no {', '.join(missing)} column "
                                  "to choose each run's record by; pass one row per run")
        try:
            return one_row_per_run(runs)
        except ValueError as err:
            raise HypothesisError(f"runs table: {err}") from None
    if "side" in runs.columns and runs["side"].dropna().nunique() > 1:
        raise HypothesisError("runs table: column 'side' holds several sides "
                              f"({', '.join(sorted(map(str, runs['side'].dropna().unique())))}) and no "
                              "'source_path' tells which rows are one run; pass one row per run "
                              "(analysis.ingest.per_run.one_row_per_run)")
    return runs


@contextmanager
def _quiet():
    """Warnings of arithmetic on odd data (constant groups, N > 5000 for
    Shapiro-Wilk) are not the reader's concern: the row says what happened."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def _guarded(compute: Callable[[], Evidence]) -> Evidence:
    """A numerical failure on odd data is a cell no test applies to, said so."""
    with _quiet():
        try:
            return compute()
        except (ValueError, ZeroDivisionError, OverflowError, np.linalg.LinAlgError) as err:
            return NoTest(f"no test could be computed on these runs ({err})")


def _family_sizes(hyps: list[Hypothesis], runs: pd.DataFrame) -> dict[str, int]:
    """Claim id -> cells in its family (the claim, or every claim of ``family: file``):
    a sequential cell's boundaries spend α over that many (Bonferroni)."""
    cells = {}
    for hyp in hyps:
        check_against(hyp, runs)
        cells[hyp.id] = 1 if hyp.interaction or hyp.holds == "pooled" else \
            max(1, len(split_cells(hyp, select(hyp, runs))))
    in_file = sum(n for h in hyps if h.family == "file" for n in [cells[h.id]])
    return {h.id: in_file if h.family == "file" else cells[h.id] for h in hyps}


def _tested(hyp: Hypothesis, runs: pd.DataFrame, registration: Registration, family: int = 1) -> Claim:
    """Select the claim's runs and test every cell (p not yet adjusted)."""
    check_against(hyp, runs)
    data = select(hyp, runs)
    with _quiet():
        checks, skipped = assumption_checks(hyp, data)
    test = pick_test(hyp)
    one_sided = registration.registered and hyp.direction in ("greater", "less")
    cells: list[tuple[str, Evidence]]
    if hyp.interaction:
        cells = [("all", _guarded(lambda: interaction(hyp, data)))]
    elif hyp.stop:
        cells = sequential_cells(hyp, data, select(hyp, runs, successful_only=False), one_sided, family)
    elif hyp.per and hyp.holds == "pooled":
        cells = [(f"pooled over {hyp.per}", _guarded(lambda: pooled(hyp, data, one_sided)))]
    else:
        cells = [(name, _guarded(partial(per_cell, hyp, cell, test, one_sided)))
                 for name, cell in split_cells(hyp, data)]
    if not cells:
        cells = [("all", NoTest("no successful runs with this metric in scope"))]
    tests = {ev.test for _, ev in cells if isinstance(ev, CellTest)}
    return Claim(hyp, cells, one_sided, _assumptions(hyp, checks, skipped, tests, one_sided, registration))


def _adjust(claims: list[Claim]) -> dict[tuple[str, str], tuple[float, float, int]]:
    """(claim id, cell) -> (p_adj, p_outside_adj, tests in the family): Holm (or
    the claim's correction) within each claim, or across every claim with ``family: file``."""
    families: dict[str, list[tuple[str, str, CellTest, str]]] = {}
    for claim in claims:
        key = "file" if claim.hyp.family == "file" else f"claim {claim.hyp.id}"
        families.setdefault(key, []).extend(
            (claim.hyp.id, name, ev, claim.hyp.correction) for name, ev in claim.cells if isinstance(ev, CellTest))
    adjusted = {}
    for members in families.values():
        method = members[0][3] if members else "holm"
        p_adj = st.adjust([m[2].p for m in members], method)
        outside = st.adjust([m[2].p_outside for m in members], method)
        adjusted.update({(m[0], m[1]): (p, o, len(members)) for m, p, o in zip(members, p_adj, outside)})
    return adjusted


def _judge(claim: Claim, name: str, ev: Evidence, p_adj: float, p_outside_adj: float, family: int) -> Judged:
    """A cell's verdict from its adjusted p and the sign of its estimate."""
    hyp = claim.hyp
    if isinstance(ev, NoTest):
        return Judged(name, ev, ev.verdict, ev.reason, summary=cell_summary(hyp, ev, math.nan, False))
    if math.isnan(p_adj):
        none = NoTest(f"the test gave no p value ({ev.test})", n_a=ev.n_a, n_b=ev.n_b)
        return Judged(name, none, none.verdict, none.reason)
    if isinstance(ev, SequentialTest) and ev.open:
        return Judged(name, ev, Verdict.INCONCLUSIVE, undecided_reason(ev), p_adj, p_outside_adj,
                      cell_summary(hyp, ev, p_adj, False, family))
    verdict = tested_verdict(hyp.direction, ev.direction(), p_adj, hyp.alpha, p_outside_adj)
    shown = p_outside_adj if verdict == Verdict.CONTRADICTED else p_adj
    planning = _planning(claim, ev, family)
    return Judged(name, ev, verdict, with_design(ev, _cell_reason(claim, ev, verdict, p_adj, p_outside_adj, planning)), p_adj,
                  p_outside_adj, cell_summary(hyp, ev, shown, verdict != Verdict.INCONCLUSIVE, family),
                  planning.power)


class Planning(NamedTuple):
    """Power to detect min_effect_pct with the runs at hand, and the runs per group that would reach 80 %."""

    power: float
    runs_needed: float
    rough: bool


def _planning(claim: Claim, ev: CellTest, family: int) -> Planning:
    """Power of the test as run: Welch's standard error and df, its sides, and α over the tests
    of its family (the first step of Holm; Bonferroni's bound for the others,
    so a stated power is what a cell can count on). None from fewer than
    POWER_MIN_N runs a group: simulated, the observed spread of 5 runs
    overstated power by 9-19 points (docs/statistics.md, "Calibration")."""
    hyp = claim.hyp
    if not ev.cv > 0 or not ev.test.startswith("Welch") or is_clock_offset(hyp.metric):
        return Planning(math.nan, math.nan, False)  # a % of a one-way delay's level means nothing
    sides = 1 if claim.one_sided else 2
    alpha = hyp.alpha if hyp.correction == "none" else hyp.alpha / max(family, 1)
    with _quiet():
        try:
            needed = st.runs_needed(hyp.min_effect_pct, ev.cv, alpha, sides=sides)
            if min(ev.n_a, ev.n_b) < POWER_MIN_N:
                return Planning(math.nan, needed, True)
            power = st.power_of_test(hyp.min_effect_pct / 100, ev.se_rel, ev.df, alpha, sides=sides)
        except (ValueError, OverflowError):  # a spread so small or large no root is found: no figure
            return Planning(math.nan, math.nan, False)
    return Planning(power, needed, False)


def _cell_reason(claim: Claim, ev: CellTest, verdict: Verdict, p: float, p_outside: float,
                 planning: Planning) -> str:
    hyp = claim.hyp
    sided = "one-sided" if claim.one_sided else "two-sided"
    if hyp.direction == "equivalent":
        unit = unit_of(hyp.metric)
        within = f"±{ev.margin:.4g}{' ' + unit if unit and unit != '%' else ''}"
        what = {Verdict.SUPPORTED: f"equivalent: the {percent(ev.conf)} CI lies within {within} (TOST p_adj={p:.3g})",
                Verdict.CONTRADICTED: f"difference significantly beyond {within} (p_adj={p_outside:.3g})"}.get(
            verdict, f"not shown equivalent: the {percent(ev.conf)} CI reaches beyond {within} (TOST p_adj={p:.3g})")
    elif verdict == Verdict.INCONCLUSIVE and p < hyp.alpha:
        what = f"significant (p_adj={p:.3g}) but the {ev.estimate} is 0: the runs show no direction"
    elif verdict == Verdict.INCONCLUSIVE:
        what = f"not significant (p_adj={p:.3g}{', ' + sided if hyp.direction != 'different' else ''})"
    elif hyp.direction == "different":
        return f"significant (p_adj={p:.3g})"
    elif verdict == Verdict.SUPPORTED:
        what = f"significant in the claimed direction ({sided} p_adj={p:.3g})"
    else:
        what = f"significant in the other direction ({sided} p_adj={p_outside:.3g})"
    if verdict != Verdict.INCONCLUSIVE:
        return what
    if math.isinf(ev.diff_ci_low) and math.isinf(ev.diff_ci_high):
        what += f"; with {int(ev.n_a)}+{int(ev.n_b)} runs no shift can be significant at this level"
    return weak_reason(what, planning.power, hyp.min_effect_pct, planning.runs_needed, planning.rough)


def _deciding(hyp: Hypothesis, judged: list[Judged], verdict: str) -> Judged:
    """The cell whose evidence the verdict row shows: one that carries the
    verdict — the weakest support of an 'all' claim, the strongest of an
    'any' claim, the strongest contradiction, the least clear non-result."""
    carrying = [j for j in judged if j.verdict == verdict]
    if not carrying:  # e.g. 'any': one cell against, one untestable: the untestable one left it open
        carrying = [j for j in judged if j.verdict == Verdict.UNTESTABLE] or judged

    def p_of(j: Judged) -> float:
        p = j.p_outside_adj if verdict == Verdict.CONTRADICTED else j.p_adj
        return -1.0 if math.isnan(p) else p

    if verdict == Verdict.CONTRADICTED or (verdict == Verdict.SUPPORTED and hyp.holds == "any" and hyp.per):
        return min(carrying, key=lambda j: (p_of(j) < 0, p_of(j)))
    return max(carrying, key=p_of)


def _summarize(claim: Claim, judged: list[Judged], table: pd.DataFrame, registration: Registration) -> dict:
    """Hypothesis row: the verdict and the deciding cell's evidence."""
    hyp = claim.hyp
    holds = "any" if hyp.holds == "any" and hyp.per else "all"
    verdicts = [j.verdict for j in judged]
    verdict = aggregate(holds, verdicts, Verdict.SUPPORTED, Verdict.CONTRADICTED,
                        (Verdict.INCONCLUSIVE, Verdict.UNTESTABLE))
    if set(verdicts) == {Verdict.UNTESTABLE}:
        verdict = Verdict.UNTESTABLE
    deciding = _deciding(hyp, judged, verdict)
    reason = deciding.reason
    if len(judged) > 1:
        supporting = verdicts.count(Verdict.SUPPORTED)
        reason = f"{supporting}/{len(judged)} cells support; deciding cell {deciding.name}: {reason}"
        if deciding.verdict != verdict:
            reason = f"{verdict}: not {Verdict.CONTRADICTED} in every cell; " + reason
    tested = table[table["verdict"] != Verdict.UNTESTABLE]
    failed = [j for j in judged if j.verdict != Verdict.SUPPORTED]
    row = table.iloc[next(i for i, j in enumerate(judged) if j is deciding)]  # the table's rows are judged's
    unit = unit_of(hyp.metric)
    return {
        "id": hyp.id, "statement": hyp.statement, "source": hyp.source, "metric": hyp.metric,
        "claim": claim_text(hyp.compare.factor, hyp.compare.labels(), hyp.direction, margin=hyp.margin,
                            margin_pct=hyp.margin_pct, per=hyp.per, holds=hyp.holds,
                            interaction=hyp.interaction, unit="" if unit == "%" else unit),
        "registration": registration.label, "test": row["test"], "verdict": str(verdict), "reason": reason,
        "cell": deciding.name,
        **{k: row[k] for k in ("statistic", "df_num", "df", "p", "p_adj", "p_other_adj", "estimate", "estimate_pct",
                               "estimate_ci_low", "estimate_ci_high", "diff", "diff_ci_low", "diff_ci_high",
                               "conf", "effect_name", "effect_size", "effect_ci_low", "effect_ci_high",
                               "summary")},
        "correction": hyp.correction, "family": hyp.family, "alpha": hyp.alpha,
        "n": n_text(tested),
        "cells_tested": int(len(tested)),
        "cells_failed": "; ".join(f"{j.name}: {j.verdict} ({j.reason})" for j in failed),
        "assumptions": claim.assumptions,
        "design": row["design"] or _fixed_design(hyp, registration), "look": row["look"],
    }


def _fixed_design(hyp: Hypothesis, registration: Registration) -> str:
    """A fixed-design claim's label: plainly 'fixed', or a warning when its runs were
    collected until decided, whose number depends on the data (the fixed p and CI overstate the evidence)."""
    if registration.collected_until_decided:
        return ("fixed, on runs collected until decided: this fixed-design p and CI ignore the looks "
                "and overstate the evidence; give the claim the registered stop:")
    return "fixed"


def _assumptions(hyp: Hypothesis, checks: list, skipped: str, tests: set[str], one_sided: bool,
                 registration: Registration) -> str:
    """What was checked (diagnostics only: they never change the test), the
    test used, and whether a direction earned a one-sided test."""
    extra = [skipped] if skipped else []
    rank = any(t.startswith("Mann-Whitney") for t in tests)
    allow = "HC3-robust tests allow" if any("HC3" in t for t in tests) else "Welch's tests allow"
    kept = {"Brown-Forsythe": f"diagnostic only; {allow} unequal variances" if not rank else
            "diagnostic only; a rank test can react to a difference in spread, not only in location",
            "Shapiro-Wilk": "diagnostic only; the test is fixed before the data (docs/statistics.md, 'Which test')"}
    used = "; ".join(sorted(tests)) or None
    if used and hyp.direction in ("greater", "less"):
        used += (" (registered directional claim)" if one_sided else
                 f" (two-sided: {registration.note}; exploratory)")
    return assumptions_text(checks, extra, used, kept)
