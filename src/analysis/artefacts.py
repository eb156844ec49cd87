"""Tables the notebooks hand on and the report links: CSV under
``<out>/tables/``, written the same way every time (sorted as given, fixed
float format) so that a rebuild on the same data is byte-identical."""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def save_table(table: pd.DataFrame, out_dir: str | Path, name: str) -> Path:
    path = Path(out_dir) / "tables" / f"{name}.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(path, index=False, float_format="%.10g", lineterminator="\n")
    return path


def read_table(out_dir: str | Path, name: str) -> pd.DataFrame | None:
    """A table an earlier notebook wrote, or None when it did not write one."""
    path = Path(out_dir) / "tables" / f"{name}.csv"
    return pd.read_csv(path) if path.is_file() else None
