"""Which outputs without a result are runs that failed, not files to reject.

A run the tool never finished still belongs to the campaign: an empty
output (the tool was never started, or died before printing) or a tool's
output that stops before its result (killed, timed out, a crash mid-write)
is a *failed run* of its cell, with the reason. A *rejected* file is one
netrepro cannot use at all: not any tool's output, damaged in the middle,
or not described by the manifest.

An output is taken as aborted when its tool is recognised and the parser's
error is on its last line (or past it): the text ends where the parser
still expected more. A parse error earlier in the file is damage, so the
file is rejected with that line.
"""

from __future__ import annotations

import mmap
import re
from dataclasses import dataclass
from typing import Any, Mapping

from analysis.errors import DamagedOutputError, ParseError
from analysis.parsers import sniff
from analysis.parsers.records import TOOLS, ParseResult, RunRecord
from analysis.parsers.text import decode

_BLANK = re.compile(rb"[ \t\r\n\x00]*")
# Larger outputs are packet logs or long series, never an aborted summary worth decoding whole.
MAX_TEXT_BYTES = 16 * 2**20


@dataclass(frozen=True)
class FailedRun:
    reason: str
    tool: str | None  # None when neither the content nor the manifest says which tool ran

    def result(self) -> ParseResult:
        """The run as parsers give a run the tool reported failed: one record
        with ``status = failed`` and the reason (none when the tool is unknown,
        since every row names its tool)."""
        records = [RunRecord(tool=self.tool, status="failed", error=self.reason)] if self.tool else []
        return ParseResult(tool=self.tool or "", variant="failed-run", records=records)


def failed_run(error: ParseError, data: bytes | mmap.mmap, levels: Mapping[str, Any]) -> FailedRun | None:
    """The failed run ``error`` reveals for an output ``data`` (factor ``levels``), or None if the file is to be rejected."""
    if _BLANK.fullmatch(data):
        return FailedRun("empty output: the run wrote nothing", _tool_from(levels))
    if error.line is None or len(data) > MAX_TEXT_BYTES or isinstance(error, DamagedOutputError):
        return None
    text = decode(bytes(data))
    tool = sniff(text)
    lines = text.splitlines()
    last = max((i for i, line in enumerate(lines, 1) if line.strip(" \t\x00")), default=0)
    if tool is None or error.line < last:
        return None
    return FailedRun(f"aborted run: the {tool} output stops at line {last} before its result ({error.reason})", tool)


def without_result(result: ParseResult) -> ParseResult:
    """A recognised output that holds no run record: the run ended before one."""
    return FailedRun(f"aborted run: the {result.tool} output ({result.variant}) holds no result", result.tool).result()


def _tool_from(levels: Mapping[str, Any]) -> str | None:
    tool = levels.get("tool")
    return tool if tool in TOOLS else None


__all__ = ["FailedRun", "failed_run", "without_result"]
