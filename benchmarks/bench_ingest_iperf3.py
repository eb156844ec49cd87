"""`netrepro ingest` of 2,000 iperf3 JSON files, end to end, beside the floor
of reading the same files with ``json.load``.

The campaign is a SYNTHETIC REPLICATION OF GENUINE OUTPUTS: the 20 real iperf3
3.12 runs on loopback in benchmarks/iperf3_outputs/ (TCP, UDP, -R, -P 4,
--bidir, short intervals, a server's side; each with the command that made it,
recorded by scripts/record_iperf3.py), copied round-robin into 2,000 files
under a manifest (benchmarks/work/, git-ignored); then the same with the 4
largest of them only (many interval rows a file), whose size is about that of
the issue's campaign (2,000 files, 26 MB).

Figures: the interpreter's start-up (``import analysis.cli``, what every
``netrepro`` command pays first) measured on its own; the ingest, i.e. the
wall time of ``netrepro ingest`` less that start-up, in files/s (target: at
least 1,000 files/s on one core), and its CPU time likewise (on a shared
machine the wall time carries the other processes' load; the CPU time does
not); and the floor: ``json.load`` of every file and one number taken from
it. Each is the best of 3.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "benchmarks/iperf3_outputs"
WORK = ROOT / "benchmarks/work/ingest_iperf3"
NETREPRO = [sys.executable, "-c", "import sys; from analysis.cli import app; sys.argv[0] = 'netrepro'; app()"]
TARGET = 1_000  # files/s
REPEATS = 3


def build(n_files: int, seeds: list[Path], name: str) -> Path:
    target = WORK / f"{name}-n{n_files}"
    if (target / "manifest.yaml").exists():
        return target
    shutil.rmtree(target, ignore_errors=True)
    for i in range(n_files):
        dst = target / f"s{i // 250:02d}" / f"{i:05d}.json"
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(seeds[i % len(seeds)], dst)
    manifest = {
        "campaign": {"title": f"benchmark: {n_files} iperf3 JSON files", "synthetic": True,
                     "notes": f"synthetic replication of {len(seeds)} genuine iperf3 outputs "
                              "(benchmarks/iperf3_outputs), for timing only"},
        "factors": {"index": {"type": "int"}},
        "files": {"templates": ["{shard}/{index}.json"]},
    }
    (target / "manifest.yaml").write_text(yaml.safe_dump(manifest))
    return target


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def best_of(argv: list[str]) -> tuple[float, float]:
    """The best wall time and the best CPU time (user + system) of running argv."""
    walls, cpus = [], []
    for _ in range(REPEATS):
        t0, c0 = time.perf_counter(), _children_cpu()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
        walls.append(time.perf_counter() - t0)
        cpus.append(_children_cpu() - c0)
    return min(walls), min(cpus)


def json_floor(files: list[Path]) -> float:
    """Best time to json.load every file and take one number from it."""
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        total = 0.0
        for path in files:
            with path.open("rb") as f:
                doc = json.load(f)
            total += (doc.get("end", {}).get("sum_received") or doc.get("end", {}).get("sum") or {}).get("bytes", 0)
        times.append(time.perf_counter() - t0)
    assert total > 0
    return min(times)


def measure(n_files: int, seeds: list[Path], name: str, what: str) -> None:
    campaign = build(n_files, seeds, name)
    files = sorted(campaign.rglob("*.json"))
    raw_mib = sum(p.stat().st_size for p in files) / 2**20
    startup, startup_cpu = best_of([*NETREPRO[:2], "import analysis.cli"])
    with tempfile.TemporaryDirectory(prefix="bench-ingest-iperf3-") as out:
        total, total_cpu = best_of([*NETREPRO, "ingest", str(campaign), "--out", out])
        report = json.loads((Path(out) / "ingest.json").read_text())
    counts = report["counts"]
    assert counts["parsed"] == n_files, counts
    ingest, ingest_cpu = total - startup, total_cpu - startup_cpu
    floor = json_floor(files)
    rate = n_files / ingest
    print(f"iperf3 JSON ingest: {n_files} files ({raw_mib:.1f} MiB), SYNTHETIC REPLICATION of "
          f"{what}; {counts['records']} run records, "
          f"{counts['intervals']} interval rows; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"  interpreter start-up (import analysis.cli): {startup:5.2f} s wall, {startup_cpu:5.2f} s CPU")
    print(f"  netrepro ingest less start-up:              {ingest:5.2f} s wall = {rate:6.0f} files/s"
          f"  [target >= {TARGET} files/s: {'met' if rate >= TARGET else 'MISSED'}]")
    print(f"                                              {ingest_cpu:5.2f} s CPU  = {n_files / ingest_cpu:6.0f} files/s"
          " (what the machine's other load does not change)")
    print(f"  floor, json.load + one number:              {floor:5.2f} s wall = {n_files / floor:6.0f} files/s"
          f"  (ingest takes {ingest / floor:.1f}x the floor)")


def main(n_files: int = 2_000) -> int:
    seeds = sorted(SEEDS.glob("*.json"))
    measure(n_files, seeds, "all", f"the {len(seeds)} genuine iperf3 3.12 outputs")
    largest = sorted(seeds, key=lambda p: p.stat().st_size)[-4:]
    measure(n_files, largest, "largest", f"the {len(largest)} largest of them (-P 4, short intervals: "
            "about the issue's 13 KB a file)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
