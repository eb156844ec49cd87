"""Per-packet statistics that follow each run's arrival order (jitter, loss,
reordering), computed a row group at a time.

A run's packets are one Parquet file, stored in arrival order (``arrival``
0, 1, 2, ...). Window functions over a campaign (DuckDB's ``lag`` and
``row_number``) hold every packet of the runs they order while ordering
them, some 200 bytes a packet (2.4 GB for 11.5 M packets). Here each file is
read a row group at a time and each flow's state carries from one to the
next, as an RTP receiver keeps it: memory is a row group, plus a byte per
sequence number of a flow for the loss bursts. A flow is keyed as ITGDec
keys it: (flow, src, src_port, dst, dst_port).
"""

from __future__ import annotations

import glob
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

FLOW_COLUMNS = ("flow", "src", "src_port", "dst", "dst_port")
BATCH = 1 << 20  # packets read at a time (a row group as ingest writes them)
_GAIN = 15.0 / 16.0  # RFC 3550: J += (|D| - J) / 16


@dataclass
class Flow:
    """One flow's state in arrival order, and the values of its group."""

    keys: dict[str, Any]
    received: int = 0
    last_delay: float | None = None
    rfc3550_ns: float = 0.0  # J after the flow's packets so far
    log_steps_ns: float = 0.0  # |D_i - D_(i-1)| in the run's order, summed over this flow's packets
    log_step_count: int = 0
    highest: int | None = None
    reordered: int = 0
    first_seq: int | None = None
    seen: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))  # seen[s - first_seq]

    def add_delays(self, delay: np.ndarray, log_steps: np.ndarray) -> None:
        """The flow's next delays (ns), and their steps in the run's order (NaN: the run's first packet)."""
        steps = np.abs(np.diff(delay, prepend=delay[0] if self.last_delay is None else self.last_delay))
        if self.last_delay is None:
            steps = steps[1:]  # the flow's first packet has no step
        weights = _GAIN ** np.arange(len(steps) - 1, -1, -1, dtype=np.float64)  # closed form of the recursion
        self.rfc3550_ns = self.rfc3550_ns * _GAIN ** len(steps) + float(np.dot(steps, weights)) / 16
        self.last_delay = float(delay[-1])
        counted = ~np.isnan(log_steps)
        self.log_steps_ns += float(log_steps[counted].sum())
        self.log_step_count += int(counted.sum())

    def add_seqs(self, seq: np.ndarray) -> None:
        """The flow's next sequence numbers: reordering against the highest so
        far, and the map of the numbers received (grown as needed)."""
        self.received += len(seq)
        before = np.maximum.accumulate(seq)
        if self.highest is not None:
            np.maximum(before, self.highest, out=before)
            self.reordered += int(seq[0] < self.highest)
        self.reordered += int(np.count_nonzero(seq[1:] < before[:-1]))
        self.highest = int(before[-1])
        low = int(seq.min())
        if self.first_seq is None or low < self.first_seq:
            grow = 0 if self.first_seq is None else self.first_seq - low
            self.seen = np.concatenate([np.zeros(grow, dtype=bool), self.seen])
            self.first_seq = low
        top = int(seq.max()) - self.first_seq + 1
        if top > len(self.seen):
            self.seen = np.concatenate([self.seen, np.zeros(max(top, 2 * len(self.seen)) - len(self.seen), dtype=bool)])
        self.seen[seq - self.first_seq] = True

    def loss(self) -> dict[str, Any]:
        """Received, distinct, lost, duplicates and the loss bursts (runs of numbers never received)."""
        present = np.flatnonzero(self.seen)
        gaps = np.diff(present) - 1
        bursts = gaps[gaps > 0]
        first = int(self.first_seq or 0) + int(present[0])
        last = int(self.first_seq or 0) + int(present[-1])
        return {"received": self.received, "distinct_seq": len(present), "first_seq": first, "last_seq": last,
                "reordered": self.reordered, "lost": last - first + 1 - len(present),
                "duplicates": self.received - len(present), "loss_bursts": len(bursts),
                "longest_burst": int(bursts.max()) if len(bursts) else 0,
                "mean_burst": float(bursts.mean()) if len(bursts) else 0.0}


