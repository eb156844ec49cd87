"""Every figure of a campaign, chosen from its design and drawn per tool.

For each tool and metric: the metric against size (one line per combination
of the other factors), the IPv4 − IPv6 difference per size when the design
has both, the distribution of runs per cell, and — from a factorial ANOVA —
the allocation of variation and a residual QQ plot. File names are stable:
``<tool>_<metric>_<kind>.png/.svg``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from . import figures as F
from .exploration import metrics_of, ok_runs, size_factor
from .stats import factorial_anova, group_residuals, qq_data


@dataclass(frozen=True)
class Drawn:
    name: str
    kind: str
    tool: str
    metric: str
    png: Path


def _varying(part: pd.DataFrame, factors: list[str], exclude: tuple[str, ...]) -> list[str]:
    return [f for f in factors if f not in exclude and part[f].nunique(dropna=True) > 1]


def _save(fig: plt.Figure, out: Path, tool: str, metric: str, kind: str) -> Drawn:
    name = f"{tool}_{metric}_{kind}"
    png, _ = F.save(fig, out, name)
    return Drawn(name, kind, tool, metric, png)


def draw_campaign(runs: pd.DataFrame, factors: list[str], out_dir: str | Path, *, campaign: str,
                  synthetic: bool) -> list[Drawn]:
    """Draw and save every figure; returns what was drawn, in a stable order."""
    F.apply_style()
    out = Path(out_dir)
    size = size_factor(factors)
    drawn: list[Drawn] = []
    prov = {"campaign": campaign, "synthetic": synthetic}
    for tool, part in ok_runs(runs).groupby("tool", sort=True):
        others = _varying(part, factors, ("tool", size or ""))
        for metric in metrics_of(part):
            data = part.dropna(subset=[metric])
            if data[metric].nunique() < 2:
                continue  # a constant (e.g. no loss in any run) has nothing to draw
            if size:
                fig = F.metric_vs_size(data, metric, size, others[:2] or [size], **prov)
                drawn.append(_save(fig, out, tool, metric, f"vs_{size}"))
            elif others:
                fig = F.grouped_bars(data, metric, others[0], others[1] if len(others) > 1 else others[0], **prov)
                drawn.append(_save(fig, out, tool, metric, "bars"))
            if size and "ip_version" in others and set(data["ip_version"].dropna()) >= {4, 6}:
                by = next((f for f in others if f != "ip_version"), None)
                fig = F.difference_by_size(data, metric, "ip_version", 4, 6, size, by=by, **prov)
                drawn.append(_save(fig, out, tool, metric, "ipv4_minus_ipv6"))
            x = size or (others[0] if others else None)
            if x:
                hue = next((f for f in others if f != x), None)
                drawn.append(_save(F.distributions(data, metric, x, hue, **prov), out, tool, metric, "distribution"))
            drawn.extend(_anova_figures(data, metric, _varying(data, factors, ("tool",)), out, tool, prov))
    return drawn


def _anova_figures(data: pd.DataFrame, metric: str, design: list[str], out: Path, tool: str, prov: dict) -> list[Drawn]:
    """Allocation of variation and residual QQ plot, when the cells allow a model."""
    if not design or data.groupby(design).size().min() < 2:
        return []
    table = factorial_anova(data, metric, design)
    title = f"{tool}: {F.label(metric)} ~ {' × '.join(design)}"
    drawn = [_save(F.allocation_of_variation(table, title=title, **prov), out, tool, metric, "variation")]
    cells = data[design].astype(str).agg("|".join, axis=1)
    qq = qq_data(group_residuals(data[metric].to_numpy(), cells.to_numpy()))
    drawn.append(_save(F.qq_plot(qq, title=title, **prov), out, tool, metric, "qq"))
    return drawn
