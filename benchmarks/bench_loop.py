"""The working loop's timing targets (issue 25):

- `netrepro --help` and a one-file `netrepro parse`: each < 0.5 s (best of 5);
- `make test-fast`: < 60 s;
- `make test` (layers, types, every test on a worker per core): < 5 min, timed only
  when asked (``BENCH_MAKE_TEST=1 make bench``): it takes minutes;
- load_campaign of lan-p2p with its tables current: the fingerprint hashes no
  raw file (shown beside a full fingerprint, which hashes every one).

Each line gives wall and CPU time (user+sys) and the machine's core count; the
tests' commands are what the Makefile runs, from this checkout's sources.
Ingests into a scratch folder, never data/processed.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from timing import ROOT, timed

ENV = os.environ | {"PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
ONE_FILE = ROOT / "data/raw/demo-loopback/iperf3/ipv6/UDP/1408/run4.json"
LAN = ROOT / "data/raw/lan-p2p"
BIN = Path(sys.executable).parent
PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]
TEST_ENV = ENV | {"PYTHONDONTWRITEBYTECODE": "",  # the Makefile's KEEP_BYTECODE and ONE_BLAS_THREAD
                  "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
FAST_TESTS = [*PYTEST, "tests", "-o", "addopts=-ra", "-p", "no:nbval", "-m", "not slow and not netns and not tools",
              "-n", "2", "--dist", "loadfile", "-q"]  # make test-fast, with FAST_ENV
FAST_ENV = TEST_ENV | {"HYPOTHESIS_PROFILE": "fast"}
ALL_TESTS = ([str(BIN / "lint-imports")], [str(BIN / "mypy"), "src/analysis"],
             [*PYTEST, "-p", "pytest_fast_start", "-n", str((os.cpu_count() or 1) + 1), "--dist", "loadfile", "--no-loadscope-reorder", "-q"])  # make test
MAKE_TEST_ASKED = os.environ.get("BENCH_MAKE_TEST") == "1"


def fingerprints(scratch: Path) -> tuple[float, float]:
    """lan-p2p: a full fingerprint, and the one load_campaign takes once its tables are current."""
    sys.path.insert(0, str(ROOT / "src"))
    from analysis.ingest.campaign import current_fingerprint, load_campaign
    from analysis.ingest.ingest import fingerprint

    out = scratch / "lan-p2p"
    load_campaign(LAN, out)
    time.sleep(2.5)  # past the racy window of files ingest just stamped (raw_stamps.RACY_NS)
    current_fingerprint(LAN, out)
    started = time.perf_counter()
    fingerprint(LAN)
    full = time.perf_counter() - started
    started = time.perf_counter()
    current_fingerprint(LAN, out)
    return full, time.perf_counter() - started


def main() -> int:
    netrepro = [sys.executable, "-m", "analysis.cli"]
    timed_runs = [("netrepro --help", lambda: timed([*netrepro, "--help"], env=ENV, repeat=5), 0.5),
                  ("netrepro parse (one file)", lambda: timed([*netrepro, "parse", str(ONE_FILE)], env=ENV, repeat=5), 0.5),
                  ("make test-fast", lambda: timed(FAST_TESTS, env=FAST_ENV), 60.0)]
    if MAKE_TEST_ASKED:
        timed_runs.append(("make test", lambda: timed(*ALL_TESTS, env=TEST_ENV), 300.0))
    status = 0
    for name, run, target in timed_runs:
        line, ok = run().line(name, target)
        status |= not ok
        print(line, flush=True)
    if not MAKE_TEST_ASKED:
        print("make test: not timed (minutes); BENCH_MAKE_TEST=1 make bench times it (target < 300 s wall)")
    if LAN.is_dir():
        with tempfile.TemporaryDirectory() as scratch:
            full, stamped = fingerprints(Path(scratch))
        print(f"lan-p2p fingerprint: {full:.2f} s hashing every raw file, {stamped:.2f} s with the ingest's stamps")
    return status


if __name__ == "__main__":
    sys.exit(main())
