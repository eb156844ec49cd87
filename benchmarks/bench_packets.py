"""Per-packet data at scale, on a real D-ITG campaign of over 10^7 packets.

The campaign is the one `make packets-data` records (plans/packets-large.yaml:
two network namespaces, UDP at 50,000 packets/s, every packet log kept) into
data/large/packets-large; this script records it first when it is missing
(about 10 minutes, root). Each figure is measured in a child process, so its
peak memory (ru_maxrss) is its own:

- ingest of the campaign with its packets into Parquet (after a warm-up ingest of the
  small bundled packets-p2p: imports and validation backends load once; best of 3,
  the spread printed, as single runs on a shared 2-core machine vary by a third):
  >= 3 M packets/s, peak < 1 GB;
- ingest of one log holding every record of the campaign (1.7 GB, > 10^7 packets):
  peak memory < 1 GB, below the log's own size (the log is read a part at a time);
- p50/p99/p99.9 of the one-way delay per cell over all its packets: < 2 s;
- the same over 10x the packets (each Parquet file hard-linked ten times,
  > 10^8 packets): peak < 2 GB and time linear in the packets (<= 12x);
- jitter and loss per run over those 10^8 packets: peak < 2 GB.
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
times = []
for _ in range({repeat}):
    t = time.perf_counter()
    result = ingest_campaign({raw!r}, progress=False, packets_to={out!r})
    times.append(time.perf_counter() - t)
packets = sum(r.packets_received or 0 for r in result.runs.itertuples() if r.flow == "TOTAL")
print(json.dumps({{"seconds": min(times), "slowest": max(times), "packets": int(packets), "files": len(result.files),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""

ARRIVAL_ORDER = """
import json, resource, time
from analysis.stats import per_packet
t = time.perf_counter()
table = per_packet.{function}({glob!r})
print(json.dumps({{"seconds": time.perf_counter() - t, "rows": len(table),
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


def one_log() -> Path:
    """A campaign of one receiver log holding every record of the large
    campaign, one log after another (made once)."""
    raw = WORK / "one-log"
    log = raw / "all.recv.bin"
    if not log.is_file():
        raw.mkdir(parents=True, exist_ok=True)
        with log.open("wb") as out:
            for path in sorted(RAW.rglob("*.bin")):
                with path.open("rb") as part:
                    shutil.copyfileobj(part, out, 1 << 24)
    if not (raw / "manifest.yaml").is_file():
        (raw / "manifest.yaml").write_text(yaml.safe_dump({
            "campaign": {"title": "every record of packets-large in one log", "synthetic": False},
            "factors": {"log": {"type": "str"}},
            "files": {"table": [{"path": log.name, "levels": {"log": "all"}}], "parser_hints": {"ditg": {"meter": "owdm"}}}}))
    return raw


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
    warmup = str(ROOT / "data/raw/packets-p2p")
    ingest = child(INGEST.format(raw=str(RAW), out=str(PROCESSED), warmup=warmup, repeat=3))
    rate = ingest["packets"] / ingest["seconds"]
    enough = ingest["packets"] >= MIN_PACKETS
    print(f"campaign: {ingest['packets']:,} packets in {ingest['files']} files "
          f"({'>=' if enough else 'FEWER than'} 10^7)")
    ok = enough
    good = rate >= 3e6 and ingest["peak_mb"] < 1024
    ok &= good
    print(f"ingest with packets: {ingest['seconds']:.2f} s = {rate / 1e6:.2f} M packets/s (best of 3; slowest "
          f"{ingest['packets'] / ingest['slowest'] / 1e6:.2f} M/s), peak {ingest['peak_mb']:.0f} MB "
          f"(target >= 3 M/s, < 1 GB): {verdict(good)}")

    raw = one_log()
    single_log = child(INGEST.format(raw=str(raw), out=str(WORK / "one-log-processed"), warmup=warmup, repeat=1))
    size_mb = (raw / "all.recv.bin").stat().st_size / 2**20
    good = single_log["packets"] == ingest["packets"] and single_log["peak_mb"] < min(1024, size_mb)
    ok &= good
    print(f"one log of {single_log['packets']:,} packets ({size_mb:,.0f} MB): {single_log['seconds']:.2f} s, peak "
          f"{single_log['peak_mb']:.0f} MB (target < 1 GB and below the log's size): {verdict(good)}")

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
    for function in ("jitter", "loss"):
        done = child(ARRIVAL_ORDER.format(function=function, glob=str(REPLICATED / "*.parquet")))
        good = done["peak_mb"] < 2048
        ok &= good
        print(f"{function} per run over the same {big['packets']:,} packets: {done['seconds']:.1f} s, "
              f"peak {done['peak_mb']:.0f} MB (target < 2 GB): {verdict(good)}")
    shutil.rmtree(REPLICATED)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
