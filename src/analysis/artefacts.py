"""Tables the notebooks hand on and the report links: CSV under
``<out>/tables/``, written the same way every time (sorted as given, fixed
float format) so that a rebuild on the same data is byte-identical; and the
same steadiness for the tables the notebooks display."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import pandas as pd


def replace_whole(path: str | Path, write: Callable[[IO[Any]], object], binary: bool = False) -> Path:
    """Write ``path`` whole or not at all: ``write`` fills a temporary file beside it
    (UTF-8 text, or bytes with ``binary``), which is flushed to disk and renamed over
    ``path``, so a reader at the same moment, or a crash, never sees half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".partial")
    try:
        with (os.fdopen(handle, "wb") if binary else os.fdopen(handle, "w", encoding="utf-8", newline="")) as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(partial, path)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
    return path


def save_table(table: pd.DataFrame, out_dir: str | Path, name: str) -> Path:
    """Write ``<out_dir>/tables/<name>.csv`` whole or not at all: a notebook
    reading it at the same moment (nbval runs notebooks side by side) never sees
    half a file."""
    return replace_whole(Path(out_dir) / "tables" / f"{name}.csv",
                         lambda stream: table.to_csv(stream, index=False, float_format="%.10g", lineterminator="\n"))


def steady_digits(table: pd.DataFrame, significant: int = 12) -> pd.DataFrame:
    """A copy with float columns rounded to ``significant`` digits, for display.

    Another machine (CPU, BLAS build, library release) can compute a statistic
    one bit differently. When the true value sits on a rounding tie
    of the displayed precision (jitter data with few decimals makes such
    values, e.g. a mean square of 0.000794075), that bit flips the shown digit
    and nbval fails on a machine that computed nothing wrong. Rounding to 12
    digits first gives every machine the same float to display.
    """
    out = table.copy()
    for column in out.select_dtypes(include=["float64", "float32"]).columns:
        out[column] = [float(f"{value:.{significant}g}") for value in out[column]]
    return out


def read_table(out_dir: str | Path, name: str) -> pd.DataFrame | None:
    """A table an earlier notebook wrote, or None when it did not write one."""
    path = Path(out_dir) / "tables" / f"{name}.csv"
    return pd.read_csv(path) if path.is_file() else None


def earlier_table(out_dir: str | Path, name: str, compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    """The table an earlier notebook writes, computed and written here when that
    notebook has not run yet.

    The report runs the notebooks in order, but nbval runs each one alone, in
    any order: a notebook's output must not depend on which others ran before
    it. Either way the table is read back from its CSV, so its values are the
    same to the last digit.
    """
    table = read_table(out_dir, name)
    if table is None:
        save_table(compute(), out_dir, name)
        table = read_table(out_dir, name)
        assert table is not None
    return table
