"""``netrepro manifest init``: a manifest proposed from the file names of a
campaign folder, checked against every file before anything is ingested.

The names are read as a product of fields: files of the same depth and
extension share a template; in each path segment the text every name shares
(``ipv``, ``run``, ``topology-``) stays literal, and what varies is split on
the separator that describes the names with the fewest distinct values per
field (a field may hold that separator too: ``high_load`` in
``high_load_us-east-1_3``). A field is an int or float when every value is
one; a text field lists its levels when there are few, else gets a pattern
of the characters it holds, so that the regular expression splits each name
one way only. Field names come from the word before them (``run3`` ->
``run``, ``topology-p2p`` -> ``topology``, ``trial 2`` -> ``trial``) or from the values (tool names,
TCP/UDP); the rest are numbered for the user to rename.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from analysis.ingest.factor_declarations import CANONICAL, declare
from analysis.ingest.manifest import MANIFEST_NAME, FactorSpec, FileMapper, Manifest, Unassigned
from analysis.ingest.templates import REVEALED
from analysis.parsers.records import TOOLS

# Files that are never measurements: hidden files, notes, command sidecars, netrepro collect's own record.
NOT_MEASUREMENTS = [".*", "*.md", "README*", "*.cmd", "collect/*"]
SEPARATORS = "_- .+,=@~"
MAX_LEVELS = 40  # a text field with more distinct values gets a pattern, not a list of levels
_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,5}$")
_NAME = re.compile(r"[a-z][a-z0-9_]*")
_INT = re.compile(r"[0-9]+")
_FLOAT = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


@dataclass
class Field:
    """One varying part of the names: its values (one per file) and the literal before it."""

    values: list[str]
    before: str = ""
    name: str = ""
    segment: int = 0  # which part of the path (0: the first folder)


Piece = str | Field


@dataclass
class Proposal:
    manifest: dict[str, Any]
    mapped: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (path, levels), in path order
    ignored: list[tuple[str, str]] = field(default_factory=list)  # (path, rule)
    unmatched: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)

    def yaml_text(self) -> str:
        head = ("# Proposed by `netrepro manifest init` from the file names alone: check the factor names\n"
                "# (field_* are for you to rename), the levels, the campaign facts and `synthetic`\n"
                "# before `netrepro ingest`. Template syntax: docs/architecture.md#campaigns-and-manifests\n")
        return head + yaml.safe_dump(self.manifest, sort_keys=False, allow_unicode=True, width=2**31)


def propose(campaign_dir: str | Path, files: list[str]) -> Proposal:
    """A manifest for ``files`` (campaign-relative paths), tried on every one of them."""
    campaign_dir = Path(campaign_dir)
    ignore = [rule for rule in NOT_MEASUREMENTS if any(_ignored_by(rel, rule) for rel in files)]
    measured = [rel for rel in files if not any(_ignored_by(rel, rule) for rule in ignore)]
    groups: dict[int, list[str]] = {}
    for rel in measured:
        groups.setdefault(rel.count("/"), []).append(rel)
    layouts = [_layout([_without_extension(p) for p in paths]) for _, paths in sorted(groups.items())]
    factors = _name_fields(layouts)
    templates = [_template(pieces, factors) + ext for pieces, (_, paths) in zip(layouts, sorted(groups.items()))
                 for ext in sorted({_extension(p) for p in paths})]
    manifest = {
        "campaign": {"title": campaign_dir.resolve().name, "synthetic": False, "description": ""},
        "factors": {name: spec for name, (spec, _) in factors.items()},
        "files": {"templates": list(dict.fromkeys(templates))} | ({"ignore": ignore} if ignore else {}),
    }
    return tried(manifest, files, campaign_dir)


def _ignored_by(rel: str, rule: str) -> bool:
    from fnmatch import fnmatchcase

    return fnmatchcase(rel, rule) or fnmatchcase(PurePosixPath(rel).name, rule)


def _extension(rel: str) -> str:
    """The file name's last extension (``.txt``), kept out of the fields: one template per extension."""
    m = _EXTENSION.search(PurePosixPath(rel).name)
    return m.group(0) if m else ""


def _without_extension(rel: str) -> str:
    return rel[: len(rel) - len(_extension(rel))]


def _layout(paths: list[str]) -> list[Piece]:
    """The pieces of one depth's names: literal text and fields, segment by segment."""
    parts = [p.split("/") for p in paths]
    pieces: list[Piece] = []
    for i in range(len(parts[0])):
        if i:
            pieces.append("/")
        for piece in _factorize([p[i] for p in parts]):
            if isinstance(piece, Field):
                piece.segment = i
            pieces.append(piece)
    return pieces


def _factorize(values: list[str]) -> list[Piece]:
    """Literal prefix and suffix, then the varying middle split into fields where that describes the names better."""
    if len(set(values)) == 1:
        return [values[0]]
    prefix = _boundary(_common_prefix(values), values, at_end=False)
    suffix = _boundary(_common_prefix([v[len(prefix):][::-1] for v in values])[::-1], values, at_end=True)
    middle = [v[len(prefix): len(v) - len(suffix)] for v in values]
    pieces: list[Piece] = [Field(middle)]
    best = len(set(middle))
    for sep in SEPARATORS:
        columns = _split(middle, sep)
        if columns is None:
            continue
        cost = sum(len(set(c)) for c in columns)
        distinct = len(set(zip(*columns)))
        spanned = math.prod(len(set(c)) for c in columns)
        if cost < best and distinct >= spanned / 2:
            best = cost
            pieces = []
            for j, column in enumerate(columns):
                pieces += ([sep] if j else []) + _factorize(column)
    return ([prefix] if prefix else []) + pieces + ([suffix] if suffix else [])


