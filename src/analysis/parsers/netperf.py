"""Placeholder until the netperf parser lands: recognises nothing."""

from __future__ import annotations

from ..errors import ParseError
from ..records import ParseResult

TOOL = "netperf"


def detect(text: str) -> bool:
    return False


def parse(text: str, source: str = "<string>") -> ParseResult:
    raise ParseError(source, 1, "the netperf parser is not implemented yet")
