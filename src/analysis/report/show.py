"""How the campaign notebooks show tables and figures, the same in
JupyterLab and on the report page.

pandas' own HTML cuts text after 50 characters ("...") and prints the row
index; a verdict's statement and reason must be read in full. :func:`table`
shows every character, no index, text left-aligned and wrapped; long tables
can start folded (``<details>``). The plain-text form (what nbval compares)
is the whole table too.

A table can also carry an id per row (an anchor to link to), cells written
as HTML (links, folded text) beside their plain text, and DataTables options:
the report page then makes it searchable and sortable (report/interactive.py).
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

CSS_CLASS = "netrepro-table"
INTERACTIVE_CLASS = "netrepro-interactive"  # the page makes these searchable (report/interactive.py)
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


SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
MISSING = "—"


def readable(value) -> str:
    """A cell as a reader reads it: nothing becomes "—", True/False "yes"/"no",
    a list its items, a small number "2.9 × 10⁻¹⁴" (never "nan", "None",
    "[...]" or "2.9229e-14"), others four significant digits."""
    if isinstance(value, (list, tuple, set)):
        return ", ".join(readable(v) for v in value) or MISSING
    if isinstance(value, dict):
        return "; ".join(f"{k}: {readable(v)}" for k, v in value.items()) or MISSING
    if value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}" if abs(value) >= 10_000 else str(int(value))  # 1408 bytes, 1,171,000 packets
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if value == 0 or math.isinf(value):
            return "0" if value == 0 else str(value)
        if abs(value) < 1e-3:
            mantissa, exponent = f"{value:.1e}".split("e")
            return f"{mantissa} × 10{str(int(exponent)).translate(SUPERSCRIPT)}"
        decimals = max(0, 3 - math.floor(math.log10(abs(value))))
        text = f"{value:,.{decimals}f}"
        return text.rstrip("0").rstrip(".") if "." in text else text
    text = str(value)
    return text if text.strip() else MISSING


@dataclass(frozen=True)
class Table:
    """A table shown whole: every row, every character, no index column."""

    frame: pd.DataFrame
    summary: str = ""  # when given, the table starts folded under this line
    css_class: str = ""
    cells_html: pd.DataFrame | None = None  # the cells as HTML (same shape as frame), else frame's text escaped
    row_ids: tuple[str, ...] = ()  # an id per row: the row's anchor
    options: dict | None = None  # DataTables options: the page makes the table interactive (report/interactive.py)
    numeric: tuple[str, ...] | None = None  # the columns aligned right (else: those of a numeric dtype)

    def _cell_text(self) -> list[list[str]]:
        if self.cells_html is not None:
            return [list(row) for row in self.cells_html.itertuples(index=False, name=None)]
        return [[html.escape(_text(v)) for v in row] for row in self.frame.itertuples(index=False, name=None)]

    def _repr_html_(self) -> str:
        numeric = [c in self.numeric if self.numeric is not None else
                   pd.api.types.is_numeric_dtype(self.frame[c]) and not pd.api.types.is_bool_dtype(self.frame[c])
                   for c in self.frame.columns]
        head = "".join(f"<th>{html.escape(str(c))}</th>" for c in self.frame.columns)
        rows = []
        for i, values in enumerate(self._cell_text()):
            cells = "".join(f"<td class='num'>{v}</td>" if num else f"<td>{v}</td>" for v, num in zip(values, numeric))
            row_id = f" id='{html.escape(self.row_ids[i])}'" if self.row_ids else ""
            rows.append(f"<tr{row_id}>{cells}</tr>")
        classes = " ".join(filter(None, ["dataframe", CSS_CLASS, self.css_class,
                                         INTERACTIVE_CLASS if self.options is not None else ""]))
        options = f" data-options='{html.escape(json.dumps(self.options, sort_keys=True))}'" if self.options else ""
        body = (f"<table class='{classes}'{options}><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody>"
                f"</table>")
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


def readable_table(frame: pd.DataFrame | None, summary: str = "", *, columns: Iterable[str] | None = None,
                   css_class: str = "", row_ids: str | None = None, options: dict | None = None) -> Table:
    """:func:`table` with every cell :func:`readable` (no "nan", "None", list
    reprs), an anchor per row from the column ``row_ids``, and ``options``
    for DataTables when the page should make it searchable."""
    shown = table(frame, summary, columns=columns, css_class=css_class)
    ids = tuple(str(v) for v in frame[row_ids]) if frame is not None and row_ids else ()
    numeric = tuple(c for c in shown.frame.columns if pd.api.types.is_numeric_dtype(shown.frame[c])
                    and not pd.api.types.is_bool_dtype(shown.frame[c]))
    text = shown.frame.astype(object).map(readable) if not shown.frame.empty else shown.frame
    return Table(text, shown.summary, css_class, row_ids=ids, options=options, numeric=numeric)


def figures(items: Iterable[tuple[str, str | Path]], width: int = 560) -> None:
    """Show ``(caption, png)`` pairs one under the other, the caption in
    Markdown above its figure. The figure goes out as image/png, which nbval
    does not compare (pixels differ between machines), never inside HTML."""
    from IPython.display import Image, Markdown, display

    for caption, png in items:
        display(Markdown(caption))
        display(Image(filename=str(png), width=width))
