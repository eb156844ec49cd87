"""Raw campaign -> tidy tables + ingest report.

discover -> ignore rules -> factor levels from the manifest -> sniff and parse
-> check the levels the output itself reveals -> validate -> write. Every file
under the campaign is accounted for: parsed, failed run (the tool said why,
or its output is empty or stops before its result: :mod:`.failed_runs`),
rejected (file, line, reason) or ignored by a manifest rule. Raw files are
only ever read.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import mmap
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

import pandas as pd

from analysis import __version__
from analysis.errors import ManifestError, ParseError
from analysis.ingest.failed_runs import failed_run, without_result
from analysis.ingest.packets import PacketWriter, fresh_packets_folder, open_run_packets
from analysis.ingest.manifest import MANIFEST_NAME, Assignment, FileMapper, Manifest, Unassigned, load_manifest
from analysis.ingest.per_run import OpenPackets, PacketsOnDemand
from analysis.parsers import parse_bytes, read_contents
from analysis.parsers.contents import ContentDigest, sha256_of
from analysis.ingest.raw_stamps import Stamps, digests_reusing
from analysis.ingest.templates import REVEALED
from analysis.ingest.transaction import staged_tables
from analysis.ingest.schema import INTERVAL_DTYPES, INTERVALS_SCHEMA, RUN_DTYPES, RUNS_SCHEMA, coerce, factor_dtype, validate

if TYPE_CHECKING:
    from distributed import Client

OUTCOMES = ("parsed", "failed", "rejected", "ignored")



@dataclass
class FileOutcome:
    path: str
    outcome: str
    reason: str | None = None
    line: int | None = None
    records: int = 0
    tool: str | None = None
    variant: str | None = None
    warnings: list[str] | None = None  # the parser's warnings about the whole file (ParseResult.warnings)


@dataclass
class IngestResult:
    campaign: str
    manifest: Manifest
    runs: pd.DataFrame
    intervals: pd.DataFrame
    files: list[FileOutcome]
    fingerprint: str
    warnings: int = 0
    raw_dir: Path | None = None
    raw_stamps: Stamps | None = None  # each raw file's size and time with its digest, for later fingerprints
    rejected: pd.DataFrame = field(init=False)

    def __post_init__(self) -> None:
        rows = [{"source_path": f.path, "line": f.line, "reason": f.reason} for f in self.files if f.outcome == "rejected"]
        self.rejected = pd.DataFrame(rows, columns=["source_path", "line", "reason"]).astype({"line": "Int64"})

    @property
    def counts(self) -> dict[str, int]:
        c = Counter(f.outcome for f in self.files)
        return {"files": len(self.files)} | {o: c.get(o, 0) for o in OUTCOMES}

    def report(self) -> dict[str, Any]:
        """The ingest account as plain data (what ingest.json holds)."""
        return {
            "campaign": self.campaign,
            "netrepro_version": __version__,
            "fingerprint": self.fingerprint,
            "counts": self.counts | {"records": len(self.runs), "intervals": len(self.intervals), "rows_with_warnings": self.warnings},
            "tools": dict(sorted(Counter(f.tool for f in self.files if f.tool).items())),
            "metadata": self.manifest.campaign.model_dump(mode="json"),
            "factors": {k: v.model_dump(mode="json") for k, v in self.manifest.factors.items()},
            "files": [
                {k: v for k, v in vars(f).items() if v is not None}
                for f in self.files
            ],
        }


def discover(campaign_dir: Path) -> list[str]:
    """Every file under the campaign (campaign-relative POSIX paths, sorted),
    except the manifest itself."""
    found = []
    for p in campaign_dir.rglob("*"):
        if p.is_file() or p.is_symlink():
            rel = p.relative_to(campaign_dir).as_posix()
            if rel != MANIFEST_NAME:
                found.append(rel)
    return sorted(found)


def _digest(path: Path) -> str:
    return "symlink" if path.is_symlink() else sha256_of(read_contents(path))


def _combine(campaign_dir: Path, digests: Iterable[tuple[str, str]]) -> str:
    h = hashlib.sha256(f"netrepro {__version__}\n".encode())
    # the columns of the tables: a new canonical field makes stored tables stale too
    h.update(("\t".join(RUN_DTYPES) + "\n" + "\t".join(INTERVAL_DTYPES) + "\n").encode())
    h.update((campaign_dir / MANIFEST_NAME).read_bytes())
    for rel, digest in digests:
        h.update(f"{rel}\t{digest}\n".encode())
    return h.hexdigest()


def fingerprint(campaign_dir: str | Path) -> str:
    """A hash of the manifest, every raw file's content, the netrepro version
    and the tables' columns: the processed tables are stale exactly when it changes."""
    return fingerprint_reusing(Path(campaign_dir), Stamps(0, {}))[0]


