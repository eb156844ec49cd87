"""Calibration by simulation: campaigns whose truth is known, judged by the
verdict engine, against the error rates the engine promises (issue 22, item 5).

A design says how a campaign's runs are drawn (shape, groups, cells of the
``per`` factor, runs per group, spread) and what is true in it: no effect,
a difference of exactly the equivalence margin, or a change of
``min_effect_pct`` at a known CV. Every claim of the design is evaluated on
every simulated campaign through the public ``evaluate``; the rates of its
verdicts are the evidence:

- no effect: P(supported) and P(contradicted) <= alpha;
- a difference of exactly the margin: P(supported as equivalent) <= alpha;
- a true change in the claimed direction: P(contradicted) <= alpha, and the
  simulated P(supported) within ``POWER_TOLERANCE`` of the power the engine
  states (the cells table's ``power``, averaged);
- no claim ever crashes.

The data are SYNTHETIC. ``bench_calibration.py`` runs every design for
``make bench``; ``tests/verdicts/test_calibration.py`` a seeded subset.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from multiprocessing import Pool
from typing import Any

import numpy as np
import pandas as pd

from analysis.verdicts import evaluate

SEED = 20240522
ALPHA = 0.05
MIN_EFFECT_PCT = 5.0
MARGIN_PCT = 10.0
POWER_TOLERANCE = 0.05
CHUNK = 25  # campaigns per task: a seed of its own, so results do not depend on the number of workers
FACTOR, PER = "ip_version", "size_bytes"
SIZES = [64 * 2**j for j in range(8)]
LEVELS = ["A", "B", "C", "D"]
#: an engine that knows whether a claim was registered before the data tests a registered
#: directional claim one-sided and a post-hoc one two-sided: both are calibrated then
REGISTRATIONS: tuple[bool | None, ...] = (
    (False, True) if "registration" in inspect.signature(evaluate).parameters else (None,))


def registration_keywords(registered: bool | None) -> dict[str, Any]:
    """The keyword that tells evaluate whether the simulated claim was registered (none: its default)."""
    if registered is None:
        return {}
    from analysis.verdicts import Registration

    return {"registration": Registration(registered, "simulated: registered" if registered else "simulated: post hoc")}


def _lognormal(sigma: float) -> Callable[[np.random.Generator, int], np.ndarray]:
    """Right-skewed like RTTs and transfer times, standardised to mean 0, SD 1."""
    mean, sd = math.exp(sigma**2 / 2), math.sqrt((math.exp(sigma**2) - 1) * math.exp(sigma**2))
    return lambda rng, n: (rng.lognormal(0.0, sigma, n) - mean) / sd


#: standardised shapes (mean 0, SD 1) a cell's runs are drawn from
SHAPES: dict[str, Callable[[np.random.Generator, int], np.ndarray]] = {
    "normal": lambda rng, n: rng.standard_normal(n),
    "lognormal": _lognormal(1.0),
    "lognormal-0.5": _lognormal(0.5),
    # t with 3 df: outliers; at CV 10 % a run below 0 needs t < -17 (p ~ 2e-4 per run)
    "t3": lambda rng, n: rng.standard_t(3, n) / math.sqrt(3.0),
    # a counter read to whole units: five distinct values or so, many ties
    "discrete": lambda rng, n: np.round(rng.standard_normal(n)),
}


@dataclass(frozen=True)
class Claim:
    """One hypothesis template; ``grouped`` compares the first level with all the others pooled."""

    direction: str
    holds: str = "all"
    test: str = "auto"
    margin: str = ""  # equivalent only: "abs" (metric units) or "pct" (of the second group's mean)
    grouped: bool = False
    registered: bool | None = None  # None: evaluate's default

    def label(self, design: Design) -> str:
        """What the table calls this path: only the keys that vary in the design."""
        parts = [self.direction]
        if design.cells > 1:
            parts.append(f"holds={self.holds}")
        parts.append(f"test={self.test}")
        if self.margin:
            parts.append(f"margin {'abs' if self.margin == 'abs' else '%'}")
        if self.grouped:
            parts.append(f"{LEVELS[0]} vs {'+'.join(LEVELS[1:design.groups])}")
        if self.registered is not None and self.direction in ("greater", "less"):
            parts.append("registered" if self.registered else "post hoc")
        return " ".join(parts)

    def spec(self, design: Design) -> dict:
        """The hypothesis dict the engine reads."""
        levels = LEVELS[:design.groups]
        if self.grouped:
            compare: dict = {"factor": FACTOR, "groups": {"a": levels[:1], "rest": levels[1:]}}
        elif self.direction in ("greater", "less", "equivalent"):
            # the true change raises the first level: a 'less' claim reads the levels the other way
            compare = {"factor": FACTOR, "levels": levels[:2][::-1] if self.direction == "less" else levels[:2]}
        else:
            compare = {"factor": FACTOR, "levels": levels}
        spec = {"id": "H", "statement": self.label(design), "metric": design.metric, "compare": compare,
                "direction": self.direction, "test": self.test, "alpha": ALPHA,
                "min_effect_pct": MIN_EFFECT_PCT}
        if design.cells > 1:
            spec.update(per=PER, holds=self.holds)
        if self.margin == "abs":
            spec["margin"] = MARGIN_PCT / 100 * design.base
        elif self.margin == "pct":
            spec["margin_pct"] = MARGIN_PCT
        return spec


@dataclass(frozen=True)
class Design:
    """How a campaign is drawn, what is true in it, and the claims judged on it."""

    name: str
    claims: tuple[Claim, ...]
    reps: int
    shape: str = "normal"
    groups: int = 2
    cells: int = 1
    n: tuple[int, int] = (10, 10)  # runs in the first group, in each other group
    cv: float = 0.10  # SD / mean in every cell (the second group's, with sd_ratio)
    sd_ratio: float = 1.0  # SD of the first group over that of the others
    truth: str = "none"  # none | margin | change
    constant_cells: int = 0  # cells where every run of every group is 0 (loss 0 %)
    zero_share: float = 0.0  # share of runs at exactly 0, the rest exponential (a loss %)
    metric: str = "throughput_mbps"  # not *_ms: auto sends those to Mann-Whitney whatever the data
    base: float = 100.0  # the second group's mean in the first cell; cell j has base * 2**j
    smoke: bool = False  # too few reps for rates: one row, whether any claim crashed

    def shift(self, mean: float) -> float:
        """How much higher the first group's mean is than the others' (the truth)."""
        if self.truth == "margin":
            return MARGIN_PCT / 100 * mean
        if self.truth == "change":
            return MIN_EFFECT_PCT / 100 * mean
        return 0.0

    def runs(self, rng: np.random.Generator) -> pd.DataFrame:
        """One simulated campaign: one row per run, as the runs table has them."""
        levels, sizes, values = [], [], []
        for cell in range(self.cells):
            mean = self.base * 2**cell
            for g, level in enumerate(LEVELS[:self.groups]):
                n = self.n[0] if g == 0 else self.n[1]
                levels += [level] * n
                sizes += [SIZES[cell]] * n
                values.append(self._draw(rng, cell, mean, first=g == 0, n=n))
        return pd.DataFrame({"status": "ok", FACTOR: levels, PER: sizes, self.metric: np.concatenate(values)})

    def _draw(self, rng: np.random.Generator, cell: int, mean: float, first: bool, n: int) -> np.ndarray:
        """The runs of one group in one cell; only the first group carries the true difference."""
        if cell < self.constant_cells:
            return np.zeros(n)
        if self.zero_share:
            return np.where(rng.random(n) < self.zero_share, 0.0, rng.exponential(self.cv * mean, n))
        sd = self.cv * mean * (self.sd_ratio if first else 1.0)
        return mean + (self.shift(mean) if first else 0.0) + sd * SHAPES[self.shape](rng, n)

    def paths(self) -> list[Claim]:
        """Every claim; a directional one once per registration the engine distinguishes."""
        out: list[Claim] = []
        for claim in self.claims:
            if claim.direction in ("greater", "less"):
                out += [replace(claim, registered=r) for r in REGISTRATIONS]
            else:
                out.append(claim)
        return out


@dataclass
class Tally:
    """What the engine said about one claim over the simulated campaigns."""

    verdicts: Counter = field(default_factory=Counter)
    cells: int = 0
    cells_supported: int = 0
    power_sum: float = 0.0
    power_cells: int = 0
    error: str = ""

    def add(self, other: Tally) -> None:
        self.verdicts.update(other.verdicts)
        self.cells += other.cells
        self.cells_supported += other.cells_supported
        self.power_sum += other.power_sum
        self.power_cells += other.power_cells
        self.error = self.error or other.error


def judge(claim: Claim, design: Design, runs: pd.DataFrame, tally: Tally) -> None:
    """Evaluate one claim on one campaign; an exception is the outcome 'crash', never a stop."""
    try:
        result = evaluate(runs, [claim.spec(design)], **registration_keywords(claim.registered))
    except Exception as exc:  # noqa: BLE001 - any failure of the engine is a finding, counted
        tally.verdicts["crash"] += 1
        tally.error = tally.error or f"{type(exc).__name__}: {exc}"[:160]
        return
    tally.verdicts[str(result.table["verdict"].iloc[0])] += 1
    cells = result.cells
    tally.cells += len(cells)
    tally.cells_supported += int((cells["verdict"] == "supported").sum())
    power = pd.to_numeric(cells["power"], errors="coerce").dropna()
    tally.power_sum += float(power.sum())
    tally.power_cells += len(power)


def simulate(task: tuple[int, Design, int, int]) -> tuple[int, int, list[Tally]]:
    """One chunk of one design: its own seed (SEED, design, chunk), so any split over workers agrees."""
    index, design, chunk, reps = task
    rng = np.random.default_rng([SEED, index, chunk])
    paths = design.paths()
    tallies = [Tally() for _ in paths]
    with warnings.catch_warnings():  # zero spreads make scipy and statsmodels warn; the verdicts are the point
        warnings.simplefilter("ignore")
        for _ in range(reps):
            runs = design.runs(rng)
            for claim, tally in zip(paths, tallies):
                judge(claim, design, runs, tally)
    return index, reps, tallies


def tasks(designs: Sequence[Design]) -> Iterator[tuple[int, Design, int, int]]:
    """Each design cut into chunks of CHUNK campaigns: (design index, design, chunk index, campaigns)."""
    for index, design in enumerate(designs):
        for chunk, start in enumerate(range(0, design.reps, CHUNK)):
            yield index, design, chunk, min(CHUNK, design.reps - start)


def run(designs: Sequence[Design], workers: int = 2, progress: Callable[[int], None] | None = None
        ) -> list[list[Tally]]:
    """Every design's tallies (one per path), simulated on ``workers`` processes."""
    totals = [[Tally() for _ in d.paths()] for d in designs]
    with Pool(workers) as pool:
        for index, reps, tallies in pool.imap_unordered(simulate, list(tasks(designs))):
            for total, part in zip(totals[index], tallies):
                total.add(part)
            if progress:
                progress(reps)
    return totals


