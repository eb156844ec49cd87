"""How a level and a metric's unit are written, shared by the figures and the
verdict wording (which sit in different layers): IPv4 is IPv4 and loss is in
% wherever a reader meets them."""

from __future__ import annotations

UNIT_SUFFIXES = (("_mbps", "Mbit/s"), ("_ms", "ms"), ("_pct", "%"), ("_per_s", "1/s"), ("_bytes", "bytes"),
                 ("_s", "s"))


def unit_of(column: str) -> str:
    """The unit a column's name carries (``rtt_ms`` -> ``ms``), or "" when it names none."""
    return next((unit for suffix, unit in UNIT_SUFFIXES if column.endswith(suffix)), "")


def level_label(factor: str, value) -> str:
    """How a level is written in legends, on axes and in verdicts: ``IPv4`` for
    ip_version 4 (whether the column holds 4, 4.0 or "4"), whole numbers without ".0"."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if factor == "ip_version" and str(value) in ("4", "6"):
        return f"IPv{value}"
    return str(value)


CLOCK_OFFSET_PREFIXES = ("owd_", "delay_")  # one-way delays and their percentiles


def is_clock_offset(metric: str) -> bool:
    """A one-way delay (or a percentile of one): its level includes the offset
    between two hosts' clocks, so a percent of it, or a margin in % of it, means nothing."""
    return metric.startswith(CLOCK_OFFSET_PREFIXES)