def fingerprint_reusing(campaign_dir: Path, known: Stamps) -> tuple[str, Stamps, int]:
    """The fingerprint, hashing only the files whose stamp is not in ``known``
    (:mod:`.raw_stamps`); also the stamps taken now and how many files were hashed."""
    digests, fresh, hashed = digests_reusing(campaign_dir, discover(campaign_dir), known, _digest)
    return _combine(campaign_dir, digests), fresh, hashed


class _RowBuffer:
    """Rows as small DataFrames: a dict per row costs about five times the
    memory of the same row in a frame, so rows are packed every CHUNK rows."""

    CHUNK = 2000

    def __init__(self) -> None:
        self.frames: list[pd.DataFrame] = []
        self.pending: list[dict[str, Any]] = []

    def extend(self, rows: Iterable[dict[str, Any]]) -> None:
        self.pending.extend(rows)
        if len(self.pending) >= self.CHUNK:
            self.frames.append(pd.DataFrame.from_records(self.pending))
            self.pending = []

    def frame(self) -> pd.DataFrame:
        parts = [*self.frames, pd.DataFrame.from_records(self.pending)] if self.pending else self.frames
        parts = [p for p in parts if len(p)]
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


@dataclass
class FileIngested:
    """One file's ingest as handed back to the process that builds the tables:
    its outcome, its content hash and its tidy rows (never its packets, which
    are written where the file was parsed)."""

    outcome: FileOutcome
    digest: str  # sha256 of the content, or "symlink"
    runs: list[dict[str, Any]] = field(default_factory=list)
    intervals: list[dict[str, Any]] = field(default_factory=list)


