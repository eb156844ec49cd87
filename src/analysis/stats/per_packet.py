"""Per-packet statistics over a campaign's packets Parquet.

The packets of a campaign can be far larger than memory: percentiles and
CDFs are one DuckDB query each over the Parquet files (streaming, parallel,
exact: counts per distinct delay); jitter and loss follow each run's arrival
order a row group at a time (:mod:`.arrival_order`). Each returns only the
small tidy answer (one row per group and statistic). ``packets`` is a
Parquet path or glob with the columns written at ingest
(``analysis.ingest.packets``); ``by`` names the grouping columns (factor
columns and/or ``source_path`` for one row per run).

Definitions (docs/statistics.md):
- percentiles: linear interpolation between order statistics (numpy's default);
- ITGDec jitter: mean |D_i - D_(i-1)| over consecutive packets of a log in
  arrival order (all flows of the log together, as ITGDec's TOTAL);
- RFC 3550 jitter: J_i = J_(i-1) + (|D_i| - J_(i-1)) / 16 per flow in arrival
  order, J_0 = 0, reported as the final J (the estimator an RTP receiver keeps);
- a flow: ITGDec's key (flow, src, src_port, dst, dst_port);
- loss: sequence numbers missing between the lowest and highest received;
  a burst is a run of consecutive missing numbers; reordered: a packet whose
  sequence number is below one already received; duplicates: repeats.
"""

from __future__ import annotations

from collections.abc import Sequence

from typing import TYPE_CHECKING, Any

import duckdb
import numpy as np
import pandas as pd

from analysis.stats.arrival_order import Flow, run_flows

if TYPE_CHECKING:
    from distributed import Client

QUANTILES = (0.5, 0.9, 0.99, 0.999)


def _connect() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = false")  # lets aggregates stream without ordering buffers
    return con


def _quoted(names: Sequence[str]) -> list[str]:
    return ['"' + n.replace('"', '""') + '"' for n in names]


def _checked(packets: str) -> str:
    """``packets``, refused with a sentence when it is no path or glob."""
    if not isinstance(packets, str):
        raise ValueError(f"packets: expected the Parquet path or glob of a campaign's packets, got {packets!r} "
                         "(Campaign.packets is None when the campaign kept no D-ITG packet logs)")
    return packets


def _source(packets: str) -> str:
    return "read_parquet(" + "'" + _checked(packets).replace("'", "''") + "', union_by_name = true)"


def delay_percentiles(packets: str, by: Sequence[str] = (), quantiles: Sequence[float] = QUANTILES,
                      client: Client | None = None) -> pd.DataFrame:
    """One row per group and quantile: ``quantile``, ``delay_ms``, ``packets``.

    Exact, from each group's count of packets per distinct delay: D-ITG
    stamps whole microseconds, so a group of 10^8 packets has some thousands
    of distinct delays, and DuckDB counts them in one streaming pass (a
    hash aggregate, which spills to disk if it must) where a sorting
    quantile would hold every delay in memory. The order statistics are then
    read off the cumulative counts (:func:`quantiles_from_counts`).

    With a Dask ``client`` the counting runs on the cluster's workers
    instead (:func:`_counts_on_cluster`), with the same exact result."""
    counts = _counts(packets, by) if client is None else _counts_on_cluster(packets, by, client)
    rows = []
    groups = counts.groupby(list(by), sort=False, dropna=False, observed=True) if by else [((), counts)]
    for key, part in groups:
        key = key if isinstance(key, tuple) else (key,)
        values = quantiles_from_counts(part["delay_ns"].to_numpy(), part["n"].to_numpy(), quantiles)
        total = int(part["n"].sum())
        for q, value in zip(quantiles, values):
            rows.append({**dict(zip(by, key)), "quantile": float(q), "delay_ms": value / 1e6, "packets": total})
    return pd.DataFrame(rows, columns=[*by, "quantile", "delay_ms", "packets"]).sort_values(
        [*by, "quantile"], kind="stable", ignore_index=True)


def _counts(packets: str, by: Sequence[str]) -> pd.DataFrame:
    """Packets per group and distinct delay (``n``), sorted, counted by DuckDB."""
    keys = ", ".join([*_quoted(by), "delay_ns"])
    return _connect().execute(
        f"SELECT {keys}, count(*) AS n FROM {_source(packets)} GROUP BY {keys} ORDER BY {keys}").df()


