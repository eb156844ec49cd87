"""Path rules that read factor levels from a file's path: templates such as
``{scenario}_{src:[a-z0-9-]+}_{run:int}.json``, whole regular expressions
with named groups, and folder segments.

Every rule becomes one Python regular expression whose groups are the
factors, so finding the split of a name is the regex engine's backtracking,
not a first guess: a placeholder only matches text of its factor's type
(``[0-9]+`` for an int), one of its declared levels, or its own pattern.
Levels are cast after the match; a rule whose match does not cast gives way
to the next rule. A name the rule can split in two ways is refused rather
than split by chance.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Union

from analysis.parsers.records import TOOLS

TYPES = ("int", "float", "str")
_TYPE_PATTERN = {
    "int": "[0-9]+",
    "float": r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?",
    "str": "[^/]+",
}
_WHOLE_INT = re.compile(r"[+-]?[0-9]+")
_WHOLE_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|nan)", re.IGNORECASE)

# Columns a factor may set although the output fills them too: the output is
# checked against the design (ingest warns, or rejects under --strict), and
# the column keeps the manifest's level. Factor name -> record field.
REVEALED = {
    "ip_version": "ip_version",
    "transport": "transport",
    "tool": "tool",
    "packet_size_bytes": "message_size_bytes",
    "message_size_bytes": "message_size_bytes",
}
# The values such a column may hold (the tables' schema allows no others).
ALLOWED = {"tool": TOOLS, "transport": ("TCP", "UDP"), "ip_version": (4, 6)}
# The types such a factor may have (the first is what an undeclared one gets).
REVEALED_TYPES = {"tool": ("str",), "transport": ("str",), "ip_version": ("int",),
                  "packet_size_bytes": ("int", "float"), "message_size_bytes": ("int", "float")}


class LevelError(ValueError):
    """A level that is not of its factor's type or not among its levels."""


@dataclass(frozen=True)
class Placeholder:
    """``{name}``, ``{name:type}``, ``{name:pattern}`` or ``{name:type:pattern}``."""

    name: str
    type: str | None = None
    pattern: str | None = None


Piece = Union[str, Placeholder, None]  # literal text, a factor, or None: any one path segment


def parse_template(template: str) -> list[Piece]:
    """The literal parts and placeholders of a template; ``{{`` and ``}}``
    are literal braces. Raises ValueError saying what is wrong."""
    pieces: list[Piece] = []
    literal: list[str] = []
    i = 0
    while i < len(template):
        c = template[i]
        if template.startswith(("{{", "}}"), i):
            literal.append(c)
            i += 2
        elif c == "{":
            end, depth = i + 1, 1
            while end < len(template) and depth:
                depth += {"{": 1, "}": -1}.get(template[end], 0)
                end += 1
            if depth:
                raise ValueError(f"template {template!r}: '{{' at character {i + 1} is never closed")
            if literal:
                pieces.append("".join(literal))
                literal = []
            pieces.append(_placeholder(template, template[i + 1 : end - 1]))
            i = end
        elif c == "}":
            raise ValueError(f"template {template!r}: '}}' at character {i + 1} closes nothing (write '}}}}' for a brace)")
        else:
            literal.append(c)
            i += 1
    if literal:
        pieces.append("".join(literal))
    return pieces


def _placeholder(template: str, body: str) -> Placeholder:
    name, colon, rest = body.partition(":")
    if not colon:
        return Placeholder(name)
    head, colon2, tail = rest.partition(":")
    if head in TYPES:
        ph = Placeholder(name, head, tail if colon2 else None)
    else:
        ph = Placeholder(name, None, rest)
    if ph.pattern is not None:
        try:
            re.compile(ph.pattern)
        except re.error as exc:
            raise ValueError(f"template {template!r}: pattern of {{{name}}} is not a regular expression: {exc}") from None
        if ph.pattern == "":
            raise ValueError(f"template {template!r}: {{{name}:}} has an empty pattern")
        if re.compile(ph.pattern).groupindex:
            raise ValueError(f"template {template!r}: the pattern of {{{name}}} has a named group; "
                             "use (?:...) inside a placeholder")
    return ph


def placeholders(pieces: list[Piece]) -> list[Placeholder]:
    return [p for p in pieces if isinstance(p, Placeholder)]


def segments_pieces(segments: list[str | None]) -> list[Piece]:
    """``files.segments``: one factor (or None, any folder) per folder, then any file name."""
    pieces: list[Piece] = []
    for name in segments:
        pieces += [Placeholder(name) if name is not None else None, "/"]
    return pieces + [None]


