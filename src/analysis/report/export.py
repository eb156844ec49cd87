"""A report page from an executed notebook, whole in one file: it loads nothing
from the network (it opens, and prints, offline) and has a print stylesheet.

nbconvert's own HTML page loads require.js and MathJax from a CDN on every
page, and the renderer of any widget from unpkg; the report has no use for
require.js, MathJax only where a page has math, and its widgets are for
JupyterLab. The template (``templates/netrepro``) is JupyterLab's page with
those scripts left out and ``print.css`` added.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import nbformat
from nbconvert import HTMLExporter

from analysis.report.lab_save import WIDGET_STATE, WIDGET_VIEW

TEMPLATES = Path(__file__).resolve().parent / "templates"
PRINT_CSS = TEMPLATES / "netrepro" / "print.css"
# TeX in Markdown as MathJax finds it: $...$, $$...$$, \(...\), \[...\], \begin{...}
MATH = re.compile(r"\$\$|(?<![\\$\w])\$[^\s$][^$\n]*(?<!\s)\$(?![\w$])|\\\(|\\\[|\\begin\{")


def has_math(nb: nbformat.NotebookNode) -> bool:
    """Whether a cell or an output of the page is TeX that MathJax would typeset."""
    for cell in nb.cells:
        if cell.cell_type == "markdown" and MATH.search(cell.source):
            return True
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "text/latex" in data or MATH.search(str(data.get("text/markdown", ""))):
                return True
    return False


def without_widgets(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The notebook without its widget outputs and saved widget state: a widget
    (a progress bar, a control) draws only with a live kernel or a renderer
    from a CDN; its text stand-in says nothing a reader needs."""
    nb = copy.deepcopy(nb)
    nb.metadata.pop(WIDGET_STATE, None)
    for cell in nb.cells:
        if "outputs" in cell:
            cell.outputs = [o for o in cell.outputs if WIDGET_VIEW not in o.get("data", {})]
    return nb


def page_html(nb: nbformat.NotebookNode) -> str:
    """The page: code and prompts hidden, nothing loaded from the network."""
    nb = without_widgets(nb)
    exporter = HTMLExporter(template_name="netrepro", extra_template_basedirs=[str(TEMPLATES)],
                            exclude_input=True, exclude_input_prompt=True, exclude_output_prompt=True)
    resources = {"netrepro_math": has_math(nb), "netrepro_print_css": PRINT_CSS.read_text(encoding="utf-8")}
    body, _ = exporter.from_notebook_node(nb, resources=resources)
    return body
