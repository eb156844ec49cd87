"""Per-packet statistics over a campaign's packets Parquet, computed by DuckDB.

The packets of a campaign can be far larger than memory: every function here
is one SQL query that DuckDB runs over the Parquet files in streaming,
parallel fashion, returning only the small tidy answer (one row per group and
statistic). ``packets`` is a Parquet path or glob with the columns written at
ingest (``analysis.ingest.packets``); ``by`` names the grouping columns
(factor columns and/or ``source_path`` for one row per run).

Definitions (docs/statistics.md):
- percentiles: linear interpolation between order statistics (numpy's default);
- ITGDec jitter: mean |D_i - D_(i-1)| over consecutive packets of a log in
  arrival order (all flows of the log together, as ITGDec's TOTAL);
- RFC 3550 jitter: J_i = J_(i-1) + (|D_i| - J_(i-1)) / 16 per flow in arrival
  order, J_0 = 0, reported as the final J (the estimator an RTP receiver keeps);
- loss: sequence numbers missing between the lowest and highest received;
  a burst is a run of consecutive missing numbers; reordered: a packet whose
  sequence number is below one already received; duplicates: repeats.
"""

from __future__ import annotations

from collections.abc import Sequence

from typing import TYPE_CHECKING

import duckdb
import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from distributed import Client

QUANTILES = (0.5, 0.9, 0.99, 0.999)


def _connect() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = false")  # lets aggregates stream without ordering buffers
    return con


def _quoted(names: Sequence[str]) -> list[str]:
    return ['"' + n.replace('"', '""') + '"' for n in names]


def _source(packets: str) -> str:
    if not isinstance(packets, str):
        raise ValueError(f"packets: expected the Parquet path or glob of a campaign's packets, got {packets!r} "
                         "(Campaign.packets is None when the campaign kept no D-ITG packet logs)")
    return "read_parquet(" + "'" + packets.replace("'", "''") + "', union_by_name = true)"


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

    _source(packets)  # the same refusal of a campaign without packets
    frame = dd.read_parquet(packets, columns=[*by, "delay_ns"])
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
    """Per run (``source_path``, plus ``by``): ITGDec's jitter and the RFC 3550
    estimator per flow averaged over the run's flows, both in ms.

    The RFC 3550 recursion has the closed form J_n = sum_k |D_k| (15/16)^(n-k) / 16,
    so it is a weighted sum DuckDB computes without a loop."""
    keys = list(dict.fromkeys(["source_path", *by]))
    cols = ", ".join(_quoted(keys))
    sql = f"""
    WITH ordered AS (
        SELECT {cols}, flow, arrival, delay_ns,
               abs(delay_ns - lag(delay_ns) OVER (PARTITION BY source_path ORDER BY arrival)) AS d_log,
               abs(delay_ns - lag(delay_ns) OVER (PARTITION BY source_path, flow ORDER BY arrival)) AS d_flow,
               row_number() OVER (PARTITION BY source_path, flow ORDER BY arrival) AS k,
               count(*) OVER (PARTITION BY source_path, flow) AS n
        FROM {_source(packets)}),
    per_flow AS (
        SELECT {cols}, flow,
               sum(d_flow * pow(15.0 / 16.0, n - k)) / 16.0 AS rfc3550_ns,
               sum(d_log) AS d_log_sum, count(d_log) AS d_log_n
        FROM ordered GROUP BY {cols}, flow)
    SELECT {cols}, sum(d_log_sum) / nullif(sum(d_log_n), 0) / 1e6 AS itgdec_jitter_ms,
           avg(rfc3550_ns) / 1e6 AS rfc3550_jitter_ms, count(*) AS flows
    FROM per_flow GROUP BY {cols} ORDER BY {cols}"""
    out = _connect().execute(sql).df()
    out["itgdec_jitter_ms"] = out["itgdec_jitter_ms"].fillna(0.0)
    return out


def loss(packets: str, by: Sequence[str] = ("source_path",)) -> pd.DataFrame:
    """Per run and flow: packets received, distinct sequence numbers, lost
    (missing between the lowest and highest), loss bursts (count, longest,
    mean length), reordered packets and duplicates."""
    keys = list(dict.fromkeys(["source_path", *by]))
    cols = ", ".join(_quoted(keys))
    sql = f"""
    WITH p AS (
        SELECT {cols}, flow, seq, arrival,
               max(seq) OVER (PARTITION BY source_path, flow ORDER BY arrival
                              ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS highest_before
        FROM {_source(packets)}),
    flows AS (
        SELECT {cols}, flow, count(*) AS received, count(DISTINCT seq) AS distinct_seq,
               min(seq) AS first_seq, max(seq) AS last_seq,
               count(*) FILTER (WHERE seq < highest_before) AS reordered
        FROM p GROUP BY {cols}, flow),
    gaps AS (
        SELECT {cols}, flow, seq - lag(seq) OVER (PARTITION BY source_path, flow ORDER BY seq) - 1 AS gap
        FROM (SELECT DISTINCT {cols}, flow, seq FROM {_source(packets)})),
    bursts AS (
        SELECT {cols}, flow, count(*) AS loss_bursts, max(gap) AS longest_burst, avg(gap) AS mean_burst
        FROM gaps WHERE gap > 0 GROUP BY {cols}, flow)
    SELECT f.*, f.last_seq - f.first_seq + 1 - f.distinct_seq AS lost,
           f.received - f.distinct_seq AS duplicates,
           coalesce(b.loss_bursts, 0) AS loss_bursts, coalesce(b.longest_burst, 0) AS longest_burst,
           coalesce(b.mean_burst, 0.0) AS mean_burst
    FROM flows f LEFT JOIN bursts b USING ({cols}, flow) ORDER BY {cols}, flow"""
    return _connect().execute(sql).df()
