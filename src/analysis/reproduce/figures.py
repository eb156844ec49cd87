"""The studies' figures redrawn from what they print, in the style of figures.py.

Only printed cell values become points: a mean (or an extreme printed *with*
its size) at a size, with the published SD of that cell as error bar when the
study prints one.  No line joins the points, because the values between them
were never published; every figure says how many of its points are published.
Beside it, the same design drawn from our own campaign, when it exists.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from analysis.reproduce.claims import FigureSpec
from analysis.figures.plots import PALETTE, apply_style, caption, label, metric_vs_size, save
from analysis.reproduce.lookup import MEAN_STATS, Record, match
from analysis.reproduce.mirrors import load_mirror, mirror_available



def _scoped(record: Record, spec: FigureSpec) -> pd.DataFrame:
    rows = record.rows[record.rows["metric"] == spec.metric]
    return rows[match(rows, {k: v for k, v in spec.scope.items() if not isinstance(v, list)})]


def figure_points(record: Record, spec: FigureSpec) -> tuple[pd.DataFrame, int]:
    """Published points of one figure (series, size, mean, sd) and how many it has in all.

    All = levels of each series factor in the study's record, multiplied, × the design's sizes.
    """
    rows = _scoped(record, spec)
    sized = rows[rows["size_bytes"].notna()]
    means = sized[sized["statistic"].isin(MEAN_STATS)]
    sds = sized[sized["statistic"] == "sd"]
    keys = [*spec.series, "size_bytes"]
    points = (means.groupby(keys, dropna=False)["value"].first().rename("mean").reset_index()
              .merge(sds.groupby(keys, dropna=False)["value"].first().rename("sd").reset_index(),
                     on=keys, how="left"))
    levels = [record.rows[s].dropna().astype(str).loc[lambda v: v != ""].nunique() for s in spec.series]
    total = int(np.prod(levels)) * len(record.design_value("sizes_bytes") or [])
    return points, total


def _series_name(key, series) -> str:
    key = key if isinstance(key, tuple) else (key,)
    return ", ".join(f"IPv{int(v)}" if s == "ip_version" else str(v) for s, v in zip(series, key))


def draw_published(record: Record, spec: FigureSpec) -> tuple[plt.Figure, int, int]:
    """Published points with SD bars, markers only; returns (figure, published, total)."""
    apply_style()
    points, total = figure_points(record, spec)
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    groups = list(points.groupby(spec.series, sort=True)) if not points.empty else []
    colours = sns.color_palette(PALETTE, n_colors=max(1, len(groups)))
    for colour, (key, part) in zip(colours, groups):
        ax.errorbar(part["size_bytes"].astype(float), part["mean"], yerr=part["sd"].fillna(0).to_numpy(),
                    fmt="o", capsize=3, color=colour, label=_series_name(key, spec.series))
    sizes = record.design_value("sizes_bytes") or []
    ax.set_xticks(sizes, [str(s) for s in sizes], rotation=45)
    if sizes:
        pad = 0.06 * (max(sizes) - min(sizes))
        ax.set_xlim(min(sizes) - pad, max(sizes) + pad)
    ax.set_xlabel(label("frame_size_bytes" if record.design_value("size_kind") == "frame" else "packet_size_bytes"))
    ax.set_ylabel(label(spec.metric))
    ax.set_title(f"{spec.id} (published): {spec.caption}", fontsize=9)
    if groups:
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    else:
        ax.text(0.5, 0.5, "no value of this figure is printed at a size", ha="center", va="center",
                transform=ax.transAxes, color="0.4")
    caption(fig, f"{record.study}.txt (published)", False,
            f"{len(points)} of {total} points published; bars: published SD where printed; no lines between points")
    fig.subplots_adjust(bottom=0.32)
    return fig, len(points), total


def draw_mirror(spec: FigureSpec, raw_dir: Path | None = None) -> plt.Figure:
    """The same figure design from our own campaign (see reproduce.mirrors)."""
    mirror = spec.mirror
    if mirror is None:
        raise ValueError(f"figure {spec.id} has no mirror campaign")
    data = load_mirror(mirror["campaign"], raw_dir)
    runs = data.runs
    for factor, value in mirror.get("scope", {}).items():
        runs = runs[runs[factor].astype(str) == str(value)]
    apply_style()
    fig = metric_vs_size(runs, mirror["metric"], mirror.get("x", "packet_size_bytes"), mirror.get("hue", ["ip_version"]),
                         campaign=f"{data.name} — testbed: {data.testbed}", synthetic=data.synthetic)
    fig.axes[0].set_title(f"{spec.id} design, our campaign {data.name}", fontsize=9)
    return fig


def points_table(record: Record) -> pd.DataFrame:
    """Per figure: how many of its points the study prints."""
    rows = []
    for spec in record.claims.figures:
        points, total = figure_points(record, spec)
        rows.append({"figure": spec.id, "caption": spec.caption, "metric": spec.metric,
                     "published_points": len(points), "points_in_figure": total,
                     "with_sd": int(points["sd"].notna().sum()) if not points.empty else 0})
    return pd.DataFrame(rows)





def figure_file_stem(spec: FigureSpec, mirror: bool = False) -> str:
    """'Figure 5-1-3' -> 'Figure_5-1-3' (and 'mirror_…' for our campaign's version)."""
    stem = spec.id.replace(" ", "_").replace(".", "")
    return f"mirror_{stem}" if mirror else stem


def draw_figures(record: Record, out: str | Path) -> pd.DataFrame:
    """Every figure of the study drawn into ``out/figures``: the published points, and
    the same design from our mirror campaign; one row per figure says what was drawn."""
    figures = Path(out) / "figures"
    rows = []
    for spec in record.claims.figures:
        points, total = figure_points(record, spec)
        row = {"figure": spec.id, "caption": spec.caption, "published_points": len(points),
               "points_in_figure": total, "published_png": "", "mirror_png": "", "mirror": ""}
        if len(points):
            row["published_png"] = str(save(draw_published(record, spec)[0], figures, figure_file_stem(spec))[0])
        if spec.mirror is not None:
            campaign = spec.mirror["campaign"]
            if mirror_available(campaign):
                row["mirror_png"] = str(save(draw_mirror(spec), figures, figure_file_stem(spec, True))[0])
                row["mirror"] = f"our campaign {campaign}"
            else:
                row["mirror"] = f"our campaign {campaign} is not available (no manifest in data/raw/{campaign})"
        rows.append(row)
    plt.close("all")
    return pd.DataFrame(rows)
