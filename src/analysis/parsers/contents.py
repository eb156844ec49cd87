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
    """Let go of a mapped window's pages once read (``start`` page-aligned):
    they stay in the page cache, out of this process's memory."""
    if isinstance(data, mmap.mmap) and length > 0:
        data.madvise(mmap.MADV_DONTNEED, start, length)


def sha256_of(data: Contents) -> str:
    """The content's sha256, a window at a time."""
    digest = hashlib.sha256()
    with memoryview(data) as view:
        for start in range(0, len(view), WINDOW):
            digest.update(view[start:start + WINDOW])
            release(data, start, min(WINDOW, len(view) - start))
    return digest.hexdigest()
