"""Every path netrepro reads or writes by default, in one place.

The project folder is found in this order: ``NETREPRO_HOME``; the source
checkout this package runs from (an editable install); the nearest parent
of the working directory that holds ``data/raw``.  Each folder can also be
moved on its own with an environment variable (tests point them at copies).
"""

from __future__ import annotations

import os
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parents[2]


def _looks_like_project(folder: Path) -> bool:
    return (folder / "data" / "raw").is_dir()


def project_root() -> Path:
    """The netrepro project folder (see the module docstring for the order)."""
    if os.environ.get("NETREPRO_HOME"):
        return Path(os.environ["NETREPRO_HOME"]).resolve()
    if _looks_like_project(_CHECKOUT):
        return _CHECKOUT
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if _looks_like_project(folder):
            return folder
    return here


def _path(variable: str, *default: str) -> Path:
    value = os.environ.get(variable)
    return Path(value).resolve() if value else project_root().joinpath(*default)


def raw_dir() -> Path:
    """Campaign folders (raw outputs + manifest): ``NETREPRO_RAW``."""
    return _path("NETREPRO_RAW", "data", "raw")


def processed_dir() -> Path:
    """Where ingest writes its tables: ``NETREPRO_PROCESSED``."""
    return _path("NETREPRO_PROCESSED", "data", "processed")


def study_summaries_dir() -> Path:
    """Where each study's overview numbers are kept (analysis.reproduce.summaries): beside the tables."""
    return processed_dir() / "studies"


def hypotheses_dir() -> Path:
    """One hypothesis file per campaign: ``NETREPRO_HYPOTHESES``."""
    return _path("NETREPRO_HYPOTHESES", "data", "hypotheses")


def reports_dir() -> Path:
    """The report's output folder: ``NETREPRO_REPORTS``."""
    return _path("NETREPRO_REPORTS", "reports")


def published_dir() -> Path:
    """The studies' published record: ``NETREPRO_PUBLISHED``."""
    return _path("NETREPRO_PUBLISHED", "data", "raw", "published")


def claims_dir() -> Path:
    """The studies' claims files: ``NETREPRO_CLAIMS``."""
    return _path("NETREPRO_CLAIMS", "data", "claims")


def notebooks_dir() -> Path:
    """The report's notebooks: ``NETREPRO_NOTEBOOKS``."""
    return _path("NETREPRO_NOTEBOOKS", "notebooks")


def papers_dir() -> Path:
    """The five study texts the reproductions cite (a copy of ``shared/papers``): ``NETREPRO_PAPERS``."""
    return _path("NETREPRO_PAPERS", "data", "papers")
