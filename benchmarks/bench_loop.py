"""The working loop's timing targets (issue 25):

- `netrepro --help` and a one-file `netrepro parse`: each < 0.5 s (best of 5);
- `make test-fast`: < 60 s;
- load_campaign of lan-p2p with its tables current: the fingerprint hashes no
  raw file (shown beside a full fingerprint, which hashes every one).

Prints the machine's core count; ingests into a scratch folder, never data/processed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = os.environ | {"PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
ONE_FILE = ROOT / "data/raw/demo-loopback/iperf3/ipv6/UDP/1408/run4.json"
LAN = ROOT / "data/raw/lan-p2p"
FAST_TESTS = [sys.executable, "-m", "pytest", "tests", "-m", "not slow and not netns and not tools",
              "-n", "2", "-q", "-p", "no:cacheprovider"]  # what `make test-fast` runs


def seconds(command: list[str], repeat: int = 1) -> float:
    """The best wall time of ``repeat`` runs (a failed run stops the benchmark)."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(command, check=True, cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - started)
    return best


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
    timed = {"netrepro --help": (seconds([*netrepro, "--help"], 5), 0.5),
             "netrepro parse (one file)": (seconds([*netrepro, "parse", str(ONE_FILE)], 5), 0.5),
             "make test-fast": (seconds(FAST_TESTS), 60.0)}
    status = 0
    cores = os.cpu_count()
    for name, (value, target) in timed.items():
        ok = value < target
        status |= not ok
        print(f"{name}: {value:.2f} s on {cores} cores (target < {target:g} s) {'ok' if ok else 'MISSED'}")
    if LAN.is_dir():
        with tempfile.TemporaryDirectory() as scratch:
            full, stamped = fingerprints(Path(scratch))
        print(f"lan-p2p fingerprint: {full:.2f} s hashing every raw file, {stamped:.2f} s with the ingest's stamps")
    return status


if __name__ == "__main__":
    sys.exit(main())
