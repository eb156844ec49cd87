"""Root conftest, for the tests and the notebooks (nbval) alike.

nbval starts the notebooks' kernels in notebooks/, where a relative
PYTHONPATH=src finds nothing and the kernel would import whatever
``analysis`` the environment has installed (another checkout's). Put this
checkout's src/ first, as an absolute path, before any kernel starts.

Nothing a test run writes lands in the checkout: ingest's tables and the
report go to a temporary folder of this session (``NETREPRO_PROCESSED``,
``NETREPRO_REPORTS``, inherited by every kernel), and each notebook's ``out``
parameter (``../reports/<campaign>``) is moved under it before nbval runs
the cell, as papermill's parameters would be.

The studies' stored summaries (``<processed>/studies``, what the overview reads
instead of reproducing the five studies) are shared by the session's workers:
each is keyed by everything it depends on and written whole, so a summary one
worker's study page stored is the one another worker's overview would compute
(some 15 s of CPU per run). The campaigns' tables stay each worker's own: tests
ingest changed copies of a campaign under its own name. Dask's workers keep
their scratch space there too.
"""

import ast
import os
import shutil
import tempfile
from pathlib import Path

from analysis import config as netrepro_config

ROOT = Path(__file__).resolve().parent
SRC = str(ROOT / "src")
_rest = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != SRC]
os.environ["PYTHONPATH"] = os.pathsep.join([SRC, *_rest])
CHECKOUT_REPORTS = ROOT / "reports"


SHARED_SUMMARIES = "NETREPRO_TEST_STUDY_SUMMARIES"  # set by the first process (pytest-xdist's workers inherit it)


def pytest_configure(config):  # noqa: D103 - pytest hook
    config.netrepro_scratch = Path(tempfile.mkdtemp(prefix="netrepro-test-outputs-"))
    config.netrepro_owns_summaries = SHARED_SUMMARIES not in os.environ
    if config.netrepro_owns_summaries:
        os.environ[SHARED_SUMMARIES] = tempfile.mkdtemp(prefix="netrepro-test-study-summaries-")
    os.environ["NETREPRO_PROCESSED"] = str(config.netrepro_scratch / "processed")
    summaries = netrepro_config.study_summaries_dir()
    summaries.parent.mkdir()
    summaries.symlink_to(os.environ[SHARED_SUMMARIES], target_is_directory=True)
    os.environ["NETREPRO_REPORTS"] = str(config.netrepro_scratch / "reports")
    os.environ["DASK_TEMPORARY_DIRECTORY"] = str(config.netrepro_scratch / "dask")  # not /tmp/dask-scratch-space


def pytest_unconfigure(config):  # noqa: D103 - pytest hook
    shutil.rmtree(config.netrepro_scratch, ignore_errors=True)
    if config.netrepro_owns_summaries:
        shutil.rmtree(os.environ.pop(SHARED_SUMMARIES), ignore_errors=True)


def moved_out(source: str, notebook: Path, reports: Path) -> str | None:
    """The parameters cell with ``out`` moved from the checkout's reports/ to
    ``reports`` (None: the cell sets no such ``out``)."""
    for node in ast.parse(source).body:
        if (isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["out"]
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            given = (notebook.parent / node.value.value).resolve()
            if given == CHECKOUT_REPORTS or CHECKOUT_REPORTS in given.parents:
                return source + f"\nout = {str(reports / given.relative_to(CHECKOUT_REPORTS))!r}\n"
    return None


def pytest_collection_modifyitems(config, items):  # noqa: D103 - pytest hook
    reports = Path(os.environ["NETREPRO_REPORTS"])
    for item in items:
        cell = getattr(item, "cell", None)  # an nbval cell
        if cell is None or "parameters" not in cell.get("metadata", {}).get("tags", []):
            continue
        moved = moved_out(cell.source, Path(item.path), reports)
        if moved is not None:
            cell.source = moved
