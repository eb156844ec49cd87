"""`netrepro ingest` of 2,000 iperf3 JSON files, end to end, beside the floor
of reading the same files with ``json.load``.

The campaign is a SYNTHETIC REPLICATION OF GENUINE OUTPUTS: the 20 real iperf3
3.12 runs on loopback in benchmarks/iperf3_outputs/ (TCP, UDP, -R, -P 4,
--bidir, short intervals, a server's side; each with the command that made it,
recorded by scripts/record_iperf3.py), copied round-robin into 2,000 files
under a manifest (benchmarks/work/, git-ignored).

Figures: the interpreter's start-up (``import analysis.cli``, what every
``netrepro`` command pays first) measured on its own; the ingest, i.e. the
wall time of ``netrepro ingest`` less that start-up, in files/s (target: at
least 1,000 files/s on one core); and the floor: ``json.load`` of every file
and one number taken from it. Each is the best of 3.
"""

from __future__ import annotations

import json
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


def build(n_files: int) -> Path:
    target = WORK / f"n{n_files}"
    if (target / "manifest.yaml").exists():
        return target
    shutil.rmtree(target, ignore_errors=True)
    seeds = sorted(SEEDS.glob("*.json"))
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


def best_wall(argv: list[str]) -> float:
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
        times.append(time.perf_counter() - t0)
    return min(times)


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


def main(n_files: int = 2_000) -> int:
    campaign = build(n_files)
    files = sorted(campaign.rglob("*.json"))
    raw_mib = sum(p.stat().st_size for p in files) / 2**20
    startup = best_wall([*NETREPRO[:2], "import analysis.cli"])
    with tempfile.TemporaryDirectory(prefix="bench-ingest-iperf3-") as out:
        total = best_wall([*NETREPRO, "ingest", str(campaign), "--out", out])
        report = json.loads((Path(out) / "ingest.json").read_text())
    counts = report["counts"]
    assert counts["parsed"] == n_files, counts
    ingest = total - startup
    floor = json_floor(files)
    rate = n_files / ingest
    print(f"iperf3 JSON ingest: {n_files} files ({raw_mib:.1f} MiB), SYNTHETIC REPLICATION of "
          f"{len(list(SEEDS.glob('*.json')))} genuine iperf3 3.12 outputs; {counts['records']} run records, "
          f"{counts['intervals']} interval rows")
    print(f"  interpreter start-up (import analysis.cli): {startup:5.2f} s")
    print(f"  netrepro ingest less start-up:              {ingest:5.2f} s = {rate:6.0f} files/s"
          f"  [target >= {TARGET} files/s: {'met' if rate >= TARGET else 'MISSED'}]")
    print(f"  floor, json.load + one number:              {floor:5.2f} s = {n_files / floor:6.0f} files/s"
          f"  (ingest takes {ingest / floor:.1f}x the floor)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
