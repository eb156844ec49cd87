"""Pre-registration: was a hypothesis file fixed before its campaign's data existed?

A directional claim earns a one-sided test only when its direction was stated
before anyone could look at the data; a direction chosen after a look is a
two-sided, exploratory question. The one fact that settles it is a record made
before the first run: ``netrepro collect PLAN --hypotheses FILE`` writes the
file's sha256 and the time into the campaign's collect record,
``<campaign>/collect/registration.yaml``, before any run, and never rewrites it
(``--resume`` keeps it even when the file changed since).

:func:`registration_of` reads that record for a campaign and a hypothesis file:
registered only if the recorded sha256 is the file's sha256 now (the claims
read today are the claims registered) and the record was made before the
campaign's first run started (per the manifest's ``meta.started``, written by
the same collector's clock). Anything else is post hoc, with the reason. The
engine marks every verdict row with it (``evaluate(..., registration=...)``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from dataclasses import replace as _replace
from datetime import datetime, timezone
from pathlib import Path

import yaml
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from analysis.artefacts import replace_whole
from analysis.errors import HypothesisError, ManifestError, RegistrationError
from analysis.ingest.ingest import discover
from analysis.ingest.manifest import MANIFEST_NAME, FileMapper, load_manifest
from analysis.verdicts.spec import load_hypotheses
from analysis.yamlfiles import load_model

RECORD = Path("collect") / "registration.yaml"  # relative to the campaign folder
_COLLECTOR_FILES = "collect/"  # the collector's own files (plan copy, logs, this record): never runs
_HEADER = ("# The hypothesis file registered for this campaign, written by `netrepro collect --hypotheses`\n"
           "# before the first run and never rewritten (docs/statistics.md, \"Pre-registration\").\n")


@dataclass(frozen=True)
class Registration:
    """Whether a hypothesis file's claims count as registered, and why (one line for the tables)."""

    registered: bool
    note: str
    collected_until_decided: bool = False  # the registered claims carry stop: the number of runs depends on the data

    @property
    def label(self) -> str:
        """The mark a verdict row carries: 'registered' or 'post hoc'."""
        return "registered" if self.registered else "post hoc"


POST_HOC = Registration(False, "post hoc: not registered")


class RegisteredFile(BaseModel):
    """One registration as stored: the file as it was named, its sha256 and when it was recorded."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    path: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    registered_at: AwareDatetime


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    hypotheses: RegisteredFile


def file_sha256(path: Path) -> str:
    """The sha256 of a hypothesis file's bytes: any edit, a comment included, is a different file."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as exc:
        raise HypothesisError(f"{path}: cannot read: {exc.strerror}") from None


def read_record(campaign_dir: Path) -> RegisteredFile | None:
    """The campaign's registration, or None when none was made. A record that
    exists but does not read is an error naming it: silently calling its claims
    post hoc would hide a damaged campaign folder."""
    path = Path(campaign_dir) / RECORD
    if not path.exists():
        return None
    return load_model(path, _Record, RegistrationError, "a 'hypotheses' mapping of path, sha256 and registered_at").hypotheses


def write_record(campaign_dir: Path, entry: RegisteredFile) -> Path:
    """Write the record whole or not at all (a temporary file, flushed, then
    renamed over), so a crash never leaves half a registration behind."""
    path = Path(campaign_dir) / RECORD
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"hypotheses": {"path": entry.path, "sha256": entry.sha256,
                           "registered_at": entry.registered_at.isoformat(timespec="milliseconds")}}
    text = _HEADER + yaml.safe_dump(data, sort_keys=False)
    replace_whole(path, lambda stream: stream.write(text))
    return path


