"""The notebooks' entry point: ``load_campaign(path)`` returns the tidy
tables of a campaign, re-ingesting only when its raw files or manifest changed
(the fingerprint in ingest.json says whether they did; only the files whose
size or time changed since ingest are hashed again, :mod:`.raw_stamps`)."""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import ValidationError

from analysis.config import processed_dir
from analysis.ingest.ingest import fingerprint_reusing, ingest_into
from analysis.ingest.manifest import Manifest, load_manifest
from analysis.ingest.packets import has_packets, packets_glob, with_delay_percentiles
from analysis.ingest.raw_stamps import Stamps


@dataclass
class Campaign:
    name: str
    raw_dir: Path
    processed_dir: Path
    manifest: Manifest
    runs: pd.DataFrame
    intervals: pd.DataFrame
    rejected: pd.DataFrame
    report: dict[str, Any]

    @property
    def synthetic(self) -> bool:
        return self.manifest.campaign.synthetic

    @property
    def packets(self) -> str | None:
        """The Parquet glob of the campaign's per-packet tables (None: no packet logs)."""
        return packets_glob(self.processed_dir) if has_packets(self.processed_dir) else None


def processed_dir_for(raw_dir: Path) -> Path:
    """``data/raw/<c>`` -> ``data/processed/<c>``; elsewhere a sibling ``<c>.processed``;
    ``NETREPRO_PROCESSED`` moves them all (tests write to their own folders)."""
    raw_dir = Path(raw_dir)
    if os.environ.get("NETREPRO_PROCESSED"):
        return processed_dir() / raw_dir.name
    if raw_dir.parent.name == "raw":
        return raw_dir.parent.parent / "processed" / raw_dir.name
    return raw_dir.parent / f"{raw_dir.name}.processed"


def _runs(out: Path) -> pd.DataFrame:
    """runs.parquet, with the delay percentiles of its packet logs when it has any."""
    runs = pd.read_parquet(out / "runs.parquet")
    return with_delay_percentiles(runs, out) if has_packets(out) else runs


MANIFEST_COPY = "manifest.json"


def _write_manifest_copy(manifest: Manifest, out: Path, current: str) -> None:
    copy = out / MANIFEST_COPY
    tmp = copy.with_name(f".{MANIFEST_COPY}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"fingerprint": current, "manifest": manifest.model_dump(mode="json")}))
    tmp.replace(copy)  # whole or not at all, for a reader in another kernel


def _manifest(raw_dir: Path, out: Path, current: str) -> Manifest:
    """The campaign's manifest, from the validated copy kept beside the tables
    when it was made from these raw files (the fingerprint covers the
    manifest): every notebook of a report loads the campaign, and a collector's
    1.3 MB YAML manifest takes 1.2 s to parse, its JSON copy 0.05 s. A copy
    the current model does not accept is made again."""
    copy = out / MANIFEST_COPY
    try:
        stored = json.loads(copy.read_text())
        if stored.get("fingerprint") == current:
            return Manifest.model_validate(stored["manifest"])
    except (OSError, ValueError, KeyError, TypeError, ValidationError):
        pass
    manifest = load_manifest(raw_dir)
    _write_manifest_copy(manifest, out, current)
    return manifest


def _stored_report(out: Path) -> dict[str, Any]:
    report_path = out / "ingest.json"
    return json.loads(report_path.read_text()) if report_path.is_file() else {}


def current_fingerprint(raw_dir: Path, out: Path) -> str:
    """The campaign's fingerprint, hashing only the raw files whose size or time
    changed since the tables at ``out`` were made. When the tables are still
    current but some files had to be hashed (touched, copied), their new
    stamps are recorded, so the next call reads none of them again."""
    known = Stamps.read(out)
    current, fresh, hashed = fingerprint_reusing(raw_dir, known)
    if hashed and _stored_report(out).get("fingerprint") == current:
        with contextlib.suppress(OSError):  # a read-only copy of the tables: hashed again next time
            fresh.write(out)
    return current


def campaign_manifest(raw_dir: Path) -> Manifest:
    """The campaign's manifest, from the validated copy its ingest keeps beside
    the tables while they are current (its YAML parsed again otherwise): what
    a report build needs once the campaign's notebooks have loaded it."""
    out = processed_dir_for(raw_dir)
    return _manifest(raw_dir, out, current_fingerprint(raw_dir, out))


def load_campaign(path: str | Path, processed: str | Path | None = None, strict: bool = False) -> Campaign:
    raw_dir = Path(path)
    out = Path(processed) if processed is not None else processed_dir_for(raw_dir)
    report_path = out / "ingest.json"
    current = current_fingerprint(raw_dir, out)
    stored = _stored_report(out)
    if stored.get("fingerprint") != current:  # re-ingested whole; a notebook doing the same at once is waited for
        ingest_into(raw_dir, out, strict=strict, wait=True,
                    also=lambda result, staging: _write_manifest_copy(result.manifest, staging, current))
        stored = json.loads(report_path.read_text())
    return Campaign(
        name=raw_dir.name,
        raw_dir=raw_dir,
        processed_dir=out,
        manifest=_manifest(raw_dir, out, current),
        runs=_runs(out),
        intervals=pd.read_parquet(out / "intervals.parquet"),
        rejected=pd.read_csv(out / "rejected.csv", dtype={"line": "Int64"}),
        report=stored,
    )
