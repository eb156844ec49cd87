"""Collect until decided, by simulation: error rates, power and runs saved of the
sequential designs against the fixed design (issue 27, item 3), per question
and over whole campaigns.

Each simulated campaign is one cell of two groups of normal runs (SD 5 % of a
mean of 100), drawn up to the largest max_runs of any design. Every design is
a claim judged on the same campaign, so the designs are compared on the same
data: the fixed design reads runs 1..FIXED_RUNS, a sequential one replays its
looks and stops where its rule says. The judge is either the public
``evaluate`` (each claim its own family) or :func:`replay`, the same rule
vectorised, which ``make bench`` uses for its tens of thousands of campaigns
(the CI test checks the two give the same tallies). Per design and truth: the
share of campaigns decided significant (type I error under no effect, power
under an effect), and the runs a group it used on average, as a share of the
fixed design's; over a campaign (a mixture of truths, one claim a cell) the
same, weighted. The data are SYNTHETIC. ``bench_sequential.py`` runs it for
``make bench``; ``tests/verdicts/test_sequential_simulation.py`` a seeded subset.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from multiprocessing import Pool

import numpy as np
import pandas as pd

from analysis.stats import power_t
from analysis.stats import sequential as seq
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
    Design("O'Brien-Fleming + futility 10 % from half, 6 looks, max 24",
           {"min_runs": 4, "look_every": 4, "max_runs": 24, "spending": "obf", "futility": 0.1, "futility_from": 0.5}),
    Design("Pocock + futility 10 % from 0.4, 7 looks, max 28",
           {"min_runs": 4, "look_every": 4, "max_runs": 28, "spending": "pocock", "futility": 0.1,
            "futility_from": 0.4}),
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
          Truth("fixed power 90 %", effect_for_power(0.9)), Truth("large (2 SD)", 2.0), Truth("plain (5 SD)", 5.0))


@dataclass
class Tally:
    campaigns: int = 0
    significant: int = 0
    runs: int = 0
    crashes: int = 0
    lost: int = 0  # campaigns the fixed design found significant and this design did not
    gained: int = 0  # and the other way round


@dataclass
class Totals:
    cells: dict[tuple[str, str], Tally] = field(default_factory=dict)

    def add(self, other: Totals) -> None:
        for key, t in other.cells.items():
            mine = self.cells.setdefault(key, Tally())
            for name in ("campaigns", "significant", "runs", "crashes", "lost", "gained"):
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


def draw(rng: np.random.Generator, effect_sd: float, runs: int) -> tuple[np.ndarray, np.ndarray]:
    """SYNTHETIC: runs 1..runs of groups a (shifted by effect_sd SDs) and b."""
    return rng.normal(100 + effect_sd * SD, SD, runs), rng.normal(100, SD, runs)


def frame(a: np.ndarray, b: np.ndarray) -> pd.DataFrame:
    """One drawn campaign as the engine reads it."""
    runs = len(a)
    return pd.DataFrame({"group": ["a"] * runs + ["b"] * runs, "run": list(range(1, runs + 1)) * 2,
                         "status": "ok", "throughput_mbps": np.r_[a, b]})


def replay(d: Design, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(significant, runs a group used) of design ``d`` on campaigns ``a``, ``b``
    (campaigns × runs, every run made): the engine's rule for complete looks with
    the same functions (Welch's t through its p value, the Lan–DeMets boundaries
    at n/max_runs, the stage-wise decision, futility by conditional power),
    vectorised. ``tests/verdicts/test_sequential_simulation.py`` checks it gives
    ``evaluate``'s tallies campaign for campaign."""
    from scipy import stats

    if d.stop is None:
        p = stats.ttest_ind(a[:, :FIXED_RUNS], b[:, :FIXED_RUNS], axis=1, equal_var=False).pvalue
        return p <= ALPHA, np.full(a.shape[0], FIXED_RUNS)
    s = d.stop
    schedule = list(range(s["min_runs"], s["max_runs"], s["look_every"])) + [s["max_runs"]]
    design = _boundaries(tuple(n / s["max_runs"] for n in schedule), s["spending"])
    open_ = np.ones(a.shape[0], bool)
    significant, used = np.zeros(a.shape[0], bool), np.full(a.shape[0], s["max_runs"])
    for k, n in enumerate(schedule):
        va, vb = a[:, :n].var(axis=1, ddof=1) / n, b[:, :n].var(axis=1, ddof=1) / n
        t = (a[:, :n].mean(axis=1) - b[:, :n].mean(axis=1)) / np.sqrt(va + vb)
        df = (va + vb) ** 2 / (va ** 2 / (n - 1) + vb ** 2 / (n - 1))
        z = np.abs(stats.norm.isf(stats.t.sf(np.abs(t), df)))
        fraction = n / s["max_runs"]
        crossed = z >= design.z[k]
        stops = crossed | (fraction >= 1)
        if s.get("futility") and s.get("futility_from", 0) <= fraction < 1:
            stops |= z < seq.futility_bound(fraction, design.z[-1], s["futility"])
        now = open_ & stops
        significant[now], used[now] = crossed[now], n
        open_ &= ~stops
    return significant, used


