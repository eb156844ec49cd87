"""Placeholder until the iperf2 parser lands: recognises nothing."""

from __future__ import annotations

from ..errors import ParseError
from ..records import ParseResult

TOOL = "iperf2"


def detect(text: str) -> bool:
    return False


def parse(text: str, source: str = "<string>") -> ParseResult:
    raise ParseError(source, 1, "the iperf2 parser is not implemented yet")
