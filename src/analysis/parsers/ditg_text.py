"""ITGDec's ``-l`` text packet log read with numpy, without a Python loop per line.

A log of a few million packets is hundreds of megabytes of lines like

    Flow>0001 Seq>      1 Src>   127.0.0.1/51310 Dest>   127.0.0.1/29131 txTime>1:53:21.741425 rxTime>1:53:21.741452 Size>  512

which a regular expression reads at a few hundred thousand lines a second.
Here the text goes through numpy a few megabytes at a time, on a thread per
core (numpy lets go of the GIL):

* the ``>`` bytes pin every line to that layout, and each keyword is
  checked as one 8-byte word;
* a number is read from the 8 bytes that end it as one uint64, 8 digits at
  a time (SWAR);
* what changes seldom from one line to the next (the addresses, the hour,
  minute and second) is read only where its bytes differ from the line
  before's; the other lines have the same values;
* the padding spaces are checked by counting: a piece holds exactly as
  many spaces as its lines' layouts say.

Every byte of a line is checked against the rules of ``ditg._PACKET``.
:func:`read_pieces` gives up on a piece (None) at the first line that
breaks them or that it does not take (non-ASCII text, padding other than
spaces, a '>' in an address, H:M:S of more than 8 characters, S.F of more
than 15 digits, addresses of more than 47 characters); the caller then reads
that piece with the regular expression, which names the first bad line.
"""

from __future__ import annotations

import mmap
import os
import re
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from analysis.parsers.contents import release
from analysis.parsers.ditg_log import Endpoint, Packets, first_appearance, seconds_of_day

PIECE = 1 << 22  # characters read at a time: a piece and its arrays stay in the CPU caches
PAD = 64  # zero bytes around a piece, so that every 8-byte read near a line stays in the buffer
WORDS = 6  # 8-byte words kept per address: up to 47 characters (D-ITG stores 45 at most)
KEYWORDS = ("Flow>", " Seq>", " Src>", " Dest>", " txTime>", " rxTime>", " Size>")


def _each_byte(c: int) -> np.uint64:
    return np.uint64(c * 0x0101010101010101)


_HIGH_BITS = _each_byte(0x80)
# The keyword that ends in each of a line's seven '>', read as the low bytes of one word.
_KW_OFFSET = np.array([[1 - len(k)] for k in KEYWORDS])
_KW_VALUE = np.array([[int.from_bytes(k.encode(), "little")] for k in KEYWORDS], dtype=np.uint64)
_KW_MASK = np.array([[(1 << 8 * len(k)) - 1] for k in KEYWORDS], dtype=np.uint64)
# A field ends where the next keyword begins; the last one (Size) at the end of the line.
_FIELD_END = np.array([[len(k) - 1] for k in KEYWORDS[1:]])
_BLANK_LINES = re.compile(rb"^[ \r]*(?:\n|\Z)", re.M)  # blank to the regular expression too
_POW10 = np.array([10**i for i in range(16)], dtype=np.uint64)


class _Unread(Exception):
    """A line this reader does not vouch for."""


def _require(ok: bool | np.bool_) -> None:
    if not ok:
        raise _Unread


@dataclass
class _Piece:
    seq: np.ndarray
    size: np.ndarray
    tx_s: np.ndarray
    rx_s: np.ndarray
    new_key: np.ndarray  # the line's flow key may differ from the line before's (always so on the first)
    keys: np.ndarray  # (new keys, 3 + 2 * WORDS) uint64: flow id, ports and address words


_NO_LINES = _Piece(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(0), np.zeros(0, bool),
                   np.zeros((0, 3 + 2 * WORDS), np.uint64))


Piece = tuple[int, memoryview, Packets | None]


