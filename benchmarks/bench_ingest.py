"""Ingest speed and memory on a campaign of 10,000 small genuine outputs.

The campaign is made of copies of the demo campaign's real outputs (so every
file parses), written under benchmarks/work/ (git-ignored). Targets: 10,000
files in under 20 s on the 2-core machine; peak memory of the ingest that does
not grow with the raw text (only the tidy rows are kept).
"""

from __future__ import annotations

import shutil
import time
import tracemalloc
from pathlib import Path

import yaml

from analysis.ingest.ingest import ingest_campaign

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data/raw/demo-loopback"
WORK = ROOT / "benchmarks/work/ingest"


def build(n_files: int) -> Path:
    target = WORK / f"n{n_files}"
    if (target / "manifest.yaml").exists():
        return target
    shutil.rmtree(target, ignore_errors=True)
    sources = sorted(p for p in DEMO.rglob("*") if p.is_file() and p.name != "manifest.yaml")
    for i in range(n_files):
        src = sources[i % len(sources)]
        dst = target / f"f{i // 1000:02d}" / f"{i:05d}{src.suffix}"
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
    manifest = {
        "campaign": {"title": f"benchmark: {n_files} copies of the demo outputs", "synthetic": False,
                     "notes": "copies of real outputs, for timing only"},
        "factors": {"index": {"type": "int"}},
        "files": {"templates": ["{shard}/{index}.txt", "{shard}/{index}.json"]},
    }
    (target / "manifest.yaml").write_text(yaml.safe_dump(manifest))
    return target


def measure(n_files: int) -> tuple[float, int, int, int]:
    """Best-of-3 wall time (untraced), then one traced pass for peak memory."""
    campaign = build(n_files)
    raw_bytes = sum(p.stat().st_size for p in campaign.rglob("*") if p.is_file())
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        result = ingest_campaign(campaign, progress=False)
        times.append(time.perf_counter() - t0)
    assert result.counts["rejected"] == 0, result.rejected.head()
    tracemalloc.start()
    ingest_campaign(campaign, progress=False)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return min(times), peak, len(result.runs), raw_bytes


if __name__ == "__main__":
    for n in (1_000, 10_000):
        elapsed, peak, rows, raw = measure(n)
        verdict = ("  [target < 20 s: met]" if elapsed < 20 else "  [target < 20 s: MISSED]") if n == 10_000 else ""
        print(f"ingest {n:>6} files ({raw / 2**20:5.1f} MiB raw): {elapsed:6.2f} s, {n / elapsed:6.0f} files/s, "
              f"{rows} rows; peak traced memory {peak / 2**20:5.1f} MiB = {peak / rows / 1024:.1f} KiB per row{verdict}")
