"""Errors that name the file, the line and the reason."""

from __future__ import annotations


class ParseError(ValueError):
    """An output that a parser cannot read: names the file, the 1-based line
    and what was expected. Parsers raise only this, never a guessed record."""

    def __init__(self, source: str, line: int | None, reason: str):
        self.source = source
        self.line = line
        self.reason = reason
        super().__init__(f"{source}:{line if line is not None else '?'}: {reason}")


class ManifestError(ValueError):
    """A campaign manifest that cannot be used: names the file, the key and the fix."""
