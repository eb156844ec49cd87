"""Every study page and the index as a reader opens them: in Debian's Chromium,
in a network namespace with no network (only loopback, for chromedriver).
No page may ask the network for anything (DevTools' log of requests, read by
tests/offline_browser.py), every verdict id is an element of its page, no
cell reads NaN/None/True/[…]/1e-14, titles are the studies' (not file hashes),
every in-page link finds its anchor, the verdict table's header stays on
screen when the table is scrolled, and the page prints to PDF as `make pdf`
prints it (Chromium headless, offline too). The report is
built once per session (the ``built_papers`` fixture, tests/conftest.py)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

HELPER = Path(__file__).with_name("offline_browser.py")
STUDY_FILE = re.compile(r"\d{3}_[0-9a-f]{16}")  # a study's file name, never its title on a page
CDN_SCRIPT = "https://cdn.jsdelivr.net/npm/jquery@3.7.1/dist/jquery.min.js"

pytestmark = [pytest.mark.netns, pytest.mark.skipif(
    os.geteuid() != 0 or not all(shutil.which(t) for t in ("chromium", "chromedriver", "unshare", "ip", "pdfinfo")),
    reason="needs root (a network namespace), Debian's chromium, chromium-driver and poppler-utils "
           "(scripts/install-system.sh)")]


def read_offline(out: Path, pages: list[Path]) -> list[dict]:
    """What Chromium saw on each page, in a network namespace with only loopback up."""
    command = ["unshare", "--net", "sh", "-c", 'ip link set lo up && exec "$@"', "offline",
               sys.executable, str(HELPER), str(out), *map(str, pages)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [s["page"] for s in seen] == [str(p) for p in pages]
    return seen


def test_a_page_asking_a_cdn_is_caught_and_so_are_nan_cells_and_dead_anchors(tmp_path):
    """The checks fail a bad page: a script from a CDN (asked for, though the
    namespace has no network to answer), a NaN cell, a link to no anchor."""
    page = tmp_path / "bad" / "report.html"
    page.parent.mkdir()
    page.write_text(f"<!doctype html><title>Bad</title><script src='{CDN_SCRIPT}'></script><h1>Bad</h1>"
                    "<table><tr><td>NaN</td><td>1.5</td></tr></table><a href='#nowhere'>x</a><p id='here'>ok</p>")
    [seen] = read_offline(tmp_path, [page])
    assert seen["requests"] == [CDN_SCRIPT]
    assert seen["raw_cells"] == ["NaN"] and seen["unresolved"] == ["nowhere"]
    assert seen["sticky"] is None


@pytest.mark.slow  # every study page is built once per session (minutes), then read in Chromium
def test_every_study_page_and_the_index_read_offline(built_papers, tmp_path):
    from analysis.report.pdf import print_pdf
    from analysis.reproduce.claims import studies

    stems = studies()
    pages = [built_papers / "index.html", *(built_papers / "papers" / s / "report.html" for s in [*stems, "00_overview"])]
    seen = {Path(s["page"]).parent.name: s for s in read_offline(tmp_path, pages)}
    for name, page in seen.items():
        assert page["requests"] == [], (name, page["requests"])
        assert page["raw_cells"] == [], (name, page["raw_cells"])
        assert page["unresolved"] == [], (name, page["unresolved"])
        assert page["title"] and not STUDY_FILE.search(page["title"] + page["h1"]), (name, page["title"], page["h1"])
    for stem in stems:
        ids = set(pd.read_csv(built_papers / "papers" / stem / "tables" / "verdicts.csv")["id"])
        assert not ids - set(seen[stem]["ids"]), (stem, sorted(ids - set(seen[stem]["ids"]))[:5])
        sticky = seen[stem]["sticky"]
        assert sticky["scrolled"] > 0, (stem, sticky)  # the table's box did scroll
        assert abs(sticky["th_top"] - sticky["box_top"]) <= 2, (stem, sticky)  # and its header stayed at its top
    assert set(stems) <= set(seen[built_papers.name]["ids"])  # the index: a card per study
    for page in pages:
        pdf = print_pdf(page, tmp_path / f"{page.parent.name}.pdf")
        info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True, timeout=60).stdout
        assert int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1)) >= 1, page
