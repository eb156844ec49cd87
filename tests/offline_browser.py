"""Read report pages in Debian's Chromium, as a reader would, print each, and say what it saw.

Run by tests/test_pipeline.py inside a network namespace of its own with only
loopback up (``unshare --net``), so a page that needs anything from the
network gets nothing. Chromium is driven by chromedriver (selenium); its
DevTools performance log lists every request the page made, so a request to
a CDN is seen even though it fails. Each page is opened once, at the fragment
it is given (``report.html#C017``, as a link to a verdict opens it), read,
then printed from the same tab. Prints one JSON object per page:

- ``requests``: every URL requested that is not the page's own file or data
  inside it (file:, data:, blob:, about:);
- ``title``, ``h1``, ``ids`` (every element id), ``raw_cells`` (cells reading
  NaN/None/True/[…]/1e-14), ``file_names_in_cells`` (a study's file name, where
  a reader should read its title), ``unresolved`` (links within the page without their anchor);
- ``target``: where the element the fragment names is on the first screen (its
  top and bottom, the window's height), once the tables are arranged;
- ``verdict_rows`` (rows of the verdicts table), ``captions`` (the figures' caption ids);
- the index's ``header`` text, ``cards`` (id, heading, text), ``figures``
  (an image? its caption), ``thumbs`` (widths); on every page ``links`` to
  other files and ``images`` (src, drawn, loading);
- ``sticky``: for a page with the verdicts table, where its header is after
  the table was scrolled (a screenshot is saved beside the JSON);
- ``pdf``: the page printed to PDF (DevTools' Page.printToPDF, the page's own
  page size, as `make pdf` prints), beside the JSON;
- ``folded_table``: the first folded section holding an interactive table
  opened (before printing, which opens them all): whether DataTables had
  arranged it while folded, whether it did once opened, its rows shown and
  its page length;
- ``long_rows``: the rows of the long tables before printing and after (a
  page sets aside what it does not print, and must put every row back).

Usage: python offline_browser.py OUT_DIR PAGE.html[#ID]...
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

LOCAL = ("file:", "data:", "blob:", "about:", "chrome:", "devtools:")
# What a reader must never see in a cell: pandas' and Python's spellings of nothing, of truth, of a list, of a tiny float.
RAW_CELL = r"^(nan|NaN|None|NaT|<NA>|True|False|\[.*\]|-?\d+(\.\d+)?e[-+]\d+)$"
STUDY_FILE = r"\d{3}_[0-9a-f]{16}"  # a study's file name, never what a reader reads where its title belongs
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")
READY_S = 120  # DataTables arranges study 004's 2,431 rows in a few seconds; a hang is a failure
WINDOW = (1280, 900)

# Everything read from the page in one script, once its tables are arranged.
SEEN = """
const text = e => (e || {textContent: ''}).textContent.trim();
const box = id => { const e = id ? document.getElementById(id) : null;
  return e && {id: id, top: e.getBoundingClientRect().top, bottom: e.getBoundingClientRect().bottom,
               height: window.innerHeight}; };
const here = location.href.split('#')[0];
return {title: document.title, h1: text(document.querySelector('h1')),
  target: box(decodeURIComponent(location.hash.slice(1))),
  ids: Array.from(document.querySelectorAll('[id]')).map(e => e.id),
  cells: Array.from(document.querySelectorAll('td, th')).map(c => c.textContent.trim()),
  unresolved: Array.from(document.links).filter(a => a.href.split('#')[0] === here && a.hash)
    .map(a => decodeURIComponent(a.hash.slice(1))).filter(id => !document.getElementById(id)),
  verdict_rows: document.querySelector('table.verdicts-table')
    ? document.querySelectorAll('table.verdicts-table tbody tr').length : null,
  captions: Array.from(document.querySelectorAll('p.caption[id]')).map(p => p.id),
  header: text(document.querySelector('header')),
  cards: Array.from(document.querySelectorAll('section.card')).map(c => ({id: c.id,
    h3: text(c.querySelector('h3')), text: c.innerText})),
  figures: Array.from(document.querySelectorAll('figure')).map(f => [f.querySelector('img') !== null,
    text(f.querySelector('figcaption'))]),
  thumbs: Array.from(document.querySelectorAll('img.thumb')).map(i => i.width),
  links: Array.from(document.links).map(a => a.href).filter(h => h.split('#')[0] !== here),
  images: Array.from(document.images).map(i => [i.src.startsWith('data:') ? 'data:' : i.src,
    i.complete && i.naturalWidth > 0, i.loading])};
