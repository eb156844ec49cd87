"""The figure types of the studies, drawn from the tidy tables in one style.

Colour-blind safe palette, units in every axis label, error bars that say
what they are (95% CI of the mean, clipped to what the metric can take; the
studies drew SD or nothing), markers only at the sizes that were measured,
one label per level everywhere (IPv4/IPv6 in legends and on axes alike), and
the data's provenance — campaign, SYNTHETIC when it is, and the factors a
mean pools over without showing them — in a caption on every figure.

Figures are saved as PNG only: the report embeds and links PNGs, and writing
an SVG as well doubled the time spent saving (each save lays out and draws
the figure again) for files nothing read; ask ``save`` for SVG when a
figure goes to print. A PNG is drawn once, at SAVE_DPI, and cropped to what
is drawn (savefig's tight box drew each figure twice), and compressed with
zlib's fastest level: saving was three quarters of a figure's cost.
"""

from __future__ import annotations

import colorsys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TypedDict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib import colors as mcolors, image as mimage  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.transforms import Bbox  # noqa: E402
import seaborn as sns  # noqa: E402

from analysis.figures.labels import (LABELS, QUANTITY_SUFFIXES, is_quantity, label,  # noqa: E402,F401
                                     level_order, name)
from analysis.naming import level_label  # noqa: E402
from analysis.stats import mean_intervals, t_test  # noqa: E402

PALETTE = "colorblind"
# Saved PNGs at twice the pixels they are shown at (the pages show them 420-560 px
# wide): sharp on paper (`make pdf`) and on high-density screens.
SAVE_DPI = 200


class Provenance(TypedDict):
    """What every figure's caption names: the campaign, and whether its data are synthetic."""

    campaign: str
    synthetic: bool


def apply_style() -> None:
    """One style for every figure: readable in print, sharp when printed, deterministic SVG."""
    sns.set_theme(context="paper", style="whitegrid", palette=PALETTE, font_scale=1.1)
    plt.rcParams.update({"figure.dpi": 100, "savefig.dpi": SAVE_DPI, "svg.hashsalt": "netrepro", "figure.autolayout": False})


def caption(fig: plt.Figure, campaign: str, synthetic: bool, note: str = "") -> None:
    """Provenance under the plot: the campaign, SYNTHETIC if it is, and what the bars mean."""
    text = f"Data: {campaign}" + (" — SYNTHETIC DATA" if synthetic else " (real measurements)")
    if note:
        text += f". {note}"
    # wrapped here, to the figure's width (about 16 characters of 8 pt text per
    # inch): matplotlib's wrap=True measures the words again at every draw
    text = textwrap.fill(text, width=int(fig.get_figwidth() * 16))
    fig.text(0.01, 0.005, text, fontsize=8, ha="left", va="bottom", color="0.25")
    fig.subplots_adjust(bottom=0.2)


def pooled_over(runs: pd.DataFrame, shown: Sequence[str | None], factors: Sequence[str]) -> list[str]:
    """The factors of the design that vary in ``runs`` but a figure does not
    show: its means and boxes pool the runs of all their levels."""
    drawn = {f for f in shown if f}
    return [f for f in factors if f not in drawn and f in runs and runs[f].nunique(dropna=True) > 1]


def _notes(what: str, pooled: Sequence[str], clipped: bool = False) -> str:
    text = what
    if clipped:
        text += ", clipped to the metric's range"
    if pooled:
        names = ", ".join(name(f) for f in pooled)
        text += f". Pooled over all levels of {names} (not shown)"
    return text


def _series_label(key, hue: Sequence[str]) -> str:
    key = key if isinstance(key, tuple) else (key,)
    return ", ".join(level_label(h, v) for h, v in zip(hue, key))