@dataclass(frozen=True)
class Row:
    """One line of the calibration table; ``passed`` None: nothing stated to compare with."""

    design: str
    path: str
    reps: int
    rate: float
    se: float
    target: str
    passed: bool | None
    note: str = ""


def _error_row(design: Design, path: str, what: str, count: int, reps: int, k: float) -> Row:
    """A rate that must stay below alpha: pass when within k Monte Carlo SEs (at alpha) of it."""
    se = math.sqrt(ALPHA * (1 - ALPHA) / reps)
    rate = count / reps
    return Row(design.name, f"{path}: P({what})", reps, rate, se, f"<= {ALPHA:g} + {k:g} SE", rate <= ALPHA + k * se)


def _power_row(design: Design, path: str, tally: Tally, k: float) -> Row:
    """Simulated P(cell supported) against the mean stated power of the cells."""
    rate = tally.cells_supported / tally.cells if tally.cells else math.nan
    se = math.sqrt(rate * (1 - rate) / tally.cells) if tally.cells else math.nan
    if not tally.power_cells:
        return Row(design.name, f"{path}: power", tally.cells, rate, se, "stated power", None, "no power stated")
    stated = tally.power_sum / tally.power_cells
    return Row(design.name, f"{path}: power", tally.cells, rate, se, f"stated {stated:.3f} ± {POWER_TOLERANCE:g}",
               abs(rate - stated) <= POWER_TOLERANCE + k * se)


