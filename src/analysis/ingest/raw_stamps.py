"""Which raw files changed since they were hashed, told without reading them.

A campaign's fingerprint (:func:`.ingest.fingerprint`) hashes every raw file:
5-8 s for lan-p2p, paid by every notebook's ``load_campaign`` and every
up-to-date check of the report. Ingest hashes each file once anyway; it
records each file's size and modification time (taken before the file is
read) beside its digest in :data:`STAMPS`, and a later fingerprint reuses the
digest of a file whose size and time are unchanged.

A time is trusted only when it is older than the stamp by :data:`RACY_NS`
(as git does with its index): a file written in the same tick of the clock
as it was stamped could change again without its time changing.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

STAMPS = "raw-stamps.json"
RACY_NS = 2_000_000_000  # the coarsest modification-time step of common file systems (FAT: 2 s)

Stamp = tuple[int, int]  # (size in bytes, modification time in ns)


def stamp_of(path: Path) -> Stamp:
    st = path.lstat()
    return st.st_size, st.st_mtime_ns


class Stamps:
    """The stamps of a campaign's files taken at one moment, and the digests found for them."""

    def __init__(self, taken_ns: int, stamps: dict[str, Stamp], digests: dict[str, str] | None = None):
        self.taken_ns = taken_ns
        self.stamps = stamps
        self.digests = digests or {}

    @classmethod
    def take(cls, campaign_dir: Path, rels: list[str]) -> Stamps:
        """Stamp the files now, before they are read: a change while they are read shows as a new time."""
        taken = time.time_ns()
        return cls(taken, {rel: stamp_of(campaign_dir / rel) for rel in rels})

    def trusted(self, rel: str, now: Stamp) -> str | None:
        """The digest recorded for ``rel`` if the file still has its stamp and
        that stamp is safely older than the moment it was taken."""
        if self.stamps.get(rel) != now or now[1] > self.taken_ns - RACY_NS:
            return None
        return self.digests.get(rel)

    def to_json(self) -> str:
        return json.dumps({"taken_ns": self.taken_ns,
                           "files": {rel: [*self.stamps[rel], self.digests[rel]] for rel in self.stamps
                                     if rel in self.digests}}) + "\n"

    @classmethod
    def read(cls, folder: Path) -> Stamps:
        """The stamps recorded in ``folder`` (none when absent or unreadable: every file is then hashed)."""
        try:
            record = json.loads((folder / STAMPS).read_text())
            files = record["files"]
            return cls(int(record["taken_ns"]), {rel: (int(v[0]), int(v[1])) for rel, v in files.items()},
                       {rel: str(v[2]) for rel, v in files.items()})
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
            return cls(0, {})

    def write(self, folder: Path) -> None:
        """Into ``folder``, replaced whole (a notebook in another kernel may be reading it)."""
        partial = folder / f".{STAMPS}.{os.getpid()}.tmp"
        try:
            partial.write_text(self.to_json())
            partial.replace(folder / STAMPS)
        finally:
            partial.unlink(missing_ok=True)


def digests_reusing(campaign_dir: Path, rels: list[str], known: Stamps,
                    digest: Callable[[Path], str]) -> tuple[list[tuple[str, str]], Stamps, int]:
    """Each file's digest: the recorded one where its stamp is trusted, else
    ``digest(path)``; the stamps taken now with these digests (to record when
    some files had to be hashed again); how many were hashed."""
    fresh = Stamps.take(campaign_dir, rels)
    found, hashed = [], 0
    for rel in rels:
        value = known.trusted(rel, fresh.stamps[rel])
        if value is None:
            value, hashed = digest(campaign_dir / rel), hashed + 1
        fresh.digests[rel] = value
        found.append((rel, value))
    return found, fresh, hashed
