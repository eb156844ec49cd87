"""Under nbval (`make test`), the notebooks write their tables and figures into
the test session's temporary folder, never into the checkout's reports/ or
data/processed/ (the root conftest.py moves them)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = "notebooks/02_explore.ipynb"  # writes three tables into its `out`


def listing(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``folder`` with its size and modification time (empty: no folder)."""
    return {p.relative_to(folder).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file()} if folder.is_dir() else {}


@pytest.mark.slow  # runs a campaign notebook under nbval in a pytest of its own (~30 s)
def test_nbval_leaves_the_checkouts_reports_and_processed_folders_untouched(tmp_path):
    watched = [ROOT / "reports", ROOT / "data" / "processed"]
    before = [listing(folder) for folder in watched]
    env = {k: v for k, v in os.environ.items() if k not in ("NETREPRO_PROCESSED", "NETREPRO_REPORTS")}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "pytest_fast_start",
                           "--nbval", NOTEBOOK, "--basetemp", str(tmp_path / "base")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout
    assert [listing(folder) for folder in watched] == before
