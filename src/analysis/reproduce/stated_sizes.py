"""Directions a printed difference states over more sizes than the one it was recorded at.

"UDP on frame sizes ranging from 2455 to 8037 Bytes outperformed TCP by up to 17.6 %
on frame size 7140" prints one number (recorded at 7140) and a direction at seven
sizes. ``data/raw/published/stated_sizes.csv`` (read twice and reconciled, like the
record) lists, per record row, the sizes its sentence states its direction at and the
words that name them (no sizes: one size the sentence does not name). Each other size becomes a *direction* row: the row's qualifiers
at that size, no magnitude, its own id and snippet, so a claim about 2455 learns the
order there and nothing of its size.
"""

from __future__ import annotations

import re

import pandas as pd

from analysis.errors import ClaimsError
from analysis.reproduce.published import published_dir

DIRECTION = "direction"  # the statistic of a row that carries a stated order and no number
COLUMNS = ["row", "sizes", "words"]


def stated_sizes_path():
    return published_dir() / "stated_sizes.csv"


def load_stated_sizes() -> pd.DataFrame:
    """The reconciled reading: one line per record row whose direction covers other sizes."""
    path = stated_sizes_path()
    if not path.exists():
        return pd.DataFrame(columns=COLUMNS)
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = set(COLUMNS) - set(table.columns)
    if missing:
        raise ClaimsError(f"{path}: missing column(s) {', '.join(sorted(missing))}")
    for line, sizes in enumerate(table["sizes"], start=2):
        if not re.fullmatch(r"(\d+(;\d+)*)?", sizes):
            raise ClaimsError(f"{path}, line {line}: sizes {sizes!r} are not ';'-separated byte counts")
    return table


def unnamed_size_rows(stated: pd.DataFrame) -> frozenset[str]:
    """Rows printed for no size whose sentence ties the number to one size it does not
    name ("1 % more than Windows 7 in some particular frame size"): listed with no sizes.
    Such a number shows the order at one size, not over the sizes."""
    return frozenset(stated.loc[stated["sizes"] == "", "row"])


def direction_rows(rows: pd.DataFrame, stated: pd.DataFrame) -> pd.DataFrame:
    """One row per (printed difference, other size its sentence states the order at).

    The copy keeps every qualifier but the size; its ``compared_to`` names the new
    size where it named the old one; value 1 with statistic ``direction`` (only the
    sign of ``larger_side`` is evidence)."""
    by_id = {row["id"]: row for row in rows.to_dict("records")}
    out = []
    for row_id, sizes, words in zip(stated["row"], stated["sizes"], stated["words"]):
        if row_id not in by_id:
            continue  # another study's row
        row = by_id[row_id]
        own = None if pd.isna(row["size_bytes"]) else int(row["size_bytes"])
        for size in map(int, filter(None, sizes.split(";"))):
            if size != own:
                out.append({**row, "size_bytes": size, "compared_to": _resized(str(row["compared_to"]), own, size),
                            "statistic": DIRECTION, "value": 1.0, "unit": "", "id": f"{row_id}@{size}",
                            "stated": (f"'{words}' … {row['value_as_printed']} {row['unit']}"
                                       + (f" at {own} bytes" if own is not None else "") + "; the order only")})
    table = pd.DataFrame(out, columns=[*rows.columns, "stated"])
    return table.astype({"size_bytes": "Int64", "value": float}) if out else rows.iloc[:0]


def _resized(compared_to: str, own: int | None, size: int) -> str:
    """The compared side at the new size, where it named the row's own size."""
    if own is None:
        return compared_to
    return re.sub(rf"(?<!\d){own}(?=\s*bytes)", str(size), compared_to)


def load_doubtful() -> pd.DataFrame:
    """Record rows whose subject the text labels doubtfully (``doubtful.csv``: row, reason):
    kept in the record as printed, never evidence for a claim (a second "Linux Ubuntu"
    bullet standing where the list's OpenSUSE bullet belongs)."""
    path = published_dir() / "doubtful.csv"
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    empty = table.index[table["reason"].str.strip() == ""]
    if len(empty):
        raise ClaimsError(f"{path}, line {empty[0] + 2}: a doubtful row needs its reason")
    return table


def source_row(row_id: str) -> str:
    """The record row a direction row was copied from (``004-0269@2455`` -> ``004-0269``)."""
    return row_id.split("@")[0]