class _FileIngest:
    """Ingests one file: reads it, parses it, streams a packet log's packets
    to the file ``open_packets`` gives and returns the rows. It keeps no
    state between files, so the same object runs in this process or on a
    Dask worker (:mod:`.distributed`; it pickles when ``open_packets`` does)."""

    def __init__(self, campaign_dir: Path, manifest: Manifest, strict: bool, open_packets: OpenPackets | None = None):
        self.dir = campaign_dir
        self.open_packets = open_packets
        self.mapper = FileMapper(manifest)
        self.strict = strict

    def __call__(self, rel: str) -> FileIngested:
        path = self.dir / rel
        if path.is_symlink():
            return FileIngested(FileOutcome(rel, "rejected", reason="symbolic link: campaign files must be regular files inside the folder"),
                                "symlink")
        data = read_contents(path)
        rule = self.mapper.is_ignored(rel)
        if rule is not None:
            return FileIngested(FileOutcome(rel, "ignored", reason=f"ignore rule {rule!r}"), sha256_of(data))
        try:
            assignment = self.mapper.assign(rel)
        except Unassigned as exc:
            return FileIngested(FileOutcome(rel, "rejected", reason=str(exc)), sha256_of(data))
        sink = PacketsOnDemand(self.open_packets, rel, assignment.levels) if self.open_packets is not None else None
        kept = False
        try:
            done = self._parsed(rel, data, ContentDigest(data), assignment, sink)
            kept = done.outcome.outcome != "rejected"
        finally:
            if sink is not None and sink.opened is not None and kept:
                sink.opened.close()
            elif sink is not None and sink.opened is not None:
                sink.opened.discard()  # a rejected log, or an error: no packets of it survive
        return done

    def _parsed(self, rel: str, data: bytes | mmap.mmap, content: ContentDigest, assignment: Assignment,
                sink: PacketsOnDemand | None) -> FileIngested:
        """The file's rows once it is known to be no ignored or unassigned
        file; a packet log's packets go to ``sink``, and its bytes to the
        digest, while it is read."""
        try:
            result = parse_bytes(data, rel, assignment.parser_hints, on_packets=sink.add if sink is not None else None,
                                 on_read=content.read_to)
        except ParseError as exc:
            aborted = failed_run(exc, data, assignment.levels)
            if aborted is None:
                return FileIngested(FileOutcome(rel, "rejected", reason=exc.reason, line=exc.line, tool=None),
                                    content.hexdigest())
            result = aborted.result()
            if not result.records:  # a failed run, but no row can say of which tool
                return FileIngested(FileOutcome(rel, "failed", reason=aborted.reason), content.hexdigest())
        digest = content.hexdigest()
        if not result.records:
            result = without_result(result)
        rows = []
        for record in result.records:
            row = record.to_dict()
            conflicts = _conflicts(assignment.levels, row)
            if conflicts and self.strict:
                return FileIngested(FileOutcome(rel, "rejected", reason="; ".join(conflicts), tool=result.tool,
                                                variant=result.variant), digest)
            row["warnings"] = row["warnings"] + conflicts
            row.update(assignment.levels)
            row.update({f"meta_{k}": v for k, v in assignment.meta.items()})
            row["source_path"] = rel
            row["source_sha256"] = digest
            rows.append(row)
        if sink is not None and result.packets is not None:  # a packet log read whole (one with NUL padding)
            sink.add(result.packets)
        interval_extra = assignment.levels | {"source_path": rel}
        intervals = [iv.to_dict() | interval_extra for iv in result.intervals]
        failed = [r for r in result.records if r.status == "failed"]
        outcome = "failed" if failed else "parsed"
        reason = failed[0].error if failed else None
        return FileIngested(FileOutcome(rel, outcome, reason=reason, records=len(rows), tool=result.tool, variant=result.variant,
                                        warnings=list(result.warnings) or None), digest, rows, intervals)


class _Tables:
    """Accumulates the files' rows in file order, as they are handed back
    (so the tables are the same whoever parsed the files)."""

    def __init__(self) -> None:
        self.runs = _RowBuffer()
        self.intervals = _RowBuffer()
        self.files: list[FileOutcome] = []
        self.digests: list[tuple[str, str]] = []
        self.rows_with_warnings = 0

    def add(self, done: FileIngested) -> None:
        self.files.append(done.outcome)
        self.digests.append((done.outcome.path, done.digest))
        self.runs.extend(done.runs)
        self.intervals.extend(done.intervals)
        self.rows_with_warnings += sum(bool(row["warnings"]) for row in done.runs)


def _conflicts(levels: dict[str, Any], row: dict[str, Any]) -> list[str]:
    """Where the output itself contradicts the manifest's factor levels."""
    out = []
    for factor, fieldname in REVEALED.items():
        if factor not in levels or row.get(fieldname) is None:
            continue
        said, seen = levels[factor], row[fieldname]
        same = str(said).casefold() == str(seen).casefold()
        if not same:
            try:
                same = float(said) == float(seen)
            except (TypeError, ValueError):
                same = False
        if not same:
            out.append(f"manifest says {factor}={said} but the output shows {fieldname}={seen}")
    return out


