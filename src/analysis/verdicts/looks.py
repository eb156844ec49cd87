"""A claim with ``stop:`` on runs collected until decided: replay its looks.

Look k of a cell holds each group's runs numbered 1..n_k (column ``run``, the
collector's repetition number; n_k from the claim's schedule). A look is
complete once every compared level has made its runs 1..n_k, failed runs
included and each number as often as the others (a block's runs are made in
random order), so the engine sees the looks the collector saw. The looks are replayed in
order; the cell stops at the first whose Welch statistic crosses its
Lan–DeMets boundary, whose conditional power falls below ``futility``, or
that reaches ``max_runs``. Its evidence is that look's, with the stage-wise p
and the repeated CI (:mod:`analysis.stats.sequential`). A cell whose last
complete look decided nothing is open: its collection goes on.

Several cells of a family share α by Bonferroni in their boundaries (each
cell's design spends α/m); the engine's Holm on the stage-wise p values then
gives the verdicts, valid since each is a p value under its cell's own
stopping rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from analysis.errors import HypothesisError
from analysis.stats import sequential as seq
from analysis.verdicts.cells import NAN, CellTest, Evidence, NoTest, _as_pct, per_cell, two_groups
from analysis.verdicts.selection import split_cells
from analysis.verdicts.spec import Hypothesis, Stop, canon_column

ORDER = "run"  # the collector's repetition number of a run within its cell
SPENDING_NAMES = {"obf": "O'Brien-Fleming", "pocock": "Pocock"}


@dataclass(frozen=True)
class SequentialTest(CellTest):
    """A cell's test at the look where it stopped (or its last look, when still open)."""

    look: float = NAN  # 1-based, in the claim's schedule
    decision: str = ""  # decided | futility | max_runs | open
    design: str = ""

    @property
    def open(self) -> bool:
        return self.decision == "open"


@dataclass(frozen=True)
class _Look:
    number: int
    a: np.ndarray
    b: np.ndarray
    evidence: CellTest
    fraction: float


def sequential_cells(hyp: Hypothesis, data: pd.DataFrame, made: pd.DataFrame, one_sided: bool,
                     family: int) -> list[tuple[str, Evidence]]:
    """Every cell of a sequential claim: (name, evidence at its stopping look).
    ``data``: the successful runs in scope; ``made``: every run in scope, failed too."""
    if ORDER not in made.columns:
        where = hyp.where("stop")
        raise HypothesisError(f"{where + ': ' if where else ''}hypothesis {hyp.id}: key 'stop': the runs table has "
                              f"no {ORDER!r} column numbering each cell's runs, so its looks cannot be replayed")
    alpha = hyp.alpha if hyp.correction == "none" else hyp.alpha / max(family, 1)
    made_cells = dict(split_cells(hyp, made))
    return [(name, _guarded(hyp, cell, made_cells.get(name, cell), one_sided, alpha))
            for name, cell in split_cells(hyp, data)]


def _guarded(hyp: Hypothesis, cell: pd.DataFrame, made: pd.DataFrame, one_sided: bool, alpha: float) -> Evidence:
    try:
        return one_cell(hyp, cell, made, one_sided, alpha)
    except (ValueError, ZeroDivisionError, OverflowError) as err:
        return NoTest(f"no sequential test could be computed on these runs ({err})")


def one_cell(hyp: Hypothesis, cell: pd.DataFrame, made: pd.DataFrame, one_sided: bool, alpha: float) -> Evidence:
    """Replay the complete looks of one cell and stop at the first decision."""
    replay = _replay(hyp, cell, made, one_sided, alpha)
    if isinstance(replay, tuple):
        return replay[0]
    step = replay[-1]
    return _evidence(hyp, step.look, step.design, step.index, step.z, step.decision, one_sided, step.stop, step.power)


@dataclass(frozen=True)
class _Step:
    """One look replayed: its statistics against its boundary, and what it decided."""

    index: int
    look: _Look
    design: seq.Boundaries
    planned: seq.Boundaries
    stop: Stop
    z: dict[str, float]
    power: float
    decision: str  # "" for a look that decided nothing and was not the last


