"""An interactive explorer for JupyterLab: pick a tool, a metric and the
factors on the x axis and in colour, and see the campaign's runs drawn.

The drawing is a plain function (:func:`draw`), so it is tested without a
browser; :class:`Explorer` only wires ipywidgets dropdowns to it. A headless
run (papermill, nbval) builds the widget but nothing renders it.

Every combination of the dropdowns draws: a size (a quantity) on the x axis
gives lines, any other factor — ip_version included — bars or boxes per
level; colour "(none)" or the x factor itself gives one series. Levels are
labelled as in the report's figures, the caption names the factors a mean
pools over, and a selection that cannot be drawn clears the figure and says
why (no stale figure stays on screen, no figure is left open).

While the kernel draws, the widget says so ("drawing …") and hides the
figure it showed, so the old figure never looks like the answer to the new
choice. Saved, the cell keeps only a sentence (analysis.report.lab_save
drops the widget view, whose id lives in one kernel).
"""

from __future__ import annotations

import io

import matplotlib.pyplot as plt
import pandas as pd

from analysis.figures import plots as F
from analysis.figures.exploration import metrics_of, ok_runs, size_factor

KINDS = ("means", "distribution")
NO_HUE = "(none)"


def varying_factors(runs: pd.DataFrame, factors: list[str]) -> list[str]:
    """The design factors with more than one level among these runs."""
    return [f for f in factors if f in runs and runs[f].nunique(dropna=True) > 1]


# Pixels of the PNG the widget shows; the widget scales it down to the
# output area's width, never up, so the axes stay on screen.
WIDGET_DPI = 100
WIDGET_MAX_WIDTH = "720px"