def metric_vs_size(runs: pd.DataFrame, metric: str, size: str, hue: Sequence[str], *, campaign: str,
                   synthetic: bool, ax: plt.Axes | None = None, factors: Sequence[str] = (),
                   title: str = "") -> plt.Figure:
    """A metric against packet/frame size, one line per combination of the
    ``hue`` factors (one line when ``hue`` is empty), error bars = 95% CI of
    the mean, markers at measured sizes. It is also the interaction plot:
    non-parallel lines are what an interaction term of the ANOVA measures.
    ``factors`` (the design) lets the caption name the factors the means pool over."""
    hue = [h for h in dict.fromkeys(hue) if h and h != size]
    summary = mean_intervals(runs, metric, by=[*hue, size]).dropna(subset=["mean"])
    fig, ax = _axes(ax)
    series = list(summary.groupby(hue, sort=True)) if hue else [((), summary)]
    colours = sns.color_palette(PALETTE, n_colors=max(1, len(series)))
    for colour, (key, cell) in zip(colours, series):
        cell = cell.sort_values(size)
        err = np.vstack([cell["mean"] - cell["ci_low"], cell["ci_high"] - cell["mean"]])
        ax.errorbar(cell[size], cell["mean"], yerr=np.nan_to_num(err), marker="o", capsize=3,
                    color=colour, label=_series_label(key, hue) if hue else None)
    ax.set_xlabel(label(size))
    ax.set_ylabel(label(metric))
    ax.set_xticks(level_order(summary[size]))
    if hue:
        ax.legend(title=" × ".join(label(h) for h in hue), fontsize=8)
    if title:
        ax.set_title(title)
    pooled = pooled_over(runs, [*hue, size], factors)
    caption(fig, campaign, synthetic, _notes("Points: mean of runs; error bars: 95% CI of the mean", pooled,
                                             bool(summary["ci_clipped"].any())))
    return fig


def grouped_bars(runs: pd.DataFrame, metric: str, x: str, hue: str | None, *, campaign: str, synthetic: bool,
                 factors: Sequence[str] = (), title: str = "") -> plt.Figure:
    """Mean per group with 95% CI: the studies' tables of mean per OS and IP version."""
    hue = None if hue == x else hue
    summary = mean_intervals(runs, metric, by=[x] if hue is None else [x, hue]).dropna(subset=["mean"])
    fig, ax = _axes(None)
    xs = level_order(summary[x])
    hues = [None] if hue is None else level_order(summary[hue])
    width = 0.8 / max(1, len(hues))
    colours = sns.color_palette(PALETTE, n_colors=len(hues))
    for i, (h, colour) in enumerate(zip(hues, colours)):
        cell = (summary if h is None else summary[summary[hue] == h]).set_index(x).reindex(xs)
        pos = np.arange(len(xs)) + (i - (len(hues) - 1) / 2) * width
        err = np.vstack([cell["mean"] - cell["ci_low"], cell["ci_high"] - cell["mean"]])
        ax.bar(pos, cell["mean"], width, yerr=np.nan_to_num(err), capsize=3, color=colour,
               label=None if hue is None else _series_label(h, [hue]))
    ax.set_xticks(np.arange(len(xs)), [level_label(x, v) for v in xs])
    ax.set_xlabel(label(x))
    ax.set_ylabel(label(metric))
    if hue is not None:
        ax.legend(title=label(hue), fontsize=8)
    if title:
        ax.set_title(title)
    pooled = pooled_over(runs, [x, hue], factors)
    caption(fig, campaign, synthetic, _notes("Bars: mean of runs; error bars: 95% CI of the mean", pooled,
                                             bool(summary["ci_clipped"].any())))
    return fig