def _replay(hyp: Hypothesis, cell: pd.DataFrame, made: pd.DataFrame, one_sided: bool,
            alpha: float) -> list[_Step] | tuple[Evidence]:
    """The looks up to the one the cell stopped at (its last complete one when open);
    (why there is none,) when no look is complete."""
    stop = hyp.stop
    assert stop is not None
    looks, last = _looks(hyp, cell, made, stop, one_sided)
    if not looks:
        return (last,)
    equivalence = hyp.direction == "equivalent"
    sides = 1 if one_sided or equivalence else 2
    design = _design(tuple(lk.fraction for lk in looks), alpha, stop.spending, sides)
    planned = _design(tuple(n / stop.max_runs for n in stop.schedule()), alpha, stop.spending, sides)
    steps = []
    for i, look in enumerate(looks):
        z = _statistics(hyp, look)
        c = design.z[i]
        crossed = (min(z["low"], -z["high"]) >= c or z["beyond"] >= c) if equivalence else abs(z["diff"]) >= c
        final = look.fraction >= 1.0
        power = math.nan if equivalence or crossed or final else seq.conditional_power(z["diff"], look.fraction,
                                                                                        planned.z[-1])
        futile = stop.futility is not None and look.fraction >= stop.futility_from and power < stop.futility
        ends = crossed or final or futile or i == len(looks) - 1
        decision = ("decided" if crossed else "max_runs" if final else "futility" if futile else "open") if ends else ""
        steps.append(_Step(i, look, design, planned, stop, z, power, decision))
        if ends:
            return steps
    raise AssertionError("unreachable: the last look always ends the replay")


@dataclass(frozen=True)
class LookPath:
    """A cell's statistic look by look against its boundaries, for the report's figure.
    ``z``: the z of the difference a − b (crossing ±``bound`` decides), or for an
    equivalence claim the smaller of the two TOST statistics (crossing +``bound``
    shows equivalence). ``futility``: the |z| below which a look stopped for
    futility (nan where no futility look). ``planned_*``: the design's boundaries
    at every planned look, for the looks not made."""

    claim: str
    cell: str
    equivalence: bool
    runs: tuple[int, ...]  # runs a group at each look made (the smaller group)
    z: tuple[float, ...]
    bound: tuple[float, ...]
    futility: tuple[float, ...]
    planned_runs: tuple[int, ...]
    planned_bound: tuple[float, ...]
    decision: str
    design: str  # the cell's design text, as in the verdict tables


def look_paths(hyp: Hypothesis, data: pd.DataFrame, made: pd.DataFrame, one_sided: bool,
               family: int) -> list[LookPath]:
    """The path of every cell of a sequential claim with a complete look (the same
    replay, α and boundaries as :func:`sequential_cells`)."""
    stop = hyp.stop
    assert stop is not None
    alpha = hyp.alpha if hyp.correction == "none" else hyp.alpha / max(family, 1)
    made_cells = dict(split_cells(hyp, made))
    equivalence = hyp.direction == "equivalent"
    paths = []
    for name, cell in split_cells(hyp, data):
        try:
            replay = _replay(hyp, cell, made_cells.get(name, cell), one_sided, alpha)
        except (ValueError, ZeroDivisionError, OverflowError):
            continue  # no sequential test: the verdict tables say why
        if isinstance(replay, tuple):
            continue
        last = replay[-1]
        final = last.planned.z[-1]
        futility = tuple(seq.futility_bound(s.look.fraction, final, stop.futility)
                         if stop.futility is not None and not equivalence and stop.futility_from <= s.look.fraction < 1
                         else math.nan for s in replay)
        z = tuple(min(s.z["low"], -s.z["high"]) if equivalence else s.z["diff"] for s in replay)
        paths.append(LookPath(hyp.id, name, equivalence, tuple(min(s.look.a.size, s.look.b.size) for s in replay),
                              z, tuple(last.design.z[: len(replay)]), futility, tuple(stop.schedule()),
                              last.planned.z, last.decision,
                              _design_text(hyp, last.look, last.design, last.index, last.decision, stop, last.power)))
    return paths


def _looks(hyp: Hypothesis, cell: pd.DataFrame, made: pd.DataFrame, stop: Stop,
           one_sided: bool) -> tuple[list[_Look], Evidence]:
    """The complete looks with a test and more information than the one before, and
    the evidence of the last look tried (why there is no usable look, when none is)."""
    labels = hyp.compare.labels()
    done = _complete_runs(hyp, made)
    looks: list[_Look] = []
    last: Evidence = NoTest(f"no complete look yet: {stop.min_runs} runs a group are needed for the first look, "
                            f"runs 1..{done} made in every group")
    groups = [cell.loc[cell["_group"] == g, [ORDER, hyp.metric]].to_numpy(float) for g in labels]
    for number, runs in enumerate(stop.schedule(), 1):
        if done < runs:
            break
        a, b = (g[g[:, 0] <= runs, 1] for g in groups)
        last = per_cell(hyp, cell[cell[ORDER] <= runs], "welch", one_sided) if min(a.size, b.size) < 2 or \
            not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))) else two_groups(hyp, a, b, "welch", one_sided)
        if not isinstance(last, CellTest):
            continue
        fraction = 1.0 if runs >= stop.max_runs else 2 / (1 / a.size + 1 / b.size) / stop.max_runs
        if looks and fraction <= looks[-1].fraction:
            continue  # no new successful run: nothing new to look at
        looks.append(_Look(number, a, b, last, min(fraction, 1.0)))
    return looks, last