def _frame(rows: _RowBuffer, dtypes: dict[str, str], factor_types: Mapping[str, str], factor_order: list[str]) -> pd.DataFrame:
    frame = coerce(rows.frame(), dtypes)
    for name, type_name in factor_types.items():
        if name in frame and name not in dtypes:
            frame[name] = frame[name].astype(factor_dtype(type_name))
    factors = [c for c in factor_order if c in frame and c not in dtypes]
    extra = sorted(c for c in frame if c not in dtypes and c not in factors)
    return frame[factors + [c for c in dtypes] + extra].reset_index(drop=True)


def ingest_campaign(campaign_dir: str | Path, strict: bool = False, progress: bool | None = None,
                    packets_to: str | Path | None = None, client: Client | None = None) -> IngestResult:
    """Ingest one campaign folder into validated tidy tables. Only with
    ``packets_to`` is anything written: each packet log's packets, streamed to
    ``<packets_to>/packets/`` one file at a time (see :mod:`.packets`).

    With a Dask ``client`` the files are read, parsed and their packets
    written on the cluster's workers, which must see the campaign and
    ``packets_to`` at the same absolute paths (a shared filesystem); only the
    rows come back, and the result is the same as without it."""
    campaign_dir = Path(campaign_dir)
    if not campaign_dir.is_dir():
        raise ManifestError(f"{campaign_dir}: not a campaign folder")
    manifest = load_manifest(campaign_dir)
    paths = discover(campaign_dir)
    stamps = Stamps.take(campaign_dir, paths)  # before any file is read
    if packets_to is not None:
        refuse_inside_raw(campaign_dir, packets_to)
    tables = _Tables()
    with _progress(len(paths), progress, f"ingest {campaign_dir.name}") as advance:
        if client is None:
            writer = PacketWriter(packets_to) if packets_to is not None else None
            worker = _FileIngest(campaign_dir, manifest, strict, writer.open if writer is not None else None)
            with writer or contextlib.nullcontext():
                for rel in paths:
                    tables.add(worker(rel))
                    advance(1)
        else:
            from analysis.ingest.distributed import check_workers_see, map_in_order

            # absolute paths: a worker's working folder is its own; each
            # worker writes its logs' packets itself, in its own thread
            root = fresh_packets_folder(packets_to).resolve() if packets_to is not None else None
            worker = _FileIngest(campaign_dir.resolve(), manifest, strict,
                                 functools.partial(open_run_packets, root) if root is not None else None)
            check_workers_see(client, worker.dir, root)
            sizes = [(campaign_dir / rel).lstat().st_size for rel in paths]
            for done in map_in_order(client, worker, paths, sizes, on_done=advance):
                tables.add(done)
    factor_types = {k: v.type for k, v in manifest.factors.items()}
    factor_order = list(manifest.factors) + [k for k in manifest.files.constants if k not in manifest.factors]
    runs = _frame(tables.runs, RUN_DTYPES, factor_types, factor_order)
    intervals = _frame(tables.intervals, INTERVAL_DTYPES | {"source_path": "string"}, factor_types, factor_order)
    validate(runs, RUNS_SCHEMA)
    validate(intervals, INTERVALS_SCHEMA)
    stamps.digests = dict(tables.digests)
    return IngestResult(
        campaign=campaign_dir.name,
        manifest=manifest,
        runs=runs,
        intervals=intervals,
        files=tables.files,
        fingerprint=_combine(campaign_dir, tables.digests),
        warnings=tables.rows_with_warnings,
        raw_dir=campaign_dir,
        raw_stamps=stamps,
    )


def refuse_inside_raw(raw_dir: Path, out: str | Path) -> None:
    """Raw files are never overwritten, and tables there would be ingested as raw files next time."""
    raw, target = raw_dir.resolve(), Path(out).resolve()
    if target == raw or raw in target.parents:
        raise ManifestError(f"{out}: output folder is inside the campaign's raw folder {raw_dir}; "
                            "write the tables elsewhere (default: data/processed/<campaign>)")


