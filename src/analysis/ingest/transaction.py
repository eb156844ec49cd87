"""Ingest's outputs written as one transaction: the tables of a campaign are
replaced whole or not at all, and nothing netrepro did not write is removed.

:func:`staged_tables` locks the target (a second ingest of it is refused, or
waits), checks that the target holds nothing but this campaign's tables,
hands out an empty staging folder beside it and, once everything is written
there, swaps it in with one atomic exchange of the two folders. A full disk,
a read-only one, an error or Ctrl-C removes the staging folder and leaves the
previous tables as they were; the failure is one line naming the folder
(``OUT: no space left on device``).

A marker file (:data:`MARKER`) records which campaign the tables are of and
every file written; only those files are ever removed.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import hashlib
import json
import os
import re
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

from analysis.errors import NetreproError

MARKER = ".netrepro-tables.json"
# What ingest writes (the packets under packets/); manifest.json, the parsed
# manifest's copy, and raw-stamps.json (.raw_stamps) are also rewritten later by load_campaign.
TABLE_FILES = frozenset({"runs.parquet", "intervals.parquet", "rejected.csv", "ingest.json", "manifest.json",
                         "raw-stamps.json"})
_PACKET_FILE = re.compile(r"packets/[0-9a-f]{16}\.parquet")
# a copy interrupted mid-write (manifest.json, raw-stamps.json: both rewritten by load_campaign)
_MANIFEST_COPY_PARTIAL = re.compile(r"\.(manifest|raw-stamps)\.json\.\d+\.tmp")
_SHOWN = 5  # foreign files named in a refusal


class OutputError(NetreproError):
    """The tables cannot be written to the folder asked for: names the folder and why."""


def one_line(exc: OSError, shown: str, target: Path) -> OutputError:
    """An OSError as ``OUT: no space left on device``: named by the folder
    when it is about the tables at ``target`` (the folder, its staging
    folder, its lock), else by its own file (a raw file that cannot be read)."""
    reason = os.strerror(exc.errno) if exc.errno else str(exc)
    where = shown
    if exc.filename is not None:
        path = Path(os.fsdecode(exc.filename)).absolute()
        tables = [q for q in (path, *path.parents) if q.parent == target.parent
                  and (q.name == target.name or q.name.startswith(f".{target.name}."))]
        if not tables:
            where = str(exc.filename)
    return OutputError(f"{where}: {reason[:1].lower() + reason[1:]}")


def _written(folder: Path) -> list[str]:
    """Every file under ``folder``, as sorted POSIX paths relative to it."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir() or p.is_symlink())


def _is_ours(rel: str, listed: set[str]) -> bool:
    return rel in listed or rel in TABLE_FILES or bool(_MANIFEST_COPY_PARTIAL.fullmatch(rel))


def owned_files(out: Path, raw_dir: Path, shown: str) -> list[str]:
    """The files of ``out`` that are this campaign's tables (removed when new
    ones replace them), or OutputError naming why ``out`` is not netrepro's to
    replace: a raw campaign, another campaign's tables, files netrepro did not
    write. ``shown``: the folder as the user named it."""
    if not out.exists():
        return []
    if not out.is_dir():
        raise OutputError(f"{shown}: not a folder; the tables go into a folder of their own")
    present = _written(out)
    campaigns = [rel for rel in present if rel == "manifest.yaml" or rel.endswith("/manifest.yaml")]
    if campaigns:
        where = shown if campaigns[0] == "manifest.yaml" else f"{shown}/{campaigns[0].rsplit('/', 1)[0]}"
        raise OutputError(f"{where}: is a raw campaign (it has manifest.yaml); raw files are never overwritten: "
                          "write the tables to another folder")
    marker = out / MARKER
    if marker.is_file():
        try:
            record = json.loads(marker.read_text())
            theirs, listed = Path(record["raw"]), set(record["files"])
        except (OSError, ValueError, KeyError, TypeError):
            raise OutputError(f"{marker}: not a marker netrepro wrote; remove {shown} or write elsewhere") from None
        if not _same_campaign(record, raw_dir):
            raise OutputError(f"{shown}: holds the tables of another campaign ({theirs}); write these to another "
                              "folder, or remove that one first")
    else:  # tables written before the marker: this campaign's ingest.json and nothing else
        listed = {rel for rel in present if _PACKET_FILE.fullmatch(rel)}
        if present and _campaign_of(out) != raw_dir.name:
            if "ingest.json" in present:
                raise OutputError(f"{shown}: holds the tables of another campaign ({_campaign_of(out)}); write "
                                  "these to another folder, or remove that one first")
            raise OutputError(f"{shown}: not empty and holds no tables netrepro wrote ({_listing(present)}); "
                              "write the tables to a new or empty folder")
    foreign = [rel for rel in present if rel != MARKER and not _is_ours(rel, listed)]
    if foreign:
        raise OutputError(f"{shown}: holds files netrepro did not write ({_listing(foreign)}); move them, or "
                          "write the tables to another folder")
    return present