@lru_cache(maxsize=None)
def _boundaries(fractions: tuple[float, ...], spending: str) -> seq.Boundaries:
    return seq.boundaries(fractions, ALPHA, spending, 2)  # type: ignore[arg-type]


def _chunk(task: tuple[tuple[Design, ...], Truth, int, int, str]) -> Totals:
    designs, truth, seed, reps, judge = task
    rng = np.random.default_rng(seed)
    longest = max([FIXED_RUNS] + [d.stop["max_runs"] for d in designs if d.stop])
    drawn = [draw(rng, truth.effect_sd, longest) for _ in range(reps)]
    judged = (_by_engine if judge == "engine" else _by_replay)(designs, drawn)
    totals = Totals()
    fixed = next((sig for d, (sig, _) in zip(designs, judged) if d.stop is None), None)
    for d, (significant, used) in zip(designs, judged):
        t = totals.cells.setdefault((d.name, truth.name), Tally())
        done = ~np.isnan(used)
        t.crashes += int((~done).sum())
        t.campaigns += int(done.sum())
        t.significant += int(significant[done].sum())
        t.runs += int(used[done].sum())
        if fixed is not None:
            t.lost += int((fixed & ~significant & done).sum())
            t.gained += int((significant & ~fixed & done).sum())
    return totals


def _by_replay(designs: Sequence[Design], drawn: list[tuple[np.ndarray, np.ndarray]]) -> list[tuple[np.ndarray, np.ndarray]]:
    a, b = np.array([c[0] for c in drawn]), np.array([c[1] for c in drawn])
    return [(sig, used.astype(float)) for sig, used in (replay(d, a, b) for d in designs)]


