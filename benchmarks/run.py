"""`make bench`: run every benchmark script in this folder and print its figures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent

if __name__ == "__main__":
    status = 0
    for script in sorted(HERE.glob("bench_*.py")):
        print(f"== {script.name}", flush=True)
        status |= subprocess.call([sys.executable, str(script)])
    sys.exit(status)
