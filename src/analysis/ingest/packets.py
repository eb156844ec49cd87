"""Per-packet tables: every D-ITG packet log's packets kept as Parquet at ingest.

ITGDec's summary (mean, SD, min, max of the delay) is what runs.parquet holds;
tail percentiles, CDFs, jitter and loss bursts need the packets themselves.
Each raw log becomes one Parquet file under ``<processed>/packets/`` (one file
per run), streamed as the log is read, its factor levels as constant columns:
dictionary-encoded, they cost a few bytes per row group on disk, and DuckDB
reads that column first when a query filters on a factor (one cell of six of
the 11.5 M-packet campaign: 0.034 s, against 0.075 s for every packet).
Times are integer nanoseconds of the day as D-ITG stamped them (its
microseconds, exactly).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from analysis.ingest.transaction import OutputError
from analysis.parsers.ditg_log import Packets, nanoseconds

PACKETS_FOLDER = "packets"
ROW_GROUP = 1 << 20  # packets per row group: ~20 MB uncompressed, a unit DuckDB reads in parallel
_DAY_NS = 86_400 * 10**9


def _coded(type_: pa.DataType) -> pa.DataType:
    return pa.dictionary(pa.int32(), type_)


# Columns constant per log or per flow are dictionary arrays: Parquet then
# stores their values once and the indices run-length encoded, with no
# hashing of a million equal values per row group (a third of the writing
# time when they were plain). DuckDB reads them as plain values. No column
# holds nulls, and saying so spares the writer a definition level per value.
def _field(name: str, type_: pa.DataType) -> pa.Field:
    return pa.field(name, type_, nullable=False)


PACKET_FIELDS = [
    _field("source_path", _coded(pa.string())),
    _field("arrival", pa.int64()),  # position in the log: arrival order for a receiver log
    _field("flow", _coded(pa.int64())),
    _field("src", _coded(pa.string())),
    _field("src_port", _coded(pa.int32())),
    _field("dst", _coded(pa.string())),
    _field("dst_port", _coded(pa.int32())),
    _field("seq", pa.int64()),
    _field("size_bytes", pa.int32()),
    _field("tx_ns", pa.int64()),
    _field("rx_ns", pa.int64()),
    _field("delay_ns", pa.int64()),
]
_STATISTICS = ["arrival", "seq", "size_bytes", "tx_ns", "rx_ns", "delay_ns"]


class RunColumns:
    """What every table of one run shares: the schema, and the one-value
    dictionaries of its constant columns (the source path and the levels),
    built once per run rather than once per part."""

    def __init__(self, source_path: str, levels: dict[str, Any]):
        types = [pa.string()] + [_level_type(v) for v in levels.values()]
        self.constants = [pa.array([value], type_) for value, type_ in zip([source_path, *levels.values()], types)]
        self.schema = pa.schema(PACKET_FIELDS + [_field(name, _coded(t)) for name, t in zip(levels, types[1:])])


def packet_table(packets: Packets, run: RunColumns, first: int = 0) -> pa.Table:
    """The stored table of ``packets`` (a part of a log; ``first`` is the
    part's position in it), with the run's levels as constant columns.

    A delay is receive minus send time with the day put back when a run
    crosses midnight (as ITGDec's summary does)."""
    tx, rx = nanoseconds(packets.tx_s), nanoseconds(packets.rx_s)
    delay = rx - tx
    if len(delay) and (delay.min() < -_DAY_NS // 2 or delay.max() > _DAY_NS // 2):
        delay += _DAY_NS * ((delay < -_DAY_NS // 2).astype(np.int64) - (delay > _DAY_NS // 2))
    n, ends = len(packets.seq), packets.endpoints
    flow, zero = pa.array(packets.flow.astype(np.int32)), pa.array(np.zeros(n, dtype=np.int32))

    # safe=False: the indices are in range by construction, and checking them
    # took 46 us per column and part (a sixteenth of the table's time)
    def per_flow(i: int, type_: pa.DataType) -> pa.Array:  # one value per flow, an index per packet
        return pa.DictionaryArray.from_arrays(flow, pa.array([e[i] for e in ends], type_), safe=False)

    source_path, *levels = [pa.DictionaryArray.from_arrays(zero, value, safe=False) for value in run.constants]
    columns = [
        source_path, pa.array(np.arange(first, first + n, dtype=np.int64)),
        per_flow(0, pa.int64()), per_flow(1, pa.string()), per_flow(2, pa.int32()),
        per_flow(3, pa.string()), per_flow(4, pa.int32()),
        pa.array(packets.seq.astype(np.int64)), pa.array(packets.size.astype(np.int32)),
        pa.array(tx), pa.array(rx), pa.array(delay), *levels,
    ]
    return pa.Table.from_arrays(columns, schema=run.schema)


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


class RunPackets:
    """One packet log's packets on their way to ``<out>/packets/<run>.parquet``
    as the log is read: each part becomes a table at once (while its arrays
    are in the CPU's caches), the tables are gathered into row groups of
    :data:`ROW_GROUP` packets and each is written once full, so a log of any
    length needs the memory of two row groups. ``run(work, row_group)`` does
    the writing: :class:`PacketWriter`'s thread, or a plain call. The file appears with
    the first row group; :meth:`discard` removes it (a rejected log)."""

    def __init__(self, path: Path, source_path: str, levels: dict[str, Any],
                 run: Callable[[Callable[[], None], bool], None]):
        self.path, self._columns, self._run = path, RunColumns(source_path, levels), run
        self._tables: list[pa.Table] = []
        self._buffered = 0
        self._written = 0
        self._writer: pq.ParquetWriter | None = None

    def add(self, packets: Packets) -> None:
        """The log's next packets; every row group but the last is full."""
        start, n = 0, len(packets.seq)
        while start < n:
            take = min(n - start, ROW_GROUP - self._buffered)
            first = self._written + self._buffered
            self._tables.append(packet_table(packets.slice(start, start + take), self._columns, first))
            self._buffered += take
            start += take
            if self._buffered == ROW_GROUP:
                self._flush()

    def close(self) -> None:
        """Write what is left and finish the file."""
        if self._tables:
            self._flush()
        self._run(self._finish, False)

    def discard(self) -> None:
        """Forget the packets and remove the file, if any was begun."""
        self._tables, self._buffered = [], 0
        self._run(self._remove, False)

    def _flush(self) -> None:
        table = pa.concat_tables(self._tables)
        self._tables, self._written, self._buffered = [], self._written + self._buffered, 0
        self._run(lambda: self._write(table), True)

    def _write(self, table: pa.Table) -> None:
        if self._writer is None:
            self._writer = _parquet_writer(self.path, table.schema)
        self._writer.write_table(table, row_group_size=ROW_GROUP)

    def _finish(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def _remove(self) -> None:
        self._finish()
        self.path.unlink(missing_ok=True)


class PacketWriter:
    """Opens each packet log's :class:`RunPackets` (:meth:`open`) and writes
    their row groups in a background thread while ingest reads on, into the
    next log too (Parquet encoding releases the GIL, so the two use both
    cores). One row group is in flight at a time, which bounds memory; a
    file's closing does not wait for it. Use it as a context manager:
    leaving waits for the writing and raises its first error, if any.

    The folder is new (:func:`fresh_packets_folder`). Files are
    named by a hash of the source path (:func:`run_file`)."""

    def __init__(self, out_dir: str | Path):
        self.root = fresh_packets_folder(out_dir)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="packet-writer")
        self._in_flight = threading.BoundedSemaphore(1)
        self._pending: list[Future[None]] = []

    def __enter__(self) -> "PacketWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            for future in self._pending:
                future.result()
        finally:
            self._pool.shutdown()

    def open(self, source_path: str, levels: dict[str, Any]) -> RunPackets:
        return RunPackets(run_file(self.root, source_path), source_path, levels, self._submit)

    def _submit(self, work: Callable[[], None], row_group: bool) -> None:
        for done in [f for f in self._pending if f.done()]:
            self._pending.remove(done)
            done.result()  # a failed write stops the ingest here
        if row_group:
            self._in_flight.acquire()
        future = self._pool.submit(work)
        if row_group:
            future.add_done_callback(lambda _: self._in_flight.release())
        self._pending.append(future)


def fresh_packets_folder(out_dir: str | Path) -> Path:
    """``<out>/packets/``, made new: packets of a raw file that is gone must
    not survive a re-ingest, and nothing already there is netrepro's to
    delete (a re-ingest writes into a new staging folder, see
    :mod:`.transaction`). Done once per ingest, before any log is parsed."""
    root = Path(out_dir) / PACKETS_FOLDER
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise OutputError(f"{root}: already exists and is not empty; packets are written into a new folder")
    root.mkdir(parents=True, exist_ok=True)
    return root


def run_file(root: Path, source_path: str) -> Path:
    """A run's packet file: named by a hash of its source path, so a run keeps its file name across ingests."""
    return root / (hashlib.sha256(source_path.encode()).hexdigest()[:16] + ".parquet")


def open_run_packets(root: Path, source_path: str, levels: dict[str, Any]) -> RunPackets:
    """A packet log's :class:`RunPackets` written in this thread. Needs only
    the folder, so whichever process reads the log writes it: a Dask worker
    writes straight to the shared folder, and the packets never travel back
    to the driver. The same bytes as :class:`PacketWriter` writes."""
    return RunPackets(run_file(root, source_path), source_path, levels, _call)


def _call(work: Callable[[], None], row_group: bool) -> None:
    work()


def _parquet_writer(path: Path, schema: pa.Schema) -> pq.ParquetWriter:
    """Dictionary encoding for the columns that repeat, delta encoding for
    those that rise. Min/max statistics only for the per-packet numbers: for
    a dictionary column (constant per run or per flow) Arrow computes them
    value by value, which cost more than writing the column (without them,
    a fifth less writing time on a campaign with twelve factor and constant
    columns); a filter on a factor reads that column's few bytes per row
    group instead."""
    return pq.ParquetWriter(path, schema, compression="zstd",
                            use_dictionary=[c for c in schema.names if c not in _DELTA],
                            column_encoding={c: "DELTA_BINARY_PACKED" for c in _DELTA},
                            write_statistics=_STATISTICS)


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
