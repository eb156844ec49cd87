"""A file's contents as the parsers read them: small files as bytes, large
ones (packet logs) mapped, and read a window at a time with each window's
pages let go once read, so a log of any size is never resident as a whole."""

from __future__ import annotations

import hashlib
import mmap
import os
from pathlib import Path

MAP_FROM = 1 << 22  # bytes: a file this large is mapped, not copied
WINDOW = 65_536 * 144  # bytes read at a time: 2,304 pages, a whole number of D-ITG records

Contents = bytes | mmap.mmap


def read_contents(path: Path) -> Contents:
    """A file's bytes; a large one mapped read-only (neither copied nor
    read ahead of use: its pages come in as a window is read)."""
    with path.open("rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size < MAP_FROM:
            return f.read()
        return mmap.mmap(f.fileno(), 0, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ)


def release(data: Contents | memoryview, start: int, length: int) -> None:
    """Let go of a mapped window's pages once read: they stay in the page
    cache, out of this process's memory (a page read again comes back)."""
    if isinstance(data, mmap.mmap) and length > 0:
        page = start // mmap.PAGESIZE * mmap.PAGESIZE
        data.madvise(mmap.MADV_DONTNEED, page, start + length - page)


class ContentDigest:
    """A file's sha256, taken as a parser reads it: :meth:`read_to` hashes
    the bytes up to where the parser is about to read, while they come into
    the CPU's caches for it anyway, and :meth:`hexdigest` hashes what no
    parser read (all of a file no parser streams, a log's NUL padding, the
    rest of a rejected log) a window at a time."""

    def __init__(self, data: Contents):
        self._data, self._hash, self._done = data, hashlib.sha256(), 0

    def read_to(self, end: int) -> None:
        """Hash up to byte ``end`` (the parser reads in order)."""
        if end > self._done:
            with memoryview(self._data) as view:
                self._hash.update(view[self._done:end])
            self._done = end

    def hexdigest(self) -> str:
        with memoryview(self._data) as view:
            for start in range(self._done, len(view), WINDOW):
                stop = min(start + WINDOW, len(view))
                self._hash.update(view[start:stop])
                release(self._data, start, stop - start)
        self._done = len(self._data)
        return self._hash.hexdigest()


def sha256_of(data: Contents) -> str:
    """The content's sha256, a window at a time."""
    return ContentDigest(data).hexdigest()