def _identity(raw_dir: Path) -> dict[str, str]:
    """What the marker records of the campaign whose tables these are."""
    manifest = hashlib.sha256((raw_dir / "manifest.yaml").read_bytes()).hexdigest()
    return {"raw": str(raw_dir.resolve()), "campaign": raw_dir.name, "manifest_sha256": manifest}


def _same_campaign(record: dict, raw_dir: Path) -> bool:
    """The tables are this campaign's: ingested from the same folder, from a
    copy of it (same name, same manifest), or from where it was before it
    moved (that folder is gone, the name is the same)."""
    theirs = Path(record["raw"])
    if theirs == raw_dir.resolve():
        return True
    if record.get("campaign") != raw_dir.name:
        return False
    return record.get("manifest_sha256") == _identity(raw_dir)["manifest_sha256"] or not (theirs / "manifest.yaml").is_file()


def _campaign_of(out: Path) -> str | None:
    try:
        return json.loads((out / "ingest.json").read_text()).get("campaign")
    except (OSError, ValueError, AttributeError):
        return None


def _listing(paths: list[str]) -> str:
    more = f" and {len(paths) - _SHOWN} more" if len(paths) > _SHOWN else ""
    return ", ".join(paths[:_SHOWN]) + more


@contextlib.contextmanager
def locked(out: Path, shown: str, wait: bool) -> Iterator[None]:
    """Holds the lock of the tables at ``out`` (a file beside it, which stays).
    ``wait=False``: an ingest already writing them refuses this one."""
    lock = out.with_name(f".{out.name}.lock")
    handle = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            raise OutputError(f"{shown}: another ingest is writing these tables now; wait for it to finish") from None
        yield
    finally:
        os.close(handle)  # closing lets go of the lock


def _synced(folder: Path) -> None:
    """Every file and folder of ``folder`` on disk before it is swapped in, so a
    power cut after the swap cannot leave renamed but empty tables."""
    for path in [*sorted(folder.rglob("*")), folder]:
        handle = os.open(path, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one step (Linux renameat2 RENAME_EXCHANGE); False where not supported."""
    renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if renameat2 is None:
        return False
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _swap_in(staging: Path, out: Path) -> Path | None:
    """``staging`` becomes ``out``, or nothing changes (an error); returns
    where the previous tables now are (None: there were none)."""
    if not out.exists():
        staging.rename(out)
        return None
    if _exchange(staging, out):
        return staging
    parked = staging.with_name(staging.name + ".previous")  # two renames where the exchange is not supported
    out.rename(parked)
    try:
        staging.rename(out)
    except BaseException:
        parked.rename(out)
        raise
    return parked


def _remove_ours(folder: Path, files: list[str]) -> None:
    """Remove the files netrepro wrote and the folders they leave empty; anything else stays."""
    for rel in files:
        (folder / rel).unlink(missing_ok=True)
    for sub in sorted((p for p in folder.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
        with contextlib.suppress(OSError):
            sub.rmdir()
    with contextlib.suppress(OSError):
        folder.rmdir()


@contextlib.contextmanager
def staged_tables(out: str | Path, raw_dir: Path, wait: bool = False) -> Iterator[Path]:
    """An empty staging folder beside ``out`` to write a campaign's tables
    into; when the block ends without error it replaces ``out`` whole (see the
    module's docstring). ``wait``: wait for another ingest of ``out`` instead
    of refusing. An OSError becomes one OutputError line naming ``out``."""
    shown = str(out)
    target = Path(out).resolve()  # a symbolic link to the tables' folder: the folder is replaced, not the link
    prefix = f".{target.name}.staging-"
    try:
        owned_files(target, raw_dir, shown)  # refused before anything is created beside it (the lock file)
        target.parent.mkdir(parents=True, exist_ok=True)
        with locked(target, shown, wait):
            previous = owned_files(target, raw_dir, shown)
            for left in target.parent.glob(prefix + "*"):  # an earlier ingest's, killed mid-way
                _remove_ours(left, [rel for rel in _written(left) if rel == MARKER or _is_ours(rel, set())
                                    or _PACKET_FILE.fullmatch(rel)])
            staging = target.parent / f"{prefix}{secrets.token_hex(6)}"
            staging.mkdir()  # (not mkdtemp: its 0700 would become the tables' mode)
            try:
                yield staging
                (staging / MARKER).write_text(json.dumps(_identity(raw_dir) | {"files": _written(staging)}, indent=1)
                                              + "\n")
                _synced(staging)
                replaced = _swap_in(staging, target)
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)  # the new tables, never swapped in
                raise
            if replaced is not None:
                _remove_ours(replaced, previous + [MARKER])
    except OSError as exc:
        raise one_line(exc, shown, target) from None