def read_pieces(data: bytes | mmap.mmap) -> Iterator[Piece]:
    """An ITGDec ``-l`` text piece by piece, in order, as (the piece's first
    byte, its bytes, its packets with flows numbered within the piece, or
    None when a line is not one this reader vouches for).
    Pieces of about PIECE bytes end with a line; a few per core are read
    ahead, side by side (numpy lets go of the GIL), so memory is a few
    pieces whatever the text's length, and a mapped piece's pages are let
    go once copied out."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    released = 0
    with ThreadPoolExecutor(cores) as pool, memoryview(data) as view:
        ahead: deque[tuple[int, int, Future[Packets | None]]] = deque()

        def oldest() -> Piece:
            nonlocal released
            start, end, future = ahead.popleft()
            packets = future.result()
            release(data, released, end - released)
            released = max(released, end)
            return start, view[start:end], packets

        for start, end in _piece_bounds(data):
            ahead.append((start, end, pool.submit(_read_bytes, view[start:end])))
            if len(ahead) > 2 * cores:
                yield oldest()
        while ahead:
            yield oldest()


def line_at(data: bytes | mmap.mmap, offset: int) -> int:
    """The number of the line that begins at byte ``offset`` (counted only
    when a line must be named: a pass over everything before it)."""
    lines = 1
    for start in range(0, offset, PIECE):
        lines += int(np.count_nonzero(np.frombuffer(data, np.uint8, count=min(PIECE, offset - start), offset=start) == 10))
    return lines


def _piece_bounds(data: bytes | mmap.mmap) -> Iterator[tuple[int, int]]:
    """(start, end) of pieces of about PIECE bytes that end with a line."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start + PIECE)
        end = len(data) if end < 0 else end + 1
        yield start, end
        start = end


def _read_bytes(raw: memoryview) -> Packets | None:
    """A piece's packets; None if this reader does not vouch for a line."""
    octets = np.frombuffer(raw, np.uint8)
    if len(octets) and octets.max() >= 0x80:  # not ASCII
        return None
    try:
        return _assemble(_read_piece(raw))
    except _Unread:
        return None


def _read_piece(chunk: bytes | memoryview) -> _Piece:
    """The lines of a piece; blank lines (spaces, a '\\r') are dropped first
    if it has some, as the regular expression skips them."""
    try:
        return _read_lines(chunk)
    except _Unread:
        without_blanks = _BLANK_LINES.sub(b"", chunk)  # rare: ITGDec writes no blank line
        if without_blanks == chunk:
            raise
        return _read_lines(without_blanks) if without_blanks else _NO_LINES


def _read_lines(raw: bytes | memoryview) -> _Piece:
    """Whole packet lines read and checked field by field, each check over
    all the lines at once."""
    newline = raw[-1:] != b"\n"  # a last line without its newline gets one
    buf = np.zeros(len(raw) + newline + 2 * PAD, np.uint8)
    data = buf[PAD:PAD + len(raw) + newline]
    data[:len(raw)] = np.frombuffer(raw, np.uint8)
    data[-1] = ord("\n")
    word = np.ndarray((len(buf) - 7,), "<u8", buffer=buf, strides=(1,))  # word[i]: bytes i..i+7
    pair = np.ndarray((len(buf) - 15,), "V16", buffer=buf, strides=(1,))  # 16 bytes read as fast as 8
    gt, end = _lines(buf, data)
    around = _words(pair, gt + _KW_OFFSET - 8)  # each keyword, and the 8 bytes before it
    _require(((around[..., 1] & _KW_MASK) == _KW_VALUE).all())
    ends = np.empty(gt.shape, np.int64)  # rows: flow, seq, src port, dest port, tx, rx, size
    ends[:6] = gt[1:] - _FIELD_END
    ends[6] = end
    value, digits = _digits(word, ends, np.concatenate([around[1:, :, 0], word[end - 8][None]]))
    integer = digits[[0, 1, 2, 3, 6]]
    _require(((integer >= 1) & (integer <= 10)).all() and (digits[0] == ends[0] - gt[0] - 1).all())
    pads = ends[[1, 6]] - digits[[1, 6]] - gt[[1, 6]] - 1  # spaces before Seq and Size (the '>' stops the digits)
    spaces = 6 * gt.shape[1] + int(pads.sum())
    addresses = []
    for row in (2, 3):  # the source, then the destination
        slash = ends[row] - digits[row] - 1
        _require((buf[slash] == ord("/")).all())
        start, words, new = _addresses(word, pair, slash)
        spaces += int((start - gt[row] - 1).sum())
        addresses.append((words, new))
    _require(np.count_nonzero(data == ord(" ")) == spaces)  # the paddings, and no other space
    tx, rx = _times(buf, word, ends[4:6], value[4:6], digits[4:6], gt[4:6])
    ids = value[[0, 2, 3]]  # flow id and ports
    new_key = addresses[0][1] | addresses[1][1]
    new_key[1:] |= (ids[:, 1:] != ids[:, :-1]).any(axis=0)
    rows = np.flatnonzero(new_key)
    keys = np.concatenate([ids[:, rows].T] + [words[np.cumsum(new)[rows] - 1] for words, new in addresses], axis=1)
    return _Piece(value[1].astype(np.int64), value[6].astype(np.int64), tx, rx, new_key, keys)


