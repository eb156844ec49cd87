"""netrepro: raw outputs of network benchmark tools -> tidy tables,
hypothesis verdicts, figures and reports."""

import hashlib
from pathlib import Path

__version__ = "0.1.0"


def source_fingerprint() -> str:
    """A hash of this package's version and source files, read now: which
    netrepro code runs (the report re-runs its notebooks when it changes;
    ingest refuses a Dask worker that runs other code)."""
    digest = hashlib.sha256(__version__.encode())
    root = Path(__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()