def draw(runs: pd.DataFrame, tool: str, metric: str, x: str, hue: str | None, kind: str, *,
         campaign: str, synthetic: bool, factors: list[str] | None = None) -> plt.Figure:
    """One figure of one tool's runs: means with 95% CIs (lines over a size,
    bars over any other factor) or the distribution of runs. ``hue`` None or
    equal to ``x``: one series. ``factors``: the design, so the caption names
    the factors the means pool over (default: every factor column of the runs
    that varies for this tool). A figure half-drawn when an error stops it is closed."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r}: expected one of {', '.join(KINDS)}")
    missing = [c for c in (metric, x, hue) if c is not None and c not in runs]
    if missing:
        raise ValueError(f"the runs have no column {', '.join(missing)}")
    hue = None if hue == x else hue
    data = ok_runs(runs)
    data = data[data["tool"] == tool].dropna(subset=[metric, x])
    if data.empty:
        raise ValueError(f"{tool} has no successful run with a value of {metric} and a level of {x}")
    prov: F.Provenance = {"campaign": campaign, "synthetic": synthetic}
    design = [f for f in (factors if factors is not None else []) if f != "tool"]
    open_before = set(plt.get_fignums())
    try:
        F.apply_style()
        if kind == "distribution":
            return F.distributions(data, metric, x, hue, factors=design, **prov)
        if F.is_quantity(data, x):
            return F.metric_vs_size(data, metric, x, [hue] if hue else [], factors=design, **prov)
        return F.grouped_bars(data, metric, x, hue, factors=design, **prov)
    except Exception:
        for number in set(plt.get_fignums()) - open_before:
            plt.close(number)
        raise


def _default_x(runs: pd.DataFrame, factors: list[str]) -> str | None:
    """A size if the design has one (the studies' x axis), else the factor with most levels."""
    size = size_factor(factors)
    return size or max(factors, key=lambda f: runs[f].nunique(), default=None)


class Explorer:
    """Dropdowns for tool, metric, x, colour and kind above the figure they select.

    ``figure`` is the figure drawn last (None before the first draw), so a
    notebook or a test can reach what is on screen.
    """

    def __init__(self, runs: pd.DataFrame, factors: list[str], *, campaign: str, synthetic: bool):
        import ipywidgets as widgets

        self.runs, self.campaign, self.synthetic = runs, campaign, synthetic
        self.factors = [f for f in factors if f != "tool"]
        self.figure: plt.Figure | None = None
        self.state = "drawing"  # then "shown" or "failed": what the widget shows now
        self._quiet = False
        tools = sorted(ok_runs(runs)["tool"].dropna().unique())
        if not tools:
            raise ValueError(f"{campaign}: no successful run to explore")
        self.tool = widgets.Dropdown(description="tool", options=tools)
        self.metric = widgets.Dropdown(description="metric")
        self.x = widgets.Dropdown(description="x axis")
        self.hue = widgets.Dropdown(description="colour")
        self.kind = widgets.ToggleButtons(description="show", options=KINDS)
        self.image = widgets.Image(format="png", layout=widgets.Layout(
            width="100%", max_width=WIDGET_MAX_WIDTH, height="auto", object_fit="contain"))
        self.message = widgets.Label()
        self._refresh_options()
        self.tool.observe(self._on_tool, names="value")
        for control in (self.metric, self.x, self.hue, self.kind):
            control.observe(self._on_change, names="value")
        self.widget = widgets.VBox([
            widgets.HBox([self.tool, self.metric]), widgets.HBox([self.x, self.hue]), self.kind, self.message, self.image,
        ])
        self.redraw()

    def _tool_runs(self) -> pd.DataFrame:
        runs = ok_runs(self.runs)
        return runs[runs["tool"] == self.tool.value]

    def _refresh_options(self) -> None:
        """Offer only what the chosen tool measured and varied."""
        part = self._tool_runs()
        factors = varying_factors(part, self.factors) or [f for f in self.factors if part[f].notna().any()]
        metrics = metrics_of(part)
        metric, x = self.metric.value, self.x.value  # setting options resets the value: keep the choice
        self._quiet = True  # one redraw after all options changed, not one per dropdown
        try:
            self.metric.options = metrics
            self.metric.value = metric if metric in metrics else next(iter(metrics), None)
            self.x.options = factors
            self.x.value = x if x in factors else _default_x(part, factors)
            self.hue.options = [NO_HUE, *factors]
            self.hue.value = next((f for f in factors if f != self.x.value), NO_HUE)
        finally:
            self._quiet = False

    def _on_tool(self, _change) -> None:
        self._refresh_options()
        self.redraw()

    def _on_change(self, _change) -> None:
        if not self._quiet:
            self.redraw()

    def redraw(self) -> None:
        """Draw the selection into the image (an Image widget, not an Output
        capture, so a headless run keeps no widget state). First the widget
        says it is drawing and hides the old figure; then it shows the new
        one, or, for a selection that cannot be drawn, hides the image and says why."""
        hue = None if self.hue.value in (NO_HUE, self.x.value) else self.hue.value
        self._show_drawing()
        try:
            fig = draw(self.runs, self.tool.value, self.metric.value, self.x.value, hue, self.kind.value,
                       campaign=self.campaign, synthetic=self.synthetic, factors=self.factors)
            buffer = io.BytesIO()
            try:
                fig.savefig(buffer, format="png", dpi=WIDGET_DPI, bbox_inches="tight")
            finally:
                plt.close(fig)
        except Exception as exc:  # noqa: BLE001 - the widget shows any failure instead of raising in a callback
            self._show_failure(str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}")
            return
        self._show_figure(fig, buffer.getvalue())

    def _show_drawing(self) -> None:
        """The kernel is at work: say what it draws; the old figure, hidden, keeps its place."""
        self.state = "drawing"
        self.image.layout.visibility = "hidden"
        self.message.value = (f"drawing {self.tool.value} · {self.metric.value} against {self.x.value} "
                              f"({self.kind.value}) …")

    def _show_figure(self, fig: plt.Figure, png: bytes) -> None:
        self.image.value = png
        self.image.layout.display = None
        self.image.layout.visibility = "visible"
        self.figure = fig
        self.state = "shown"
        self.message.value = ""

    def _show_failure(self, why: str) -> None:
        self.image.value = b""
        self.image.layout.display = "none"
        self.figure = None
        self.state = "failed"
        self.message.value = why

    def describe(self) -> str:
        """What the widget offers, in a sentence: the saved cell's output."""
        return (f"Explorer of {self.campaign}: pick a tool ({', '.join(self.tool.options)}), a metric, the x axis "
                f"and the colour, and see the runs drawn; it draws in a live kernel (run this cell in JupyterLab).")

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        """The widget for JupyterLab, with a sentence instead of the widget's repr as its text."""
        return {**self.widget._repr_mimebundle_(include=include, exclude=exclude), "text/plain": self.describe()}


__all__ = ["Explorer", "draw", "varying_factors", "KINDS"]