def _counts_on_cluster(packets: str, by: Sequence[str], client: Client) -> pd.DataFrame:
    """:func:`_counts` computed by a Dask cluster: each worker reads its share
    of the Parquet (the files at the same path on every worker: a shared
    filesystem) and counts it; only the counts travel."""
    import dask.dataframe as dd

    frame = dd.read_parquet(_checked(packets), columns=[*by, "delay_ns"])
    counts = frame.groupby([*by, "delay_ns"], observed=True, dropna=False).size()
    table = client.compute(counts).result().rename("n").reset_index()
    for column in by:  # plain values, as DuckDB gives them (dictionary columns arrive as categories)
        if isinstance(table[column].dtype, pd.CategoricalDtype):
            table[column] = table[column].astype(table[column].cat.categories.dtype)
    return table.sort_values([*by, "delay_ns"], ignore_index=True)


def quantiles_from_counts(values: np.ndarray, counts: np.ndarray, quantiles: Sequence[float]) -> np.ndarray:
    """The ``quantiles`` of a sample given as sorted distinct ``values`` and
    their ``counts``, interpolated linearly between order statistics as
    numpy's default and DuckDB's quantile_cont do: at position h = (n-1)q,
    x[floor h] + (h - floor h) (x[ceil h] - x[floor h])."""
    upto = np.cumsum(counts)
    h = (upto[-1] - 1) * np.asarray(quantiles, dtype=np.float64)
    low, high = np.floor(h), np.ceil(h)
    at_low = values[np.searchsorted(upto, low, side="right")].astype(np.float64)
    at_high = values[np.searchsorted(upto, high, side="right")].astype(np.float64)
    return at_low + (h - low) * (at_high - at_low)


TAIL = (0.999, 0.9999, 0.99999)


def delay_cdf(packets: str, by: Sequence[str] = (), points: int = 201, tail: Sequence[float] = TAIL) -> pd.DataFrame:
    """The delay distribution per group at ``points`` evenly spaced probabilities
    and at the ``tail`` ones, which evenly spaced points cannot resolve (a
    bounded size whatever the packet count): ``p``, ``delay_ms``, ``ccdf``."""
    probabilities = sorted({i / (points - 1) for i in range(points)} | set(tail))
    table = delay_percentiles(packets, by, probabilities)
    table = table.rename(columns={"quantile": "p"})
    table["ccdf"] = 1.0 - table["p"]
    return table


def jitter(packets: str, by: Sequence[str] = ("source_path",)) -> pd.DataFrame:
    """Per run (``source_path``, plus ``by``: factors, or flow columns to
    split a run): ITGDec's jitter and the RFC 3550 estimator per flow
    averaged over the group's flows, both in ms, and the number of flows.

    Read run by run in arrival order a row group at a time
    (:mod:`.arrival_order`), so memory does not grow with the campaign. The
    RFC 3550 recursion has the closed form J_n = sum_k |D_k| (15/16)^(n-k) / 16,
    a weighted sum per row group with the J before it carried in."""
    keys = list(dict.fromkeys(["source_path", *by]))
    groups: dict[tuple[Any, ...], list[Flow]] = {}
    for flow in run_flows(_checked(packets), keys, delays=True):
        groups.setdefault(tuple(flow.keys[k] for k in keys), []).append(flow)
    rows = []
    for key, flows in groups.items():
        steps = sum(f.log_step_count for f in flows)
        rows.append({**dict(zip(keys, key)),
                     "itgdec_jitter_ms": sum(f.log_steps_ns for f in flows) / steps / 1e6 if steps else 0.0,
                     "rfc3550_jitter_ms": float(np.mean([f.rfc3550_ns for f in flows])) / 1e6, "flows": len(flows)})
    return _sorted(pd.DataFrame(rows, columns=[*keys, "itgdec_jitter_ms", "rfc3550_jitter_ms", "flows"]), keys)


def loss(packets: str, by: Sequence[str] = ("source_path",)) -> pd.DataFrame:
    """Per run (``source_path``, plus ``by``) and flow: packets received,
    distinct sequence numbers, the first and last, lost (missing between
    them), loss bursts (count, longest, mean length), reordered packets (a
    number below one already received) and duplicates. Read run by run in
    arrival order (:mod:`.arrival_order`)."""
    keys = list(dict.fromkeys(["source_path", *by]))
    rows = [{**{k: f.keys[k] for k in keys}, "flow": f.keys["flow"], **f.loss()}
            for f in run_flows(_checked(packets), keys, seqs=True)]
    order = list(dict.fromkeys([*keys, "flow"]))
    columns = [*order, "received", "distinct_seq", "first_seq", "last_seq",
               "reordered", "lost", "duplicates", "loss_bursts", "longest_burst", "mean_burst"]
    return _sorted(pd.DataFrame(rows, columns=columns), order)


def _sorted(table: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """Rows in the order of their group keys (text compared as text), as DuckDB's ORDER BY gave them."""
    return table.sort_values(list(keys), key=lambda c: c.astype(str) if c.dtype == object else c,
                             kind="stable", ignore_index=True)
