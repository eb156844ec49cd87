"""The collector's CLI as a child process the interrupt tests can signal."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from interruptible import sigint_default


def start_collector(plan_file: Path, out: Path) -> subprocess.Popen[bytes]:
    """``netrepro collect PLAN --out OUT`` in its own session, output captured."""
    return subprocess.Popen([sys.executable, "-m", "analysis.cli", "collect", str(plan_file), "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
                            preexec_fn=sigint_default)
