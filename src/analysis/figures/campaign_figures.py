"""Every figure of a campaign, chosen from its design and drawn per tool.

For each tool and metric: the metric against size (one line per combination
of the other factors), the IPv4 − IPv6 difference per size when the design
has both, the distribution of runs per cell, and — from a factorial ANOVA —
the allocation of variation and a residual QQ plot. File names are stable:
``<tool>_<metric>_<kind>.png``. A campaign whose design has blocks
(frame sizes for one set of runs, applications for another) gets its
figures per block.

The ANOVA tables are the ones 03_hypotheses computed and saved
(:func:`analysis.figures.exploration.anova_tables`); passed in as ``anova``
they are not fitted a second time.

A folder remembers what was last drawn into it and from what (``.drawn.json``:
a hash of the runs, the design, the ANOVA tables, the caption's campaign and
the code that draws): drawn again from the same inputs, the figures on disk
are kept. A report rebuilt after a hypothesis file was edited re-runs the
campaign's notebooks, and redrew 65 unchanged figures of demo-loopback (19 s
of CPU, most of the rebuild).
"""

from __future__ import annotations

import hashlib
import json
import textwrap
from dataclasses import astuple, dataclass
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

import analysis
from analysis.artefacts import replace_whole

from analysis.figures import plots as F
from analysis.figures.exploration import anova_design, blocks, metrics_of, ok_runs, size_factor
from analysis.stats import factorial_anova, qq_data, standardised_residuals


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
    png = F.save(fig, out, name)[0]
    return Drawn(name, kind, tool, metric, png)


def listing(drawn: list[Drawn]) -> pd.DataFrame:
    """What was drawn, one row per file (tool, metric, kind, file name)."""
    return pd.DataFrame([(d.tool, d.metric, d.kind, d.png.name) for d in drawn],
                        columns=["tool", "metric", "kind", "file"])


DRAWN = ".drawn.json"  # what was last drawn into a figures folder, and from what


def inputs_key(runs: pd.DataFrame, factors: list[str], campaign: str, synthetic: bool,
               anova: pd.DataFrame | None) -> str:
    """A hash of everything the figures are drawn from, the drawing code included."""
    digest = hashlib.sha256()
    for table in (runs, anova):
        if table is not None:
            digest.update(json.dumps([str(c) for c in table.columns]).encode())
            digest.update(pd.util.hash_pandas_object(table.astype(str), index=False).to_numpy().tobytes())
    digest.update(json.dumps([factors, campaign, synthetic, analysis.source_fingerprint(),
                              matplotlib.__version__, sns.__version__]).encode())
    return digest.hexdigest()


def _drawn_before(out: Path, key: str) -> list[Drawn] | None:
    """The figures last drawn into ``out``, when drawn from the same inputs and all still there."""
    try:
        record = json.loads((out / DRAWN).read_text())
    except (OSError, ValueError):
        return None
    if record.get("key") != key:
        return None
    drawn = [Drawn(name, kind, tool, metric, out / file) for name, kind, tool, metric, file in record["drawn"]]
    return drawn if all(d.png.is_file() for d in drawn) else None


def draw_campaign(runs: pd.DataFrame, factors: list[str], out_dir: str | Path, *, campaign: str,
                  synthetic: bool, anova: pd.DataFrame | None = None) -> list[Drawn]:
    """Draw and save every figure; returns what was drawn, in a stable order.
    ``anova``: the table of :func:`~analysis.figures.exploration.anova_tables`
    on the same runs (fitted here where it has no rows for a tool and metric).
    Figures drawn into ``out_dir`` from the same inputs are kept, not drawn again."""
    F.apply_style()  # also for what the notebook draws next, kept figures or not
    out = Path(out_dir)
    key = inputs_key(runs, factors, campaign, synthetic, anova)
    kept = _drawn_before(out, key)
    if kept is not None:
        return kept
    (out / DRAWN).unlink(missing_ok=True)  # a draw stopped midway leaves no record of figures it half replaced
    drawn = _draw(runs, factors, out, campaign, synthetic, anova)
    record = {"key": key, "drawn": [[*astuple(d)[:4], d.png.name] for d in drawn]}
    replace_whole(out / DRAWN, lambda stream: json.dump(record, stream, indent=1))
    return drawn


