"""The headline figure of each claim: the runs the claim is about (its
scope), the compared levels or groups in colour, and the factor it is tested
per (or across, for an interaction) on the x axis — what the verdict table
decides, drawn so it can be checked by eye.

A size on the x axis gives lines (means with 95% CIs at the measured sizes),
any other factor bars; a claim without ``per`` compares the groups as bars.
File names: ``claim_<id>_<metric>.png``.

A figure drawn again from the same inputs (the claim's runs, what it is
drawn per, its title with the verdict, the caption's campaign and the code)
is kept, as the campaign's figures are (``.claims-drawn.json``): a hypothesis
file edited re-runs its campaign, which redrew every claim's figure.
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.artefacts import replace_whole
from analysis.figures import plots as F
from analysis.figures.campaign_figures import inputs_key

DRAWN = ".claims-drawn.json"  # each claim figure's file name -> the key of what it was drawn from


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
    out = Path(out_dir)
    before, keys = _drawn_before(out), {}
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
        png = out / f"claim_{hyp.id}_{hyp.metric}.png"
        keys[png.name] = inputs_key(data, [hyp.metric, str(x), factor, title, *prov["factors"]], campaign, synthetic,
                                    None)
        if before.get(png.name) != keys[png.name] or not png.is_file():
            if before:  # a draw stopped midway leaves no record of figures it half replaced
                (out / DRAWN).unlink(missing_ok=True)
            _draw(data, hyp.metric, x, factor, png, prov)
        drawn.append(ClaimFigure(hyp.id, hyp.statement, verdict or "", hyp.metric, png))
    replace_whole(out / DRAWN, lambda stream: json.dump(keys, stream, indent=1))
    return drawn


def _draw(data: pd.DataFrame, metric: str, x: str | None, factor: str, png: Path, prov: dict[str, Any]) -> None:
    if x and F.is_quantity(data, x):
        fig = F.metric_vs_size(data, metric, x, [factor], **prov)
    elif x:
        fig = F.grouped_bars(data, metric, x, factor, **prov)
    else:
        fig = F.grouped_bars(data, metric, factor, None, **prov)
    F.save(fig, png.parent, png.stem)


def _drawn_before(out: Path) -> dict[str, str]:
    """What each claim figure in ``out`` was last drawn from ({} when not known)."""
    try:
        record = json.loads((out / DRAWN).read_text())
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}
