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
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from analysis.parsers.ditg_log import Packets, nanoseconds

PACKETS_FOLDER = "packets"
ROW_GROUP = 1 << 20  # packets per row group: ~20 MB uncompressed, a unit DuckDB reads in parallel
_DAY_NS = 86_400 * 10**9


def _coded(type_: pa.DataType) -> pa.DataType:
    return pa.dictionary(pa.int32(), type_)


# Columns constant per log or per flow are dictionary arrays: Parquet then
# stores their values once and the indices run-length encoded, with no
# hashing of a million equal values per row group (a third of the writing
# time when they were plain). DuckDB reads them as plain values.
PACKET_FIELDS = [
    pa.field("source_path", _coded(pa.string())),
    pa.field("arrival", pa.int64()),  # position in the log: arrival order for a receiver log
    pa.field("flow", _coded(pa.int64())),
    pa.field("src", _coded(pa.string())),
    pa.field("src_port", _coded(pa.int32())),
    pa.field("dst", _coded(pa.string())),
    pa.field("dst_port", _coded(pa.int32())),
    pa.field("seq", pa.int64()),
    pa.field("size_bytes", pa.int32()),
    pa.field("tx_ns", pa.int64()),
    pa.field("rx_ns", pa.int64()),
    pa.field("delay_ns", pa.int64()),
]


def _per_flow(values: list[Any], flow: np.ndarray, type_: pa.DataType) -> pa.Array:
    """A column that is constant per flow: one value per flow and an index per packet."""
    return pa.DictionaryArray.from_arrays(pa.array(flow.astype(np.int32)), pa.array(values, type_))


def _constant(value: Any, n: int, type_: pa.DataType) -> pa.Array:
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, dtype=np.int32)), pa.array([value], type_))


def packet_table(packets: Packets, source_path: str, levels: dict[str, Any], first: int = 0) -> pa.Table:
    """The stored table of ``packets`` (a slice of a log; ``first`` is the
    slice's position in it), with the run's levels as constant columns.

    A delay is receive minus send time with the day put back when a run
    crosses midnight (as ITGDec's summary does)."""
    tx, rx = nanoseconds(packets.tx_s), nanoseconds(packets.rx_s)
    delay = rx - tx
    delay += _DAY_NS * ((delay < -_DAY_NS // 2).astype(np.int64) - (delay > _DAY_NS // 2))
    n, flow, ends = len(packets.seq), packets.flow, packets.endpoints
    columns = [
        _constant(source_path, n, pa.string()),
        pa.array(np.arange(first, first + n, dtype=np.int64)),
        _per_flow([e[0] for e in ends], flow, pa.int64()),
        _per_flow([e[1] for e in ends], flow, pa.string()),
        _per_flow([e[2] for e in ends], flow, pa.int32()),
        _per_flow([e[3] for e in ends], flow, pa.string()),
        _per_flow([e[4] for e in ends], flow, pa.int32()),
        pa.array(packets.seq.astype(np.int64)), pa.array(packets.size.astype(np.int32)),
        pa.array(tx), pa.array(rx), pa.array(delay),
    ]
    columns += [_constant(value, n, _level_type(value)) for value in levels.values()]
    schema = pa.schema(PACKET_FIELDS + [pa.field(name, _coded(_level_type(v))) for name, v in levels.items()])
    return pa.Table.from_arrays(columns, schema=schema)


def _level_type(value: Any) -> pa.DataType:
    if isinstance(value, bool):
        return pa.bool_()
    if isinstance(value, int):
        return pa.int64()
    if isinstance(value, float):
        return pa.float64()
    return pa.string()


# Times and counters rise steadily from packet to packet: delta-encoded they
# cost ~2 bits a packet, and are cheaper to write than a dictionary attempt
# that fails. Everything else repeats (delays are whole microseconds) and is
# dictionary-encoded: with zstd, ~1.7 bytes a packet in all.
_DELTA = ["arrival", "seq", "tx_ns", "rx_ns"]


class PacketWriter:
    """Writes each packet log's table to ``<out>/packets/<run>.parquet``, in a
    background thread while ingest parses the next file (Parquet encoding
    releases the GIL, so the two use both cores). One file is in flight at a
    time, which bounds memory to two logs' packets. Use it as a context
    manager: leaving waits for the last file and raises its error, if any.

    The folder is emptied first (:func:`fresh_packets_folder`). Files are
    named by a hash of the source path (:func:`run_file`)."""

    def __init__(self, out_dir: str | Path):
        self.root = fresh_packets_folder(out_dir)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="packet-writer")
        self._pending: Future[None] | None = None

    def __enter__(self) -> "PacketWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self._wait()
        finally:
            self._pool.shutdown()

    def write(self, source_path: str, levels: dict[str, Any], packets: Packets) -> Path:
        self._wait()
        path = run_file(self.root, source_path)
        self._pending = self._pool.submit(_write_file, path, source_path, levels, packets)
        return path

    def _wait(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()


def fresh_packets_folder(out_dir: str | Path) -> Path:
    """``<out>/packets/``, emptied: packets of a raw file that is gone must
    not survive a re-ingest. Done once per ingest, before any log is parsed."""
    root = Path(out_dir) / PACKETS_FOLDER
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    return root


def run_file(root: Path, source_path: str) -> Path:
    """A run's packet file: named by a hash of its source path, so a run keeps its file name across ingests."""
    return root / (hashlib.sha256(source_path.encode()).hexdigest()[:16] + ".parquet")


def write_run_packets(root: Path, source_path: str, levels: dict[str, Any], packets: Packets) -> Path:
    """One packet log's file, written now, in this thread. Needs only the
    folder, so whichever process parsed the log writes it: a Dask worker
    writes straight to the shared folder, and the packets never travel back
    to the driver. The same bytes as :class:`PacketWriter` writes."""
    path = run_file(root, source_path)
    _write_file(path, source_path, levels, packets)
    return path


def _write_file(path: Path, source_path: str, levels: dict[str, Any], packets: Packets) -> None:
    """One row group at a time: a table of every packet of a long log would
    hold its strings and int64 columns all at once."""
    n = len(packets.seq)
    first = packet_table(packets.slice(0, min(n, ROW_GROUP)), source_path, levels)
    dictionary = [c for c in first.column_names if c not in _DELTA]
    with pq.ParquetWriter(path, first.schema, compression="zstd", use_dictionary=dictionary,
                          column_encoding={c: "DELTA_BINARY_PACKED" for c in _DELTA}) as writer:
        writer.write_table(first, row_group_size=ROW_GROUP)
        for start in range(ROW_GROUP, n, ROW_GROUP):
            part = packets.slice(start, start + ROW_GROUP)
            writer.write_table(packet_table(part, source_path, levels, start), row_group_size=ROW_GROUP)


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
