"""Parsers for netperf, iperf 2, iperf3 and D-ITG outputs.

:func:`parse_bytes` and :func:`parse_file` detect the tool and variant from
the content (never the file name) and return a :class:`ParseResult`. An output
no parser recognises is a :class:`ParseError` naming the file and line.

Each tool module offers ``detect(text) -> bool`` and
``parse(text, source) -> ParseResult``; D-ITG also reads its binary
receiver logs (``detect_binary`` / ``parse_binary``).
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ParseError
from ..records import ParseResult
from . import ditg, iperf2, iperf3, netperf
from .text import decode

# Most specific first: iperf3 JSON and D-ITG have unmistakable markers;
# iperf 2 is last because its text shares headers with iperf3's.
TEXT_PARSERS = (iperf3, ditg, netperf, iperf2)

__all__ = ["ParseError", "ParseResult", "sniff", "parse_text", "parse_bytes", "parse_file"]


def sniff(text: str) -> str | None:
    """Name of the tool whose output ``text`` is, or None."""
    for module in TEXT_PARSERS:
        if module.detect(text):
            return module.TOOL
    return None


def parse_text(text: str, source: str = "<string>") -> ParseResult:
    if not text.strip():
        raise ParseError(source, 1, "empty output: nothing to parse")
    for module in TEXT_PARSERS:
        if module.detect(text):
            return module.parse(text, source)
    first = next((i for i, l in enumerate(text.splitlines(), 1) if l.strip()), 1)
    raise ParseError(source, first, "not recognised as an output of netperf, iperf 2, iperf3 or D-ITG")


def parse_bytes(data: bytes, source: str = "<bytes>") -> ParseResult:
    if not data.strip():
        raise ParseError(source, 1, "empty output: nothing to parse")
    if ditg.detect_binary(data):
        return ditg.parse_binary(data, source)
    return parse_text(decode(data), source)


def parse_file(path: str | Path, source: str | None = None) -> ParseResult:
    path = Path(path)
    return parse_bytes(path.read_bytes(), source or str(path))
