"""Shared fixtures: property tests are deterministic unless asked otherwise.
Every test session (and every pytest-xdist worker) writes only into its own
temporary folders: the root conftest.py sets them, for the notebooks too."""

from __future__ import annotations

import fcntl
import gc
import os
import pickle
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.configuration import set_hypothesis_home_dir

from analysis import config

REPO = Path(__file__).resolve().parents[1]

# `make test` (and so CI): derandomised, no deadline, no example database -> the same
# inputs on every run and every machine.  `make fuzz` loads "dev": random and long.
# `make test-fast` loads "fast": "ci"'s fixed seed with a fifth of its inputs (20 per
# test; a test that asks for N draws examples(N), tests/budget.py), for the quick loop.
settings.register_profile("ci", derandomize=True, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("fast", settings.get_profile("ci"), max_examples=20)
settings.register_profile("dev", deadline=None, max_examples=5000,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# Hypothesis keeps two caches that depend only on what they were computed from, each
# file named by it: its Unicode tables (which characters utf-8 encodes, the categories:
# some 5 s of CPU in each process that first draws text; named by the Python's Unicode
# version and the tables' format) and the constants of every module of src/ it finds
# imported (ast-parsed while collecting, ~0.8 s of CPU in each pytest process; named by
# the hash of the module's source). Kept between runs outside the checkout (XDG cache),
# as Hypothesis itself would keep them in .hypothesis/, and copied into each session's
# own folder: a module edited since gets a new file, computed once.
KEPT_CACHES = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "netrepro"
HYPOTHESIS_CACHES = {"unicode_data": KEPT_CACHES / "hypothesis-unicode",
                     "constants": KEPT_CACHES / "hypothesis-constants"}


def pytest_configure(config):  # noqa: D103 - pytest hook
    config.addinivalue_line("markers", "slow: takes more than a few seconds (deselect with -m 'not slow')")
    # Hypothesis caches what it learns (the code's constants, Unicode tables) in
    # .hypothesis/ of the working directory, already while collecting: give each
    # session (each xdist worker) its own folder instead, removed at the end.
    config.hypothesis_home = Path(tempfile.mkdtemp(prefix="netrepro-hypothesis-"))
    set_hypothesis_home_dir(config.hypothesis_home)
    for name, kept in HYPOTHESIS_CACHES.items():
        if kept.is_dir():
            shutil.copytree(kept, config.hypothesis_home / name)


def pytest_unconfigure(config):  # noqa: D103 - pytest hook
    for name, kept in HYPOTHESIS_CACHES.items():  # what this session computed, for the next runs
        _keep_new_files(config.hypothesis_home / name, kept)
    shutil.rmtree(config.hypothesis_home, ignore_errors=True)


def _keep_new_files(cache: Path, kept: Path) -> None:
    """Copy the files of ``cache`` that ``kept`` lacks into it, each replaced whole
    (a partial copy never carries the final name); an unwritable ``kept`` is left as
    it is: the next run computes them again."""
    try:
        for path in cache.rglob("*"):
            target = kept / path.relative_to(cache)
            if path.is_file() and not path.name.startswith(".") and not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                partial = target.with_name(f".{target.name}.{os.getpid()}")
                shutil.copyfile(path, partial)
                partial.replace(target)
    except OSError:
        pass


# The files that take longest (a `make test` on 2 quiet cores, three workers, 2026-12-02: 1,006 s
# of test time in all: the study pages built and read in Chromium 201 s, the UML guests 151 s, the
# SSH and namespace campaigns ~70 s each, the simulations 37-52 s, the heaviest notebooks ~20 s),
# longest first. Under `--dist loadfile --no-loadscope-reorder` a worker takes whole files in this
# order, so the long ones start first and the short ones fill in at the end; pytest-xdist's own
# order (most tests first) left the single-test calibration for last while the other worker idled,
# and the overview notebook (21 s), unranked, ran last of all.
LONG_FIRST = (
    "tests/test_pipeline.py", "tests/collect/test_uml_live.py", "tests/collect/test_ssh_live.py",
    "tests/collect/test_live.py", "tests/verdicts/test_sequential_simulation.py", "tests/test_explorer.py",
    "tests/reproduce/test_evaluator.py", "tests/verdicts/test_calibration.py", "tests/reproduce/test_scope.py",
    "tests/test_bundled_hypotheses.py", "notebooks/papers/00_overview.ipynb", "tests/verdicts/test_cells.py",
    "notebooks/04_figures.ipynb", "notebooks/papers/study.ipynb", "tests/test_ingest_dask.py",
    "tests/stats/test_two_groups.py", "tests/test_nbval_outputs.py", "tests/parsers/test_ditg_text.py",
    "tests/reproduce/test_own_data.py", "tests/test_offline_pages.py", "tests/test_ready_client.py",
    "tests/test_ingest_safety.py", "tests/collect/test_live_until_decided.py", "notebooks/03_hypotheses.ipynb",
)


def pytest_collection_finish(session):  # noqa: D103 - pytest hook
    # What collection imported (pandas, scipy, statsmodels, matplotlib, the tests)
    # stays for the whole run: frozen out of the garbage collector's full
    # collections, which walked all of it again every time (as the report's kernels do).
    gc.freeze()


def pytest_collection_modifyitems(config, items):  # noqa: D103 - pytest hook
    missing = [path for path in LONG_FIRST if not (REPO / path).is_file()]
    if missing:  # renamed: say so rather than fall back to an unbalanced order unnoticed
        raise pytest.UsageError(f"tests/conftest.py: LONG_FIRST names {missing}, which do not exist")
    rank = {path: i for i, path in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))  # stable: each file's own order kept


def normalise(text: str) -> str:
    """Whitespace-insensitive text, as docs/reproductions.md promises for quotes."""
    return re.sub(r"\s+", " ", text).strip()


@pytest.fixture(scope="session")
def normalised():
    return normalise


@pytest.fixture(scope="session")
def paper_text():
    """study stem -> whitespace-normalised text of the study."""
    from analysis.reproduce.claims import studies

    folder = config.papers_dir()
    if not folder.is_dir():
        pytest.skip(f"study texts not found at {folder} (set NETREPRO_PAPERS)")
    return {s: normalise((folder / f"{s}.txt").read_text(encoding="utf-8")) for s in studies()}


@pytest.fixture(scope="session")
def papers_build(tmp_path_factory):
    """Every study's page and the overview, built as `netrepro report` builds
    them (one kernel for all), and the index: once per test session. The
    output folder, and what ``build_paper`` returned for each page."""
    from analysis.report.kernels import KernelPool
    from analysis.report.pipeline import build_paper, write_index_from
    from analysis.reproduce.claims import studies

    out = tmp_path_factory.mktemp("papers")
    kernels = KernelPool()
    try:
        reports = {name: build_paper(name, out, echo=lambda *_: None, kernels=kernels)
                   for name in [*studies(), "00_overview"]}
    finally:
        kernels.close()
    write_index_from(out)
    return out, reports


@pytest.fixture(scope="session")
def built_papers(papers_build):
    """The folder of ``papers_build``: every study page, the overview and the index."""
    return papers_build[0]


def _run_folder(tmp_path_factory) -> Path:
    """The temporary folder of the whole test run, which every pytest-xdist worker sees."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture
def sole_cleanup(tmp_path_factory):
    """Held for the whole of a test that leaves a stopped collector's leftovers and
    checks what `collect --cleanup` finds: that command removes every stopped
    collector's leftovers on the host, another worker's test's too, so such tests
    take turns across the workers (a file lock in the run's folder)."""
    with open(_run_folder(tmp_path_factory) / "collect-cleanup.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _shared_across_workers(tmp_path_factory, kind: str, compute):
    """key -> a fresh copy of ``compute(key)``, computed once per test run: the
    pytest-xdist workers share each value through a pickle in the run's temporary
    folder (the first to ask computes it under a lock, the others wait and read
    it); every call unpickles a new copy, so a test may change what it gets."""
    shared = _run_folder(tmp_path_factory) / kind
    shared.mkdir(exist_ok=True)

    def value(key: str):
        stored = shared / f"{key}.pickle"
        with open(shared / f"{key}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not stored.exists():
                partial = stored.with_suffix(".partial")
                partial.write_bytes(pickle.dumps(compute(key)))
                partial.replace(stored)
        return pickle.loads(stored.read_bytes())

    return value


@pytest.fixture(scope="session")
def reproduced():
    """study -> ``reproduce_study(study)``, computed once per test run: study 004
    takes some 10 s of CPU and five test files read its reproduction. The store the
    study pages read (``stored_reproduction``: the session's studies folder, shared
    by the workers, see the root conftest.py), a fresh copy per call.
    Only for tests that read a reproduction of the bundled claims and records:
    one that changes NETREPRO_CLAIMS or the records calls reproduce_study itself."""
    from analysis.reproduce.summaries import stored_reproduction

    return stored_reproduction


@pytest.fixture(scope="session")
def record_of(tmp_path_factory):
    """study -> ``load_record(study)``, read once per test run: the thesis's claims
    file (004) takes some 2 s of CPU to parse and validate, and several test files
    read it; unpickling a copy takes 0.03 s. Shared by the workers, a fresh copy
    per call (``_shared_across_workers``), before any of its indexes is built.
    Only for the bundled claims and records: a test that changes NETREPRO_CLAIMS
    or the records calls load_record itself."""
    from analysis.reproduce.lookup import load_record

    return _shared_across_workers(tmp_path_factory, "records", load_record)
