"""How factors, levels and metrics are named wherever the report shows them
(figure axes and legends, the banner's design sentence, tables): one place,
so IPv4 is IPv4 everywhere. Light (pandas only), so the notebooks' start does
not load matplotlib."""

from __future__ import annotations

import pandas as pd

from analysis.naming import UNIT_SUFFIXES

LABELS = {
    "throughput_mbps": "Throughput (Mbit/s)",
    "rtt_ms": "Round-trip time (ms)",
    "owd_ms": "One-way delay (ms)",
    "jitter_ms": "Jitter (ms)",
    "loss_pct": "Packet loss (%)",
    "cpu_local_pct": "CPU, local (%)",
    "cpu_remote_pct": "CPU, remote (%)",
    "transactions_per_s": "Transactions (1/s)",
    "packet_size_bytes": "Packet size (bytes)",
    "frame_size_bytes": "Frame size (bytes)",
    "message_size_bytes": "Message size (bytes)",
    "ip_version": "IP version",
}


def label(column: str) -> str:
    """Axis label with its unit, derived from the column name when not listed."""
    if column in LABELS:
        return LABELS[column]
    for suffix, unit in UNIT_SUFFIXES:
        if column.endswith(suffix):
            return f"{column[: -len(suffix)].replace('_', ' ').capitalize()} ({unit})"
    return column.replace("_", " ").capitalize()


def name(column: str) -> str:
    """The factor or metric in words, without its unit: "Packet size", "IP version"."""
    return label(column).split(" (")[0]


def level_order(values) -> list:
    """Levels in reading order: numbers numerically (128 before 1024), then text."""
    def key(v):
        try:
            return (0, float(v), "")
        except (TypeError, ValueError):
            return (1, 0.0, str(v))
    return sorted(pd.unique(pd.Series(list(values)).dropna()), key=key)


QUANTITY_SUFFIXES = ("_bytes", "_s", "_ms", "_mbps", "_pct")


def is_quantity(runs: pd.DataFrame, factor: str) -> bool:
    """A factor whose levels are amounts (sizes, durations, rates), so a line
    between two measured levels means something; ip_version or a run
    counter are numbers too, but categories."""
    return factor.endswith(QUANTITY_SUFFIXES) and pd.api.types.is_numeric_dtype(runs[factor].dropna())


