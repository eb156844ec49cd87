"""The headless report: run the notebooks in order with papermill for each
campaign, turn them into one HTML page per campaign (code hidden), and write
an index that links every campaign, figure and verdict table (front_page.py).

The notebooks run in flow order (ingest, explore, hypotheses, figures); the
page reads verdicts first: the banner (question, design in one sentence),
the verdict table and each claim's figure, the evidence per cell, ANOVA,
the figures, the exploration, and last, folded, the ingest account with the
host and tool facts (PAGE_ORDER).

A failing notebook stops the pipeline with the notebook, the cell and the
error named. Notebooks read the previous step's outputs from disk, so each
one can also be run alone in JupyterLab.

papermill, nbformat and nbconvert are imported where a notebook runs or a
page is written: a report with nothing to rebuild needs none of them (their
imports, jsonschema's format checkers above all, were half of its time).
"""

from __future__ import annotations

import contextlib
import copy
import html
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from analysis import config
from analysis.errors import ReportError
from analysis.report.front_page import CampaignReport, found_reports, study_title, write_campaign_about, write_index
from analysis.report.interactive import with_datatables
from analysis.report.jsonschema_formats import skip_iri_grammar
from analysis.report.kernels import KERNEL_QUIET, KernelPool, SharedKernel, kernel_from, kernels_use_this_library

if TYPE_CHECKING:
    import nbformat

NOTEBOOK_DIR = config.notebooks_dir()
NOTEBOOKS = ("01_ingest", "02_explore", "03_hypotheses", "04_figures")  # the order they run in
# The order the page shows them in, and the line a folded part is shown under ("" = open).
PAGE_ORDER = (("03_hypotheses", ""), ("04_figures", ""), ("02_explore", ""),
              ("01_ingest", "How the runs were ingested, the host and tools, the design in full (01_ingest)"))
PAPER_DIR = NOTEBOOK_DIR / "papers"
HYPOTHESES_DIR = config.hypotheses_dir()
# Cells the static report leaves out: papermill's parameters, widgets that need a live
# kernel, and what is only for the notebook in JupyterLab (its own title).
INTERACTIVE_TAG = "interactive-only"  # needs a live kernel: not run for the report (run_notebook)
REPORT_SKIPS_TAGS = {"parameters", "injected-parameters", INTERACTIVE_TAG, "notebook-only"}
# Each campaign notebook starts with the campaign's banner; the page shows it once, at the top.
BANNER_TAG = "banner"


def parameters_for(campaign_dir: Path, out_dir: Path, hypotheses_dir: Path = HYPOTHESES_DIR) -> dict[str, str]:
    """Notebook parameters, as paths relative to the notebooks folder (the
    kernel's working directory), so no absolute path lands in an output.
    A campaign's hypothesis file is ``<hypotheses_dir>/<campaign>.yaml``."""
    hyp = hypotheses_dir / f"{campaign_dir.name}.yaml"
    rel = lambda p: os.path.relpath(p, NOTEBOOK_DIR)  # noqa: E731
    return {"campaign": rel(campaign_dir), "out": rel(out_dir), "hypotheses": rel(hyp) if hyp.is_file() else ""}


def _papermill():
    """papermill, imported without jsonschema's IRI grammar (:mod:`.jsonschema_formats`)."""
    skip_iri_grammar()
    import papermill

    return papermill


