"""Placeholder until the ditg parser lands: recognises nothing."""

from __future__ import annotations

from ..errors import ParseError
from ..records import ParseResult

TOOL = "ditg"


def detect(text: str) -> bool:
    return False


def parse(text: str, source: str = "<string>") -> ParseResult:
    raise ParseError(source, 1, "the ditg parser is not implemented yet")


def detect_binary(data: bytes) -> bool:
    return False


def parse_binary(data: bytes, source: str = "<bytes>") -> ParseResult:
    raise ParseError(source, 1, "the D-ITG binary reader is not implemented yet")