"""


def browser(scratch: Path):
    """Chromium driven by chromedriver, its temporary files in ``scratch`` (a short path: its
    profile's socket lives there): it leaves an org.chromium.Chromium.* folder (its
    SingletonSocket and SingletonCookie) in TMPDIR behind, one in /tmp per test run before."""
    from selenium import webdriver

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in FLAGS:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    service = webdriver.ChromeService(shutil.which("chromedriver"), env=os.environ | {"TMPDIR": str(scratch)})
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(READY_S)
    driver.set_window_size(*WINDOW)
    return driver


def requests_made(driver) -> list[str]:
    """Every URL the page asked for since the log was last read (DevTools Network events)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return [u for u in urls if not u.startswith(LOCAL)]


def wait_for_tables(driver) -> None:
    """A page with interactive tables (interactive.py) marks itself ready once they are arranged."""
    from selenium.webdriver.support.ui import WebDriverWait

    if driver.execute_script("return document.querySelector('script[type=module]') !== null"):
        WebDriverWait(driver, READY_S).until(lambda d: d.execute_script(
            "return document.documentElement.dataset.tablesReady"))


def sticky_header(driver, screenshot: Path) -> dict | None:
    """Scroll the verdicts table's box and say where its header row is, beside the box's top."""
    box = driver.execute_script("const t = document.querySelector('table.verdicts-table');"
                                "return t && t.closest('.dt-layout-cell')")
    if box is None:
        return None
    driver.execute_script("arguments[0].scrollIntoView(); arguments[0].scrollTop = 1500;", box)
    found = driver.execute_script(
        "const box = arguments[0], th = box.querySelector('thead th');"
        "return {box_top: box.getBoundingClientRect().top, th_top: th.getBoundingClientRect().top,"
        " scrolled: box.scrollTop, th_text: th.textContent.trim()}", box)
    driver.save_screenshot(str(screenshot))
    found["screenshot"] = str(screenshot)
    return found


# A folded section's interactive table: not arranged while folded, arranged once opened (interactive.py).
UNFOLD = """
const done = arguments[arguments.length - 1];
const table = Array.from(document.querySelectorAll('table.netrepro-interactive'))
  .find(t => t.closest('details:not([open])'));
if (!table) { done(null); return; }
const options = JSON.parse(table.dataset.options || '{}');
const folded = {arranged_while_folded: table.closest('.dt-container') !== null, page_length: options.pageLength || null};
table.closest('details:not([open])').open = true;
const started = Date.now();
(function look() {
  if (table.closest('.dt-container') === null && Date.now() - started < 10000) { setTimeout(look, 50); return; }
  done(Object.assign(folded, {arranged_when_opened: table.closest('.dt-container') !== null,
                              rows: table.querySelectorAll('tbody tr').length}));
})();
"""


def unfold_a_table(driver) -> dict | None:
    """Open the first folded section holding an interactive table: was it arranged before, is it now."""
    return driver.execute_async_script(UNFOLD)


# The rows of the long tables, in page order (a long table prints its first rows: study_page.PRINT_SCRIPT).
LONG_ROWS = "return Array.from(document.querySelectorAll('table.netrepro-long tbody tr')).map(r => r.id || r.textContent)"


def print_page(driver, pdf: Path) -> str:
    """The open page printed as `make pdf` prints it: its own page size (print.css: A4), no header or footer."""
    printed = driver.execute_cdp_cmd("Page.printToPDF", {"preferCSSPageSize": True, "displayHeaderFooter": False})
    pdf.write_bytes(base64.b64decode(printed["data"]))
    return str(pdf)


def read_page(driver, page: str, out: Path) -> dict:
    path, _, fragment = page.partition("#")
    name = Path(path).parent.name
    driver.get_log("performance")  # start this page's log empty
    driver.get(Path(path).resolve().as_uri() + (f"#{fragment}" if fragment else ""))
    wait_for_tables(driver)
    seen = driver.execute_script(SEEN)
    cells = seen.pop("cells")
    seen["raw_cells"] = [c for c in cells if re.match(RAW_CELL, c)][:20]
    seen["file_names_in_cells"] = sorted({m for c in cells for m in re.findall(STUDY_FILE, c)})
    seen["page"] = path
    seen["sticky"] = sticky_header(driver, out / f"{name}-sticky.png")
    seen["requests"] = requests_made(driver)
    seen["folded_table"] = unfold_a_table(driver)  # before printing, which opens every section
    before = driver.execute_script(LONG_ROWS)
    seen["pdf"] = print_page(driver, out / f"{name}.pdf")
    seen["long_rows"] = [before, driver.execute_script(LONG_ROWS)]
    return seen


def main(argv: list[str]) -> int:
    out, pages = Path(argv[0]), argv[1:]
    with tempfile.TemporaryDirectory(prefix="nr-chromium-") as scratch:
        driver = browser(Path(scratch))
        try:
            for page in pages:
                print(json.dumps(read_page(driver, page, out)), flush=True)
        finally:
            driver.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