def run_notebook(path: Path, params: dict[str, str], executed: Path, label: str,
                 kernel: "SharedKernel | None" = None) -> nbformat.NotebookNode:
    """Execute one notebook with papermill, its kernel started in the notebook's
    folder (relative paths in its parameters resolve from there), or in
    ``kernel``, cleared first and moved to that folder.

    The folder goes to the kernel (nbclient's ``resources.metadata.path``), not
    to papermill's ``cwd``: that one changes the working directory of the whole
    process, and two notebooks built in parallel threads (a campaign's in
    ``notebooks/``, a study's in ``notebooks/papers/``) would start their kernels
    in each other's folder.

    The executed notebook is written once, when it ends or fails: papermill
    wrote it whole before and after every cell, figures and all (2 × 40 writes
    of up to 8 MB for a campaign). A cell tagged ``interactive-only`` (the
    explorer widget, which the page leaves out) stays in it unrun: importing
    and building the widget cost 2 s of a kernel's CPU for nothing shown."""
    pm = _papermill()

    kernels_use_this_library()
    shared = {}
    if kernel is not None:
        kernel.clear(path.parent)
        shared = {"km": kernel.manager}
    try:
        return pm.execute_notebook(
            str(path), str(executed), parameters=params,
            kernel_name="python3", progress_bar=False, log_output=False, request_save_on_cell_execute=False,
            skip_cells_with_tag=INTERACTIVE_TAG,
            extra_arguments=KERNEL_QUIET, resources={"metadata": {"path": str(path.parent)}}, **shared,
        )
    except pm.PapermillExecutionError as exc:
        raise ReportError(f"{label}: notebook {path.stem}, cell {exc.exec_count}: {exc.ename}: {exc.evalue}") from None


FOLD_STYLE = ("font-size: 1.3em; font-weight: bold; cursor: pointer; margin: 1.5em 0 .5em")


def to_html(notebooks: list[nbformat.NotebookNode], title: str, folded: dict[int, str] | None = None) -> str:
    """One HTML page from the executed notebooks in the order given, code
    hidden, the banner once, nothing loaded from the network (:mod:`.export`);
    notebook ``i`` in ``folded`` starts closed in a ``<details>`` under the
    line ``folded[i]`` (open in print)."""
    import nbformat

    from analysis.report.export import page_html

    folded = folded or {}
    merged = nbformat.v4.new_notebook(metadata=notebooks[0].metadata)
    starts: list[tuple[int, str]] = []  # (notebook, id of its first cell on the page)
    banner_shown = False
    for i, nb in enumerate(notebooks):
        first = None
        for j, cell in enumerate(nb.cells):
            tags = set(cell.metadata.get("tags", []))
            if REPORT_SKIPS_TAGS & tags or (BANNER_TAG in tags and banner_shown):
                continue
            banner_shown |= BANNER_TAG in tags
            cell = copy.deepcopy(cell)
            cell["id"] = f"n{i}-{cell.get('id') or j}"  # unique on the page, an anchor to fold at
            merged.cells.append(cell)
            first = first or cell["id"]
        if first:
            starts.append((i, first))
    merged.metadata["title"] = title
    return _fold(page_html(merged), starts, folded)


def _cell_start(body: str, cell_id: str) -> int:
    """Where the ``<div>`` of the cell with this id opens in the exported page."""
    return body.rfind("<div", 0, body.index(f'id="cell-id={cell_id}"'))


def _fold(body: str, starts: list[tuple[int, str]], folded: dict[int, str]) -> str:
    """Wrap each folded notebook's cells (from its first cell to the next
    notebook's, or the end of the page) in ``<details>``; last first, so the
    positions found earlier stay right."""
    for k in reversed(range(len(starts))):
        notebook, cell_id = starts[k]
        if notebook not in folded:
            continue
        begin = _cell_start(body, cell_id)
        end = _cell_start(body, starts[k + 1][1]) if k + 1 < len(starts) else body.rindex("</main>")
        summary = f"<summary style='{FOLD_STYLE}'>{html.escape(folded[notebook])}</summary>"
        body = (body[:begin] + f"<details class='netrepro-folded'>{summary}" + body[begin:end] + "</details>\n"
                + body[end:])
    return body


BUILT = ".built"  # the last file a build writes (see build_stamp)


def build_stamp(out_dir: Path) -> Path:
    """The file that says the report in ``out_dir`` was built to the end: it
    is removed before the first notebook runs and written after the page, so
    a build stopped midway (Ctrl-C, a crash, a full disk) leaves none, and
    the build tool, whose target it is, runs that build again instead of
    taking its half-written notebooks, tables and figures as up to date."""
    return out_dir / BUILT


@contextlib.contextmanager
def _stamped(out_dir: Path) -> Iterator[None]:
    stamp = build_stamp(out_dir)
    stamp.unlink(missing_ok=True)
    yield
    stamp.write_text("built to the end\n")