def difference_by_size(runs: pd.DataFrame, metric: str, factor: str, a, b, size: str, *,
                       campaign: str, synthetic: bool, by: str | None = None,
                       factors: Sequence[str] = ()) -> plt.Figure:
    """mean(a) − mean(b) per size with its 95% Welch CI and a zero line:
    the comparison the studies drew by eye (IPv4 vs IPv6, open vs WPA2)."""
    rows = []
    groups = runs.groupby(by) if by else [(None, runs)]
    for key, part in groups:
        for s, cell in part.groupby(size):
            xa, xb = cell.loc[cell[factor] == a, metric].dropna(), cell.loc[cell[factor] == b, metric].dropna()
            if len(xa) >= 2 and len(xb) >= 2:
                t = t_test(xa, xb)
                rows.append({"group": key, size: s, "diff": t.diff, "lo": t.diff_ci_low, "hi": t.diff_ci_high})
    table = pd.DataFrame(rows)
    fig, ax = _axes(None)
    ax.axhline(0, color="0.3", lw=1)
    if not table.empty:
        colours = sns.color_palette(PALETTE, n_colors=table["group"].nunique(dropna=False))
        for colour, (key, cell) in zip(colours, table.groupby("group", dropna=False)):
            err = np.vstack([cell["diff"] - cell["lo"], cell["hi"] - cell["diff"]])
            ax.errorbar(cell[size], cell["diff"], yerr=err, marker="o", capsize=3, color=colour,
                        label=None if by is None or pd.isna(key) else level_label(by, key))
        ax.set_xticks(sorted(table[size].unique()))
        if by:
            ax.legend(title=label(by), fontsize=8)
    ax.set_xlabel(label(size))
    ax.set_ylabel(f"Δ {label(metric)}: {_series_label(a, [factor])} − {_series_label(b, [factor])}")
    pooled = pooled_over(runs, [factor, size, by], factors)
    caption(fig, campaign, synthetic, _notes("Points: difference of means; error bars: 95% Welch CI", pooled))
    return fig


def distributions(runs: pd.DataFrame, metric: str, x: str, hue: str | None = None, *, campaign: str,
                  synthetic: bool, factors: Sequence[str] = ()) -> plt.Figure:
    """Every run as a point over a box per cell: what a mean and SD hide.

    Drawn as seaborn's boxplot and stripplot drew it (colours, dodge, jitter,
    legend), with matplotlib's boxplot and one scatter: seaborn took 150-200 ms
    to build each figure. The jitter's generator is seeded here, so the same
    runs give the same file."""
    hue = None if hue == x else hue
    shown = [c for c in (x, hue) if c]
    data = runs.dropna(subset=[metric])
    pooled = pooled_over(data, shown, factors)
    data = data.dropna(subset=shown)
    cells = {(key[0], key[1] if hue else None): cell.to_numpy()
             for key, cell in data.groupby(shown, sort=False)[metric]}
    xs, hues = level_order(data[x]), level_order(data[hue]) if hue else [None]
    width = 0.8 / len(hues)  # a category's hue levels side by side in 0.8 of its width

    def centre(i: int, j: int) -> float:
        return i + (j - (len(hues) - 1) / 2) * width

    faces, dots, line = _box_colours(len(hues) if hue else 0)
    fig, ax = _axes(None)
    for j, (h, face) in enumerate(zip(hues, faces)):
        boxed = [(centre(i, j), cells[v, h]) for i, v in enumerate(xs) if (v, h) in cells]
        ax.boxplot([c for _, c in boxed], positions=[p for p, _ in boxed], widths=width, capwidths=width / 2,
                   whis=1.5, showfliers=False, patch_artist=True, manage_ticks=False,
                   boxprops={"facecolor": face, "edgecolor": line}, capprops={"color": line},
                   medianprops={"color": line, "solid_capstyle": "butt"},
                   whiskerprops={"color": line, "solid_capstyle": "butt"})
    rng, half = np.random.default_rng(0), 0.1 / len(hues)  # jitter: a tenth of a category, shared by its hues
    xy, colours = [], []
    for i, v in enumerate(xs):  # cell by cell, as seaborn drew them: the same points on top
        for j, h in enumerate(hues):
            y = cells.get((v, h), np.empty(0))
            jitter = rng.uniform(-half, half, len(y)) if len(y) > 1 else 0.0
            xy.append(np.column_stack([np.full(len(y), centre(i, j)) + jitter, y]))
            colours += [dots[j]] * len(y)
    points = np.concatenate(xy)
    ax.scatter(points[:, 0], points[:, 1], s=9, c=colours, linewidths=0, zorder=3)
    ax.set_xticks(range(len(xs)), [level_label(x, v) for v in xs])
    ax.set_xlim(-0.5, len(xs) - 0.5)
    ax.xaxis.grid(False)
    ax.set_xlabel(label(x))
    ax.set_ylabel(label(metric))
    if hue:
        ax.legend(handles=[Patch(facecolor=f, edgecolor=line, label=level_label(hue, h)) for h, f in zip(hues, faces)],
                  title=label(hue), fontsize=8)
    caption(fig, campaign, synthetic, _notes("Boxes: quartiles; points: individual runs", pooled))
    return fig


