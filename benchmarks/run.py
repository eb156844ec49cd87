"""`make bench`: every benchmark script in this folder, each printing its figures.

The working loop (`--help`, `parse`, the tests) and the report's rebuilds come
first; then ingest, the readers, and the simulations that write their tables
into docs/statistics.md."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
FIRST = ("bench_loop.py", "bench_report.py")

if __name__ == "__main__":
    print(f"== {os.cpu_count()} cores", flush=True)
    status = 0
    scripts = [HERE / name for name in FIRST] + sorted(p for p in HERE.glob("bench_*.py") if p.name not in FIRST)
    for script in scripts:
        print(f"== {script.name}", flush=True)
        status |= subprocess.call([sys.executable, str(script)])
    sys.exit(status)
