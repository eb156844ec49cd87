"""The papermill pipeline on a small real campaign, into a temporary folder."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pytest
import yaml
import offline_browser
from interruptible import sigint_default
from offline_browser import STUDY_FILE  # a study's file name, never its title on a page

from analysis.ingest.campaign import load_campaign
from analysis.verdicts import evaluate_hypotheses
from analysis.ingest.per_run import one_row_per_run
from analysis.errors import ReportError
from analysis.report.tasks import build_report

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data/raw/demo-loopback"
HYPOTHESES = """
hypotheses:
  - id: S1
    statement: "netperf TCP throughput is higher over IPv4 than over IPv6 at every size"
    metric: throughput_mbps
    scope: {transport: TCP}
    compare: {factor: ip_version, levels: [4, 6]}
    direction: greater
    per: packet_size_bytes
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The netperf part of the demo (60 real runs) as its own campaign."""
    tmp = tmp_path_factory.mktemp("pipeline")
    camp = tmp / "raw" / "small"
    shutil.copytree(DEMO / "netperf", camp / "netperf")
    manifest = yaml.safe_load((DEMO / "manifest.yaml").read_text())
    manifest["files"]["table"] = [e for e in manifest["files"]["table"] if e["path"].startswith("netperf/")]
    (camp / "manifest.yaml").write_text(yaml.safe_dump(manifest))
    (tmp / "hyp").mkdir()
    (tmp / "hyp" / "small.yaml").write_text(HYPOTHESES)
    index = build_report([camp], tmp / "reports", hypotheses_dir=tmp / "hyp", papers=False, echo=lambda *_: None)
    return camp, tmp / "reports", index


@pytest.mark.slow  # the report of the netperf runs is built once (~20 s)
def test_every_artefact_exists(built):
    _, out, index = built
    small = out / "small"
    assert index == out / "index.html"
    for name in ("01_ingest", "02_explore", "03_hypotheses", "04_figures"):
        assert (small / "notebooks" / f"{name}.ipynb").is_file()
    for table in ("cell_summaries", "outliers", "drift", "verdicts", "verdict_cells", "anova"):
        assert (small / "tables" / f"{table}.csv").is_file()
    figures = sorted(p.name for p in (small / "figures").glob("*.png"))
    assert "netperf_throughput_mbps_vs_packet_size_bytes.png" in figures
    assert "claim_S1_throughput_mbps.png" in figures  # the claim's headline figure
    assert not list((small / "figures").glob("*.svg"))  # PNG only: the report shows and links PNGs
    page = (small / "report.html").read_text()
    assert "Hoefler" in page and "S1" in page and "Real measurements" in page
    assert "small/report.html" in index.read_text()
    assert "small/figures/claim_S1_throughput_mbps.png' alt='headline figure" in index.read_text()


@pytest.mark.slow  # the report of the netperf runs is built once (~20 s)
def test_the_page_reads_verdicts_first_and_folds_the_ingest_account(built):
    _, out, _ = built
    page = (out / "small" / "report.html").read_text()
    order = ["Question.", "Design.", "verdict-table", "S1 — ", "The evidence, cell by cell", "Factorial ANOVA",
             "<h2 id=\"Figures\"", "Hoefler", "Cell summaries", "<details class='netrepro-folded'>",
             "What became of every file", "Host and tools"]
    positions = [page.find(marker) for marker in order]
    assert -1 not in positions, [m for m, p in zip(order, positions) if p < 0]
    assert positions == sorted(positions), sorted(zip(positions, order))
    assert page.count("Real measurements.") == 1  # the banner once, not once per notebook
    assert "01 · Ingest" not in page and "03 · Hypotheses" not in page  # the notebooks' own titles are for JupyterLab
    folded = page[page.index("<details class='netrepro-folded'>"):]
    assert folded.index("</details>") > folded.index("Host and tools")


@pytest.mark.slow  # the report of the netperf runs is built once (~20 s)
def test_the_static_report_leaves_out_the_live_widget(built):
    _, out, _ = built
    executed = (out / "small" / "notebooks" / "02_explore.ipynb").read_text()
    assert "Explore interactively" in executed  # the notebook has it for JupyterLab ...
    page = (out / "small" / "report.html").read_text()
    assert "Explore interactively" not in page and "VBox(children" not in page  # ... the HTML page does not


@pytest.mark.slow  # the report of the netperf runs is built once (~20 s)
def test_verdict_table_matches_the_library(built):
    camp, out, _ = built
    written = pd.read_csv(out / "small" / "tables" / "verdicts.csv")
    expected = evaluate_hypotheses(one_row_per_run(load_campaign(camp).runs), out.parent / "hyp" / "small.yaml")
    assert list(written["id"]) == list(expected["id"]) == ["S1"]
    assert written.loc[0, "verdict"] == expected.loc[0, "verdict"]
    assert written.loc[0, "p"] == pytest.approx(expected.loc[0, "p"], rel=1e-9)
    assert written.loc[0, "summary"] == expected.loc[0, "summary"]


def test_a_failing_notebook_names_notebook_cell_and_error(tmp_path):
    camp = tmp_path / "raw" / "broken"
    camp.mkdir(parents=True)
    (camp / "manifest.yaml").write_text("campaign: {title: t, synthetic: false}\nfiles: {templates: ['{run}.txt']}\n")
    with pytest.raises(ReportError, match=r"broken: notebook 01_ingest, cell \d+: \w+"):
        build_report([camp], tmp_path / "reports", hypotheses_dir=tmp_path, papers=False, echo=lambda *_: None)


@pytest.fixture()
def served(built):
    """The report folder served over HTTP on loopback, stopped after the test."""
    import functools
    import http.server
    import threading

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):  # no line per request on stderr
            pass

    _, out, _ = built
    handler = functools.partial(Quiet, directory=str(out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture()
def browser():
    pytest.importorskip("selenium.webdriver")
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        pytest.skip("Debian's chromium and chromium-driver are not installed (scripts/install-system.sh installs them)")
    with tempfile.TemporaryDirectory(prefix="nr-chromium-") as scratch:
        driver = offline_browser.browser(Path(scratch))
        yield driver
        driver.quit()


def _resolves(browser, url_prefix):
    """Every link and image of the page in the browser: links to files answer 200
    (a link within the page finds its anchor), images are loaded and drawn."""
    from urllib.request import urlopen

    from selenium.webdriver.common.by import By

    links = [a.get_attribute("href") for a in browser.find_elements(By.TAG_NAME, "a")]
    for link in links:
        page, _, anchor = link.partition("#")
        if page == browser.current_url.partition("#")[0] and anchor:
            assert browser.execute_script("return document.getElementById(decodeURIComponent(arguments[0])) !== null",
                                          anchor), link
            continue
        assert link.startswith(url_prefix), link  # nothing points off the report folder
        with urlopen(link, timeout=10) as response:
            assert response.status == 200, link
    images = browser.execute_script(
        "return Array.from(document.images).map(i => [i.src, i.complete && i.naturalWidth > 0, i.loading])")
    assert images
    for src, drawn, loading in images:
        if drawn:
            continue
        assert loading == "lazy", src[:80]  # not drawn yet only when the browser may wait (a folded gallery)
        with urlopen(src, timeout=10) as response:
            assert response.status == 200 and response.read(8) == b"\x89PNG\r\n\x1a\n", src
    return links


@pytest.mark.slow  # the report of the netperf runs is built once (~20 s)
def test_report_in_a_real_browser(served, browser, tmp_path):
    """One browser session: the index and a campaign page at 1280×900, each
    screenshot; the verdict table is on the first screen, no table cell is cut
    short ("…"), every link and image resolves, the ingest account is folded."""
    from selenium.webdriver.common.by import By

    browser.set_window_size(1280, 900)
    browser.get(f"{served}/index.html")
    assert browser.title == "netrepro reports"
    assert browser.save_screenshot(str(tmp_path / "index.png"))
    links = _resolves(browser, served)
    assert any(l.endswith("small/report.html") for l in links) and any(l.endswith(".png") for l in links)
    card = browser.find_element(By.ID, "small")
    assert card.find_element(By.CLASS_NAME, "verdicts").text  # verdict counts on the card
    assert card.find_element(By.CLASS_NAME, "thumb").get_attribute("src").endswith("claim_S1_throughput_mbps.png")

    browser.get(next(l for l in links if l.endswith("small/report.html")))
    assert browser.save_screenshot(str(tmp_path / "campaign.png"))
    assert (tmp_path / "campaign.png").stat().st_size > 10_000
    table = browser.find_element(By.CSS_SELECTOR, "table.verdict-table")
    top, bottom, height = browser.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return [r.top, r.bottom, window.innerHeight]", table)
    assert 0 <= top and bottom <= height, f"verdict table at {top}-{bottom} px, first screen is {height} px"
    headers = [th.text for th in table.find_elements(By.TAG_NAME, "th")]
    assert headers[:4] == ["id", "statement", "verdict", "reason"]  # no index column first
    statement = table.find_elements(By.TAG_NAME, "td")[1].text
    assert statement == "netperf TCP throughput is higher over IPv4 than over IPv6 at every size"
    cells = browser.execute_script("return Array.from(document.querySelectorAll('td, th')).map(c => c.textContent)")
    cut = [c for c in cells if "…" in c or c.rstrip().endswith("...")]
    assert not cut, cut[:5]
    _resolves(browser, served)
    body = browser.find_element(By.TAG_NAME, "body").text
    assert "Hoefler" in body and "What became of every file" not in body  # folded: not shown until opened
    browser.find_element(By.CSS_SELECTOR, "details.netrepro-folded > summary").click()
    assert "What became of every file" in browser.find_element(By.TAG_NAME, "body").text


@pytest.mark.slow  # every study page is built once per session (minutes)
def test_a_study_reproduction_runs_headless(papers_build):
    """A study's notebook run headless through papermill, as the session's build
    (``papers_build``) ran it: its page, figures and tables where the report keeps them."""
    out, reports = papers_build
    report = reports["002_6c0e8c5c95705e2f"]
    assert report.html == out / "papers" / "002_6c0e8c5c95705e2f" / "report.html"
    assert report.figures and report.tables
    assert "002_6c0e8c5c95705e2f" in report.html.read_text()


def test_a_shared_kernel_gives_each_notebook_an_empty_namespace(tmp_path):
    """The four notebooks of a campaign share one kernel (imports once), but
    none may lean on another's variables: each starts cleared, counting from 1."""
    import nbformat

    from analysis.report.kernels import SharedKernel
    from analysis.report.pipeline import run_notebook

    for name, source in (("first", "x = 41"), ("second", "x + 1")):
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
        nbformat.write(nb, tmp_path / f"{name}.ipynb")
    with SharedKernel(tmp_path) as kernel:
        first = run_notebook(tmp_path / "first.ipynb", {}, tmp_path / "first.out.ipynb", "t", kernel)
        assert first.cells[0].execution_count == 1
        with pytest.raises(ReportError, match=r"t: notebook second, cell 1: NameError: name 'x' is not defined"):
            run_notebook(tmp_path / "second.ipynb", {}, tmp_path / "second.out.ipynb", "t", kernel)


