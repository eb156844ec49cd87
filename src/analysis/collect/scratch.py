"""The collector's local scratch folders, and finding those a killed collector left.

Each folder is made in the temporary directory under one of the collector's
name prefixes and holds an owner file with the PID that made it. A folder
whose owner no longer runs is a leftover ``--cleanup`` may remove; a folder
without the owner file, or not ours, is never touched.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path

OWNER_FILE = ".netrepro-owner.json"
NAMES = re.compile(r"^(?:netrepro-nr-[0-9a-f]{6}-|nr-ssh-)")  # testbed scratch (D-ITG logs, server cwd); SSH control folders


def make_scratch(prefix: str) -> Path:
    """A new scratch folder named ``prefix...`` in the temporary directory, its owner recorded."""
    if not NAMES.match(prefix):
        raise ValueError(f"{prefix!r} is not one of the collector's scratch prefixes")
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    (folder / OWNER_FILE).write_text(json.dumps({"pid": os.getpid()}))
    return folder


def owner_of(folder: Path) -> int | None:
    """The PID its owner file names (None: no readable owner file)."""
    try:
        return int(json.loads((folder / OWNER_FILE).read_text())["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def stale_scratch(root: Path | None = None) -> list[Path]:
    """Scratch folders the collector made (name and owner file) whose owner no longer runs."""
    base = root or Path(tempfile.gettempdir())
    out = []
    for folder in sorted(base.iterdir()):
        if not NAMES.match(folder.name) or folder.is_symlink() or not folder.is_dir():
            continue
        if folder.stat().st_uid != os.getuid():
            continue
        pid = owner_of(folder)
        if pid is not None and not Path(f"/proc/{pid}").exists():
            out.append(folder)
    return out


def remove_stale_scratch(root: Path | None = None) -> list[Path]:
    """Remove :func:`stale_scratch`; the folders removed."""
    removed = []
    for folder in stale_scratch(root):
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists():
            removed.append(folder)
    return removed
