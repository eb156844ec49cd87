"""Collect until decided, by simulation: error rates, power and runs saved of the
sequential designs against the fixed design (issue 27, item 3).

Each simulated campaign is one cell of two groups of normal runs (SD 5 % of a
mean of 100), drawn up to the largest max_runs of any design. Every design is
a claim of one hypothesis list evaluated on the same campaign through the
public ``evaluate`` (each claim its own family), so the designs are compared on
the same data: the fixed design reads runs 1..FIXED_RUNS, a sequential one
replays its looks and stops where its rule says. Per design and truth: the
share of campaigns decided significant (type I error under no effect, power
under an effect), and the runs a group it used on average, as a share of the
fixed design's. The data are SYNTHETIC. ``bench_sequential.py`` runs it for
``make bench``; ``tests/verdicts/test_sequential_simulation.py`` a seeded subset.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing import Pool

import numpy as np
import pandas as pd

from analysis.stats import power_t
from analysis.verdicts import evaluate, parse_hypotheses

SEED = 20261202
ALPHA = 0.05
FIXED_RUNS = 20
SD = 5.0
CHUNK = 50  # campaigns per task, each task seeded on its own: results do not depend on the number of workers


@dataclass(frozen=True)
class Design:
    """A claim's stop rule (None: the fixed design on FIXED_RUNS runs a group)."""

    name: str
    stop: dict | None = None

    def runs_at(self, look: float) -> int:
        """Runs a group the design used when it stopped at ``look`` (1-based)."""
        if self.stop is None or math.isnan(look):
            return FIXED_RUNS if self.stop is None else self.stop["max_runs"]
        s = self.stop
        schedule = list(range(s["min_runs"], s["max_runs"], s["look_every"])) + [s["max_runs"]]
        return schedule[int(look) - 1]


DESIGNS = (
    Design("fixed, 20 runs"),
    Design("O'Brien-Fleming, 5 looks, max 20", {"min_runs": 4, "look_every": 4, "max_runs": 20, "spending": "obf"}),
    Design("O'Brien-Fleming, 9 looks, max 20", {"min_runs": 4, "look_every": 2, "max_runs": 20, "spending": "obf"}),
    Design("O'Brien-Fleming + futility 10 %, max 20",
           {"min_runs": 4, "look_every": 4, "max_runs": 20, "spending": "obf", "futility": 0.1}),
    Design("Pocock, 5 looks, max 20", {"min_runs": 4, "look_every": 4, "max_runs": 20, "spending": "pocock"}),
    Design("Pocock, 5 looks, max 24", {"min_runs": 5, "look_every": 5, "max_runs": 24, "spending": "pocock"}),
)


def effect_for_power(power: float) -> float:
    """The difference (in SDs) the fixed design detects with ``power`` (Welch ≈ t, two-sided α)."""
    from scipy import optimize

    return float(optimize.brentq(lambda d: power_t(FIXED_RUNS, d, alpha=ALPHA) - power, 0.01, 5))


@dataclass(frozen=True)
class Truth:
    name: str
    effect_sd: float  # true difference a − b in SDs


TRUTHS = (Truth("no effect", 0.0), Truth("fixed power 80 %", effect_for_power(0.8)),
          Truth("fixed power 90 %", effect_for_power(0.9)), Truth("large (2 SD)", 2.0))


@dataclass
class Tally:
    campaigns: int = 0
    significant: int = 0
    runs: int = 0
    crashes: int = 0


@dataclass
class Totals:
    cells: dict[tuple[str, str], Tally] = field(default_factory=dict)

    def add(self, other: Totals) -> None:
        for key, t in other.cells.items():
            mine = self.cells.setdefault(key, Tally())
            for name in ("campaigns", "significant", "runs", "crashes"):
                setattr(mine, name, getattr(mine, name) + getattr(t, name))