def build_campaign(campaign_dir: Path, out_root: Path, hypotheses_dir: Path = HYPOTHESES_DIR, echo=print,
                   kernels: KernelPool | None = None) -> CampaignReport:
    """The four notebooks, the page and what the index says of the campaign. The
    manifest is read after the notebooks, from the copy their ingest kept
    (a collector's YAML manifest takes a second or more to parse, twice here before)."""
    from analysis.ingest.campaign import campaign_manifest

    out_dir = out_root / campaign_dir.name
    executed_dir = out_dir / "notebooks"
    executed_dir.mkdir(parents=True, exist_ok=True)
    with _stamped(out_dir):
        executed = _run_notebooks(campaign_dir, out_dir, hypotheses_dir, echo, kernels)
        info = campaign_manifest(campaign_dir).campaign
        _write_page(executed, campaign_dir.name, out_dir, info.synthetic)
        write_campaign_about(campaign_dir, out_dir, hypotheses_dir, info)
    return CampaignReport(campaign_dir.name, out_dir / "report.html", sorted((out_dir / "figures").glob("*.png")),
                          sorted((out_dir / "tables").glob("*.csv")), info.synthetic)


def _run_notebooks(campaign_dir: Path, out_dir: Path, hypotheses_dir: Path, echo,
                   kernels: KernelPool | None) -> dict[str, nbformat.NotebookNode]:
    """The four notebooks in a shared kernel (from ``kernels`` if given), executed, by name."""
    executed_dir = out_dir / "notebooks"
    params = parameters_for(campaign_dir, out_dir, hypotheses_dir)
    executed = {}
    with kernel_from(kernels) as kernel:
        for name in NOTEBOOKS:
            echo(f"  {campaign_dir.name}: {name}")
            executed[name] = run_notebook(NOTEBOOK_DIR / f"{name}.ipynb", params, executed_dir / f"{name}.ipynb",
                                          campaign_dir.name, kernel)
    return executed


def _write_page(executed: dict[str, nbformat.NotebookNode], name: str, out_dir: Path, synthetic: bool) -> None:
    title = f"netrepro report: {name}" + (" (SYNTHETIC DATA)" if synthetic else "")
    page = out_dir / "report.html"
    page.write_text(to_html([executed[notebook] for notebook, _ in PAGE_ORDER], title,
                            {i: summary for i, (_, summary) in enumerate(PAGE_ORDER) if summary}))
    (out_dir / "SYNTHETIC").unlink(missing_ok=True)
    if synthetic:  # the index labels it, even when it is rebuilt from what is on disk
        (out_dir / "SYNTHETIC").write_text("this campaign's data is synthetic\n")


STUDY_NOTEBOOK = PAPER_DIR / "study.ipynb"
OVERVIEW_NOTEBOOK = PAPER_DIR / "00_overview.ipynb"


def build_paper(name: str, out_root: Path, echo=print, kernels: KernelPool | None = None) -> CampaignReport:
    """One study's reproduction (``name`` = its stem; ``00_overview`` for the overview):
    the study notebook run with papermill for that study (in a kernel of
    ``kernels`` if given), then HTML."""
    pm = _papermill()

    notebook = OVERVIEW_NOTEBOOK if name == OVERVIEW_NOTEBOOK.stem else STUDY_NOTEBOOK
    out_dir = out_root / "papers" / name
    (out_dir / "notebooks").mkdir(parents=True, exist_ok=True)
    echo(f"  study {name}")
    offered = {"study": name, "out": os.path.relpath(out_dir, notebook.parent)}
    declared = pm.inspect_notebook(str(notebook))  # the overview takes no study
    params = {k: v for k, v in offered.items() if k in declared}
    page = out_dir / "report.html"
    with _stamped(out_dir):
        with kernel_from(kernels) as kernel:
            executed = run_notebook(notebook, params, out_dir / "notebooks" / f"{name}.ipynb", f"study {name}", kernel)
        page.write_text(with_datatables(to_html([executed], study_title(out_dir, name))))
    return CampaignReport(name, page, sorted((out_dir / "figures").glob("*.png")),
                          sorted((out_dir / "tables").glob("*.csv")), synthetic=False)


def write_index_from(out_root: Path) -> Path:
    """The index of every report found under ``out_root``."""
    return write_index(*found_reports(out_root), out_root)