def run_flows(packets: str, by: Sequence[str], delays: bool = False, seqs: bool = False) -> Iterator[Flow]:
    """Every flow of every run file matching ``packets``, its state fed with
    its delays and/or sequence numbers in arrival order; ``by`` are the
    columns its group is told by (constant in a run, or a flow column)."""
    run_columns = [c for c in by if c not in FLOW_COLUMNS]
    columns = [*run_columns, *FLOW_COLUMNS] + (["delay_ns"] if delays else []) + (["seq"] if seqs else [])
    for path in _run_files(packets):
        flows: dict[tuple[Any, ...], Flow] = {}
        run_values: dict[str, Any] | None = None
        last_delay: float | None = None
        for batch in _batches(path, columns):
            values = {c: _constant(batch, c, path) for c in run_columns}
            if run_values is not None and values != run_values:
                raise ValueError(f"{path}: {sorted(k for k in values if values[k] != run_values[k])} change within the run; "
                                 f"group jitter and loss by the run, its factors or a flow column ({', '.join(FLOW_COLUMNS)})")
            run_values = values
            codes, keys = _flow_codes(batch)
            states = [flows.setdefault(k, Flow(run_values | dict(zip(FLOW_COLUMNS, k)))) for k in keys]
            delay = batch.column("delay_ns").to_numpy().astype(np.float64) if delays else None
            log_steps = None
            if delay is not None:
                log_steps = np.abs(np.diff(delay, prepend=np.nan if last_delay is None else last_delay))
                last_delay = float(delay[-1])
            seq = batch.column("seq").to_numpy().astype(np.int64) if seqs else None
            order = np.argsort(codes, kind="stable")
            bounds = np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=len(keys)))))
            for code, state in enumerate(states):
                rows = order[bounds[code]:bounds[code + 1]]
                if delay is not None and log_steps is not None:
                    state.add_delays(delay[rows], log_steps[rows])
                if seq is not None:
                    state.add_seqs(seq[rows])
        yield from flows.values()


def _run_files(packets: str) -> list[str]:
    files = sorted(glob.glob(packets))
    if not files:
        raise ValueError(f"packets: no Parquet file matches {packets!r}")
    return files


def _batches(path: str, columns: Sequence[str]) -> Iterator[pa.RecordBatch]:
    """The file's packets a row group at a time, checked to be in arrival order."""
    expected = 0
    for batch in pq.ParquetFile(path).iter_batches(batch_size=BATCH, columns=list(dict.fromkeys([*columns, "arrival"]))):
        arrival = batch.column("arrival").to_numpy()
        if not np.array_equal(arrival, np.arange(expected, expected + len(arrival))):
            raise ValueError(f"{path}: the packets are not stored in arrival order (row {expected})")
        expected += len(arrival)
        yield batch


def _flow_codes(batch: pa.RecordBatch) -> tuple[np.ndarray, list[tuple[Any, ...]]]:
    """Each packet's flow as a number within the batch (0, 1, ... by first
    appearance), and each number's key. Worked on the columns' category
    codes (the stored columns are dictionary-encoded), not their values."""
    columns = [pd.Categorical(batch.column(c).to_pandas()) for c in FLOW_COLUMNS]
    sizes = [max(1, len(c.categories)) for c in columns]
    combined = np.ravel_multi_index([c.codes.astype(np.int64) for c in columns], sizes)
    codes, uniques = pd.factorize(combined)
    keys = zip(*(c.categories[i] for c, i in zip(columns, np.unravel_index(uniques, sizes))))
    return np.asarray(codes, dtype=np.intp), [tuple(_plain(v) for v in key) for key in keys]


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value (so keys compare and print as DuckDB's did)."""
    return value.item() if isinstance(value, np.generic) else value


def _constant(batch: pa.RecordBatch, column: str, path: str) -> Any:
    values = pd.Series(batch.column(column).to_pandas())
    if values.nunique(dropna=False) != 1:
        raise ValueError(f"{path}: {column!r} is not constant in the run; group jitter and loss by the run, "
                         f"its factors or a flow column ({', '.join(FLOW_COLUMNS)})")
    return _plain(values.iloc[0])