def claims(designs: Sequence[Design]) -> list:
    """One claim per design, all on one campaign: 'a differs from b', two-sided."""
    specs = []
    for i, d in enumerate(designs):
        spec = {"id": f"d{i}", "statement": d.name, "metric": "throughput_mbps", "direction": "different",
                "compare": {"factor": "group", "levels": ["a", "b"]}, "alpha": ALPHA}
        if d.stop is None:
            spec["scope"] = {"run": list(range(1, FIXED_RUNS + 1))}
        else:
            spec["stop"] = d.stop
        specs.append(spec)
    return parse_hypotheses(specs)


def campaign(rng: np.random.Generator, effect_sd: float, runs: int) -> pd.DataFrame:
    """SYNTHETIC: runs 1..runs of groups a (shifted by effect_sd SDs) and b."""
    a = rng.normal(100 + effect_sd * SD, SD, runs)
    b = rng.normal(100, SD, runs)
    return pd.DataFrame({"group": ["a"] * runs + ["b"] * runs, "run": list(range(1, runs + 1)) * 2,
                         "status": "ok", "throughput_mbps": np.r_[a, b]})


def _chunk(task: tuple[tuple[Design, ...], Truth, int, int]) -> Totals:
    designs, truth, seed, reps = task
    rng = np.random.default_rng(seed)
    hyps = claims(designs)
    longest = max([FIXED_RUNS] + [d.stop["max_runs"] for d in designs if d.stop])
    totals = Totals()
    for _ in range(reps):
        runs = campaign(rng, truth.effect_sd, longest)
        try:
            table = evaluate(runs, hyps).table.set_index("id")
        except Exception:  # noqa: BLE001 - a crash is counted, and the table says so
            for d in designs:
                totals.cells.setdefault((d.name, truth.name), Tally()).crashes += 1
            continue
        for i, d in enumerate(designs):
            row = table.loc[f"d{i}"]
            t = totals.cells.setdefault((d.name, truth.name), Tally())
            t.campaigns += 1
            t.significant += row["verdict"] in ("supported", "contradicted")
            t.runs += d.runs_at(float(row["look"]))
    return totals


def run(designs: Sequence[Design], truths: Sequence[tuple[Truth, int]], workers: int = 2,
        progress: Callable[[int], object] | None = None) -> Totals:
    """Every design on ``reps`` campaigns of each truth; seeded per chunk."""
    tasks = []
    for t_index, (truth, reps) in enumerate(truths):
        for c, start in enumerate(range(0, reps, CHUNK)):
            tasks.append((tuple(designs), truth, SEED + 1000 * t_index + c, min(CHUNK, reps - start)))
    totals = Totals()
    with Pool(workers) as pool:
        for part, task in zip(pool.imap(_chunk, tasks), tasks):
            totals.add(part)
            if progress:
                progress(task[3])
    return totals


@dataclass(frozen=True)
class Row:
    design: str
    truth: str
    campaigns: int
    rate: float
    se: float
    runs_pct: float
    crashes: int


def rows(designs: Sequence[Design], truths: Sequence[tuple[Truth, int]], totals: Totals) -> list[Row]:
    out = []
    for truth, _ in truths:
        for d in designs:
            t = totals.cells.get((d.name, truth.name), Tally())
            rate = t.significant / t.campaigns if t.campaigns else math.nan
            se = math.sqrt(rate * (1 - rate) / t.campaigns) if t.campaigns else math.nan
            runs = 100 * t.runs / (t.campaigns * FIXED_RUNS) if t.campaigns else math.nan
            out.append(Row(d.name, truth.name, t.campaigns, rate, se, runs, t.crashes))
    return out


def render(table: Sequence[Row]) -> str:
    lines = ["| truth | design | campaigns | P(significant) ± MC SE | runs a group, % of fixed | crashes |",
             "|---|---|---:|---:|---:|---:|"]
    for r in table:
        lines.append(f"| {r.truth} | {r.design} | {r.campaigns} | {r.rate:.3f} ± {r.se:.3f} | "
                     f"{r.runs_pct:.0f} % | {r.crashes} |")
    return "\n".join(lines)
