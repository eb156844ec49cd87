"""A campaign collected until decided beside its fixed-design twin: the runs and
collection time each used, and whether every cell's verdict agrees.

The twin of raw campaign ``<name>`` is ``<name>-fixed`` next to it (same
cells, every run made), judged by its own hypothesis file
``<hypotheses>/<name>-fixed.yaml`` (the same claims without ``stop:``).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pandas as pd

TWIN_SUFFIX = "-fixed"


class Twins(NamedTuple):
    cells: pd.DataFrame  # claim, cell, each campaign's verdict and runs, agree
    cost: pd.DataFrame  # per campaign: design, runs made, runs planned, collection minutes, verdicts that agree


def fixed_twin(campaign: str | Path, hypotheses: str | Path) -> tuple[Path, Path] | None:
    """(raw folder, hypothesis file) of the campaign's fixed-design twin, when both exist."""
    raw, hyps = Path(campaign), Path(hypotheses)
    twin = raw.with_name(raw.name + TWIN_SUFFIX)
    twin_hyps = hyps.with_name(hyps.stem + TWIN_SUFFIX + hyps.suffix)
    return (twin, twin_hyps) if (twin / "manifest.yaml").is_file() and twin_hyps.is_file() else None


def compare_twins(campaign: str | Path, hypotheses: str | Path, twin: str | Path, twin_hypotheses: str | Path) -> Twins:
    """Every cell of the campaign's claims beside the twin's verdict of the same claim and cell."""
    from analysis.ingest.campaign import load_campaign
    from analysis.ingest.per_run import one_row_per_run
    from analysis.verdicts import evaluate, registration_of

    judged, cost = [], []
    for raw, hyps, design in ((Path(campaign), Path(hypotheses), "until decided"),
                              (Path(twin), Path(twin_hypotheses), "fixed")):
        loaded = load_campaign(raw)
        cells = evaluate(one_row_per_run(loaded.runs), hyps, registration_of(raw, hyps)).cells
        judged.append(cells.assign(runs=cells["n_a"] + cells["n_b"]).set_index(["id", "cell"]))
        progress = (loaded.manifest.campaign.extra.get("progress") or {})
        cost.append({"campaign": raw.name, "design": design, "runs made": progress.get("runs_done"),
                     "runs planned": progress.get("runs_total"),
                     "collection min": round(progress["collection_seconds"] / 60, 1)
                     if progress.get("collection_seconds") is not None else None})
    adaptive, fixed = judged
    both = adaptive.add_suffix(" (until decided)").join(fixed.add_suffix(" (fixed)"), how="outer")
    table = pd.DataFrame({
        "claim": both.index.get_level_values(0), "cell": both.index.get_level_values(1),
        "until decided": both["verdict (until decided)"].to_numpy(),
        "stopped": [f"{d}, look {int(k)}" if d and k == k else "" for d, k in
                    zip(both["decision (until decided)"], both["look (until decided)"])],
        "runs (until decided)": both["runs (until decided)"].to_numpy(),
        "fixed": both["verdict (fixed)"].to_numpy(), "runs (fixed)": both["runs (fixed)"].to_numpy()})
    table["agree"] = (table["until decided"] == table["fixed"]).map({True: "yes", False: "no"})
    agree = f"{(table['agree'] == 'yes').sum()} of {len(table)}"
    costs = pd.DataFrame(cost).assign(**{"cell verdicts that agree": agree})
    return Twins(table, costs)
