"""The report's three timing targets (issue 25, item 7), with the report's own
command, ingest included (each build starts from empty tables):

- cold: every notebook of every campaign and study run, < 90 s on 2 cores;
- warm: a second build with nothing changed, < 5 s;
- one hypothesis file edited: only that campaign re-runs, < 20 s.

Builds into a scratch folder (never reports/ or data/processed) from a copy
of the hypothesis files, so the repository is not touched. Prints wall and
CPU time (user+sys, kernels included) and the machine's core count.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from timing import ROOT, timed

TARGETS = {"cold": 90.0, "warm": 5.0, "one hypothesis file edited": 20.0}


def main() -> int:
    status = 0

    def measured(name: str, timing) -> None:
        nonlocal status
        line, ok = timing.line(f"report {name}", TARGETS[name])
        status |= not ok
        print(line, flush=True)

    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        hyp = scratch / "hypotheses"
        shutil.copytree(ROOT / "data" / "hypotheses", hyp)
        env = os.environ | {"NETREPRO_HYPOTHESES": str(hyp), "NETREPRO_PROCESSED": str(scratch / "processed"),
                            "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
        report = [sys.executable, "-m", "analysis.cli", "report", "--out", str(scratch / "reports")]
        measured("cold", timed(report, env=env))
        measured("warm", timed(report, env=env))
        edited = hyp / "demo-loopback.yaml"
        edited.write_text(edited.read_text() + "\n# edited by bench_report\n")
        measured("one hypothesis file edited", timed(report, env=env))
    return status


if __name__ == "__main__":
    sys.exit(main())
