import os
import re
from pathlib import Path

import pytest

from analysis.reproduce.claims import studies

PAPERS = Path(os.environ.get("NETREPRO_PAPERS", Path(__file__).resolve().parents[3] / "shared" / "papers"))


def normalise(text: str) -> str:
    """Whitespace-insensitive text, as docs/reproductions.md promises for quotes."""
    return re.sub(r"\s+", " ", text).strip()


@pytest.fixture(scope="session")
def normalised():
    return normalise


@pytest.fixture(scope="session")
def paper_text():
    """study stem -> normalised text; skips when the papers are not next to the repo."""
    if not PAPERS.is_dir():
        pytest.skip(f"study texts not found at {PAPERS} (set NETREPRO_PAPERS)")
    return {s: normalise((PAPERS / f"{s}.txt").read_text(encoding="utf-8")) for s in studies()}