def _draw(runs: pd.DataFrame, factors: list[str], out: Path, campaign: str, synthetic: bool,
          anova: pd.DataFrame | None) -> list[Drawn]:
    drawn: list[Drawn] = []
    prov: F.Provenance = {"campaign": campaign, "synthetic": synthetic}
    fitted = _by_model(anova)
    for tool, part in ok_runs(runs).groupby("tool", sort=True):
        for present, block in blocks(part, factors):
            size = size_factor(present)
            others = _varying(block, present, ("tool", size or ""))
            for metric in metrics_of(block):
                data = block.dropna(subset=[metric])
                if data[metric].nunique() < 2:
                    continue  # a constant (e.g. no loss in any run) has nothing to draw
                table = fitted.get((tool, ", ".join(present), metric))
                drawn.extend(_block_figures(data, metric, size, others, present, out, tool, prov, table))
    return drawn


def _by_model(anova: pd.DataFrame | None) -> dict[tuple[str, str, str], pd.DataFrame]:
    """An anova_tables table split per (tool, block, metric)."""
    if anova is None or anova.empty:
        return {}
    return {key: part for key, part in anova.groupby(["tool", "block", "metric"], sort=False)}


def _block_figures(data: pd.DataFrame, metric: str, size: str | None, others: list[str], present: list[str],
                   out: Path, tool: str, prov: F.Provenance, anova: pd.DataFrame | None = None) -> list[Drawn]:
    drawn: list[Drawn] = []
    hue: str | None
    design = [f for f in present if f != "tool"]
    others = sorted(others, key=lambda f: -data[f].nunique())  # the factor with most levels on the x axis
    if size:
        fig = F.metric_vs_size(data, metric, size, others[:2], factors=design, **prov)
        drawn.append(_save(fig, out, tool, metric, f"vs_{size}"))
        if "ip_version" in others and set(data["ip_version"].dropna()) >= {4, 6}:
            by = next((f for f in others if f != "ip_version"), None)
            fig = F.difference_by_size(data, metric, "ip_version", 4, 6, size, by=by, factors=design, **prov)
            drawn.append(_save(fig, out, tool, metric, f"ipv4_minus_ipv6_by_{size}"))
    elif others:
        hue = others[1] if len(others) > 1 else None  # one varying factor: bars without a hue
        drawn.append(_save(F.grouped_bars(data, metric, others[0], hue, factors=design, **prov), out, tool, metric,
                           f"bars_by_{others[0]}"))
    x = size or (others[0] if others else None)
    if x:
        hue = next((f for f in others if f != x), None)
        drawn.append(_save(F.distributions(data, metric, x, hue, factors=design, **prov), out, tool, metric,
                           f"distribution_by_{x}"))
    drawn.extend(_anova_figures(data, metric, present, out, tool, prov, suffix=f"by_{x}" if x else "all",
                                table=anova))
    return drawn


def _anova_figures(data: pd.DataFrame, metric: str, factors: list[str], out: Path, tool: str, prov: F.Provenance,
                   suffix: str, table: pd.DataFrame | None = None) -> list[Drawn]:
    """Allocation of variation and residual QQ plot, when the runs allow a model."""
    fit = anova_design(data, factors, metric)
    if fit is None:
        return []
    design, order = fit
    if table is None or abs(table["df"].sum() - (len(data) - 1)) > 1e-6:  # none given, or not of these runs
        table = factorial_anova(data, metric, design, order=order)
    # wrapped as the claim figures' titles are: a model of five factors ran past the figure's edges
    title = textwrap.fill(f"{tool}: {F.label(metric)} ~ {(' × ' if order > 1 else ' + ').join(design)}", 75)
    drawn = [_save(F.allocation_of_variation(table, title=title, **prov), out, tool, metric, f"variation_{suffix}")]
    cells = data.groupby(design, dropna=False).ngroup()
    residuals = standardised_residuals(data[metric].to_numpy(), cells.to_numpy())
    if residuals.size >= 3:  # every cell constant: nothing to compare with a normal
        drawn.append(_save(F.qq_plot(qq_data(residuals), title=title, **prov), out, tool, metric, f"qq_{suffix}"))
    return drawn
