"""Each claim collected until decided, drawn look by look: the statistic of
every cell against its efficacy boundaries (and the futility region, when the
claim has one), so a reader sees where a cell stopped and how far from a
decision an open one is (docs/statistics.md, "Collect until decided").

One figure per ``stop:`` claim, a panel per cell; the x axis is runs a group.
Boundaries are those of the looks made (the design recomputed at the
information actually reached), the planned ones dashed after the last look.
File names: ``looks_<id>.png``.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.figures import plots as F

DECISIONS = {"decided": "decided", "max_runs": "reached max_runs", "futility": "stopped for futility",
             "open": "open (collection goes on)"}


@dataclass(frozen=True)
class LookFigure:
    id: str
    statement: str
    png: Path

    @property
    def caption(self) -> str:
        return f"**{self.id}, look by look**: {self.statement}"


def draw_looks(runs: pd.DataFrame, hypotheses, out_dir: str | Path, *, campaign: str, synthetic: bool,
               registration=None) -> list[LookFigure]:
    """One figure per claim of ``hypotheses`` with ``stop:`` and a complete look,
    saved under ``out_dir``; ``registration`` (the campaign's, as for the verdicts)
    decides one- or two-sided boundaries exactly as the verdict table does."""
    from analysis.verdicts import POST_HOC, sequential_paths
    from analysis.verdicts.spec import as_hypotheses

    hyps = {h.id: h for h in as_hypotheses(hypotheses)}
    paths = sequential_paths(runs, list(hyps.values()), registration or POST_HOC)
    F.apply_style()
    drawn = []
    for claim in dict.fromkeys(p.claim for p in paths):
        hyp = hyps[claim]
        mine = [p for p in paths if p.claim == claim]
        fig = _figure(mine, hyp.id, hyp.statement, campaign, synthetic)
        png = F.save(fig, out_dir, f"looks_{hyp.id}")[0]
        drawn.append(LookFigure(hyp.id, hyp.statement, png))
    return drawn


def _figure(paths, claim: str, statement: str, campaign: str, synthetic: bool):
    import matplotlib.pyplot as plt

    columns = min(len(paths), 3)
    rows = math.ceil(len(paths) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4.2 * columns + 0.6, 3.4 * rows + 1.0), squeeze=False)
    for ax, path in zip(axes.flat, paths):
        _panel(ax, path)
    for ax in axes.flat[len(paths):]:
        ax.set_visible(False)
    fig.suptitle(textwrap.fill(f"{claim}: {statement}", 30 * columns + 20), fontsize=10)
    note = "Statistic per look against the design's boundaries (solid: the looks made; dashed: planned); " + \
        ("the smaller of the two TOST statistics: above the boundary, equivalence is shown" if paths[0].equivalence
         else "z of the difference between the compared levels: beyond a boundary, the cell is decided")
    if any(np.isfinite(p.futility).any() for p in paths):
        note += "; shaded: the futility region"
    note += "."
    F.caption(fig, campaign, synthetic, note)
    fig.subplots_adjust(top=1 - 0.75 / fig.get_figheight(), bottom=0.95 / fig.get_figheight() + 0.05,
                        hspace=0.55, wspace=0.3)
    return fig


def _panel(ax, path) -> None:
    runs, z, bound = np.array(path.runs), np.array(path.z), np.array(path.bound)
    later = [(n, c) for n, c in zip(path.planned_runs, path.planned_bound) if n > runs[-1]]
    from analysis.stats.sequential import FAR

    reached = [abs(v) for v in (*z, *bound, *path.planned_bound) if math.isfinite(v) and abs(v) < FAR]
    shown = max([4.0, *reached]) * 1.1  # a look spending no α has a boundary at FAR: cut at the frame
    upper = np.minimum(bound, shown)
    colour = "C3"
    ax.plot(runs, upper, color=colour, marker="_", markersize=10, label="efficacy boundary")
    if later:
        n_later, c_later = zip(*[(runs[-1], upper[-1]), *((n, min(c, shown)) for n, c in later)])
        ax.plot(n_later, c_later, color=colour, linestyle="--", alpha=0.6)
    if not path.equivalence:
        ax.plot(runs, -upper, color=colour, marker="_", markersize=10)
        if later:
            ax.plot(n_later, [-c for c in c_later], color=colour, linestyle="--", alpha=0.6)
    futile = np.array(path.futility)
    if np.isfinite(futile).any():
        ax.fill_between(runs, -futile, futile, where=np.isfinite(futile), color="0.6", alpha=0.35, step=None,
                        label="futility region")
    ax.axhline(0, color="0.4", linewidth=0.6)
    ax.plot(runs, z, color="C0", marker="o", label="statistic")
    ax.plot(runs[-1], z[-1], marker="*", markersize=14, color="C0")
    ax.annotate(DECISIONS.get(path.decision, path.decision), (runs[-1], z[-1]),
                textcoords="offset points", xytext=(-6, 8), ha="right", fontsize=8)
    ax.set_xlim(0, max(path.planned_runs) + 1)
    ax.set_ylim(-shown if not path.equivalence else min(-2.0, float(np.nanmin(z)) - 0.5), shown)
    ax.set_xlabel("runs a group")
    ax.set_ylabel("TOST z" if path.equivalence else "z")
    if path.cell != "all":
        ax.set_title(path.cell, fontsize=9)
    ax.legend(fontsize=7, loc="lower left")
