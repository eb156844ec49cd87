"""A campaign's plan extended by new cells only.

A design can grow after its first runs (more sizes for a tool, more runs per
cell) without redoing what was measured: the runs already made keep their
place in the seeded order, and the added runs follow them, in the order the
extended plan's own seeded shuffle puts them (a seeded random permutation
restricted to the added runs is a seeded random order of those runs). An
extension may add levels, blocks or runs and rewrite the plan's texts; any
change to a run already planned (its settings, testbeds, tool options,
seed) is a different campaign and is refused. Each extension is kept in
``collect/extensions.yaml`` with the plan it extended, so the order of every
run is reproducible from the plans alone.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from analysis.collect.plan import Plan, PlanError, Run, schedule
from analysis.yamlfiles import read_yaml

EXTENSIONS_NAME = "extensions.yaml"
TEXTS = ("title", "description", "notes")  # what an extension may rewrite besides the blocks


def check_extension(old: Plan, new: Plan) -> list[Run]:
    """The runs ``new`` adds to ``old``; a :class:`PlanError` naming what else changed."""
    fixed = set(Plan.model_fields) - {*TEXTS, "blocks"}
    before, after = old.model_dump(mode="json", include=fixed), new.model_dump(mode="json", include=fixed)
    changed = sorted(k for k in fixed if before.get(k) != after.get(k))
    if changed:
        raise PlanError(f"the plan changes {', '.join(changed)}, not only its cells: resume with the plan the campaign "
                        "was started with or collect into a new folder")
    planned = {r.path: r for r in schedule(new)}
    for r in schedule(old):
        kept = planned.get(r.path)
        if kept is None or kept.levels != r.levels or kept.tool != r.tool:
            raise PlanError(f"the plan drops or changes run {r.path} of block {r.block}: an extension may only add "
                            "cells, blocks or runs")
        if new.duration_of(kept) != old.duration_of(r):
            raise PlanError(f"the plan changes the duration of block {r.block}'s runs: an extension may only add "
                            "cells, blocks or runs")
    known = {r.path for r in schedule(old)}
    return [r for r in schedule(new) if r.path not in known]


def extended_schedule(plans: list[Plan]) -> list[Run]:
    """Every run of a campaign whose plan went through ``plans`` (the first as
    started, each later one an extension): earlier runs first, each
    extension's added runs after them in their own seeded order."""
    runs = schedule(plans[0])
    for old, new in zip(plans, plans[1:]):
        added = check_extension(old, new)
        runs += [Run(len(runs) + i, r.block, r.tool, r.levels, r.path) for i, r in enumerate(added)]
    return runs


def load_extensions(collect_dir: Path) -> list[dict[str, Any]]:
    """The extensions recorded so far (none: an empty list)."""
    path = collect_dir / EXTENSIONS_NAME
    if not path.is_file():
        return []
    data = read_yaml(path, PlanError)
    if not isinstance(data, list):
        raise PlanError(f"{path}: expected a list of extensions")
    return data


def earlier_plans(extensions: list[dict[str, Any]]) -> list[Plan]:
    """The plans a campaign went through before its current one, oldest first."""
    try:
        return [Plan.model_validate(x["plan_before"]) for x in extensions]
    except (KeyError, TypeError, ValueError) as exc:
        raise PlanError(f"{EXTENSIONS_NAME}: an extension without a valid plan_before: {exc}") from None


def extension_record(old: Plan, new: Plan, runs_before: int, at: float) -> dict[str, Any]:
    """What ``collect/extensions.yaml`` and the manifest keep of one extension."""
    added = check_extension(old, new)
    blocks: dict[str, int] = {}
    for r in added:
        blocks[r.block] = blocks.get(r.block, 0) + 1
    return {
        "at": datetime.fromtimestamp(at, timezone.utc).isoformat(timespec="seconds"),
        "runs_before": runs_before,
        "runs_added": len(added),
        "orders": f"{runs_before}-{runs_before + len(added) - 1}" if added else None,
        "runs_added_by_block": blocks,
        "order": f"the added runs in the order the extended plan's seeded shuffle (seed {new.seed}) puts them, "
                 "after every earlier run",
        "plan_before": old.model_dump(mode="json"),
    }
