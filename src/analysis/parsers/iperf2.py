"""iperf 2 (2.0.x, 2.1.x, 2.2.x) text and ``-y C`` CSV outputs, client and
server, with and without ``-e``.

One :class:`RunRecord` per stream's final report (``flow`` = the stream id,
``"SUM"`` for the ``[SUM]`` aggregate); the other report lines of a stream are
its :class:`IntervalRecord` rows. A UDP client's own numbers are only the
offered load: its record carries the relayed ``Server Report`` (side
``receiver``), and a missing report leaves loss and throughput unknown (None,
with a warning), never zero. An output that is only the tool's error words or
its usage text is one failed record whose ``error`` is those words. The line
grammar is in :mod:`.iperf2_lines`, the readers in :mod:`.iperf2_text` and
:mod:`.iperf2_csv`; docs/formats/iperf2.md describes every variant.
"""

from __future__ import annotations

import re

from analysis.errors import ParseError
from analysis.parsers.iperf2_csv import CSV, CSV_E, CSV_E_HEADER, is_csv_companion, is_csv_row, parse_csv
from analysis.parsers.iperf2_lines import USAGE, USAGE_HINT, tool_error
from analysis.parsers.iperf2_model import TOOL
from analysis.parsers.iperf2_text import parse_text
from analysis.parsers.records import ParseResult
from analysis.parsers.text import clean_lines

__all__ = ["TOOL", "detect", "parse"]

# iperf3 prints these and iperf 2 never does; a file with any of them is not ours.
_IPERF3_MARKERS = re.compile(
    r"^iperf Done\.|^Connecting to host |^Accepted connection from |^- - - - -|"
    r"^Server listening on \d+|\s(?:sender|receiver)\s*$|^\s*\{\s*$|connected to \S+ port \d+|^iperf3: "
)
_IPERF2_MARKERS = re.compile(
    r"^Client connecting to \S+, (?:TCP|UDP) port \d+|^Server listening on (?:TCP|UDP) port \d+|"
    r"^\[\s*(?:\*?\d+|SUM)\s*\] local \S+ port \d+ connected with \S+ port \d+"
)


def detect(text: str) -> bool:
    """True for iperf 2 text or CSV, or an output that is only iperf 2's
    error words or usage text; False as soon as an iperf3 marker shows up,
    because iperf3 text shares the ``[ ID] Interval`` header with iperf 2."""
    lines = clean_lines(text)
    if any(_IPERF3_MARKERS.search(line) for line in lines):
        return False
    if any(_IPERF2_MARKERS.search(line) for line in lines):
        return True
    data = [line.strip() for line in lines if line.strip()]
    if not data:
        return False
    if all(tool_error(line) or USAGE.match(line) or USAGE_HINT.match(line) for line in data):
        return True
    # -y C: CSV rows, and maybe the tool's error words or a 2.0.x client's text server report
    rows = [is_csv_row(line) for line in data]
    return any(rows) and all(r or is_csv_companion(line) for r, line in zip(rows, data))


def parse(text: str, source: str = "<string>") -> ParseResult:
    lines = clean_lines(text)
    if not any(line.strip() for line in lines):
        raise ParseError(source, 1, "empty output: nothing to parse")
    if any(CSV.match(line) or CSV_E.match(line) or CSV_E_HEADER.match(line) for line in lines):
        return parse_csv(lines, source)
    return parse_text(lines, source)
