"""``files.mapping``: a CSV file (``path`` column, then one column per
factor) that gives files their levels when no name pattern can, for example
a spreadsheet kept beside the runs. An empty cell leaves that factor unset
for that file."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from analysis.errors import ManifestError

PATH_COLUMN = "path"


@dataclass(frozen=True)
class MappingRow:
    line: int
    path: str
    cells: dict[str, str]


@dataclass(frozen=True)
class Mapping:
    file: Path
    columns: list[str]
    rows: list[MappingRow]


def read_mapping(file: Path) -> Mapping:
    """The CSV's factor columns and rows; ManifestError naming FILE:LINE."""
    try:
        text = file.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ManifestError(f"{file}: files.mapping names this CSV file but it does not exist") from None
    except OSError as exc:
        raise ManifestError(f"{file}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ManifestError(f"{file}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    reader = csv.reader(text.splitlines())
    header = next(reader, None)
    if not header or PATH_COLUMN not in header:
        raise ManifestError(f"{file}:1: the first row must name the columns, one of them {PATH_COLUMN!r}")
    blank = [i + 1 for i, c in enumerate(header) if not c.strip()]
    if blank:
        raise ManifestError(f"{file}:1: column {blank[0]} has no name")
    doubled = sorted({c for c in header if header.count(c) > 1})
    if doubled:
        raise ManifestError(f"{file}:1: column {doubled[0]!r} appears twice")
    columns = [c for c in header if c != PATH_COLUMN]
    rows: list[MappingRow] = []
    seen: dict[str, int] = {}
    for cells in reader:
        line = reader.line_num
        if not any(c.strip() for c in cells):
            continue
        if len(cells) != len(header):
            raise ManifestError(f"{file}:{line}: {len(cells)} cells, the header has {len(header)}")
        row = dict(zip(header, cells))
        path = row.pop(PATH_COLUMN)
        _check_path(file, line, path)
        if path in seen:
            raise ManifestError(f"{file}:{line}: {path} is listed twice (first on line {seen[path]})")
        seen[path] = line
        rows.append(MappingRow(line, path, {k: v for k, v in row.items() if v != ""}))
    return Mapping(file, columns, rows)


def _check_path(file: Path, line: int, path: str) -> None:
    p = PurePosixPath(path)
    if not path or p.is_absolute() or ".." in p.parts or "\\" in path:
        raise ManifestError(f"{file}:{line}: path {path!r} is not a path relative to the campaign folder")


__all__ = ["Mapping", "MappingRow", "read_mapping", "PATH_COLUMN"]