def register(campaign_dir: Path, hypotheses: Path, now: datetime | None = None) -> str:
    """Register ``hypotheses`` for the campaign unless it already has a
    registration; what was done, as one line for the collector's log.

    The file is validated first, so only claims the engine can test are
    registered. An existing registration is never replaced: after a resume
    with an edited file, the record still says what was fixed before the
    data, and the edited claims are post hoc, which is what they are."""
    hypotheses = Path(hypotheses)
    load_hypotheses(hypotheses)
    current = file_sha256(hypotheses)
    old = read_record(campaign_dir)
    if old is not None:
        if old.sha256 == current:
            return f"{hypotheses}: registration of {_shown(old.registered_at)} kept (sha256 {_short(current)}, unchanged)"
        return (f"{hypotheses} changed since it was registered {_shown(old.registered_at)} (sha256 {_short(old.sha256)} "
                f"then, {_short(current)} now): the registration is kept as it was, so claims read from the file now "
                "are post hoc")
    entry = RegisteredFile(path=hypotheses.as_posix(), sha256=current, registered_at=now or datetime.now(timezone.utc))
    path = write_record(campaign_dir, entry)
    said = f"{hypotheses} registered {_shown(entry.registered_at)} (sha256 {_short(current)}) in {path}"
    starts = run_starts(campaign_dir)
    if starts is None or min(starts, default=entry.registered_at) < entry.registered_at:
        said += ": runs were already recorded, so its claims will be post hoc"
    return said


def registration_of(campaign_dir: Path, hypotheses: Path) -> Registration:
    """Registered or post hoc, with the reason, for the claims of ``hypotheses`` on this campaign.

    A campaign without a record (collected without ``--hypotheses``, or not by
    ``netrepro collect``) is post hoc, not an error: most campaigns are."""
    entry = read_record(campaign_dir)
    if entry is None:
        return Registration(False, "post hoc: no registration in the collect record")
    return _replace(_registration_of(campaign_dir, hypotheses, entry), collected_until_decided=_until_decided(entry))


def _until_decided(entry: RegisteredFile) -> bool:
    """Whether the registered file (still as registered) has claims with ``stop:``, by
    which the collector stopped cells: then every claim on the campaign is judged on
    runs whose number the data chose. Unknown (False) when the file is gone or changed."""
    path = Path(entry.path)
    if not path.is_file() or file_sha256(path) != entry.sha256:
        return False
    return any(h.stop is not None for h in load_hypotheses(path))


def _registration_of(campaign_dir: Path, hypotheses: Path, entry: RegisteredFile) -> Registration:
    now = file_sha256(hypotheses)
    if now != entry.sha256:
        return Registration(False, f"post hoc: the file changed since it was registered "
                                   f"(sha256 {_short(entry.sha256)} then, {_short(now)} now)")
    starts = run_starts(campaign_dir)
    if starts is None:
        return Registration(False, "post hoc: the manifest does not say when every run started, "
                                   "so the registration cannot be shown to precede them")
    first = min(starts, default=None)
    if first is not None and entry.registered_at >= first:
        return Registration(False, f"post hoc: registered after the first run started "
                                   f"(registered {_shown(entry.registered_at)}, first run {_shown(first)})")
    before = "before any run" if first is None else "before the first run"
    return Registration(True, f"registered {_shown(entry.registered_at)} (sha256 {_short(entry.sha256)}) {before}")


def run_starts(campaign_dir: Path) -> list[datetime] | None:
    """When each run of the campaign started (``meta.started`` of every
    ``files.table`` entry; [] when the collector has recorded none yet), or
    None when the manifest cannot say: an entry without a start, or a file
    outside ``collect/`` that has no entry (matched by a template only). The
    collector stamps runs and the registration with the same clock, so the
    two compare."""
    campaign_dir = Path(campaign_dir)
    if not (campaign_dir / MANIFEST_NAME).is_file():
        return []  # a collector stopped before its first run has written none
    manifest = load_manifest(campaign_dir)
    listed = {e.path for e in manifest.files.table}
    ignored = FileMapper(manifest).is_ignored
    if any(e.meta.get("started") is None for e in manifest.files.table) or \
            any(rel not in listed and not ignored(rel) and not rel.startswith(_COLLECTOR_FILES)
                for rel in discover(campaign_dir)):
        return None
    return [_time(e.meta["started"], campaign_dir / MANIFEST_NAME, e.path) for e in manifest.files.table]


def _time(value: object, manifest: Path, run: str) -> datetime:
    """A run's start as an aware time; a time without a zone is UTC, as the collector writes it."""
    try:
        t = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    except ValueError:
        raise ManifestError(f"{manifest}: files.table entry {run}: meta.started {value!r} is not an ISO 8601 time") from None
    return t if t.tzinfo is not None else t.replace(tzinfo=timezone.utc)


def _shown(t: datetime) -> str:
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _short(sha256: str) -> str:
    return sha256[:8] + "…"
