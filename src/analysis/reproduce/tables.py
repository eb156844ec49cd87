"""A study's tables rebuilt from the published record, cells as printed.

Every row of the record whose locator is a table (``Table 2``, ``Table II``)
is put back in the table's shape: sizes (or systems) down, the factors that
vary across its columns — and, for tables that mix means and percentages,
the statistic — across.
"""

from __future__ import annotations

import pandas as pd

from analysis.reproduce.lookup import Record

CANDIDATES = ("os", "security", "ip_version", "transport", "statistic", "compared_to")


def _index(part: pd.DataFrame) -> str:
    return "size_bytes" if part["size_bytes"].notna().all() else "os"


def rebuild_table(part: pd.DataFrame) -> pd.DataFrame:
    """One table: printed values in the table's layout (text, exactly as printed)."""
    index = _index(part)
    columns = [c for c in CANDIDATES if c != index and part[c].astype(str).nunique() > 1]
    frame = part.assign(ip_version=part["ip_version"].map(lambda v: "" if pd.isna(v) else f"IPv{int(v)}"))
    table = frame.pivot_table(index=index, columns=columns or ["metric"], values="value_as_printed",
                              aggfunc="first", sort=False)
    return table.fillna("")


def rebuild_tables(record: Record) -> dict[str, pd.DataFrame]:
    """Locator -> rebuilt table, for every table the study prints."""
    rows = record.rows[record.rows["locator"].str.match(r"^Table\b")]
    return {loc: rebuild_table(part) for loc, part in rows.groupby("locator", sort=False)}