def _split(values: list[str], sep: str) -> list[list[str]] | None:
    """``values`` split on ``sep`` into columns; when names have more parts
    than others, the column that best absorbs the extra parts keeps ``sep``."""
    tokens = [v.split(sep) for v in values]
    low, high = min(map(len, tokens)), max(map(len, tokens))
    if low < 2:
        return None  # some name lacks the separator: it does not divide these fields
    options = []
    for wide in range(low) if low < high else [0]:
        rows = []
        for t in tokens:
            extra = len(t) - low
            rows.append(t[:wide] + [sep.join(t[wide: wide + extra + 1])] + t[wide + extra + 1:])
        columns = [list(c) for c in zip(*rows)]
        if all(all(cell for cell in c) for c in columns):
            options.append((sum(len(set(c)) for c in columns), wide, columns))
    if not options:
        return None
    return min(options, key=lambda o: (o[0], o[1]))[2]


def _common_prefix(values: list[str]) -> str:
    first, last = min(values), max(values)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    return first[:n]


def _boundary(common: str, values: list[str], at_end: bool) -> str:
    """``common`` shortened until it ends at a word boundary in every value and leaves each some text."""
    while common:
        cut = len(common)
        ok = True
        for v in values:
            rest = v[:-cut] if at_end else v[cut:]
            edge, nxt = (common[0], rest[-1:]) if at_end else (common[-1], rest[:1])
            if not rest or (edge.isalpha() and nxt.isalpha()) or (edge.isdigit() and nxt.isdigit()):
                ok = False
                break
        if ok:
            return common
        common = common[1:] if at_end else common[:-1]
    return ""


def _name_fields(layouts: list[list[Piece]]) -> dict[str, tuple[dict[str, Any], list[Field]]]:
    """A factor name per field (the same name for the same literal context), and each factor's declaration."""
    named: dict[str, list[Field]] = {}
    generic: dict[tuple[int, int], str] = {}  # (path segment, position in it) -> name
    for pieces in layouts:
        fields = [p for p in pieces if isinstance(p, Field)]
        for i, piece in enumerate(pieces):
            if not isinstance(piece, Field):
                continue
            piece.before = next((p for p in reversed(pieces[:i]) if isinstance(p, str)), "")
            name = _guess_name(piece)
            if name is None or any(name == other.name for other in fields if other is not piece):
                key = (piece.segment, [f for f in fields if f.segment == piece.segment].index(piece))
                name = generic.setdefault(key, f"field_{len(generic) + 1}")
            piece.name = name
            named.setdefault(name, []).append(piece)
    return {name: (_declaration([v for f in fields for v in f.values]), fields) for name, fields in named.items()}


def _guess_name(piece: Field) -> str | None:
    distinct = set(piece.values)
    if distinct <= set(TOOLS):
        return "tool"
    if distinct <= {"TCP", "UDP"}:
        return "transport"
    before = piece.before
    if before.lower().endswith("ipv") and distinct <= {"4", "6"}:
        return "ip_version"
    word = re.split(r"[/\s\-=:.,+]", before.rstrip(" -=_:"))[-1].lower()  # 'topology-' -> topology, 'trial ' -> trial
    if not _NAME.fullmatch(word):
        return None
    name = word
    if name in CANONICAL and name not in REVEALED:
        name += "_level"  # a factor may not take a column the tools fill
    return name


def _declaration(values: list[str]) -> dict[str, Any]:
    distinct = sorted(set(values))
    if all(_INT.fullmatch(v) for v in distinct):
        return {"type": "int"}
    if all(_FLOAT.fullmatch(v) for v in distinct):
        return {"type": "float"}
    if len(distinct) <= MAX_LEVELS:
        return {"type": "str", "levels": distinct}
    return {"type": "str"}


def _template(pieces: list[Piece], factors: dict[str, tuple[dict[str, Any], list[Field]]]) -> str:
    out = []
    for piece in pieces:
        if isinstance(piece, str):
            out.append(piece.replace("{", "{{").replace("}", "}}"))
            continue
        spec = factors[piece.name][0]
        if spec["type"] != "str":
            out.append(f"{{{piece.name}:{spec['type']}}}")
        elif "levels" in spec:
            out.append(f"{{{piece.name}}}")
        else:
            out.append(f"{{{piece.name}:{_character_class(factors[piece.name][1])}+}}")
    return "".join(out)


def _character_class(fields: list[Field]) -> str:
    chars = {c for f in fields for v in f.values for c in v}
    parts = []
    for lo, hi, test in (("a", "z", str.islower), ("A", "Z", str.isupper), ("0", "9", str.isdigit)):
        if any(c.isascii() and test(c) for c in chars):
            parts.append(f"{lo}-{hi}")
    others = sorted(c for c in chars if not (c.isascii() and c.isalnum()))
    return "[" + "".join(parts) + "".join(re.escape(c) if c in "]\\^-[" else c for c in others) + "]"


def tried(manifest: dict[str, Any], files: list[str], campaign_dir: Path) -> Proposal:
    """A manifest (as plain data) with what it does to every file."""
    model = Manifest.model_validate(manifest)
    declared = declare(model, None, campaign_dir / MANIFEST_NAME, None)
    model = model.model_copy(update={"factors": {k: FactorSpec(**v) for k, v in declared.factors.items()}})
    mapper = FileMapper(model)
    proposal = Proposal(manifest)
    for rel in files:
        rule = mapper.is_ignored(rel)
        if rule is not None:
            proposal.ignored.append((rel, rule))
            continue
        try:
            proposal.mapped.append((rel, mapper.assign(rel).levels))
        except Unassigned as exc:
            proposal.unmatched.append((rel, str(exc)))
    return proposal


__all__ = ["Proposal", "propose", "tried", "NOT_MEASUREMENTS"]
