"""The headline figure of each claim: the runs the claim is about (its
scope), the compared levels or groups in colour, and the factor it is tested
per (or across, for an interaction) on the x axis — what the verdict table
decides, drawn so it can be checked by eye.

A size on the x axis gives lines (means with 95% CIs at the measured sizes),
any other factor bars; a claim without ``per`` compares the groups as bars.
File names: ``claim_<id>_<metric>.png``.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.figures import plots as F


@dataclass(frozen=True)
class ClaimFigure:
    id: str
    statement: str
    verdict: str
    metric: str
    png: Path

    @property
    def caption(self) -> str:
        """Markdown: the claim's id and verdict in bold, then its statement."""
        verdict = f" — {self.verdict}" if self.verdict else ""
        return f"**{self.id}{verdict}**: {self.statement}"


def draw_claims(runs: pd.DataFrame, hypotheses, out_dir: str | Path, *, campaign: str, synthetic: bool,
                factors: list[str], verdicts: pd.DataFrame | None = None) -> list[ClaimFigure]:
    """One figure per claim of ``hypotheses`` (a path or specs) that has runs
    in scope, saved under ``out_dir``; ``verdicts`` (the verdict table) puts
    each claim's verdict in its title."""
    from analysis.verdicts.selection import select
    from analysis.verdicts.spec import as_hypotheses

    F.apply_style()
    verdict_of = dict(zip(verdicts["id"], verdicts["verdict"])) if verdicts is not None else {}
    drawn = []
    for hyp in as_hypotheses(hypotheses):
        data = select(hyp, runs)
        if data.empty:
            continue
        factor = hyp.compare.factor
        data = data.assign(**{factor: data["_group"]})  # the compared groups, under the factor's name
        x = hyp.interaction or hyp.per
        verdict = verdict_of.get(hyp.id)
        title = textwrap.fill(f"{hyp.id}{f' ({verdict})' if verdict else ''}: {hyp.statement}", 75)
        prov: dict[str, Any] = {"campaign": campaign, "synthetic": synthetic, "factors": [f for f in factors if f != "tool"],
                "title": title}
        if x and F.is_quantity(data, x):
            fig = F.metric_vs_size(data, hyp.metric, x, [factor], **prov)
        elif x:
            fig = F.grouped_bars(data, hyp.metric, x, factor, **prov)
        else:
            fig = F.grouped_bars(data, hyp.metric, factor, None, **prov)
        png = F.save(fig, out_dir, f"claim_{hyp.id}_{hyp.metric}")[0]
        drawn.append(ClaimFigure(hyp.id, hyp.statement, verdict or "", hyp.metric, png))
    return drawn
