"""Placeholder until the iperf3 parser lands: recognises nothing."""

from __future__ import annotations

from ..errors import ParseError
from ..records import ParseResult

TOOL = "iperf3"


def detect(text: str) -> bool:
    return False


def parse(text: str, source: str = "<string>") -> ParseResult:
    raise ParseError(source, 1, "the iperf3 parser is not implemented yet")