def rows(design: Design, claim: Claim, tally: Tally, k: float) -> list[Row]:
    """The rates this claim is held to under the design's truth."""
    path, reps, said = claim.label(design), design.reps, tally.verdicts
    out = []
    if said["crash"]:
        out.append(Row(design.name, f"{path}: crash", reps, said["crash"] / reps, 0.0, "0", False, tally.error))
    directional = claim.direction in ("greater", "less")
    if design.truth == "none":
        if claim.direction != "equivalent":
            out.append(_error_row(design, path, "supported", said["supported"], reps, k))
        if claim.direction != "different":
            out.append(_error_row(design, path, "contradicted", said["contradicted"], reps, k))
    elif design.truth == "margin" and claim.direction == "equivalent":
        out.append(_error_row(design, path, "supported", said["supported"], reps, k))
    elif design.truth == "change":
        if directional:
            out.append(_error_row(design, path, "contradicted", said["contradicted"], reps, k))
        if claim.direction != "equivalent":
            out.append(_power_row(design, path, tally, k))
    return out


def smoke_row(design: Design, tallies: Sequence[Tally]) -> Row:
    """Every path of a smoke design in one row: the share of evaluations that raised."""
    evaluations = design.reps * len(tallies)
    crashes = sum(t.verdicts["crash"] for t in tallies)
    note = next((t.error for t in tallies if t.error), "")
    return Row(design.name, f"all {len(tallies)} paths: crash", evaluations, crashes / evaluations, 0.0, "0",
               crashes == 0, note)


