"""The report on paper: each page printed to PDF by Debian's Chromium, headless
(``make pdf``), beside the page (``report.pdf`` next to ``report.html``).

The page's print stylesheet opens every folded part (:mod:`.export`). Where
it can (as root, with ``unshare``), Chromium prints in a network namespace of
its own with no network: a page needing anything from outside cannot hang
the print, and cannot get it either.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from analysis.errors import ReportError

PRINT_TIMEOUT_S = 180
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-pdf-header-footer", "--run-all-compositor-stages-before-draw")


def chromium() -> str:
    found = shutil.which("chromium")
    if found is None:
        raise ReportError("chromium: not installed (scripts/install-system.sh installs Debian's chromium)")
    return found


def offline_prefix() -> list[str]:
    """``unshare --net`` where this process may make a network namespace (root), else nothing."""
    unshare = shutil.which("unshare")
    return [unshare, "--net"] if unshare and os.geteuid() == 0 else []


def print_pdf(page: Path, pdf: Path) -> Path:
    """Print ``page`` to ``pdf``, written whole or not at all."""
    partial = pdf.with_name(f".{pdf.name}.{os.getpid()}.partial")
    with tempfile.TemporaryDirectory(prefix="netrepro-chromium-") as profile:
        command = [*offline_prefix(), chromium(), *FLAGS, f"--user-data-dir={profile}",
                   f"--print-to-pdf={partial}", page.resolve().as_uri()]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=PRINT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            partial.unlink(missing_ok=True)
            raise ReportError(f"{page}: Chromium did not print it within {PRINT_TIMEOUT_S} s") from None
    if done.returncode != 0 or not partial.is_file() or partial.stat().st_size == 0:
        partial.unlink(missing_ok=True)
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise ReportError(f"{page}: Chromium could not print it (exit {done.returncode}): {last}")
    partial.replace(pdf)
    return pdf


def print_reports(out_root: Path, echo=print) -> list[Path]:
    """Every page of the report under ``out_root`` (campaigns and studies) as report.pdf beside it."""
    pages = sorted(out_root.glob("*/report.html")) + sorted(out_root.glob("papers/*/report.html"))
    if not pages:
        raise ReportError(f"{out_root}: no report pages (run `make report` first)")
    printed = []
    for page in pages:
        printed.append(print_pdf(page, page.with_suffix(".pdf")))
        echo(f"  {printed[-1]}")
    return printed


def main(argv: list[str]) -> int:
    from analysis import config

    out_root = Path(argv[0]) if argv else config.reports_dir()
    try:
        printed = print_reports(out_root)
    except ReportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{len(printed)} pages printed to PDF under {out_root}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