def write_outputs(result: IngestResult, out_dir: str | Path) -> Path:
    """Write runs.parquet, intervals.parquet, rejected.csv and ingest.json
    into ``out_dir``: a new folder, or the staging folder of :func:`ingest_into`
    (which replaces a campaign's tables whole; this writes file by file).

    Refuses a folder inside the campaign's raw folder: raw files are never
    overwritten, and tables there would be ingested as raw files next time."""
    out = Path(out_dir)
    if result.raw_dir is not None:
        refuse_inside_raw(result.raw_dir, out)
    out.mkdir(parents=True, exist_ok=True)
    result.runs.to_parquet(out / "runs.parquet", index=False)
    result.intervals.to_parquet(out / "intervals.parquet", index=False)
    result.rejected.to_csv(out / "rejected.csv", index=False)
    (out / "ingest.json").write_text(json.dumps(result.report(), indent=2, sort_keys=False, default=str) + "\n")
    if result.raw_stamps is not None:
        result.raw_stamps.write(out)
    return out


def ingest_into(campaign_dir: str | Path, out: str | Path, strict: bool = False, progress: bool | None = None,
                client: Client | None = None, wait: bool = False,
                also: Callable[[IngestResult, Path], object] | None = None) -> IngestResult:
    """Ingest a campaign and replace the tables at ``out`` with its own as one
    transaction (:func:`.transaction.staged_tables`): its packets and tables
    are written to a staging folder and swapped in once complete, so a
    failure, a full disk or Ctrl-C leaves the previous tables as they were.
    Refuses an ``out`` that holds anything but this campaign's tables, and a
    second ingest of ``out`` at the same time (``wait``: waits for it);
    ``also(result, staging)`` writes more files into the transaction."""
    campaign_dir = Path(campaign_dir)
    refuse_inside_raw(campaign_dir, out)
    with staged_tables(out, campaign_dir, wait=wait) as staging:
        result = ingest_campaign(campaign_dir, strict=strict, progress=progress, packets_to=staging, client=client)
        write_outputs(result, staging)
        if also is not None:
            also(result, staging)
    return result


@contextlib.contextmanager
def _progress(total: int, enabled: bool | None, label: str) -> Iterator[Callable[[int], None]]:
    """A progress bar of ``total`` files; yields the function that counts n more done."""
    if enabled is None:
        enabled = sys.stderr.isatty() and total > 50
    if not enabled:
        yield lambda n: None
        return
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

    columns = (TextColumn("[progress.description]{task.description}"), BarColumn(), TaskProgressColumn(), TimeRemainingColumn())
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)


def summary_lines(result: IngestResult) -> list[str]:
    """A short human summary of an ingest (what the CLI prints)."""
    c = result.counts
    lines = [
        f"{result.campaign}: {c['files']} files: {c['parsed']} parsed, {c['failed']} failed runs, "
        f"{c['rejected']} rejected, {c['ignored']} ignored -> {len(result.runs)} run records, {len(result.intervals)} interval rows"
        + (" [SYNTHETIC DATA]" if result.manifest.campaign.synthetic else "")
    ]
    if result.warnings:
        lines.append(f"  {result.warnings} records carry warnings (see the 'warnings' column)")
    noted = [f for f in result.files if f.warnings]
    if noted:
        lines.append(f"  {len(noted)} files carry parser warnings about the whole file (see 'files' in ingest.json), "
                     f"e.g. {noted[0].path}: {noted[0].warnings[0]}")  # type: ignore[index]
    for f in result.files:
        if f.outcome == "rejected":
            lines.append(f"  rejected {f.path}:{f.line if f.line is not None else '-'}: {f.reason}")
    return lines


__all__ = ["ingest_campaign", "ingest_into", "write_outputs", "summary_lines", "discover", "fingerprint", "fingerprint_reusing", "IngestResult", "FileOutcome"]
