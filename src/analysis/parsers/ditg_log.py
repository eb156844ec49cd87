"""D-ITG's binary packet logs (``ITGRecv -l``, ``ITGSend -l``), read directly.

A log is a bare sequence of 144-byte records in the host's byte order
(little-endian on every machine D-ITG runs on today), without a header; see
:data:`RECORD`. This module only reads: it checks a log's shape, drops the
records ITGDec would skip as 'Error lines' and hands out the packets
(:class:`Packets`) and the per-packet table (:func:`packets_frame`).
ITGDec's arithmetic on them is :mod:`.ditg_stats`.
"""

from __future__ import annotations

import mmap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from analysis.errors import ParseError
from analysis.parsers.contents import WINDOW, release

if TYPE_CHECKING:
    import pandas as pd

RECORD_SIZE = 144
ADDRESS_LEN = 46
RECORD = np.dtype([
    ("flow", "<u4"), ("seq", "<u4"), ("src_port", "<u4"), ("dst_port", "<u4"),
    ("tx_hour", "<u4"), ("tx_min", "<u4"), ("rx_hour", "<u4"), ("rx_min", "<u4"),
    ("size", "<u4"), ("src", f"S{ADDRESS_LEN}"), ("dst", f"S{ADDRESS_LEN}"),
    ("tx_sec", "<f8"), ("rx_sec", "<f8"),
])
assert RECORD.itemsize == RECORD_SIZE
_ADDR_WORDS = slice(9, 32)  # both addresses as 23 little-endian uint32 words
# flags of 8-byte words 0-7 packed in one uint64, one byte each: keep word 1 (ports)
# and words 5-7 (addresses); words 8-15 (addresses) are the second packed word
_KEY_FLAGS = np.uint64(int.from_bytes(bytes([0, 1, 0, 0, 0, 1, 1, 1]), "little") * 0xFF)
_PRINTABLE = np.zeros(256, dtype=bool)
_PRINTABLE[0x21:0x7F] = True

Endpoint = tuple[int, str, int, str, int]  # (flow id, source, source port, destination, destination port)


@dataclass(slots=True)
class Packets:
    """Valid packets in file order, as ITGDec sees them: flow index (order of
    first appearance), sequence number, payload size and the tx/rx times in
    seconds of the day, computed as ITGDec computes them."""

    flow: np.ndarray
    endpoints: list[Endpoint]
    seq: np.ndarray
    size: np.ndarray
    tx_s: np.ndarray
    rx_s: np.ndarray
    error_lines: int = 0

    def slice(self, start: int, stop: int) -> "Packets":
        """Packets ``start:stop`` (views, no copy), for writing a long log in parts."""
        return Packets(self.flow[start:stop], self.endpoints, self.seq[start:stop], self.size[start:stop],
                       self.tx_s[start:stop], self.rx_s[start:stop])

    @classmethod
    def join(cls, parts: list["Packets"]) -> "Packets":
        """Parts of one log (read by :func:`read_log`) as one."""
        if not parts:
            raise ValueError("no part to join")
        return Packets(np.concatenate([p.flow for p in parts]), parts[-1].endpoints,
                       np.concatenate([p.seq for p in parts]), np.concatenate([p.size for p in parts]),
                       np.concatenate([p.tx_s for p in parts]), np.concatenate([p.rx_s for p in parts]),
                       sum(p.error_lines for p in parts))


CHUNK = WINDOW // RECORD_SIZE  # records read at a time (9 MB): a log of any length is read in the memory of one part


