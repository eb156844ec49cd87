"""One run at a time: where its packets go, and its one row of results.

Ingest opens a packet log's Parquet file only when the log's first packets
arrive (:class:`PacketsOnDemand`): most files are no packet log, and opening
and finishing a file's sink cost more than parsing a small output.

One row per run: the run's result, from the records its output gave.

A parser returns one record per side and per flow (iperf3 sender and
receiver sums and streams, D-ITG flows and the TOTAL block, netperf's UDP
sender and receiver lines). Statistics need one value per run and metric, so
this picks, for every metric, the side that actually measured it: what the
receiver got (throughput, jitter, loss, delay) where a receiver reported, the
sender's figure otherwise (RTT, retransmits), and the aggregate (SUM, TOTAL)
over the individual flows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from analysis.ingest.packets import RunPackets
from analysis.ingest.schema import RUN_DTYPES
from analysis.parsers.ditg_log import Packets

# Where a packet log's packets go: (source path, factor levels) -> its file.
OpenPackets = Callable[[str, dict[str, Any]], RunPackets]


class PacketsOnDemand:
    """A file's packet sink, opened by its first packets (``opened`` stays
    None for a file that has none)."""

    def __init__(self, open_packets: OpenPackets, source_path: str, levels: dict[str, Any]):
        self._open, self._source_path, self._levels = open_packets, source_path, levels
        self.opened: RunPackets | None = None

    def add(self, packets: Packets) -> None:
        if self.opened is None:
            self.opened = self._open(self._source_path, self._levels)
        self.opened.add(packets)


AGGREGATE_FLOWS = ("SUM", "TOTAL")
SIDE_PREFERENCE = ("receiver", "both", "sender")
IDENTITY = ("tool", "tool_version", "test", "transport", "ip_version", "status", "error", "source_path", "source_sha256")


def _aggregate_only(records: pd.DataFrame) -> pd.DataFrame:
    """Within each file, keep the aggregate rows (SUM/TOTAL) when there are
    any, else the rows without a flow id, else all rows."""
    is_agg = records["flow"].isin(AGGREGATE_FLOWS)
    has_agg = is_agg.groupby(records["source_path"]).transform("any")
    return records[is_agg | ~has_agg]


def one_row_per_run(runs: pd.DataFrame) -> pd.DataFrame:
    """Collapse the records of each source file into one row per run.

    Factor and ``meta_*`` columns are carried over; each metric is taken from
    the first side in SIDE_PREFERENCE that reported it; ``sides`` says which
    sides the file had. Runs that failed keep their error. Raises ValueError
    if one file holds several runs of the same side (e.g. a server log of
    several sessions): such files need one run per file in a campaign.
    """
    if runs.empty:
        return runs.copy()
    records = _aggregate_only(runs)
    dup = records.duplicated(["source_path", "side", "flow"], keep=False) & records["side"].notna()
    if dup.any():
        bad = records.loc[dup, "source_path"].iloc[0]
        raise ValueError(f"{bad}: several runs of the same side in one file; give each run its own file")
    metrics = [c for c, d in RUN_DTYPES.items() if d == "float64" or c == "confidence_achieved"]
    carried = [c for c in runs.columns if c not in RUN_DTYPES]
    rank = records["side"].map({s: i for i, s in enumerate(SIDE_PREFERENCE)}).fillna(len(SIDE_PREFERENCE))
    ordered = records.assign(_rank=rank).sort_values(["source_path", "_rank"], kind="stable")
    grouped = ordered.groupby("source_path", sort=True)
    out = grouped[[*carried, *[c for c in IDENTITY if c != "source_path"]]].first()
    out[metrics] = grouped[metrics].first()  # first non-null in preference order
    # one join per file over distinct values (a lambda per group took most of the time)
    sides = ordered[["source_path", "side"]].dropna().drop_duplicates().sort_values(["source_path", "side"])
    out["sides"] = sides.groupby("source_path")["side"].agg("+".join).reindex(out.index, fill_value="")
    warnings = ordered[["source_path", "warnings"]].dropna()
    warnings = warnings[warnings["warnings"] != ""].drop_duplicates()
    out["warnings"] = warnings.groupby("source_path")["warnings"].agg("; ".join).reindex(out.index, fill_value="")
    return out.reset_index()
