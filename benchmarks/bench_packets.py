"""Per-packet data at scale, on a real D-ITG campaign of over 10^7 packets.

The campaign is the one `make packets-data` records (plans/packets-large.yaml:
two network namespaces, UDP at 50,000 packets/s, every packet log kept) into
data/large/packets-large; this script records it first when it is missing
(about 10 minutes, root). Each figure is measured in a child process, so its
peak memory (ru_maxrss) is its own:

- ingest of the campaign with its packets into Parquet (after a warm-up ingest of the
  small bundled packets-p2p: imports and validation backends load once): >= 3 M packets/s, peak < 1 GB;
- p50/p99/p99.9 of the one-way delay per cell over all its packets: < 2 s;
- the same over 10x the packets (each Parquet file hard-linked ten times,
  > 10^8 packets): peak < 2 GB and time linear in the packets (<= 12x).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
RAW = ROOT / "data/large/packets-large"
WORK = ROOT / "benchmarks/work/packets"
PROCESSED = WORK / "processed"
REPLICATED = WORK / "replicated"
COPIES = 10
CELL = ["ip_version", "packet_size_bytes"]
MIN_PACKETS = 10**7

INGEST = """
import json, resource, tempfile, time
from analysis.ingest.ingest import ingest_campaign
with tempfile.TemporaryDirectory() as scratch:  # warm-up: imports and pandera's backends, once per process
    ingest_campaign({warmup!r}, progress=False, packets_to=scratch)
t = time.perf_counter()
result = ingest_campaign({raw!r}, progress=False, packets_to={out!r})
seconds = time.perf_counter() - t
packets = sum(r.packets_received or 0 for r in result.runs.itertuples() if r.flow == "TOTAL")
print(json.dumps({{"seconds": seconds, "packets": int(packets), "files": len(result.files),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""

PERCENTILES = """
import json, resource, time
from analysis.stats.per_packet import delay_percentiles
t = time.perf_counter()
table = delay_percentiles({glob!r}, {cell!r}, [0.5, 0.99, 0.999])
seconds = time.perf_counter() - t
print(json.dumps({{"seconds": seconds, "packets": int(table.groupby({cell!r})["packets"].first().sum()),
                  "cells": len(table) // 3, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def child(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; its last line is a JSON dict."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if done.returncode:
        sys.exit(f"benchmark child failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def record_if_missing() -> None:
    """Record the campaign, or finish an interrupted recording (--resume)."""
    manifest = RAW / "manifest.yaml"
    if manifest.is_file():
        progress = yaml.safe_load(manifest.read_text())["campaign"]["extra"]["progress"]
        if progress["runs_done"] == progress["runs_total"]:
            return
    print(f"{RAW} is missing or incomplete: recording it (make packets-data, about 10 minutes)", flush=True)
    resume = ["--resume"] if (RAW / "collect/plan.yaml").is_file() else []
    subprocess.run([sys.executable, "-m", "analysis.cli", "collect", str(ROOT / "plans/packets-large.yaml"),
                    "--out", str(RAW), *resume], check=True)


def replicate(folder: Path, copies: int) -> None:
    """``copies`` hard links of every Parquet file: DuckDB reads each as a run of its own."""
    shutil.rmtree(REPLICATED, ignore_errors=True)
    REPLICATED.mkdir(parents=True)
    for path in sorted(folder.glob("*.parquet")):
        for i in range(copies):
            os.link(path, REPLICATED / f"{path.stem}-{i}.parquet")


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def main() -> int:
    print(f"cores: {os.cpu_count()}")
    record_if_missing()
    shutil.rmtree(PROCESSED, ignore_errors=True)
    ingest = child(INGEST.format(raw=str(RAW), out=str(PROCESSED), warmup=str(ROOT / "data/raw/packets-p2p")))
    rate = ingest["packets"] / ingest["seconds"]
    enough = ingest["packets"] >= MIN_PACKETS
    print(f"campaign: {ingest['packets']:,} packets in {ingest['files']} files "
          f"({'>=' if enough else 'FEWER than'} 10^7)")
    ok = enough
    good = rate >= 3e6 and ingest["peak_mb"] < 1024
    ok &= good
    print(f"ingest with packets: {ingest['seconds']:.2f} s = {rate / 1e6:.2f} M packets/s, "
          f"peak {ingest['peak_mb']:.0f} MB (target >= 3 M/s, < 1 GB): {verdict(good)}")

    single = child(PERCENTILES.format(glob=str(PROCESSED / "packets/*.parquet"), cell=CELL))
    good = single["seconds"] < 2
    ok &= good
    print(f"p50/p99/p99.9 per cell ({single['cells']} cells, {single['packets']:,} packets): "
          f"{single['seconds']:.2f} s, peak {single['peak_mb']:.0f} MB (target < 2 s): {verdict(good)}")

    replicate(PROCESSED / "packets", COPIES)
    big = child(PERCENTILES.format(glob=str(REPLICATED / "*.parquet"), cell=CELL))
    ratio = big["seconds"] / single["seconds"]
    good = big["packets"] == COPIES * single["packets"] and big["peak_mb"] < 2048 and ratio <= 1.2 * COPIES
    ok &= good
    print(f"the same over {big['packets']:,} packets ({COPIES}x): {big['seconds']:.2f} s ({ratio:.1f}x the time), "
          f"peak {big['peak_mb']:.0f} MB (target < 2 GB, <= {1.2 * COPIES:.0f}x): {verdict(good)}")
    shutil.rmtree(REPLICATED)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