def _by_engine(designs: Sequence[Design], drawn: list[tuple[np.ndarray, np.ndarray]]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every campaign through ``evaluate`` (a crash: runs nan, counted as such)."""
    hyps = claims(designs)
    significant = np.zeros((len(designs), len(drawn)), bool)
    used = np.full((len(designs), len(drawn)), np.nan)
    for j, (a, b) in enumerate(drawn):
        try:
            table = evaluate(frame(a, b), hyps).table.set_index("id")
        except Exception:  # noqa: BLE001 - a crash is counted, and the table says so
            continue
        for i, d in enumerate(designs):
            significant[i, j] = table.loc[f"d{i}", "verdict"] in ("supported", "contradicted")
            used[i, j] = d.runs_at(float(table.loc[f"d{i}", "look"]))
    return list(zip(significant, used))


def run(designs: Sequence[Design], truths: Sequence[tuple[Truth, int]], workers: int = 2,
        progress: Callable[[int], object] | None = None, judge: str = "replay") -> Totals:
    """Every design on ``reps`` campaigns of each truth; seeded per chunk. ``judge``:
    "replay" (fast, :func:`replay`) or "engine" (every campaign through ``evaluate``)."""
    tasks = []
    for t_index, (truth, reps) in enumerate(truths):
        for c, start in enumerate(range(0, reps, CHUNK)):
            tasks.append((tuple(designs), truth, SEED + 1000 * t_index + c, min(CHUNK, reps - start), judge))
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
    vs_fixed: float = math.nan  # P(significant) minus the fixed design's, on the same campaigns
    vs_fixed_se: float = math.nan  # its MC SE, from the discordant campaigns (paired)


def rows(designs: Sequence[Design], truths: Sequence[tuple[Truth, int]], totals: Totals) -> list[Row]:
    out = []
    for truth, _ in truths:
        for d in designs:
            t = totals.cells.get((d.name, truth.name), Tally())
            rate = t.significant / t.campaigns if t.campaigns else math.nan
            se = math.sqrt(rate * (1 - rate) / t.campaigns) if t.campaigns else math.nan
            runs = 100 * t.runs / (t.campaigns * FIXED_RUNS) if t.campaigns else math.nan
            n = t.campaigns or 1
            diff = (t.gained - t.lost) / n
            diff_se = math.sqrt(max((t.gained + t.lost) / n - diff ** 2, 0.0) / n)
            out.append(Row(d.name, truth.name, t.campaigns, rate, se, runs, t.crashes, diff, diff_se))
    return out


def render(table: Sequence[Row]) -> str:
    lines = ["| truth | design | campaigns | P(significant) ± MC SE | runs a group, % of fixed | crashes |",
             "|---|---|---:|---:|---:|---:|"]
    for r in table:
        lines.append(f"| {r.truth} | {r.design} | {r.campaigns} | {r.rate:.3f} ± {r.se:.3f} | "
                     f"{r.runs_pct:.0f} % | {r.crashes} |")
    return "\n".join(lines)


@dataclass(frozen=True)
class Mixture:
    """A campaign's cells as shares of the truths (one claim a cell): what a design
    costs and finds over a whole campaign, not one question."""

    name: str
    weights: dict[str, float]  # truth name -> share of the campaign's cells


def nearest_truths(effects: Sequence[float], truths: Sequence[Truth] = TRUTHS) -> dict[str, float]:
    """Shares of ``effects`` (|standardised differences|) nearest each truth's effect."""
    sizes = np.array([t.effect_sd for t in truths])
    nearest = [truths[int(np.argmin(np.abs(sizes - abs(e))))].name for e in effects]
    return {t.name: nearest.count(t.name) / len(nearest) for t in truths if t.name in nearest}


def bundled_effects(root) -> list[float]:
    """|Hedges' g| of every two-group cell the bundled campaigns' own claims test
    (data/raw/<name> with data/hypotheses/<name>.yaml): the effects users of this
    suite actually met. Estimates from 5–15 runs a group, so a true null shows as
    |g| of about 0.3–0.6."""
    from analysis.ingest.campaign import load_campaign
    from analysis.ingest.per_run import one_row_per_run
    from analysis.report.twins import TWIN_SUFFIX

    effects: list[float] = []
    for hyps in sorted((root / "data/hypotheses").glob("*.yaml")):
        raw = root / "data/raw" / hyps.stem
        if not raw.is_dir() or hyps.stem.endswith(TWIN_SUFFIX):  # a fixed twin repeats its campaign's cells
            continue
        cells = evaluate(one_row_per_run(load_campaign(raw).runs), hyps).cells
        effects += cells.loc[cells["effect_name"] == "hedges_g", "effect_size"].abs().dropna().tolist()
    return effects


@dataclass(frozen=True)
class CampaignRow:
    design: str
    mixture: str
    type_one: float  # P(significant) of its no-effect cells (nan without any)
    type_one_se: float
    power: float  # P(significant) over its cells with an effect
    power_se: float
    vs_fixed: float  # power minus the fixed design's, on the same campaigns
    vs_fixed_se: float
    runs_pct: float  # runs of the whole campaign, % of the fixed design's
    meets: bool  # ≥ 40 % fewer runs, α and the fixed design's power kept within 2 MC SE


def campaign_rows(designs: Sequence[Design], mixtures: Sequence[Mixture], table: Sequence[Row],
                  ses: float = 2.0) -> list[CampaignRow]:
    """Every design over every mixture, from the per-truth rows: rates and runs
    weighted by the mixture's shares (the MC SE of a weighted rate from each truth's own)."""
    by = {(r.design, r.truth): r for r in table}
    out = []
    for m in mixtures:
        for d in designs:
            null = by.get((d.name, "no effect")) if m.weights.get("no effect") else None
            effects = {t: w for t, w in m.weights.items() if t != "no effect" and w > 0}
            total = sum(effects.values())
            power = sum(w * by[(d.name, t)].rate for t, w in effects.items()) / total
            power_se = math.sqrt(sum((w / total) ** 2 * by[(d.name, t)].se ** 2 for t, w in effects.items()))
            vs_fixed = sum(w * by[(d.name, t)].vs_fixed for t, w in effects.items()) / total
            vs_fixed_se = math.sqrt(sum((w / total) ** 2 * by[(d.name, t)].vs_fixed_se ** 2
                                        for t, w in effects.items()))
            runs = sum(w * by[(d.name, t)].runs_pct for t, w in m.weights.items())
            keeps_alpha = null is None or null.rate <= ALPHA + ses * math.sqrt(ALPHA * (1 - ALPHA) / null.campaigns)
            keeps_power = vs_fixed >= -ses * vs_fixed_se
            out.append(CampaignRow(d.name, m.name, null.rate if null else math.nan, null.se if null else math.nan,
                                   power, power_se, vs_fixed, vs_fixed_se, runs,
                                   d.stop is not None and keeps_alpha and keeps_power and runs <= 60))
    return out


def render_campaigns(table: Sequence[CampaignRow], mixtures: Sequence[Mixture]) -> str:
    lines = [f"- *{m.name}*: " + ", ".join(f"{t} {w:.0%}" for t, w in m.weights.items() if w) for m in mixtures]
    lines += ["", "| campaign | design | type I error ± MC SE | power ± MC SE | "
             "power − fixed's ± MC SE | runs, % of fixed | 40 % fewer at equal α and power |",
             "|---|---|---:|---:|---:|---:|---|"]
    for r in table:
        alpha = "—" if math.isnan(r.type_one) else f"{r.type_one:.3f} ± {r.type_one_se:.3f}"
        lines.append(f"| {r.mixture} | {r.design} | {alpha} | {r.power:.3f} ± {r.power_se:.3f} | "
                     f"{r.vs_fixed:+.3f} ± {r.vs_fixed_se:.3f} | {r.runs_pct:.0f} % | {'yes' if r.meets else 'no' if r.design != DESIGNS[0].name else ''} |")
    return "\n".join(lines)