def table(designs: Sequence[Design], totals: Sequence[Sequence[Tally]], k: float) -> list[Row]:
    """Every design's rows, each rate held to alpha + k Monte Carlo SE."""
    out: list[Row] = []
    for design, tallies in zip(designs, totals):
        if design.smoke:
            out.append(smoke_row(design, tallies))
        else:
            out += [row for claim, tally in zip(design.paths(), tallies) for row in rows(design, claim, tally, k)]
    return out


def render(table_rows: Sequence[Row]) -> str:
    """A Markdown table (it reads as plain text too)."""
    lines = ["| design | path | reps | rate | MC SE | target | result |", "|---|---|---:|---:|---:|---|---|"]
    for r in table_rows:
        result = {True: "pass", False: "**FAIL**", None: "n/a"}[r.passed] + (f" ({r.note})" if r.note else "")
        lines.append(f"| {r.design} | {r.path} | {r.reps} | {r.rate:.3f} | {r.se:.3f} | {r.target} | {result} |")
    return "\n".join(lines)


# ---- the designs -------------------------------------------------------------------------------

TESTS = ("auto", "welch", "mann-whitney")
HOLDS = ("all", "any", "pooled")


def _each(directions: Sequence[str], tests: Sequence[str] = ("auto",), holds: Sequence[str] = ("all",)
          ) -> tuple[Claim, ...]:
    """One claim per direction x holds x test."""
    return tuple(Claim(d, h, t) for d in directions for h in holds for t in tests)


def _equivalent(margins: Sequence[str] = ("abs", "pct"), holds: Sequence[str] = ("all",),
                tests: Sequence[str] = ("auto",)) -> tuple[Claim, ...]:
    """Equivalence claims, per kind of margin x holds x test."""
    return tuple(Claim("equivalent", h, t, margin=m) for m in margins for h in holds for t in tests)


#: every combination the schema accepts, on one small design (a smoke test: few reps)
EVERY_COMBINATION = _each(("greater", "less", "different"), TESTS, HOLDS) + _equivalent(("abs",), ("all", "any"), TESTS)

