"""Collect until decided: the collector's side of registered claims with ``stop:``.

The plan's runs are done in blocks of repetitions, one block per look (runs
1..n_1 of every cell, then n_1+1..n_2, ...; the union of the claims' look
points), in the plan's seeded random order within a block, so every cell
reaches a look at the same time. Before each new block the campaign so far is
ingested and the registered claims evaluated (the engine replays the looks
from the runs' ``run`` numbers: the same decisions a reader will get); a run
is skipped when every ``stop:`` claim that needs it has decided its cell (or
no longer needs that run number) and no fixed claim covers it. Every look's
decisions go into ``<campaign>/collect/looks.yaml``; ``--resume`` evaluates the
runs already made first, so it continues at the right look.
"""

from __future__ import annotations

import bisect
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import yaml

from analysis.collect.plan import Plan, PlanError, Run, cells
from analysis.artefacts import replace_whole
from analysis.errors import NetreproError
from analysis.yamlfiles import read_yaml
from analysis.verdicts.spec import Hypothesis, canon, load_hypotheses

RECORD = Path("collect") / "looks.yaml"
OPEN = ("", "open")  # decisions that leave a cell's collection going (no look yet, or undecided)


def look_points(hyps: list[Hypothesis]) -> list[int]:
    """Runs a group at which some claim looks (sorted, distinct)."""
    return sorted({n for h in hyps if h.stop for n in h.stop.schedule()})


def in_looks(pending: list[Run], points: list[int]) -> list[Run]:
    """Runs in look blocks (repetitions up to the first look point, then to the next, ...),
    the plan's seeded order kept within a block."""
    return sorted(pending, key=lambda r: _block(r, points))


def _block(r: Run, points: list[int]) -> int:
    return bisect.bisect_left(points, int(r.levels["run"]))


def _covers(hyp: Hypothesis, levels: dict[str, Any]) -> bool | None:
    """Whether the claim is about this run: True, False, or None when a factor it
    names is not among the run's planned levels (unknown: the run is kept)."""
    named = [hyp.compare.factor, *hyp.scope, *([hyp.per] if hyp.per else [])]
    if any(f not in levels for f in named):
        return None
    if canon(levels[hyp.compare.factor]) not in hyp.compare.level_map():
        return False
    for factor, value in hyp.scope.items():
        if canon(levels[factor]) not in {canon(v) for v in (value if isinstance(value, list) else [value])}:
            return False
    return True


def _cell(hyp: Hypothesis, levels: dict[str, Any]) -> str:
    return f"{hyp.per}={canon(levels[hyp.per])}" if hyp.per else "all"


@dataclass
class UntilDecided:
    """The looks of one collection: when to evaluate, which runs to skip, and the record."""

    out: Path
    hypotheses: Path
    hyps: list[Hypothesis]
    points: list[int]
    decisions: dict[tuple[str, str], str] = field(default_factory=dict)  # (claim, cell) -> decision
    block: int = -1
    skipped: int = 0

    @classmethod
    def of(cls, out: Path, hypotheses: Path | None) -> UntilDecided | None:
        """The looks of a collection whose hypothesis file has ``stop:`` claims; None otherwise."""
        if hypotheses is None:
            return None
        hyps = load_hypotheses(hypotheses)
        points = look_points(hyps)
        return cls(out, hypotheses, hyps, points) if points else None

    def check(self, plan: Plan) -> None:
        """Refuse a plan that gives a cell of a ``stop:`` claim fewer runs than its max_runs:
        its last look would never be complete."""
        for block in plan.blocks:
            reps = block.runs_per_cell or plan.runs_per_cell
            for hyp in self.hyps:
                if hyp.stop and reps < hyp.stop.max_runs and \
                        any(_covers(hyp, cell | {"run": 1}) for cell in cells(plan, block)):
                    raise PlanError(f"{self.hypotheses}: hypothesis {hyp.id}: stop: max_runs {hyp.stop.max_runs} "
                                    f"but block {block.name} makes {reps} runs a cell; give it runs_per_cell: "
                                    f"{hyp.stop.max_runs}")

    def wanted(self, r: Run, runs_made: int) -> bool:
        """Whether ``r`` is still needed; at the start of each block (and of a resumed
        collection with runs made) the claims are evaluated first."""
        block = _block(r, self.points)
        if block != self.block:
            self.block = block
            if runs_made:
                self.look(f"before repetitions {self.points[block - 1] + 1 if block else 1}.."
                          f"{self.points[block] if block < len(self.points) else 'the last'}")
        return self.needed(r.levels)

    def needed(self, levels: dict[str, Any]) -> bool:
        stop_claims = False
        for hyp in self.hyps:
            covered = _covers(hyp, levels)
            if covered is None or (covered and hyp.stop is None):
                return True
            if not covered:
                continue
            stop_claims = True
            assert hyp.stop is not None
            if int(levels["run"]) <= hyp.stop.max_runs and \
                    self.decisions.get((hyp.id, _cell(hyp, levels)), "") in OPEN:
                return True
        if stop_claims:
            self.skipped += 1
        return not stop_claims

    def look(self, when: str) -> None:
        """Evaluate the registered claims on the runs made so far; record every cell's decision."""
        from analysis.ingest.campaign import load_campaign
        from analysis.ingest.per_run import one_row_per_run
        from analysis.verdicts import evaluate, registration_of

        entry: dict[str, Any] = {"at": datetime.now(timezone.utc).isoformat(timespec="milliseconds"), "when": when,
                                 "runs_skipped_so_far": self.skipped}
        try:
            with tempfile.TemporaryDirectory(prefix="netrepro-look-") as scratch:
                # tables in a folder inside the scratch one: their lock file, beside them, goes too
                runs = one_row_per_run(load_campaign(self.out, processed=Path(scratch) / "tables").runs)
                cells = evaluate(runs, self.hypotheses, registration_of(self.out, self.hypotheses)).cells
        except NetreproError as err:  # e.g. a level with no successful run yet: recorded, nothing skipped
            entry["not_evaluated"] = str(err)
            self._record(entry)
            return
        self.decisions = {(r.id, r.cell): str(r.decision) for r in cells.itertuples()}
        sequential = {h.id for h in self.hyps if h.stop}
        entry["cells"] = [{"claim": r.id, "cell": r.cell, "decision": r.decision or "no look yet",
                           "look": None if r.look != r.look else int(r.look), "verdict": r.verdict,
                           "p": None if r.p != r.p else float(r.p)}
                          for r in cells.itertuples() if r.id in sequential]
        self._record(entry)

    def _record(self, entry: dict[str, Any]) -> None:
        """Append the look to collect/looks.yaml, whole or not at all."""
        path = self.out / RECORD
        looks = (read_yaml(path, NetreproError) or {}).get("looks", []) if path.is_file() else []
        text = ("# Every look of a collection until decided (docs/statistics.md, \"Collect until decided\")\n"
                + yaml.safe_dump({"looks": looks + [entry]}, sort_keys=False, allow_unicode=True, width=160))
        replace_whole(path, lambda stream: stream.write(text))