def _box_colours(n_hues: int) -> tuple[list, list, tuple[float, float, float]]:
    """seaborn's colours for boxes with points: the boxes' faces (the palette at
    75 % saturation; light grey without a hue), the points' (near-black), and
    the lines' (a grey darker than every face)."""
    faces = sns.color_palette(PALETTE, n_hues, desat=0.75) if n_hues else [mcolors.to_rgb("0.85")]
    dots = sns.color_palette("dark:0.2", n_hues) if n_hues else [mcolors.to_rgb("0.2")]
    grey = 0.6 * min(colorsys.rgb_to_hls(*c)[1] for c in faces)
    return faces, dots, (grey, grey, grey)


def qq_plot(qq: pd.DataFrame, *, campaign: str, synthetic: bool, title: str = "") -> plt.Figure:
    """QQ plot of standardised residuals (:func:`analysis.stats.standardised_residuals`
    through :func:`analysis.stats.qq_data`), so y = x is the right reference."""
    fig, ax = _axes(None)
    ax.scatter(qq["theoretical"], qq["sample"], s=10)
    lims = [min(qq["theoretical"].min(), qq["sample"].min()), max(qq["theoretical"].max(), qq["sample"].max())]
    ax.plot(lims, lims, color="0.3", lw=1)
    ax.set_xlabel("Theoretical quantiles (standard normal)")
    ax.set_ylabel("Standardised residuals")
    if title:
        ax.set_title(title)
    caption(fig, campaign, synthetic, "Residuals over their cell's SD (cells without variance left out); "
                                      "points on the line y = x mean normal residuals")
    return fig


def allocation_of_variation(anova: pd.DataFrame, *, campaign: str, synthetic: bool, title: str = "") -> plt.Figure:
    """Share of total variation explained by each factor and interaction
    (Jain's allocation of variation), from :func:`analysis.stats.factorial_anova`."""
    shares = anova.set_index("term")["share"].sort_values()
    fig, ax = _axes(None)
    terms = [str(i) for i in shares.index]
    ax.barh(terms, 100 * shares.to_numpy(), color=sns.color_palette(PALETTE)[0])
    _widen_for(fig, terms)
    ax.set_xlabel("Share of total variation (%)")
    if title:
        ax.set_title(title)
    caption(fig, campaign, synthetic, "Sum of squares of each term / total sum of squares")
    return fig


