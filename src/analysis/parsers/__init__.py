"""Parsers for netperf, iperf 2, iperf3 and D-ITG outputs.

:func:`parse_bytes` and :func:`parse_file` detect the tool and variant from
the content (never the file name) and return a :class:`ParseResult`. An output
no parser recognises is a :class:`ParseError` naming the file and line.

Each tool module offers ``detect(text) -> bool`` and
``parse(text, source) -> ParseResult``; D-ITG also reads its binary
receiver logs (``detect_binary`` / ``parse_binary``).
"""

from __future__ import annotations

import mmap
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from analysis.errors import ParseError
from analysis.parsers.records import ParseResult
from analysis.parsers import ditg, iperf2, iperf3, netperf
from analysis.parsers.contents import read_contents
from analysis.parsers.ditg_log import log_extent
from analysis.parsers.text import decode, refuse_control_bytes

# Most specific first: iperf3 JSON and D-ITG have unmistakable markers;
# iperf 2 is last because its text shares headers with iperf3's.
TEXT_PARSERS = (iperf3, ditg, netperf, iperf2)

Hints = Mapping[str, Mapping[str, Any]]
# What each parser can be told that its output does not say.
HINTS: dict[str, tuple[str, ...]] = {"ditg": ("meter", "series"), "netperf": ("test", "unit")}

__all__ = ["ParseError", "ParseResult", "sniff", "parse_text", "parse_bytes", "parse_file"]


def sniff(text: str) -> str | None:
    """Name of the tool whose output ``text`` is, or None."""
    for module in TEXT_PARSERS:
        if module.detect(text):
            return module.TOOL
    return None


def parse_text(text: str, source: str = "<string>", hints: Hints | None = None) -> ParseResult:
    """Parse one output. ``hints`` gives a tool's parser what its output
    cannot say, e.g. ``{"ditg": {"meter": "rttm"}}`` (round-trip mode),
    ``{"ditg": {"series": "delay"}}`` (an ITGDec -d time series) or
    ``{"netperf": {"test": "TCP_MAERTS", "unit": "m"}}`` (a -P 0 output).

    A file that ends in NUL characters (the zero-filled tail a crash or a
    preallocating file system leaves) is parsed without them, and every
    record says so in a warning; a NUL or other control byte anywhere else
    refuses the file, naming its line (:func:`.text.refuse_control_bytes`)."""
    text, padding = _without_nul_padding(text)
    if not text.strip():
        raise ParseError(source, 1, "empty output: nothing to parse")
    refuse_control_bytes(text, source)
    for module in TEXT_PARSERS:
        if module.detect(text):
            result = module.parse(text, source, **_hints_for(module.TOOL, hints, source))
            return _warn_padding(result, padding)
    first = next((i for i, l in enumerate(text.splitlines(), 1) if l.strip()), 1)
    raise ParseError(source, first, "not recognised as an output of netperf, iperf 2, iperf3 or D-ITG")


_BLANK = re.compile(rb"[ \t\r\n\x00]*")


def parse_bytes(data: bytes | mmap.mmap, source: str = "<bytes>", hints: Hints | None = None,
                packets: bool = False, on_packets: ditg.PacketSink | None = None,
                on_read: Callable[[int], object] | None = None) -> ParseResult:
    """Parse one output given as bytes or a mapped file (a D-ITG binary log,
    or text in any encoding :func:`.text.decode` reads). ``packets=True`` asks for the
    per-packet table of a D-ITG binary log too (a text packet log always
    has it, unless ``on_packets`` takes them); ``on_packets`` is instead handed a
    packet log's packets part by part as they are read (see :func:`.ditg.parse_binary`);
    ``on_read`` is told how far a binary log has been read (:func:`.ditg_log.read_log`)."""
    if _BLANK.fullmatch(data):  # (strip() would copy a large log to find out)
        raise ParseError(source, 1, "empty output: nothing to parse")
    extent = log_extent(data)
    if extent is not None:
        options = _hints_for(ditg.TOOL, hints, source)
        result = ditg.parse_binary(data, source, options.get("meter"), packets, on_packets, end=extent, on_read=on_read)
        return _warn_padding(result, len(data) - extent)
    if ditg.is_packet_log(data):  # read from the bytes a piece at a time, never decoded whole
        options = _hints_for(ditg.TOOL, hints, source)
        return ditg.parse_packet_log(data, source, options.get("meter"), packets or on_packets is None, on_packets)
    return parse_text(decode(bytes(data)), source, hints)


def parse_file(path: str | Path, source: str | None = None, hints: Hints | None = None,
               packets: bool = False, on_packets: ditg.PacketSink | None = None) -> ParseResult:
    path = Path(path)
    return parse_bytes(read_contents(path), source or str(path), hints, packets, on_packets)


def _without_nul_padding(text: str) -> tuple[str, int]:
    """``text`` without its trailing NULs, and how many there were."""
    if not text.endswith("\x00"):
        return text, 0
    kept = text.rstrip("\x00")
    return kept, len(text) - len(kept)


def _warn_padding(result: ParseResult, padding: int) -> ParseResult:
    if padding:
        for record in result.records:
            record.warnings.append(f"the file ends in {padding} NUL bytes (a crash-damaged or preallocated "
                                   "file): they were ignored")
    return result


def _hints_for(tool: str, hints: Hints | None, source: str) -> dict[str, Any]:
    options = dict((hints or {}).get(tool, {}))
    allowed = HINTS.get(tool, ())
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ParseError(source, None, f"parser hint {unknown[0]!r} is not one the {tool} parser takes (it takes: {', '.join(allowed) or 'none'})")
    return options