DESIGNS: list[Design] = [
    # no effect, one cell: the engine's choice of test on the shapes networks produce
    Design("normal, n=5", _each(("greater", "different"), TESTS) + _each(("less",)) + _equivalent(), 250, n=(5, 5)),
    Design("normal, n=3", _each(("greater",), ("auto", "mann-whitney")) + _each(("different",)) + _equivalent(("abs",)),
           150, n=(3, 3)),
    Design("lognormal s=1, n=10", _each(("greater", "different")), 250, shape="lognormal", cv=0.3),
    Design("t3 heavy tail, n=10", _each(("greater",)), 250, shape="t3"),
    Design("discrete ties, n=10", _each(("greater", "different")), 250, shape="discrete"),
    Design("unequal SD 4:1, n=20", _each(("greater",), ("auto", "welch")) + _each(("different",)), 250,
           sd_ratio=4.0, n=(20, 20)),
    Design("unequal SD 4:1, n=5+20", _each(("greater",), ("auto", "welch")) + _each(("different",)), 250,
           sd_ratio=4.0, n=(5, 20)),
    Design("latency rtt_ms, lognormal s=0.5, n=10", _each(("greater",)), 250, shape="lognormal-0.5", metric="rtt_ms"),
    # no effect, several cells of the per factor: Holm across cells, all / any, pooled OLS
    Design("every valid combination, 2 cells, n=5", EVERY_COMBINATION, 10, cells=2, n=(5, 5), smoke=True),
    Design("normal, 4 cells, n=5", _each(("greater",), holds=HOLDS) + _each(("different",), holds=("any", "pooled"))
           + _equivalent(("abs",), ("any",)), 120, cells=4, n=(5, 5)),
    Design("normal, 8 cells, n=5", _each(("greater",), holds=("any",)) + _each(("different",)), 80, cells=8, n=(5, 5)),
    Design("loss_pct 60 % zeros, 4 cells, n=5", _each(("greater",), holds=("any", "pooled")) + _each(("different",)),
           100, cells=4, n=(5, 5), zero_share=0.6, cv=1.0, base=1.0, metric="loss_pct"),
    Design("2 of 4 cells constant 0, n=5",
           _each(("greater",), holds=("all", "any")) + _each(("different",), holds=("any",))
           + _equivalent(("abs",), ("any",)), 100, cells=4, n=(5, 5), cv=0.3, base=2.0, constant_cells=2,
           metric="loss_pct"),
    # no effect, more than two groups: Welch ANOVA, and a directional claim on grouped levels
    Design("normal, 3 groups, n=10", (Claim("different"), Claim("greater", grouped=True)), 150, groups=3),
    Design("normal, 4 groups, n=5", (Claim("different"),), 60, groups=4, n=(5, 5)),
    # a true difference of exactly the margin: equivalence must not be shown
    Design("normal, n=10, diff = margin", _equivalent(), 300, truth="margin"),
    Design("normal, 4 cells, n=10, diff = margin", _equivalent(("abs",), ("all", "any")), 120, cells=4, truth="margin"),
    Design("constant groups one margin apart, n=5", _equivalent(), 10, n=(5, 5), cv=0.0, truth="margin", base=1.0),
    # a true change of min_effect_pct at a known CV: power as stated, never contradicted
    Design("normal, n=3, +5 % at CV 2.5 %", _each(("greater",), ("welch", "mann-whitney")), 250, n=(3, 3),
           cv=0.025, truth="change"),
    Design("normal, n=5, +5 % at CV 4 %", _each(("greater", "different"), ("welch",)), 250, n=(5, 5), cv=0.04,
           truth="change"),
    Design("normal, n=10, +5 % at CV 6 %", _each(("greater",), ("welch",)), 250, cv=0.06, truth="change"),
    Design("normal, n=20, +5 % at CV 8 %", _each(("greater",), ("welch",)), 250, n=(20, 20), cv=0.08, truth="change"),
    Design("lognormal s=1, n=10, +5 % at CV 6 %", _each(("greater",)), 250, shape="lognormal", cv=0.06,
           truth="change"),
    Design("normal, 4 cells, n=10, +5 % at CV 6 %", _each(("greater",), ("welch",)), 120, cells=4, cv=0.06,
           truth="change"),
]
