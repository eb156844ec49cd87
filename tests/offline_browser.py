"""Read report pages in Debian's Chromium, as a reader would, and say what it saw.

Run by tests/test_offline_browser.py inside a network namespace of its own
with only loopback up (``unshare --net``), so a page that needs anything from
the network gets nothing. Chromium is driven by chromedriver (selenium); its
DevTools performance log lists every request the page made, so a request to
a CDN is seen even though it fails. Prints one JSON object per page:

- ``requests``: every URL requested that is not the page's own file or data
  inside it (file:, data:, blob:, about:);
- ``title``, ``h1``, ``ids`` (every element id), ``raw_cells`` (cells reading
  NaN/None/True/[…]/1e-14), ``unresolved`` (in-page links without their anchor);
- ``sticky``: for a page with the verdicts table, where its header is after
  the table was scrolled (a screenshot is saved beside the JSON).

Usage: python offline_browser.py OUT_DIR PAGE.html...
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

LOCAL = ("file:", "data:", "blob:", "about:", "chrome:", "devtools:")
# What a reader must never see in a cell: pandas' and Python's spellings of nothing, of truth, of a list, of a tiny float.
RAW_CELL = r"^(nan|NaN|None|NaT|<NA>|True|False|\[.*\]|-?\d+(\.\d+)?e[-+]\d+)$"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")
READY_S = 120  # DataTables arranges study 004's 2,431 rows in a few seconds; a hang is a failure


def browser():
    from selenium import webdriver

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in FLAGS:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(shutil.which("chromedriver")))
    driver.set_page_load_timeout(READY_S)
    driver.set_window_size(1280, 900)
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


def read_page(driver, page: Path, out: Path) -> dict:
    driver.get_log("performance")  # start this page's log empty
    driver.get(page.resolve().as_uri())
    wait_for_tables(driver)
    seen = driver.execute_script(
        "return {title: document.title, h1: (document.querySelector('h1') || {textContent: ''}).textContent.trim(),"
        " ids: Array.from(document.querySelectorAll('[id]')).map(e => e.id),"
        " cells: Array.from(document.querySelectorAll('td, th')).map(c => c.textContent.trim()),"
        " unresolved: Array.from(document.querySelectorAll('a[href^=\"#\"]')).map(a => a.getAttribute('href').slice(1))"
        "   .filter(id => id && !document.getElementById(decodeURIComponent(id)))}")
    cells = seen.pop("cells")
    seen["raw_cells"] = [c for c in cells if re.match(RAW_CELL, c)][:20]
    seen["page"] = str(page)
    seen["sticky"] = sticky_header(driver, out / f"{page.parent.name}-sticky.png")
    seen["requests"] = requests_made(driver)
    return seen


def main(argv: list[str]) -> int:
    out, pages = Path(argv[0]), [Path(p) for p in argv[1:]]
    driver = browser()
    try:
        for page in pages:
            print(json.dumps(read_page(driver, page, out)), flush=True)
    finally:
        driver.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