def _complete_runs(hyp: Hypothesis, made: pd.DataFrame) -> int:
    """The largest n such that every compared level has made its runs 1..n (failed ones
    included) equally often: runs of a look block are made in random order, so a
    level can have run 3 before run 2, and a partly made block is not a look."""
    level = canon_column(made[hyp.compare.factor])
    complete = []
    for wanted in hyp.compare.level_map():
        numbers = made.loc[level == wanted, ORDER].astype(int).value_counts()
        n = 0
        while n + 1 in numbers.index and numbers[n + 1] == numbers[1]:
            n += 1
        complete.append(n)
    return min(complete, default=0)


@lru_cache(maxsize=256)
def _design(fractions: tuple[float, ...], alpha: float, spending: str, sides: int) -> seq.Boundaries:
    return seq.boundaries(fractions, alpha, spending, sides)  # type: ignore[arg-type]


def _welch_se(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size))


def _statistics(hyp: Hypothesis, look: _Look) -> dict[str, float]:
    """The look's statistics on the z scale: the difference a − b; for an
    equivalence claim also both TOST statistics and the test of a difference beyond the margin."""
    ev, se = look.evidence, _welch_se(look.a, look.b)
    z = {"diff": seq.z_of_t(ev.diff / se, ev.df)}
    if hyp.direction == "equivalent":
        z |= {"low": seq.z_of_t((ev.diff + ev.margin) / se, ev.df),
              "high": seq.z_of_t((ev.diff - ev.margin) / se, ev.df),
              "beyond": seq.z_of_t((abs(ev.diff) - ev.margin) / se, ev.df)}
    return z


def _evidence(hyp: Hypothesis, look: _Look, design: seq.Boundaries, i: int, z: dict[str, float], decision: str,
              one_sided: bool, stop: Stop, power: float) -> SequentialTest:
    ev = look.evidence
    if hyp.direction == "equivalent":
        p = max(seq.stagewise_p(design, i, z["low"])[0], seq.stagewise_p(design, i, z["high"])[1])
        outside = seq.stagewise_p(design, i, z["beyond"])[0]
    else:
        up, down = seq.stagewise_p(design, i, z["diff"])
        if one_sided:
            p, outside = (up, down) if hyp.direction == "greater" else (down, up)
        else:
            p = outside = min(1.0, 2 * min(up, down))
    se = _welch_se(look.a, look.b)
    low, high = seq.repeated_ci(ev.diff, se, design.z[i], ev.df)
    conf = 1 - 2 * design.alpha_side
    text = _design_text(hyp, look, design, i, decision, stop, power)
    return SequentialTest(**{**ev.__dict__, "test": ev.test + ", sequential", "p": p, "p_outside": outside,
                             "diff_ci_low": low, "diff_ci_high": high, "conf": conf,
                             "estimate_pct": NAN, "estimate_ci_low": NAN, "estimate_ci_high": NAN,
                             **_as_pct(hyp, look.a, look.b, float(look.b.mean()), ev.diff, low, high)},
                          look=look.number, decision=decision, design=text)


def _design_text(hyp: Hypothesis, look: _Look, design: seq.Boundaries, i: int, decision: str, stop: Stop,
                 power: float) -> str:
    planned = len(stop.schedule())
    side = "one-sided" if design.sides == 1 else "two-sided"
    what = {"decided": "decided", "max_runs": "reached max_runs",
            "open": "open (undecided, collection goes on)"}.get(decision) or \
        f"stopped for futility (conditional power {power:.0%} < {stop.futility or 0:.0%})"
    return (f"sequential, {SPENDING_NAMES[stop.spending]}-type spending of α={design.alpha:.3g} {side}: {what} "
            f"at look {look.number} of ≤{planned} ({look.a.size}+{look.b.size} runs, max {stop.max_runs} a group; "
            f"information {look.fraction:.2f}); boundary |z| ≥ {design.z[i]:.3f} "
            f"(nominal p ≤ {design.nominal(i):.3g})")


def undecided_reason(ev: SequentialTest) -> str:
    """Why an open cell has no verdict yet."""
    return f"undecided at look {int(ev.look)}: the statistic has not crossed its boundary; {ev.design}"


def with_design(ev: Evidence, reason: str) -> str:
    """A cell's reason, prefixed by where its sequential design stopped it."""
    if isinstance(ev, SequentialTest) and not ev.open:
        return f"at look {int(ev.look)} ({ev.decision}): {reason}"
    return reason
