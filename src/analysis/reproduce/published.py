"""The studies' published numbers, with provenance (data/raw/published/).

Each study has one CSV, one row per number its text prints about its own
measurements, with the verbatim snippet it comes from; designs.yaml holds the
designs as printed. Loading validates the vocabulary so that a typo in a
hand-transcribed row fails loudly instead of silently joining the wrong cell.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pandera.pandas as pa
from analysis.config import published_dir
from analysis.errors import ClaimsError
from analysis.yamlfiles import read_yaml


METRICS = (
    "throughput_mbps", "rtt_ms", "owd_ms", "jitter_ms", "cpu_pct", "loss_pct",
    "packets_dropped", "packets_received", "packet_rate_pps", "unspecified",
)
STATISTICS = (
    "mean", "sd", "level", "diff", "max_diff", "pct_diff", "max_pct_diff", "upper_bound",
    "lower_bound", "range_min", "range_max", "max", "min", "bound", "count",
)
TEXT_COLUMNS = (
    "study", "locator", "testbed", "os", "security", "transport", "size_kind",
    "application", "host", "metric", "statistic", "value_as_printed", "unit",
    "compared_to", "larger_side", "snippet", "note",
)

SCHEMA = pa.DataFrameSchema(
    {
        "study": pa.Column(str, pa.Check.str_matches(r"^\d{3}_[0-9a-f]{16}$")),
        "locator": pa.Column(str, pa.Check.str_length(min_value=1)),
        "ip_version": pa.Column("Int64", pa.Check.isin([4, 6]), nullable=True),
        "transport": pa.Column(str, pa.Check.isin(["", "TCP", "UDP"])),
        "size_bytes": pa.Column("Int64", pa.Check.gt(0), nullable=True),
        "size_kind": pa.Column(str, pa.Check.isin(["", "packet", "frame", "message"])),
        "security": pa.Column(str, pa.Check.isin(["", "open", "WPA2"])),
        "metric": pa.Column(str, pa.Check.isin(METRICS)),
        "statistic": pa.Column(str, pa.Check.isin(STATISTICS)),
        "id": pa.Column(str, pa.Check.str_matches(r"^\d{3}-\d{4}$"), unique=True),
        "value": pa.Column(float),
        "value_as_printed": pa.Column(str, pa.Check.str_length(min_value=1)),
        "unit": pa.Column(str, pa.Check.isin(["Mbps", "ms", "%", "packets", "packets/s", "Bytes"])),
        "snippet": pa.Column(str, pa.Check.str_length(min_value=1)),
        "larger_side": pa.Column(str, pa.Check.isin(["", "subject", "compared"])),
    },
    checks=[
        pa.Check(lambda d: (d["size_bytes"].isna()) == (d["size_kind"] == ""),
                 element_wise=False, error="size_kind set exactly when size_bytes is"),
    ],
    strict=False,
)


def _read(path: Path) -> pd.DataFrame:
    """Read one study CSV keeping printed text exactly (no NA guessing)."""
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    if "larger_side" not in frame:  # which side of a difference is larger: not yet read
        frame["larger_side"] = ""
    if "id" not in frame:  # records written before ids: number the rows in file order
        frame.insert(0, "id", [f"{path.stem[:3]}-{i:04d}" for i in range(1, len(frame) + 1)])
    for col in TEXT_COLUMNS:
        frame[col] = frame[col].astype(str)
    frame["value"] = frame["value"].astype(float)
    for col in ("ip_version", "size_bytes"):
        frame[col] = pd.to_numeric(frame[col].replace("", None)).astype("Int64")
    return frame


def load_published(study: str | None = None) -> pd.DataFrame:
    """All studies' published numbers (or one study's, by file stem), validated."""
    paths = sorted(published_dir().glob("[0-9][0-9][0-9]_*.csv"))
    if study is not None:
        paths = [p for p in paths if p.stem == study]
        if not paths:
            raise KeyError(f"no published record for study {study!r}")
    frame = pd.concat([_read(p) for p in paths], ignore_index=True)
    return SCHEMA.validate(frame)


def load_designs() -> dict:
    """Per study: {'design': [{'field', 'value', 'snippet'}, ...], 'note'?}."""
    return read_yaml(published_dir() / "designs.yaml", ClaimsError)