def log_extent(data: bytes | mmap.mmap | memoryview) -> int | None:
    """How many bytes of ``data`` are D-ITG log records, when it is a
    plausible log (see :func:`detect_binary`): all of it, or all but the NUL
    bytes a crash-damaged or preallocated file ends in (an all-zero record is
    no packet: its addresses are empty). None for anything else. Only the
    first part of the log is looked at; :func:`read_log` checks the others
    as it reads them and names a record that fails."""
    size = len(data)
    if not size:
        return None
    end = size if data[-1] else _end_of_content(data)
    keep = -(-end // RECORD_SIZE) * RECORD_SIZE  # whole records: one that ends in 0 bytes stays whole
    if not 0 < keep <= size:
        return None
    head = np.frombuffer(data, RECORD, count=min(CHUNK, keep // RECORD_SIZE))
    starts = _checked_run_starts(head)
    return keep if starts is not None and _times_in_range(head[starts]) else None


def _end_of_content(data: bytes | mmap.mmap | memoryview) -> int:
    """One past the last byte that is not NUL, looked for from the end a
    megabyte at a time (never a copy of the whole file)."""
    step, end = 1 << 20, len(data)
    while end > 0:
        block = np.frombuffer(data, np.uint8, count=min(step, end), offset=max(0, end - step))
        found = np.flatnonzero(block)
        if len(found):
            return max(0, end - step) + int(found[-1]) + 1
        end -= step
    return 0


def detect_binary(data: bytes | mmap.mmap) -> bool:
    """True only for a plausible D-ITG log: whole records and, where each run
    of one flow starts in the log's first part (:func:`log_extent`), both
    addresses NUL-terminated printable text padded with NULs and the time
    fields in range (hour < 24, minute < 60, 0 <= seconds < 60), so no text
    file passes. Other records with times out of range are ITGDec's 'Error
    lines', skipped when the log is read; :func:`read_log` checks the
    addresses of the other parts."""
    return log_extent(data) == len(data)


def read_log(data: bytes | mmap.mmap, source: str = "<bytes>", end: int | None = None,
             on_read: Callable[[int], object] | None = None) -> Iterator[Packets]:
    """The valid packets of ``data[:end]``, part by part in file order
    (:data:`CHUNK` records at a time, no copy of the log; a mapped part's
    pages are let go once it is read), flows numbered across parts.
    Raises ParseError for a log that is not whole records, or for the first
    record whose addresses are not NUL-terminated printable text.
    ``on_read(stop)`` is told where each part ends before it is read (ingest
    hashes the bytes then: :class:`.contents.ContentDigest`)."""
    size = len(data) if end is None else end
    if not size:
        raise ParseError(source, None, "empty D-ITG binary log")
    if size % RECORD_SIZE:
        raise ParseError(source, None, f"{size} bytes is not a whole number of "
                         f"{RECORD_SIZE}-byte D-ITG log records")
    flows = FlowNumbers()
    total = size // RECORD_SIZE
    for first in range(0, total, CHUNK):
        arr = np.frombuffer(data, RECORD, count=min(CHUNK, total - first), offset=first * RECORD_SIZE)
        if on_read is not None:
            on_read(first * RECORD_SIZE + arr.nbytes)
        starts = _checked_run_starts(arr)
        if starts is None:
            bad = first + _first_bad_address(arr)
            raise ParseError(source, None, f"record {bad + 1} (byte {bad * RECORD_SIZE}): its addresses are not "
                             "NUL-terminated printable text padded with NULs: not a D-ITG binary log")
        yield packets_from_records(arr, starts, flows)
        release(data, first * RECORD_SIZE, arr.nbytes)


def _words(arr: np.ndarray) -> np.ndarray:
    """The records as rows of 36 uint32 words (a view, no copy)."""
    return arr.view("<u4").reshape(-1, RECORD_SIZE // 4)


def _run_starts(arr: np.ndarray) -> np.ndarray:
    """Indices of the records whose flow key (flow id, ports, addresses)
    differs from the previous record's. Logs come in long runs of one flow,
    so only run starts need a closer look. Compares whole 8-byte words of
    the record with the next one's (contiguous, fast), then picks the words
    that hold the key: 1 (ports) and 5-15 (addresses), plus the flow id and
    the first address bytes that share words with the seq and the size."""
    q = arr.view("<u8").reshape(-1)
    width = RECORD_SIZE // 8
    ne = (q[width:] != q[:-width]).reshape(-1, width)[:, :16].view("<u8")  # 16 flags as two words
    w = _words(arr)
    change = ((ne[:, 0] & _KEY_FLAGS) | ne[:, 1]).astype(bool)
    change |= (w[1:, 0] != w[:-1, 0]) | (w[1:, 9] != w[:-1, 9])
    return np.flatnonzero(np.concatenate(([True], change)))


def _checked_run_starts(arr: np.ndarray) -> np.ndarray | None:
    """Run starts, or None when an address field is not printable text,
    NUL-terminated and NUL-padded (ITGDec compares addresses with strcmp;
    with NUL padding, comparing bytes is the same)."""
    if not len(arr):
        return None
    starts = _run_starts(arr)
    raw = np.ascontiguousarray(_words(arr)[starts, _ADDR_WORDS]).view(np.uint8)
    for field_bytes in (raw[:, :ADDRESS_LEN], raw[:, ADDRESS_LEN:]):
        nul = field_bytes == 0
        first = np.where(nul.any(axis=1), nul.argmax(axis=1), -1)
        if (first <= 0).any():
            return None
        before = np.arange(ADDRESS_LEN)[None, :] < first[:, None]
        if not np.where(before, _PRINTABLE[field_bytes], field_bytes == 0).all():
            return None
    return starts


def _first_bad_address(arr: np.ndarray) -> int:
    """Index of the first record of ``arr`` whose addresses fail the check
    of :func:`_checked_run_starts` (which is known to fail somewhere)."""
    lo, hi = 0, len(arr)  # the check fails on arr[:hi], holds on arr[:lo]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _checked_run_starts(arr[:mid]) is None:
            hi = mid
        else:
            lo = mid
    return lo


def _times_in_range(arr: np.ndarray) -> bool:
    """Every hour < 24, minute < 60 and 0 <= seconds < 60, judged on the
    fields' maxima and minima: a reduction over each column, no temporary
    array per comparison (NaN seconds make min/max NaN, so they fail too)."""
    top = _words(arr)[:, 4:8].max(axis=0)  # tx hour, tx minute, rx hour, rx minute
    secs = arr.view("<f8").reshape(-1, RECORD_SIZE // 8)[:, 16:18]
    return bool(top[0] < 24 and top[2] < 24 and top[1] < 60 and top[3] < 60 and secs.min() >= 0 and secs.max() < 60)


def _itgdec_valid(head: np.ndarray, secs: np.ndarray) -> np.ndarray | None:
    """ITGDec's own test: it counts other records as 'Error lines' and skips
    them. None when every record passes (the usual case, tested cheaply)."""
    limit = 59.999999
    top = [head[:, i].max() for i in range(4, 8)]  # tx hour, tx minute, rx hour, rx minute (a column each: 3x faster)
    if top[0] <= 24 and top[2] <= 24 and top[1] <= 59 and top[3] <= 59 and secs.min() >= 0 and secs.max() <= limit:
        return None
    hours, minutes = head[:, [4, 6]], head[:, [5, 7]]
    return np.asarray((hours <= 24).all(axis=1) & (minutes <= 59).all(axis=1)
                      & ((secs >= 0) & (secs <= limit)).all(axis=1))


def seconds_of_day(hour: np.ndarray, minute: np.ndarray, sec: np.ndarray) -> np.ndarray:
    """ITGDec's ``(double)h*3600 + (double)m*60 + s``; the integer part is exact
    either way, so it is computed in the fields' integer type (no overflow
    for hours <= 24 and minutes <= 59, the only ones ITGDec accepts) and
    converted while adding the seconds."""
    return (hour * 3600 + minute * 60) + sec


def packets_from_records(arr: np.ndarray, starts: np.ndarray, flows: "FlowNumbers | None" = None) -> Packets:
    """The valid packets of checked records (a part of a log, with the
    log's ``flows`` so far). The nine integer fields and the two times are
    copied out once: every later pass then reads compact memory instead of
    striding over 144-byte records."""
    flows = flows if flows is not None else FlowNumbers()
    head = _words(arr)[:, :9].copy()
    secs = arr.view("<f8").reshape(-1, RECORD_SIZE // 8)[:, 16:18].copy()
    valid = _itgdec_valid(head, secs)
    errors = 0 if valid is None else int(len(arr) - np.count_nonzero(valid))
    if errors:
        arr, head, secs = arr[valid], head[valid], secs[valid]
        starts = _run_starts(arr) if len(arr) else starts[:0]
    return Packets(
        flow=flows.number(arr, starts), endpoints=flows.endpoints, seq=head[:, 1], size=head[:, 8],
        tx_s=seconds_of_day(head[:, 4], head[:, 5], secs[:, 0]),
        rx_s=seconds_of_day(head[:, 6], head[:, 7], secs[:, 1]),
        error_lines=errors,
    )


class FlowNumbers:
    """Flow numbers of a log read part by part: flows in order of first
    appearance, keyed like ITGDec by (flow id, source, source port,
    destination, destination port). ``endpoints`` grows as flows appear.
    (Addresses are NUL-padded, so their text is as exact a key as their bytes.)"""

    def __init__(self) -> None:
        self._numbers: dict[Endpoint, int] = {}
        self.endpoints: list[Endpoint] = []

    def number(self, arr: np.ndarray, starts: np.ndarray) -> np.ndarray:
        """The flow number of each record of ``arr`` (``starts``: its run starts)."""
        if not len(arr):
            return np.zeros(0, dtype=np.int64)
        w = _words(arr)
        keys = np.concatenate([w[starts][:, [0, 2, 3]], w[starts, _ADDR_WORDS]], axis=1)
        local, first = first_appearance(keys)
        numbers = np.array([self._known(_endpoint(arr[starts[row]])) for row in first], dtype=np.int64)
        return np.repeat(numbers[local], np.diff(np.append(starts, len(arr))))

    def renumber(self, packets: Packets) -> Packets:
        """``packets`` (a part read with flows numbered within it) with the log's numbers."""
        numbers = np.array([self._known(e) for e in packets.endpoints], dtype=np.int64)
        flow = numbers[packets.flow] if len(numbers) else packets.flow
        return Packets(flow, self.endpoints, packets.seq, packets.size, packets.tx_s, packets.rx_s, packets.error_lines)

    def _known(self, endpoint: Endpoint) -> int:
        number = self._numbers.get(endpoint)
        if number is None:
            number = self._numbers[endpoint] = len(self.endpoints)
            self.endpoints.append(endpoint)
        return number


def _endpoint(record: np.void) -> Endpoint:
    return (int(record["flow"]), record["src"].decode("ascii"), int(record["src_port"]),
            record["dst"].decode("ascii"), int(record["dst_port"]))


def first_appearance(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of ``keys`` (a 2-D integer array) numbered 0, 1, ... by the order in
    which each distinct row first appears, as ITGDec numbers flows; and the
    index of each number's first row."""
    keys = np.ascontiguousarray(keys)
    _, first, inverse = np.unique(keys.view(f"V{keys.shape[1] * keys.itemsize}").ravel(), return_index=True,
                                  return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[inverse.ravel()], np.sort(first)


def nanoseconds(seconds: np.ndarray) -> np.ndarray:
    """Seconds of the day (a double holding microseconds) as exact integer ns:
    below 86,400 s a double resolves ~1e-11 s, so rounding recovers the stamp."""
    return np.rint(np.asarray(seconds, dtype=np.float64) * 1e9).astype(np.int64)


def _apart(later: np.ndarray, earlier: np.ndarray) -> np.ndarray:
    """``later - earlier`` in seconds, from whole nanoseconds (as the stored
    packets): a plain difference of two times of day prints D-ITG's 92
    microseconds as 9.1999999995e-05."""
    return (nanoseconds(later) - nanoseconds(earlier)) / 1e9


def packets_frame(packets: Packets) -> pd.DataFrame:
    """The per-packet table: one row per valid packet, delays in seconds."""
    import pandas as pd  # here: parsing a file (`netrepro parse`) needs no pandas, and it takes a second to import

    ids = np.array([e[0] for e in packets.endpoints] or [0], dtype=np.int64)
    cols = {name: np.array([e[i] for e in packets.endpoints] or [""], dtype=object)
            for i, name in ((1, "src"), (3, "dst"))}
    ports = {name: np.array([e[i] for e in packets.endpoints] or [0], dtype=np.int64)
             for i, name in ((2, "src_port"), (4, "dst_port"))}
    f = packets.flow
    return pd.DataFrame({
        "flow": ids[f], "seq": packets.seq, "src": cols["src"][f], "src_port": ports["src_port"][f],
        "dst": cols["dst"][f], "dst_port": ports["dst_port"][f], "tx_s": packets.tx_s,
        "rx_s": packets.rx_s, "size_bytes": packets.size, "delay_s": _apart(packets.rx_s, packets.tx_s),
    })
