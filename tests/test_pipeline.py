"""The papermill pipeline on a small real campaign, into a temporary folder."""

import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from analysis.ingest.campaign import load_campaign
from analysis.verdicts import evaluate_hypotheses
from analysis.ingest.per_run import one_row_per_run
from analysis.report.pipeline import ReportError, build_report

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
    assert not list((small / "figures").glob("*.svg"))  # PNG only: the report shows and links PNGs
    page = (small / "report.html").read_text()
    assert "Hoefler" in page and "S1" in page and "Real measurements" in page
    assert "small/report.html" in index.read_text()


def test_the_static_report_leaves_out_the_live_widget(built):
    _, out, _ = built
    executed = (out / "small" / "notebooks" / "02_explore.ipynb").read_text()
    assert "Explore interactively" in executed  # the notebook has it for JupyterLab ...
    page = (out / "small" / "report.html").read_text()
    assert "Explore interactively" not in page and "VBox(children" not in page  # ... the HTML page does not


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

    _, out, _ = built
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    handler.log_message = lambda *a, **k: None
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture()
def browser():
    webdriver = pytest.importorskip("selenium.webdriver")
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        pytest.skip("Debian's chromium and chromium-driver are not installed (scripts/install-system.sh installs them)")
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                 "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"):
        options.add_argument(flag)
    service = webdriver.ChromeService(executable_path=shutil.which("chromedriver"))
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def test_report_in_a_real_browser(served, browser):
    from urllib.request import urlopen

    from selenium.webdriver.common.by import By

    browser.get(f"{served}/index.html")
    assert browser.title == "netrepro reports"
    links = [a.get_attribute("href") for a in browser.find_elements(By.TAG_NAME, "a")]
    assert any(l.endswith("small/report.html") for l in links) and any(l.endswith(".png") for l in links)
    for link in links:  # every link of the index resolves
        with urlopen(link, timeout=10) as response:
            assert response.status == 200, link
    browser.get(next(l for l in links if l.endswith("report.html")))
    images = browser.find_elements(By.TAG_NAME, "img")
    assert images, "the report shows its figures"
    rendered = browser.execute_script("return Array.from(document.images).map(i => i.complete && i.naturalWidth > 0)")
    assert all(rendered)
    assert "Hoefler" in browser.find_element(By.TAG_NAME, "body").text


def test_a_study_reproduction_runs_headless(tmp_path):
    from analysis.report.pipeline import PAPER_DIR, build_paper

    report = build_paper(PAPER_DIR / "002_6c0e8c5c95705e2f.ipynb", tmp_path, echo=lambda *_: None)
    assert report.html == tmp_path / "papers" / "002_6c0e8c5c95705e2f" / "report.html"
    assert report.figures and report.tables
    assert "002_6c0e8c5c95705e2f" in report.html.read_text()
