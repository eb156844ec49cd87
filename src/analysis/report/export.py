"""A report page from an executed notebook, whole in one file: it loads nothing
from the network (it opens, and prints, offline) and has a print stylesheet.

nbconvert's own HTML page loads require.js and MathJax from a CDN on every
page, and the renderer of any widget from unpkg; the report has no use for
require.js, MathJax only where a page has math, and its widgets are for
JupyterLab. The template (``templates/netrepro``) is JupyterLab's page with
those scripts left out and ``print.css`` added.

nbconvert's HTML exporter also parses the finished page again with
BeautifulSoup, only to give images without one an ``alt`` and outputs a
``tabindex``: 98 % of the export's time (6 s for study 004's 6 MB page, about
20 s of CPU over a cold report). :class:`PageExporter` renders the same
template and adds both attributes to the tags the template writes.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import nbformat
from nbconvert import HTMLExporter
from nbconvert.exporters.templateexporter import TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

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


# The tags nbconvert's exporter completes: every image without an alt text, and
# the cells' input and output areas, opened by the template as below.
IMG_WITHOUT_ALT = re.compile(r"<img\b(?![^>]*\balt=)")
OUTPUT_AREA = re.compile(r'<div class="(?:(?:jp-[\w-]+ )*jp-OutputArea-output\b[^"]*|jp-Cell-inputWrapper)"')
NO_ALT_TEXT = "No description has been provided for this image"  # nbconvert's words


class PageExporter(HTMLExporter):
    """nbconvert's HTML exporter without its second pass over the page (see the module docstring)."""

    def from_notebook_node(self, nb, resources=None, **kw):
        langinfo = nb.metadata.get("language_info", {})
        lexer = langinfo.get("pygments_lexer", langinfo.get("name", None))
        self.register_filter("highlight_code",
                             self.filters.get("highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self)))
        resources = self._init_resources(resources)
        self.register_filter("filter_data_type", WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata,
                                                                       parent=self, resources=resources))
        page, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
        page = IMG_WITHOUT_ALT.sub(f'<img alt="{NO_ALT_TEXT}"', page)
        return OUTPUT_AREA.sub(lambda m: f'{m.group(0)} tabindex="0"', page), resources


def page_html(nb: nbformat.NotebookNode) -> str:
    """The page: code and prompts hidden, nothing loaded from the network."""
    nb = without_widgets(nb)
    exporter = PageExporter(template_name="netrepro", extra_template_basedirs=[str(TEMPLATES)],
                            exclude_input=True, exclude_input_prompt=True, exclude_output_prompt=True)
    resources = {"netrepro_math": has_math(nb), "netrepro_print_css": PRINT_CSS.read_text(encoding="utf-8")}
    body, _ = exporter.from_notebook_node(nb, resources=resources)
    return body