def _widen_for(fig: plt.Figure, labels: Sequence[str]) -> None:
    """Widen ``fig`` on the left, its axes as wide as before, so that its y tick
    ``labels`` fit in it: labels past the figure's edge (an interaction term
    of four factors) made :func:`save` draw the figure a second time."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    prop = FontProperties(size=plt.rcParams["ytick.labelsize"])
    longest = max((TextToPath().get_text_width_height_descent(t, prop, ismath=False)[0] for t in labels), default=0)
    width, height = fig.get_size_inches()
    left, right = fig.subplotpars.left * width, (1 - fig.subplotpars.right) * width  # inches
    extra = longest / 72 + 0.25 - left  # points to inches, and room for the ticks' pad
    if extra > 0:
        fig.set_size_inches(width + extra, height)
        fig.subplots_adjust(left=(left + extra) / (width + extra), right=1 - right / (width + extra))


def _axes(ax: plt.Axes | None) -> tuple[plt.Figure, plt.Axes]:
    """The figure to caption (the whole figure, also for an axes in a subfigure) and the axes to draw on."""
    if ax is not None:
        fig = ax.figure
        return (fig if isinstance(fig, plt.Figure) else fig.figure), ax
    fig, ax = plt.subplots(figsize=(7, 4.5))
    return fig, ax


SAVE_METADATA = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None},
                 "pdf": {"CreationDate": None, "Creator": None, "Producer": None}}
# zlib's fastest level: a third of the time of its default (6) per figure, for files about 12 % larger
PNG_COMPRESSION = 1


def save(fig: plt.Figure, directory: str | Path, name: str, formats: Sequence[str] = ("png",)) -> list[Path]:
    """Write ``name``.png (and any other of ``formats``, e.g. "svg" for print),
    cropped to what is drawn (as ``bbox_inches="tight"``), with stable names
    and no timestamps in the files; closes the figure."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = [directory / f"{name}.{fmt}" for fmt in formats]
    try:
        for path, fmt in zip(paths, formats):
            box: Bbox | str | None = _png_drawn_once(fig, path) if fmt == "png" else "tight"
            if box is not None:
                fig.savefig(path, metadata=SAVE_METADATA.get(fmt), bbox_inches=box,
                            pil_kwargs={"compress_level": PNG_COMPRESSION} if fmt == "png" else None)
    finally:
        plt.close(fig)
    return paths


def _png_drawn_once(fig: plt.Figure, path: Path) -> Bbox | None:
    """Draw ``fig`` once at SAVE_DPI and write the part of it ``bbox_inches="tight"``
    keeps (what is drawn, padded by ``savefig.pad_inches``): savefig with a tight
    box draws the figure twice, once to measure and once to save, and that
    first draw was a fifth of every figure's cost. When something drawn
    reaches past the figure's edge (a long tick label), nothing is written and
    the box to save is returned: savefig, given it, draws the figure again on
    a canvas grown to show it all (as a tight box does, without measuring again)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig.set_dpi(SAVE_DPI)
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()
    width, height = canvas.get_width_height()
    drawn = fig.get_tightbbox(canvas.get_renderer())  # inches
    box = drawn.padded(plt.rcParams["savefig.pad_inches"])
    if drawn.x0 < 0 or drawn.y0 < 0 or drawn.x1 * SAVE_DPI > width or drawn.y1 * SAVE_DPI > height:
        return box
    left, right = int(np.floor(box.x0 * SAVE_DPI)), int(np.ceil(box.x1 * SAVE_DPI))
    top, bottom = height - int(np.ceil(box.y1 * SAVE_DPI)), height - int(np.floor(box.y0 * SAVE_DPI))
    face = np.round(255 * np.array(mcolors.to_rgba(fig.get_facecolor()))).astype(np.uint8)
    image = np.empty((bottom - top, right - left, 4), np.uint8)
    image[...] = face  # the padding past the figure's edge, in its background colour
    pixels = np.asarray(canvas.buffer_rgba())
    rows, cols = slice(max(top, 0), min(bottom, height)), slice(max(left, 0), min(right, width))
    image[rows.start - top:rows.stop - top, cols.start - left:cols.stop - left] = pixels[rows, cols]
    mimage.imsave(path, image, format="png", dpi=SAVE_DPI,  # None drops matplotlib's "Software" entry
                  metadata=SAVE_METADATA["png"], pil_kwargs={"compress_level": PNG_COMPRESSION})  # type: ignore[arg-type]
    return None
