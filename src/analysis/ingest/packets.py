"""Per-packet tables: every D-ITG packet log's packets kept as Parquet at ingest.

ITGDec's summary (mean, SD, min, max of the delay) is what runs.parquet holds;
tail percentiles, CDFs, jitter and loss bursts need the packets themselves.
Each raw log becomes one Parquet file under ``<processed>/packets/`` (one file
per run), its factor levels as constant columns: Parquet's per-row-group
statistics let DuckDB skip the files a query's factor filter excludes, and
constant columns cost almost nothing once encoded. Times are integer
nanoseconds of the day as D-ITG stamped them (its microseconds, exactly).
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

PACKETS_FOLDER = "packets"
ROW_GROUP = 1 << 20  # packets per row group: ~20 MB uncompressed, a unit DuckDB reads in parallel
_DAY_NS = 86_400 * 10**9

PACKET_FIELDS = [
    pa.field("source_path", pa.string()),
    pa.field("arrival", pa.int64()),  # position in the log: arrival order for a receiver log
    pa.field("flow", pa.int64()),
    pa.field("src", pa.string()),
    pa.field("src_port", pa.int32()),
    pa.field("dst", pa.string()),
    pa.field("dst_port", pa.int32()),
    pa.field("seq", pa.int64()),
    pa.field("size_bytes", pa.int32()),
    pa.field("tx_ns", pa.int64()),
    pa.field("rx_ns", pa.int64()),
    pa.field("delay_ns", pa.int64()),
]


def _nanoseconds(seconds: np.ndarray) -> np.ndarray:
    """Seconds of the day (a double holding microseconds) as exact integer ns:
    below 86,400 s a double resolves ~1e-11 s, so rounding recovers the stamp."""
    return np.rint(np.asarray(seconds, dtype=np.float64) * 1e9).astype(np.int64)


def packet_table(packets: pd.DataFrame, source_path: str, levels: dict[str, Any]) -> pa.Table:
    """The parser's per-packet frame as the stored table, with the run's levels.

    A delay is receive minus send time with the day put back when a run
    crosses midnight (as ITGDec's summary does)."""
    tx, rx = _nanoseconds(packets["tx_s"].to_numpy()), _nanoseconds(packets["rx_s"].to_numpy())
    delay = rx - tx
    delay += _DAY_NS * ((delay < -_DAY_NS // 2).astype(np.int64) - (delay > _DAY_NS // 2))
    n = len(packets)
    columns = {
        "source_path": pa.array([source_path] * n, pa.string()) if n else pa.array([], pa.string()),
        "arrival": pa.array(np.arange(n, dtype=np.int64)),
        "flow": pa.array(packets["flow"].to_numpy(np.int64)),
        "src": pa.array(packets["src"].astype(str).tolist(), pa.string()),
        "src_port": pa.array(packets["src_port"].to_numpy(np.int32)),
        "dst": pa.array(packets["dst"].astype(str).tolist(), pa.string()),
        "dst_port": pa.array(packets["dst_port"].to_numpy(np.int32)),
        "seq": pa.array(packets["seq"].to_numpy(np.int64)),
        "size_bytes": pa.array(packets["size_bytes"].to_numpy(np.int32)),
        "tx_ns": pa.array(tx), "rx_ns": pa.array(rx), "delay_ns": pa.array(delay),
    }
    table = pa.table(columns, schema=pa.schema(PACKET_FIELDS))
    for name, value in levels.items():
        table = table.append_column(name, pa.array([value] * n, type=_level_type(value)))
    return table


def _level_type(value: Any) -> pa.DataType:
    if isinstance(value, bool):
        return pa.bool_()
    if isinstance(value, int):
        return pa.int64()
    if isinstance(value, float):
        return pa.float64()
    return pa.string()


class PacketWriter:
    """Writes each packet log's table to ``<out>/packets/<run>.parquet``.

    The folder is emptied first: packets of a raw file that is gone must not
    survive a re-ingest. Files are named by a hash of the source path, so a
    run keeps its file name across ingests."""

    def __init__(self, out_dir: str | Path):
        self.root = Path(out_dir) / PACKETS_FOLDER
        if self.root.exists():
            shutil.rmtree(self.root)
        self.root.mkdir(parents=True)
        self.files = 0
        self.packets = 0

    def write(self, source_path: str, levels: dict[str, Any], packets: pd.DataFrame) -> Path:
        table = packet_table(packets, source_path, levels)
        name = hashlib.sha256(source_path.encode()).hexdigest()[:16] + ".parquet"
        path = self.root / name
        pq.write_table(table, path, row_group_size=ROW_GROUP, compression="zstd")
        self.files += 1
        self.packets += table.num_rows
        return path


def packets_glob(processed_dir: str | Path) -> str:
    """The glob DuckDB reads a campaign's packets through."""
    return str(Path(processed_dir) / PACKETS_FOLDER / "*.parquet")


def has_packets(processed_dir: str | Path) -> bool:
    folder = Path(processed_dir) / PACKETS_FOLDER
    return folder.is_dir() and any(folder.glob("*.parquet"))


PERCENTILE_COLUMNS = {0.5: "delay_p50_ms", 0.9: "delay_p90_ms", 0.99: "delay_p99_ms", 0.999: "delay_p999_ms"}


def with_delay_percentiles(runs: pd.DataFrame, processed_dir: str | Path) -> pd.DataFrame:
    """``runs`` with each packet log's delay percentiles as run metrics.

    A flow's row gets its flow's percentiles, the TOTAL row those of all the
    log's packets; rows without a delay (other tools, a sender's log, whose
    packets carry no receive time) stay empty. The run is the unit a
    hypothesis compares (docs/statistics.md: percentile hypotheses), so a
    percentile becomes one more per-run metric the verdict engine tests."""
    from analysis.stats.per_packet import delay_percentiles

    out = runs.copy()
    for column in PERCENTILE_COLUMNS.values():
        out[column] = np.nan
    if not has_packets(processed_dir):
        return out
    source = packets_glob(processed_dir)
    quantiles = list(PERCENTILE_COLUMNS)
    for by, flow_of in ((["source_path", "flow"], lambda r: str(r["flow"])), (["source_path"], lambda r: "TOTAL")):
        table = delay_percentiles(source, by, quantiles)
        table["column"] = table["quantile"].map(PERCENTILE_COLUMNS)
        table["flow_key"] = [flow_of(r) for r in table.to_dict("records")]
        wide = table.pivot_table(index=["source_path", "flow_key"], columns="column", values="delay_ms")
        keys = list(zip(out["source_path"].astype(str), out["flow"].astype(str)))
        for column in wide.columns:
            values = wide[column].to_dict()
            found = pd.Series([values.get(k, np.nan) for k in keys], index=out.index, dtype="float64")
            out[column] = out[column].where(found.isna(), found)
    has_delay = pd.Series(False, index=out.index)
    for metric in ("owd_ms", "rtt_ms"):
        if metric in out:
            has_delay |= out[metric].notna()
    out.loc[~has_delay, list(PERCENTILE_COLUMNS.values())] = np.nan
    return out