def test_a_cleared_kernel_keeps_what_it_imported_out_of_the_collectors_way(tmp_path):
    """After the clear, the objects left (the imported modules) are frozen out of
    the garbage collector's full collections, which walked all of them again in
    every notebook; what a notebook makes is still collected."""
    import nbformat

    from analysis.report.kernels import SharedKernel
    from analysis.report.pipeline import run_notebook

    source = ("import gc, weakref\n"
              "class Node: pass\n"
              "a, b = Node(), Node(); a.b, b.a = b, a; alive = weakref.ref(a); del a, b\n"
              "gc.collect(); print(gc.get_freeze_count() > 1000, alive() is None)")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(nb, tmp_path / "n.ipynb")
    with SharedKernel(tmp_path) as kernel:
        executed = run_notebook(tmp_path / "n.ipynb", {}, tmp_path / "out.ipynb", "t", kernel)
    assert executed.cells[0].outputs[0]["text"] == "True True\n"


def test_a_kernel_kept_between_tasks_runs_each_notebook_cleared_in_its_own_folder(tmp_path, monkeypatch):
    """The report keeps one kernel per worker thread for all its tasks (a
    campaign's notebooks in notebooks/, a study's in notebooks/papers/): each
    notebook starts with an empty namespace, pandas' display options reset,
    in its own folder, its BLAS limited to the threads the pool was given;
    the pool's kernels stop when it closes."""
    import nbformat

    from analysis.report.kernels import BLAS_THREAD_VARIABLES, KernelPool
    from analysis.report.pipeline import run_notebook

    for name in BLAS_THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    sources = {"a": "import pandas as pd\npd.set_option('display.max_rows', 3)\nx = 41",
               "b": "import os, pandas as pd\nprint(os.getcwd(), pd.get_option('display.max_rows'), 'x' in dir(),"
                    " os.environ['OPENBLAS_NUM_THREADS'])"}
    for folder, source in sources.items():
        (tmp_path / folder).mkdir()
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
        nbformat.write(nb, tmp_path / folder / "n.ipynb")
    pool = KernelPool(blas_threads=3)
    used = []
    try:
        for folder in sources:
            with pool.kernel() as kernel:
                executed = run_notebook(tmp_path / folder / "n.ipynb", {}, tmp_path / f"{folder}.out.ipynb", "t", kernel)
            used.append(kernel)
            assert executed.cells[0].execution_count == 1
        assert executed.cells[0].outputs[0]["text"] == f"{tmp_path / 'b'} 60 False 3\n"
        assert used[0] is used[1] and used[0].manager.has_kernel  # one kernel ran both, and is kept
    finally:
        pool.close()
    assert not used[0].manager.has_kernel