@dataclass(frozen=True)
class FactorType:
    """What a path rule needs to know of a factor: its type and declared levels."""

    type: str = "str"
    levels: tuple[Any, ...] | None = None


def cast_level(name: str, value: Any, factor: FactorType) -> Any:
    """``value`` (text from a path or a CSV cell, or a YAML scalar) as a level
    of factor ``name``; LevelError in one line when it is not one."""
    kind = factor.type
    if kind == "int":
        if isinstance(value, str) and _WHOLE_INT.fullmatch(value):
            typed: Any = int(value)
        elif isinstance(value, int) and not isinstance(value, bool):
            typed = value
        elif isinstance(value, float) and value.is_integer():
            typed = int(value)
        else:
            raise LevelError(f"factor {name}: {value!r} is not an int")
    elif kind == "float":
        if isinstance(value, str) and _WHOLE_FLOAT.fullmatch(value):
            typed = float(value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            typed = float(value)
        else:
            raise LevelError(f"factor {name}: {value!r} is not a number (float)")
    else:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise LevelError(f"factor {name}: {value!r} is not text")
        typed = value if isinstance(value, str) else str(value)
    if factor.levels is not None and typed not in factor.levels:
        raise LevelError(f"factor {name}: level {typed!r} is not among the manifest's levels {list(factor.levels)}")
    allowed = ALLOWED.get(name)
    if allowed is not None and typed not in allowed:
        raise LevelError(f"factor {name}: {typed!r} is not one of {', '.join(map(str, allowed))} "
                         f"(the values of the {name} column)")
    return typed


def _group(ph: Placeholder, factor: FactorType, lazy: bool) -> str:
    if ph.pattern is not None:
        return ph.pattern
    if factor.type == "str" and factor.levels:
        spelled = sorted({str(v) for v in factor.levels}, key=len, reverse=not lazy)
        return "|".join(re.escape(s) for s in spelled)
    return _TYPE_PATTERN[factor.type] + ("?" if lazy else "")


def _regex(pieces: list[Piece], factors: Mapping[str, FactorType], mode: str) -> re.Pattern[str]:
    """mode: "greedy" and "lazy" (the same language, opposite preferences,
    to find names that split two ways) or "loose" (any text, to explain a miss)."""
    parts: list[str] = []
    seen: set[str] = set()
    for piece in pieces:
        if piece is None:
            parts.append("[^/]+")
        elif isinstance(piece, str):
            parts.append(re.escape(piece))
        elif piece.name in seen:
            parts.append(f"(?P={piece.name})")
        else:
            seen.add(piece.name)
            body = "[^/]+?" if mode == "loose" else _group(piece, factors[piece.name], lazy=mode == "lazy")
            parts.append(f"(?P<{piece.name}>{body})")
    return re.compile("".join(parts))


class PathRule:
    """One template, pattern or segment rule, compiled for its factors' types."""

    def __init__(self, label: str, factors: Mapping[str, FactorType], pieces: list[Piece] | None = None,
                 regex: str | None = None):
        self.label = label
        self.factors = factors
        if regex is not None:
            compiled = re.compile(regex)
            self.greedy = self.lazy = self.loose = compiled
        else:
            assert pieces is not None
            self.greedy = _regex(pieces, factors, "greedy")
            self.lazy = _regex(pieces, factors, "lazy")
            self.loose = _regex(pieces, factors, "loose")

    def levels(self, rel: str) -> dict[str, Any]:
        """The typed levels ``rel`` gives, or LevelError saying why it does not fit."""
        m = self.greedy.fullmatch(rel)
        if m is None:
            loose = self.loose.fullmatch(rel)
            if loose is None:
                raise LevelError(f"{self.label} does not match")
            self._cast(loose.groupdict())  # names the level that does not fit
            raise LevelError(f"{self.label} does not match")
        found = m.groupdict()
        other = self.lazy.fullmatch(rel)
        if other is not None and other.groupdict() != found:
            raise LevelError(f"{self.label} splits the name two ways ({_shown(found)} or {_shown(other.groupdict())}); "
                             "declare the factors' levels or give a placeholder a pattern, e.g. {name:[a-z0-9-]+}")
        return self._cast(found)

    def _cast(self, found: dict[str, str]) -> dict[str, Any]:
        try:
            return {name: cast_level(name, value, self.factors[name]) for name, value in found.items() if value is not None}
        except LevelError as exc:
            raise LevelError(f"{self.label}: {exc}") from None


def _shown(levels: dict[str, str]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in levels.items())


__all__ = ["REVEALED", "REVEALED_TYPES", "ALLOWED", "TYPES", "LevelError", "Placeholder", "FactorType", "PathRule", "parse_template",
           "placeholders", "segments_pieces", "cast_level"]
