"""The report's three timing targets (issue: the report rebuilds fast):

- cold: every notebook of every campaign and study run, < 3 min on 2 cores;
- warm: a second build with nothing changed, < 10 s;
- one hypothesis file edited: only that campaign re-runs, < 60 s.

Builds into a scratch folder (never reports/) from a copy of the hypothesis
files, so the repository is not touched. Prints the machine's core count.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {"cold": 180.0, "warm": 10.0, "one hypothesis file edited": 60.0}


def build(out: Path, env: dict) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "analysis.cli", "report", "--out", str(out)], check=True, env=env,
                   cwd=ROOT, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> int:
    cores = os.cpu_count()
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        hyp = scratch / "hypotheses"
        shutil.copytree(ROOT / "data" / "hypotheses", hyp)
        env = os.environ | {"NETREPRO_HYPOTHESES": str(hyp), "NETREPRO_PROCESSED": str(scratch / "processed")}
        out = scratch / "reports"
        seconds = {"cold": build(out, env), "warm": build(out, env)}
        edited = hyp / "demo-loopback.yaml"
        edited.write_text(edited.read_text() + "\n# edited by bench_report\n")
        seconds["one hypothesis file edited"] = build(out, env)
    status = 0
    for name, value in seconds.items():
        ok = value < TARGETS[name]
        status |= not ok
        print(f"report {name}: {value:.1f} s on {cores} cores (target < {TARGETS[name]:g} s) {'ok' if ok else 'MISSED'}")
    return status


if __name__ == "__main__":
    sys.exit(main())
