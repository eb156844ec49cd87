"""Every factor a manifest names, declared with a type, checked once when
the manifest is loaded.

A factor may come from ``factors``, a template placeholder, a pattern's
named group, a folder segment, a constant, a table entry or a column of the
mapping CSV. Each name is checked against the tables' canonical columns (a
factor ``test`` or ``duration_s`` would overwrite what the tool measured)
and each undeclared one is declared (but a constant, which has one value of
its YAML type): a typed placeholder gives its type, a name read from paths
is text, a table level keeps its YAML type and a CSV column is int or float
when every cell is. Levels the manifest
states itself (declared levels, constants, table entries, CSV cells) are
cast here, so a mistake is one ``FILE:LINE`` error, never a traceback later.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from analysis.errors import ManifestError
from analysis.ingest.mapping_table import Mapping
from analysis.ingest.schema import INTERVAL_DTYPES, RUN_DTYPES
from analysis.ingest.templates import (
    REVEALED,
    REVEALED_TYPES,
    FactorType,
    LevelError,
    cast_level,
    parse_template,
    placeholders,
)
from analysis.yamlfiles import line_of

if TYPE_CHECKING:
    from analysis.ingest.manifest import Manifest

# What the parsers and ingest write: a factor of one of these names would replace it.
CANONICAL = set(RUN_DTYPES) | set(INTERVAL_DTYPES) | {"source_path", "source_sha256"}
_IDENTIFIER = re.compile(r"^[a-z][a-z0-9_]*$")
_INT_TEXT = re.compile(r"[+-]?[0-9]+")
_FLOAT_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


@dataclass
class Declared:
    """The manifest's factors, constants and table levels once every name is
    declared and every level it states is typed."""

    factors: dict[str, dict[str, Any]]
    constants: dict[str, Any]
    table_levels: list[dict[str, Any]]
    mapping_levels: dict[str, tuple[int, dict[str, Any]]] = field(default_factory=dict)  # path -> (CSV line, levels)


@dataclass(frozen=True)
class _Use:
    name: str
    where: str  # what names it, for messages: "template '...'", "files.constants"
    loc: tuple[Any, ...] | str  # key path in the manifest (its line is looked up on error), or "FILE:LINE"
    type: str | None = None  # a type the use states or implies
    from_path: bool = False  # a level read from file names (text)


def declare(manifest: Manifest, node: yaml.Node | None, path: Path, mapping: Mapping | None) -> Declared:
    """Check every factor name of ``manifest`` and declare the undeclared ones."""
    at = _Locator(path, node)
    uses = list(_uses(manifest, mapping))
    for use in uses:
        _check_name(use, at)
    factors = _types(manifest, uses, at)
    kinds = {name: FactorType(spec["type"], None) for name, spec in factors.items()}
    for name, spec in factors.items():  # declared levels, cast to their type
        if spec.get("levels") is not None:
            spec["levels"] = [_cast(name, v, kinds[name], lambda: at("factors", name, "levels", i))
                              for i, v in enumerate(spec["levels"])]
    checked = {name: FactorType(spec["type"], tuple(spec["levels"]) if spec.get("levels") is not None else None)
               for name, spec in factors.items()}
    constants = {k: _cast(k, v, checked[k], lambda: at("files", "constants", k)) if k in checked else v
                 for k, v in manifest.files.constants.items()}
    table = [{k: _cast(k, v, checked[k], lambda: at("files", "table", i, "levels", k)) for k, v in e.levels.items()}
             for i, e in enumerate(manifest.files.table)]
    mapped = {}
    if mapping is not None:
        for row in mapping.rows:
            where = f"{mapping.file}:{row.line}"
            mapped[row.path] = (row.line, {k: _cast(k, v, checked[k], lambda: where) for k, v in row.cells.items()})
    return Declared(factors, constants, table, mapped)


class _Locator:
    """``FILE:LINE`` of a key path in the manifest (``FILE`` when unknown)."""

    def __init__(self, path: Path, node: yaml.Node | None):
        self.path, self.node = path, node

    def __call__(self, *loc: Any) -> str:
        line = line_of(self.node, loc)
        return f"{self.path}:{line}" if line else str(self.path)

    def of(self, use: _Use) -> str:
        return use.loc if isinstance(use.loc, str) else self(*use.loc)


def _uses(manifest: Manifest, mapping: Mapping | None) -> Iterable[_Use]:
    for name, spec in manifest.factors.items():
        yield _Use(name, "factor", ("factors", name), spec.type)
    files = manifest.files
    for i, template in enumerate(files.templates):
        for ph in placeholders(parse_template(template)):
            yield _Use(ph.name, f"template {template!r}", ("files", "templates", i), ph.type, True)
    for i, pattern in enumerate(files.patterns):
        for name in re.compile(pattern).groupindex:
            yield _Use(name, f"pattern {pattern!r}", ("files", "patterns", i), None, True)
    for i, segment in enumerate(files.segments or []):
        if segment is not None:
            yield _Use(segment, "files.segments", ("files", "segments", i), None, True)
    for name, value in files.constants.items():
        yield _Use(name, "files.constants", ("files", "constants", name), _yaml_type(value))
    for i, entry in enumerate(files.table):
        for name, value in entry.levels.items():
            yield _Use(name, f"files.table entry {entry.path}", ("files", "table", i, "levels", name), _yaml_type(value))
    if mapping is not None:
        for name in mapping.columns:
            cells = [row.cells[name] for row in mapping.rows if name in row.cells]
            yield _Use(name, f"column {name!r} of {mapping.file.name}", f"{mapping.file}:1", _text_type(cells))


def _check_name(use: _Use, at: _Locator) -> None:
    if not _IDENTIFIER.match(use.name):
        raise ManifestError(f"{at.of(use)}: {use.where}: {use.name!r} is not a factor name (lower case letters, digits and _, "
                            "starting with a letter)")
    if use.name in CANONICAL and use.name not in REVEALED:
        raise ManifestError(f"{at.of(use)}: {use.where}: factor {use.name!r} has the name of the column {use.name!r} "
                            "that ingest fills from the tool's output; a factor of that name would replace measured "
                            f"data. Rename the factor (e.g. {use.name}_level)")


def _types(manifest: Manifest, uses: list[_Use], at: _Locator) -> dict[str, dict[str, Any]]:
    """Declared factors first, as written, then the undeclared in order of first use."""
    factors = {name: spec.model_dump() for name, spec in manifest.factors.items()}
    for name, spec in factors.items():
        allowed = REVEALED_TYPES.get(name)
        if allowed and spec["type"] not in allowed:
            raise ManifestError(f"{at('factors', name)}: factor {name!r} fills the {REVEALED[name]!r} column, whose "
                                f"values are {' or '.join(allowed)}: declare it type {allowed[0]}")
    by_name: dict[str, list[_Use]] = {}
    for use in uses:
        if use.where != "factor":
            by_name.setdefault(use.name, []).append(use)
    for name, named in by_name.items():
        stated = [u for u in named if u.type is not None and u.where.startswith("template")]
        declared = factors.get(name)
        for use in stated:  # a typed placeholder must agree with the declaration and the other placeholders
            expected = declared["type"] if declared is not None else stated[0].type
            if use.type != expected:
                raise ManifestError(f"{at.of(use)}: {use.where}: {{{name}:{use.type}}} but factor {name!r} is "
                                    f"{'declared' if declared is not None else 'typed elsewhere'} {expected}")
        if declared is not None or all(u.where == "files.constants" for u in named):
            continue  # a constant has one value, of its YAML type: it needs no declaration
        kind = _undeclared_type(name, named, at)
        sources = sorted({u.where.split(" ", 1)[0] for u in named})
        factors[name] = {"type": kind, "levels": None,
                         "description": f"not under factors: declared as {kind} from its use in {', '.join(sources)}"}
    return factors


def _undeclared_type(name: str, named: list[_Use], at: _Locator) -> str:
    typed = [u.type for u in named if u.type is not None and u.where.startswith("template")]
    if typed:
        return typed[0]
    if name in REVEALED_TYPES:
        return REVEALED_TYPES[name][0]
    if any(u.from_path for u in named):
        return "str"  # text from file names: {name:int} or a factors entry says otherwise
    kinds = {u.type for u in named}
    if kinds <= {"int"}:
        return "int"
    if kinds <= {"int", "float"}:
        return "float"
    if kinds <= {"str"}:
        return "str"
    first_number = next(u for u in named if u.type in ("int", "float"))
    first_text = next(u for u in named if u.type == "str")
    raise ManifestError(f"{at.of(first_text)}: factor {name!r} is text here but a number at {at.of(first_number)}; "
                        f"declare its type under factors (e.g. {name}: {{type: str}})")


def _yaml_type(value: Any) -> str:
    if isinstance(value, bool):
        return "str"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    return "str"


def _text_type(cells: list[str]) -> str:
    if cells and all(_INT_TEXT.fullmatch(c) for c in cells):
        return "int"
    if cells and all(_FLOAT_TEXT.fullmatch(c) for c in cells):
        return "float"
    return "str"


def _cast(name: str, value: Any, factor: FactorType, where: Callable[[], str]) -> Any:
    """The level cast, or ManifestError at ``where()`` (looked up only then: a large table has many levels)."""
    try:
        return cast_level(name, value, factor)
    except LevelError as exc:
        raise ManifestError(f"{where()}: {exc}") from None


__all__ = ["CANONICAL", "Declared", "declare"]
