"""How the campaign notebooks show tables and figures, the same in
JupyterLab and on the report page.

pandas' own HTML cuts text after 50 characters ("...") and prints the row
index; a verdict's statement and reason must be read in full. :func:`table`
shows every character, no index, text left-aligned and wrapped; long tables
can start folded (``<details>``). The plain-text form (what nbval compares)
is the whole table too.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

CSS_CLASS = "netrepro-table"
# Scoped to the class, so the notebook's other outputs keep JupyterLab's style; the
# class twice outranks JupyterLab's ":not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon td".
_T = f"table.{CSS_CLASS}.{CSS_CLASS}"
STYLE = (f"<style>{_T} td, {_T} th {{text-align: left; vertical-align: top; white-space: normal; max-width: 40em}}"
         f" {_T} td.num {{text-align: right; white-space: nowrap}}"
         f" details.netrepro > summary {{cursor: pointer; font-weight: bold; margin: .5em 0}}</style>")


def _text(value) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, float):
        precision = pd.get_option("display.precision")
        return f"{value:.{precision}f}" if 1e-3 <= abs(value) < 1e6 or value == 0 else f"{value:.{precision}g}"
    return str(value)


@dataclass(frozen=True)
class Table:
    """A table shown whole: every row, every character, no index column."""

    frame: pd.DataFrame
    summary: str = ""  # when given, the table starts folded under this line
    css_class: str = ""

    def _repr_html_(self) -> str:
        numeric = [pd.api.types.is_numeric_dtype(self.frame[c]) and not pd.api.types.is_bool_dtype(self.frame[c])
                   for c in self.frame.columns]
        head = "".join(f"<th>{html.escape(str(c))}</th>" for c in self.frame.columns)
        rows = []
        for values in self.frame.itertuples(index=False, name=None):
            cells = "".join(f"<td class='num'>{html.escape(_text(v))}</td>" if num else f"<td>{html.escape(_text(v))}</td>"
                            for v, num in zip(values, numeric))
            rows.append(f"<tr>{cells}</tr>")
        classes = " ".join(filter(None, ["dataframe", CSS_CLASS, self.css_class]))
        body = f"<table class='{classes}'><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        if self.frame.empty:
            body = "<p><em>none</em></p>"
        if self.summary:
            body = f"<details class='netrepro'><summary>{html.escape(self.summary)}</summary>{body}</details>"
        return STYLE + body

    def __repr__(self) -> str:
        if self.frame.empty:
            return f"{self.summary + ': ' if self.summary else ''}none"
        with pd.option_context("display.max_colwidth", None, "display.width", None):
            text = self.frame.to_string(index=False, na_rep="", max_rows=None, max_cols=None)
        return f"{self.summary}\n{text}" if self.summary else text


def table(frame: pd.DataFrame | None, summary: str = "", *, columns: Iterable[str] | None = None,
          css_class: str = "") -> Table:
    """``frame`` shown whole (``columns``: these, in this order); folded under
    ``summary`` when one is given (``{n}`` in it becomes the row count)."""
    frame = pd.DataFrame() if frame is None else frame
    if columns is not None:
        frame = frame[[c for c in dict.fromkeys(columns) if c in frame.columns]]
    return Table(frame.reset_index(drop=True), summary.format(n=f"{len(frame):,}"), css_class)


def figures(items: Iterable[tuple[str, str | Path]], width: int = 560) -> None:
    """Show ``(caption, png)`` pairs one under the other, the caption in
    Markdown above its figure. The figure goes out as image/png, which nbval
    does not compare (pixels differ between machines), never inside HTML."""
    from IPython.display import Image, Markdown, display

    for caption, png in items:
        display(Markdown(caption))
        display(Image(filename=str(png), width=width))
