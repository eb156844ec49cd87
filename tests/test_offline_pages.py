"""Report pages load nothing from the network and print whole: exported from
the committed notebooks (executed on the demo campaign), so no report is built."""

import re
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from analysis.report.export import has_math, page_html
from analysis.report.pdf import print_reports
from analysis.report.pipeline import NOTEBOOK_DIR, PAGE_ORDER, to_html

FOLDED_TEXT = "What became of every file"  # in 01_ingest, the part the campaign page folds


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.validator.normalize(nbformat.read(path, as_version=4))[1]


@pytest.fixture(scope="module")
def campaign_page() -> str:
    notebooks = [read(NOTEBOOK_DIR / f"{name}.ipynb") for name, _ in PAGE_ORDER]
    return to_html(notebooks, "netrepro report: demo-loopback",
                   {i: summary for i, (_, summary) in enumerate(PAGE_ORDER) if summary})


@pytest.fixture(scope="module")
def study_pages() -> list[str]:
    """A study's page, and the overview's (its progress bar is a widget)."""
    return [to_html([read(NOTEBOOK_DIR / "papers" / f"{name}.ipynb")], f"netrepro reproduction: {name}")
            for name in ("study", "00_overview")]


def network_references(page: str) -> list[str]:
    """Every http(s) URL the page would load: script sources, stylesheets,
    CSS imports and URLs, and any URL written in a script."""
    found = re.findall(r"<(?:script|img|iframe)\b[^>]*\bsrc\s*=\s*['\"]?(https?:[^'\" >]+)", page, re.I)
    found += re.findall(r"<link\b[^>]*\bhref\s*=\s*['\"]?(https?:[^'\" >]+)", page, re.I)
    found += re.findall(r"@import\s+(?:url\()?['\"]?(https?:[^'\")\s]+)", page, re.I)
    found += re.findall(r"url\(\s*['\"]?(https?:[^'\")\s]+)", page, re.I)
    for script in re.findall(r"<script\b[^>]*>(.*?)</script>", page, re.I | re.S):
        found += re.findall(r"https?://[^\s'\"<>]+", script)
    return found


def test_a_campaign_page_loads_nothing_from_the_network(campaign_page):
    assert "Verdicts" in campaign_page and FOLDED_TEXT in campaign_page  # the page itself is whole
    assert network_references(campaign_page) == []
    assert "require.min.js" not in campaign_page and "MathJax" not in campaign_page


def test_a_study_page_loads_nothing_from_the_network_and_shows_no_widget(study_pages):
    for page in study_pages:
        assert network_references(page) == []
        assert "widget-view+json" not in page and "widget-state+json" not in page
        assert "studies:   0%" not in page  # nor a progress bar's text stand-in, frozen at its start


def test_a_widget_output_is_left_out_of_the_page():
    """A progress bar (a widget, with its frozen text stand-in) in a notebook: the page shows neither."""
    cell = nbformat.v4.new_code_cell("for s in tqdm(studies): ...", outputs=[nbformat.v4.new_output(
        "display_data", data={"application/vnd.jupyter.widget-view+json": {"model_id": "abc", "version_major": 2,
                                                                           "version_minor": 0},
                              "text/plain": "studies:   0%|          | 0/5"})])
    page = page_html(nbformat.v4.new_notebook(cells=[cell]))
    assert "widget-view+json" not in page and "studies:   0%" not in page and network_references(page) == []


def test_only_a_page_with_math_loads_mathjax():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("The mean is $\\bar{x} = 3$.")])
    assert has_math(nb) and "MathJax" in page_html(nb)
    for text in ("Costs $5 and $10 each.", "No math here."):
        plain = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text)])
        assert not has_math(plain) and "MathJax" not in page_html(plain)


def test_the_print_stylesheet_opens_folded_parts(campaign_page):
    print_css = campaign_page[campaign_page.index("@media print"):]
    assert re.search(r"details::details-content\s*\{[^}]*content-visibility:\s*visible", print_css)
    assert "<details class='netrepro-folded'>" in campaign_page


needs_chromium = pytest.mark.skipif(not (shutil.which("chromium") and shutil.which("pdfinfo") and shutil.which("pdftotext")),
                                    reason="Debian's chromium and poppler-utils needed (scripts/install-system.sh)")


@pytest.mark.slow  # Chromium prints every page (seconds of CPU): out of `make test-fast`, in `make test`
@needs_chromium
def test_make_pdf_prints_each_page_whole_with_the_folded_parts_open(campaign_page, tmp_path):
    """What `make pdf` runs: report.pdf beside each report.html, printed by
    Chromium (offline where it can be); the folded ingest account is on paper."""
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "report.html").write_text(campaign_page)
    [pdf] = print_reports(tmp_path, echo=lambda *_: None)
    assert pdf == tmp_path / "demo" / "report.pdf" and pdf.read_bytes().startswith(b"%PDF-")
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True, timeout=60).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    assert pages > 1
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True, timeout=60).stdout
    assert "Verdicts" in text and FOLDED_TEXT in text
    assert not list(tmp_path.rglob("*.partial"))


def focusable_and_alt(page: str) -> tuple[list[str], list[str]]:
    """What nbconvert's pass over the page gives: the tags made focusable, and every image's alt text."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page, "html.parser")
    return ([f"{t.name}.{'.'.join(t.get('class', []))}" for t in soup.select("[tabindex]")],
            [img.get("alt") for img in soup.select("img")])


def test_the_page_exporter_completes_the_tags_as_nbconvert_does_without_parsing_the_page():
    """PageExporter skips nbconvert's BeautifulSoup pass (98 % of an export's
    time) and still gives the same images alt texts and the same areas a
    tabindex, on the committed notebooks (figures, tables, markdown)."""
    from nbconvert import HTMLExporter

    from analysis.report.export import TEMPLATES, PageExporter

    options = dict(template_name="netrepro", extra_template_basedirs=[str(TEMPLATES)], exclude_input=True,
                   exclude_input_prompt=True, exclude_output_prompt=True)
    for name in ("03_hypotheses", "04_figures"):
        nb = read(NOTEBOOK_DIR / f"{name}.ipynb")
        resources = {"netrepro_math": False, "netrepro_print_css": ""}
        theirs, _ = HTMLExporter(**options).from_notebook_node(nb, resources=dict(resources))
        ours, _ = PageExporter(**options).from_notebook_node(nb, resources=dict(resources))
        expected = focusable_and_alt(theirs)
        assert expected[0] and expected[1]  # the notebook has outputs and figures to complete
        assert focusable_and_alt(ours) == expected
