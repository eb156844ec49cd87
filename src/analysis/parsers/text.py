"""Clean a pasted or captured tool output without moving its lines.

Researchers paste outputs from terminals, wikis and markdown: CRLF line ends,
byte-order marks, colour escapes, a progress spinner's backspaces, code
fences, block quotes and a common indentation. Every cleaner here keeps the
number of lines so that a ParseError still points at the original line.

No cleaner deletes a character inside a line: a NUL or another control byte
where a digit or a dot was is damage, and removing it would join the digits
around it into another number (``5.<NUL>05`` read as 5.5). Such a byte is
refused with its line (:func:`refuse_control_bytes`), before any parser reads.
"""

from __future__ import annotations

import re
from functools import lru_cache

from analysis.errors import DamagedOutputError

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\n]*\x07|\x1b[=>()][0-9A-Za-z]?")
_FENCE = re.compile(r"^\s*(```|~~~)")
_QUOTE = re.compile(r"^\s*> ?")
# Bytes no tool prints and no terminal or paste adds: C0 controls but tab,
# newline, carriage return, backspace and escape (which the cleaners read), DEL,
# and the C1 controls a damaged byte becomes when a file is read as Latin-1.
_CONTROL = re.compile(r"[\x00-\x07\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f]")


def decode(data: bytes) -> str:
    """Bytes -> str: UTF-8 (with or without BOM), falling back to Latin-1 so
    that no byte is ever lost; UTF-16 with a BOM is honoured."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def refuse_control_bytes(text: str, source: str) -> None:
    """Raise a DamagedOutputError (a ParseError) naming the line and column of the first control
    byte in ``text`` (outside a colour escape): it stands where a character
    of the output was, so no value of the file can be trusted."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)  # an escape spans no newline (lines stay put); an OSC one ends in BEL
    found = _CONTROL.search(text)
    if found is None:
        return
    start = text.rfind("\n", 0, found.start()) + 1
    line = text.count("\n", 0, found.start()) + 1
    raise DamagedOutputError(source, line, f"control byte 0x{ord(found.group()):02x} at column {found.start() - start + 1}: "
                     "no tool prints it, the file is damaged here and its values cannot be trusted")


def _apply_backspaces(line: str) -> str:
    if "\b" not in line:
        return line
    out: list[str] = []
    for ch in line:
        if ch == "\b":
            if out:
                out.pop()
        else:
            out.append(ch)
    return "".join(out)


def _strip_carriage_returns(line: str) -> str:
    # A bare CR inside a line is a terminal redraw: keep what was drawn last.
    line = line.rstrip("\r")
    if "\r" in line:
        line = line.rsplit("\r", 1)[-1]
    return line


def clean_lines(text: str) -> list[str]:
    """Return the lines of ``text`` cleaned of terminal and markdown noise,
    one output line per input line (so line numbers are preserved)."""
    return list(_clean_lines(text))


@lru_cache(maxsize=4)
def _clean_lines(text: str) -> tuple[str, ...]:
    # Cached: detection and parsing of one output both clean the same text.
    text = text.lstrip("\ufeff")
    if "\x1b" in text:
        text = _ANSI.sub("", text)  # no escape spans a newline, so lines stay put
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    cleaned = []
    for line in lines:
        if "\r" in line:
            line = _strip_carriage_returns(line)
        if "\b" in line:
            line = _apply_backspaces(line)
        line = line.rstrip()
        if line[:1] in ("`", "~", " ", "\t") and _FENCE.match(line):
            line = ""
        cleaned.append(line)
    if cleaned and all(_QUOTE.match(l) or not l for l in cleaned) and any(cleaned):
        cleaned = [_QUOTE.sub("", l, count=1) for l in cleaned]
    indent = _common_indent(cleaned)
    if indent:
        cleaned = [l[indent:] if l.strip() else "" for l in cleaned]
    return tuple(cleaned)


def _common_indent(lines: list[str]) -> int:
    widths = [len(l) - len(l.lstrip(" \t")) for l in lines if l.strip()]
    return min(widths) if widths else 0


def clean(text: str) -> str:
    return "\n".join(clean_lines(text))