def _kernels_of(pid: int) -> list[int]:
    """Processes started as kernels of process ``pid`` (jupyter_client sets JPY_PARENT_PID)."""
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if f"JPY_PARENT_PID={pid}".encode() in environ.read_bytes().split(b"\0"):
                found.append(int(environ.parent.name))
        except OSError:  # gone, or not ours to read
            pass
    return found


@pytest.mark.slow  # a forced rebuild interrupted, then rebuilt (~30 s)
def test_an_interrupted_build_is_not_done_and_runs_again(built, tmp_path):
    """Ctrl-C in the middle of a rebuild whose inputs did not change (doit
    keeps the earlier success): one line, exit 130, no kernel left running,
    and the next build runs that campaign again instead of taking its
    half-written notebooks as up to date."""
    import os
    import signal
    import subprocess
    import sys
    import time

    camp, out, _ = built
    copy = tmp_path / "reports"
    shutil.copytree(out, copy)  # its .doit.db says the campaign is built
    stamp = copy / "small" / ".built"
    assert stamp.is_file()
    # The build is held after its first notebook, so the signal always lands mid-build: a small
    # campaign could otherwise finish (and be stamped done) between the check and the signal.
    hold = tmp_path / "hold"
    hold.mkdir()
    (hold / "sitecustomize.py").write_text(
        "import pathlib, sys, time\n"
        "if sys.argv[1:2] == ['report']:\n"
        "    import analysis.report.pipeline as pipeline\n"
        "    _run = pipeline.run_notebook\n"
        "    def run_notebook(*args, **kwargs):\n"
        "        done = _run(*args, **kwargs)\n"
        f"        pathlib.Path({str(hold / 'reached')!r}).touch()\n"
        "        time.sleep(60)\n"
        "        return done\n"
        "    pipeline.run_notebook = run_notebook\n")
    env = os.environ | {"NETREPRO_HYPOTHESES": str(out.parent / "hyp"),
                        "PYTHONPATH": os.pathsep.join([str(hold), str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    build = subprocess.Popen([sys.executable, "-m", "analysis.cli", "report", str(camp), "--out", str(copy),
                              "--no-papers", "--force", "-j", "2"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                             preexec_fn=sigint_default)
    try:
        deadline = time.monotonic() + 120
        while build.poll() is None and time.monotonic() < deadline and not (hold / "reached").exists():
            time.sleep(0.05)
        assert build.poll() is None, "the build ended before it could be interrupted"
        build.send_signal(signal.SIGINT)
        _, stderr = build.communicate(timeout=120)
    finally:
        if build.poll() is None:
            build.kill()
            build.wait()
    assert build.returncode == 130, stderr
    assert stderr.splitlines()[-1] == "interrupted: what did not finish is not marked done and runs again on the next build"
    assert "Traceback" not in stderr
    assert not stamp.exists()
    deadline = time.monotonic() + 15  # a kernel leaves once it sees its parent gone (ipykernel polls each second)
    while _kernels_of(build.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _kernels_of(build.pid) == []

    ran: list[str] = []
    build_report([camp], copy, hypotheses_dir=out.parent / "hyp", papers=False, echo=ran.append)
    assert ran == [f"  small: {name}" for name in ("01_ingest", "02_explore", "03_hypotheses", "04_figures")]
    assert stamp.is_file()
    again: list[str] = []
    build_report([camp], copy, hypotheses_dir=out.parent / "hyp", papers=False, echo=again.append)
    assert again == []  # built to the end: up to date


# Offline in Chromium: tests/offline_browser.py reads the pages in a network namespace.
HELPER = Path(__file__).with_name("offline_browser.py")
CDN_SCRIPT = "https://cdn.jsdelivr.net/npm/jquery@3.7.1/dist/jquery.min.js"
PNG = b"\x89PNG\r\n\x1a\n"

needs_offline_chromium = pytest.mark.skipif(
    os.geteuid() != 0 or not all(shutil.which(t) for t in ("chromium", "chromedriver", "unshare", "ip", "pdfinfo",
                                                           "pdftotext")),
    reason="needs root (a network namespace), Debian's chromium, chromium-driver and poppler-utils "
           "(scripts/install-system.sh)")


def read_offline(out: Path, pages: list[str]) -> list[dict]:
    """What Chromium saw on each page (``report.html#C017``: opened at that anchor), in a
    network namespace with only loopback up, and the page printed to PDF."""
    command = ["unshare", "--net", "sh", "-c", 'ip link set lo up && exec "$@"', "offline",
               sys.executable, str(HELPER), str(out), *pages]
    done = subprocess.run(command, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [s["page"] for s in seen] == [p.partition("#")[0] for p in pages]
    return seen


def pdf_text(pdf: Path) -> tuple[int, str]:
    """A PDF's page count and its text (poppler-utils)."""
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True, timeout=60).stdout
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True, timeout=120).stdout
    return int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1)), text


def missing_from(text: str, ids) -> list[str]:
    """The verdict ids (C017) a text does not hold as words."""
    return sorted(set(ids) - set(re.findall(r"\bC\d{3,4}\b", text)))


def resolved_in(folder: Path, seen: dict) -> None:
    """Every link and image of a page read offline resolves inside ``folder``: a
    link to a file names one there (nothing points off the report folder: a study
    page's tables/*.csv, the index's pages and figures), an image is drawn, or (in
    a folded gallery, where the browser may wait) is a PNG there."""
    from urllib.parse import unquote, urlparse

    for link in seen["links"]:
        assert link.startswith(folder.resolve().as_uri()), link
        assert Path(unquote(urlparse(link).path)).is_file(), link
    for src, drawn, loading in seen["images"]:
        if not drawn:
            assert loading == "lazy", src[:80]
            assert Path(unquote(urlparse(src).path)).read_bytes()[:8] == PNG, src


@pytest.mark.netns
@needs_offline_chromium
def test_a_page_asking_a_cdn_is_caught_and_so_are_nan_cells_and_dead_anchors(tmp_path):
    """The checks fail a bad page: a script from a CDN (asked for, though the
    namespace has no network to answer), a NaN cell, a link to no anchor."""
    page = tmp_path / "bad" / "report.html"
    page.parent.mkdir()
    page.write_text(f"<!doctype html><title>Bad</title><script src='{CDN_SCRIPT}'></script><h1>Bad</h1>"
                    "<table><tr><td>NaN</td><td>1.5</td></tr></table><a href='#nowhere'>x</a><p id='here'>ok</p>")
    [seen] = read_offline(tmp_path, [str(page)])
    assert seen["requests"] == [CDN_SCRIPT]
    assert seen["raw_cells"] == ["NaN"] and seen["unresolved"] == ["nowhere"]
    assert seen["sticky"] is None and seen["verdict_rows"] is None


@pytest.mark.netns
@needs_offline_chromium
@pytest.mark.slow  # every study page is built once per session (minutes), then read in Chromium
def test_every_study_page_and_the_index_read_offline(built_papers, tmp_path):
    """Every study page, the overview and the index as a reader opens them, once
    each: in Chromium, in a network namespace with no network (only loopback, for
    chromedriver). No page may ask the network for anything (DevTools' log of
    requests, read by tests/offline_browser.py), no cell reads NaN/None/True/[…]/1e-14,
    every in-page link finds its anchor. A study page: the study's title (not its
    file name) as page title and heading, every verdict id an element and a row of
    the verdicts table once DataTables has arranged it, a link to a verdict
    (opened at #id) brings its row on the first screen, the table's header stays on
    screen when the table is scrolled, the table of contents, a caption per figure,
    a table in a folded section arranged only once the section is opened, and every row
    of the long tables in the page again after printing, which shows their first rows.
    The index names studies by title, with the overview as its header, captioned
    figures, readable thumbnails and links and images that resolve in the report
    folder. Each page printed (its own print form, from the open tab) holds every
    verdict id of the page in its PDF's text; so does a page `make pdf` prints (print_pdf)."""
    from analysis.report.pdf import print_pdf
    from analysis.report.study_page import OVERVIEW_TITLE
    from analysis.reproduce.claims import studies
    from analysis.reproduce.published import load_designs

    stems, designs = studies(), load_designs()
    ids = {s: list(pd.read_csv(built_papers / "papers" / s / "tables" / "verdicts.csv")["id"]) for s in stems}
    pages = [str(built_papers / "index.html"),
             *(f"{built_papers / 'papers' / s / 'report.html'}#{ids[s][len(ids[s]) // 2]}" for s in stems),
             str(built_papers / "papers" / "00_overview" / "report.html")]
    seen = {Path(s["page"]).parent.name: s for s in read_offline(tmp_path, pages)}
    printed = {name: pdf_text(Path(page["pdf"])) for name, page in seen.items()}
    for name, page in seen.items():
        assert page["requests"] == [], (name, page["requests"])
        assert page["raw_cells"] == [], (name, page["raw_cells"])
        assert page["unresolved"] == [], (name, page["unresolved"])
        assert page["title"] and not re.search(STUDY_FILE, page["title"] + page["h1"]), (name, page["title"], page["h1"])
        resolved_in(built_papers, page)
        assert printed[name][0] >= 1, name
        assert page["long_rows"][0] == page["long_rows"][1], name  # every row back once printed
    for stem in stems:
        page, title = seen[stem], designs[stem]["title"]
        assert page["title"] == page["h1"] == title, (stem, page["title"], page["h1"])
        absent = sorted(set(ids[stem]) - set(page["ids"]))
        assert not absent, (stem, len(absent), absent[:5])
        assert page["verdict_rows"] == len(ids[stem]), (stem, page["verdict_rows"], len(ids[stem]))
        assert "contents" in page["ids"], stem  # the table of contents
        figures = list((built_papers / "papers" / stem / "figures").glob("Figure*.png"))
        assert len(page["captions"]) >= len(figures), stem
        target = page["target"]  # opened at the middle verdict's anchor
        assert target["id"] == ids[stem][len(ids[stem]) // 2], (stem, target)
        assert 0 <= target["top"] < target["height"] and target["bottom"] > 0, (stem, target)
        sticky = page["sticky"]
        assert sticky["scrolled"] > 0, (stem, sticky)  # the table's box did scroll
        assert abs(sticky["th_top"] - sticky["box_top"]) <= 2, (stem, sticky)  # and its header stayed at its top
        assert Path(sticky["screenshot"]).stat().st_size > 10_000, stem
        unprinted = missing_from(printed[stem][1], ids[stem])
        assert not unprinted, (stem, len(unprinted), unprinted[:5])
        folded = page["folded_table"]  # arranged only once its section is opened
        if folded is not None:
            assert not folded["arranged_while_folded"] and folded["arranged_when_opened"], (stem, folded)
            assert folded["page_length"] is None or 0 < folded["rows"] <= folded["page_length"], (stem, folded)
    assert any(seen[stem]["folded_table"] for stem in stems)

    index = seen[built_papers.name]
    assert "claims read from their text" in index["header"] and "The studies at a glance" in index["header"]
    assert [c["id"] for c in index["cards"]] == stems  # the overview is the header, not a card
    for card, stem in zip(index["cards"], stems):
        assert card["h3"] == designs[stem]["title"] and "Found." in card["text"], stem
    assert index["figures"] and all(has_image and caption for has_image, caption in index["figures"])
    assert index["thumbs"] and min(index["thumbs"]) >= 400  # readable, not a 220 px stamp
    assert index["images"] and any(link.endswith("/report.html") for link in index["links"])
    overview = seen["00_overview"]
    assert overview["title"] == OVERVIEW_TITLE and overview["file_names_in_cells"] == []  # studies by title

    smallest = min(stems, key=lambda s: len(ids[s]))  # `make pdf`'s own command, on the quickest page to print
    pdf = print_pdf(built_papers / "papers" / smallest / "report.html", tmp_path / "make-pdf.pdf")
    assert not missing_from(pdf_text(pdf)[1], ids[smallest]), smallest


def test_a_study_page_is_rebuilt_when_the_os_campaign_arrives_or_changes(tmp_path, monkeypatch):
    """The study pages set their OS claims beside uml-seeds' contrast, so its fingerprint is one of
    their inputs (the overview's is not)."""
    from analysis.report.tasks import raw_fingerprints, study_task
    from analysis.reproduce.os_contrast import OS_CAMPAIGN

    raw = tmp_path / "raw"
    raw.mkdir()
    monkeypatch.setenv("NETREPRO_RAW", str(raw))
    monkeypatch.setenv("NETREPRO_PROCESSED", str(tmp_path / "processed"))

    def inputs(name: str) -> dict:
        return study_task(name, tmp_path / "out", "code", print, [], raw_fingerprints(), None)["uptodate"][0].config

    assert inputs("000_4e5320b6fe1e825c")["os_campaign"] == ""
    shutil.copytree(ROOT / "data/raw/uml-kernels", raw / OS_CAMPAIGN)
    first = inputs("000_4e5320b6fe1e825c")["os_campaign"]
    assert first and inputs("00_overview")["os_campaign"] == ""
    (raw / OS_CAMPAIGN / "iperf3" / "extra.txt").write_text("a new raw file\n")
    assert inputs("000_4e5320b6fe1e825c")["os_campaign"] not in ("", first)


def test_the_longest_tasks_start_first_and_the_overview_last(tmp_path):
    """doit starts tasks as listed: study 004 (2,431 claims, the longest task of the report) listed last
    by name ran alone at the end of a cold build for 40 s."""
    from analysis.reproduce.claims import studies
    from analysis.report.tasks import longest_first

    small, large = tmp_path / "small", tmp_path / "large"
    for folder, size in ((small, 10), (large, 1000)):
        folder.mkdir()
        (folder / "run.txt").write_bytes(b"x" * size)
    campaigns, ordered = longest_first([small, large], [*studies(), "00_overview"])
    assert campaigns == [large, small]
    assert ordered[0] == "004_a7738a926cf50bd6" and ordered[-1] == "00_overview"
    assert sorted(ordered[:-1]) == studies()


def test_each_kernel_of_a_build_gets_its_share_of_the_cores_for_linear_algebra(monkeypatch):
    """OpenBLAS starts a thread per core in every kernel: two kernels on two cores spun waiting on
    each other's threads (an ANOVA 13x slower). A count the user set is kept."""
    from analysis.report.kernels import blas_threads_per_kernel, kernel_environment

    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    assert [blas_threads_per_kernel(j) for j in (1, 2, 8, 16)] == [8, 4, 1, 1]
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "6")
    env = kernel_environment(2)
    assert env["OPENBLAS_NUM_THREADS"] == "2" and env["OMP_NUM_THREADS"] == "6"
    assert "OPENBLAS_NUM_THREADS" not in kernel_environment(None)
