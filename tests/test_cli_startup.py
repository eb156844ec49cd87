"""The command line starts fast: `netrepro --help` and a one-file `parse`
import none of the heavy libraries (pandas, pandera, the collector), which
took 1.6 s of every call. `make bench` times them; this keeps the imports out."""

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
IPERF3_RUN = ROOT / "data/raw/demo-loopback/iperf3/ipv6/UDP/1408/run4.json"
HEAVY = ("pandas", "pandera", "pyarrow", "scipy", "statsmodels", "matplotlib", "analysis.collect.plan",
         "analysis.ingest.manifest")
# Run the command as `netrepro` would, then name, at exit, the heavy modules it imported.
PROBE = """
import atexit, runpy, sys
heavy = {heavy!r}
atexit.register(lambda: print("IMPORTED", sorted(m for m in heavy if m in sys.modules), file=sys.stderr))
sys.argv = ["netrepro", *{args!r}]
runpy.run_module("analysis.cli", run_name="__main__")
"""


def imported_by(*args: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", PROBE.format(heavy=HEAVY, args=list(args))],
                          capture_output=True, text=True, env=env, timeout=120)
    line = next(l for l in done.stderr.splitlines() if l.startswith("IMPORTED "))
    return done, ast.literal_eval(line.removeprefix("IMPORTED "))


@pytest.mark.parametrize("args", [["--help"], ["collect", "--help"], ["manifest", "init", "--help"]])
def test_help_imports_no_heavy_library(args):
    done, heavy = imported_by(*args)
    assert done.returncode == 0, done.stderr
    assert "Usage" in done.stdout
    assert heavy == []


def test_parsing_one_file_imports_no_heavy_library():
    done, heavy = imported_by("parse", str(IPERF3_RUN))
    assert done.returncode == 0, done.stderr
    assert '"tool": "iperf3"' in done.stdout
    assert heavy == []
