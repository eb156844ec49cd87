"""The collector's CLI as a child process the interrupt tests can signal."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path


def _interruptible() -> None:
    # A shell that started the tests in the background (nohup, `&`) leaves
    # SIGINT ignored, and Python keeps an inherited SIG_IGN: the test would
    # then check a collector that cannot be interrupted at all.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_collector(plan_file: Path, out: Path) -> subprocess.Popen[bytes]:
    """``netrepro collect PLAN --out OUT`` in its own session, output captured."""
    return subprocess.Popen([sys.executable, "-m", "analysis.cli", "collect", str(plan_file), "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
                            preexec_fn=_interruptible)