def _lines(buf: np.ndarray, data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The seven '>' of each line (7, n) and where each line ends (before its
    '\\r\\n' or '\\n'). The lines must follow one another: each starts right
    after the newline of the one before. (No other control character is
    looked for: every byte of a line is checked as part of some field.)"""
    marks = np.flatnonzero(data == ord(">")) + PAD
    _require(len(marks) % 7 == 0)
    gt = np.ascontiguousarray(marks.reshape(-1, 7).T)  # one row per '>': each read goes along a row
    newline = np.append(gt[0, 1:] - 5, PAD + len(data) - 1)  # "Flow>" starts a line
    _require(gt.shape[1] > 0 and gt[0, 0] == PAD + 4 and (buf[newline] == ord("\n")).all())
    return gt, newline - (buf[newline - 1] == ord("\r"))


def _words(pair: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The 16 bytes from each position ``at`` as two uint64 words (last axis)."""
    return pair[at].view("<u8").reshape(*at.shape, 2)


def _digits(word: np.ndarray, end: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The number written by the digits right before each ``end`` and how
    many they are (at most 16 are seen): 8 digits per uint64, ``x`` being
    the 8 bytes before ``end``."""
    count = _trailing_digits(x)
    value = _eight_digits(x, count)
    full = np.flatnonzero(count == 8)
    if len(full):
        y = word[end.ravel()[full] - 16]
        more = _trailing_digits(y)
        value.ravel()[full] += _eight_digits(y, more) * _POW10[8]
        count.ravel()[full] += more
    return value, count


def _trailing_digits(x: np.ndarray) -> np.ndarray:
    """How many of the last bytes of each word are ASCII digits (0-8)."""
    not_digit = (~(x + _each_byte(0x50)) | (x + _each_byte(0x46))) & _HIGH_BITS  # < '0', > '9'
    return np.minimum(7 - _top_byte(not_digit), 8)


def _top_byte(flags: np.ndarray) -> np.ndarray:
    """Index (0-7) of the highest byte whose top bit is set, or -128 if none:
    the exponent of the word as a float64."""
    return ((flags.astype(np.float64).view(np.int64) >> 52) - 1023) >> 3


def _eight_digits(x: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The number in the last ``count`` bytes of each word, read with three
    multiplications (the bytes before them are cleared: leading zeros)."""
    cut = ((8 - count) * 8).astype(np.uint64)
    x = (x >> cut << cut) & _each_byte(0x0F)
    x = ((x * np.uint64(10 * 2**8 + 1)) >> np.uint64(8)) & np.uint64(0x00FF00FF00FF00FF)
    x = ((x * np.uint64(100 * 2**16 + 1)) >> np.uint64(16)) & np.uint64(0x0000FFFF0000FFFF)
    return (x * np.uint64(10000 * 2**32 + 1)) >> np.uint64(32)


def _top_number(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The number in the last bytes of each word, its digit count and the
    byte before it."""
    count = _trailing_digits(x)
    before = (x >> ((7 - count) * 8).clip(0).astype(np.uint64)) & np.uint64(0xFF)
    return _eight_digits(x, count), count, before


def _carried(new: np.ndarray) -> np.ndarray:
    """For each line, the index among the ``new`` lines of the last one at
    or before it (the first line is always new)."""
    return np.cumsum(new) - 1


def _addresses(word: np.ndarray, pair: np.ndarray, slash: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where each address (ending at ``slash``) starts, the lines whose
    address may differ from the line before's, and the address of each of
    those as WORDS uint64 words. A line whose 16 bytes before the slash
    equal the line before's has its address, if that fits in them."""
    window = _words(pair, slash - 16)
    before, last = window[:, 0], window[:, 1]
    new = np.ones(len(slash), bool)
    new[1:] = (last[1:] != last[:-1]) | (before[1:] != before[:-1])
    start, words = _scan(word, slash[new])
    if (slash[new] - start < 16).all():
        return slash - (slash[new] - start)[_carried(new)], words, new
    start, words = _scan(word, slash)  # a long address: every line is read
    new[1:] = (words[1:] != words[:-1]).any(axis=1)
    return start, words[new], new


def _scan(word: np.ndarray, slash: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start of each address (after the last space or '>' before the slash)
    and its bytes as WORDS words from the right, zero before its start, so
    that equal addresses give equal words."""
    start = np.zeros(len(slash), np.int64)  # 0 until found (lines start at PAD or later)
    words = np.zeros((len(slash), WORDS), np.uint64)
    for j in range(WORDS):
        at = slash - 8 * (j + 1)
        x = word[at]
        stop = ~((x + _each_byte(0x5F)) & ((x ^ _each_byte(0x3E)) + _each_byte(0x7F))) & _HIGH_BITS  # <= ' ', '>'
        top = _top_byte(stop)
        cut = ((top + 1) * 8).clip(0).astype(np.uint64)
        words[:, j] = np.where(start > 0, 0, x >> cut << cut)
        start = np.where((start == 0) & (top >= 0), at + top + 1, start)
        if (start > 0).all():
            _require((start < slash).all())
            return start, words
    raise _Unread


def _times(buf, word, end, last, count, gt) -> tuple[np.ndarray, np.ndarray]:
    """``H:M:S[.F]`` fields (rows: tx, rx) as seconds of the day. The digits
    before ``end`` (``last``, ``count``) are F when a '.' precedes them.
    H:M:S, before the dot, is read from the word that ends there (any time
    of day fits in 8 bytes) where that word differs from the line before's:
    it holds the '>' before H:M:S, or H:M:S fills it, so equal words are
    equal fields. S.F is the integer SF over 10**len(F), both exact in a
    float64 (15 digits at most), so that the division rounds as ``float()``."""
    _require((count >= 1).all())
    dot = buf[end - count - 1] == ord(".")
    hms_end = np.where(dot, end - count - 1, end)
    window, length = word[hms_end - 8], hms_end - gt - 1
    _require((length <= 8).all())
    new = np.ones(window.shape, bool)
    new[:, 1:] = window[:, 1:] != window[:, :-1]
    x = window[new]
    sec, ks, colon = _top_number(x)
    x = x << ((ks + 1) * 8).astype(np.uint64)
    minute, km, colon2 = _top_number(x)
    hour, kh, _ = _top_number(x << ((km + 1) * 8).astype(np.uint64))
    _require((colon == ord(":")).all() and (colon2 == ord(":")).all()
             and ((ks >= 1) & (km >= 1) & (kh >= 1)).all() and (ks + km + kh + 2 == length[new]).all())
    at = _carried(new.ravel()).reshape(new.shape)
    kf = np.where(dot, count, 0)
    _require((ks[at] + kf <= 15).all())
    secs = (sec[at] * _POW10[kf] + np.where(dot, last, 0)).astype(np.float64) / _POW10[kf].astype(np.float64)
    tx, rx = seconds_of_day(hour[at].astype(np.int64), minute[at].astype(np.int64), secs)
    return tx, rx


def _assemble(piece: _Piece) -> Packets:
    """The piece's Packets: flows numbered by first appearance of their key
    (flow id, ports, addresses), looked for where keys change."""
    number, first = first_appearance(piece.keys)
    flow = number[_carried(piece.new_key)]
    endpoints = [_endpoint(piece.keys[i]) for i in first]
    return Packets(flow, endpoints, piece.seq, piece.size, piece.tx_s, piece.rx_s)


def _endpoint(key: np.ndarray) -> Endpoint:
    def text(words: np.ndarray) -> str:
        return b"".join(int(w).to_bytes(8, "little") for w in words[::-1]).lstrip(b"\0").decode("ascii")
    return int(key[0]), text(key[3:3 + WORDS]), int(key[1]), text(key[3 + WORDS:]), int(key[2])
