"""What every parser returns: canonical run records and interval rows.

One :class:`RunRecord` per run, per flow or per sender/receiver side, with
units fixed in the field names (``throughput_mbps`` is 10**6 bit/s). A field
the tool does not report stays ``None``; it is never filled with 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from operator import attrgetter
from typing import Any, Literal

Tool = Literal["netperf", "iperf2", "iperf3", "ditg"]
TOOLS: tuple[str, ...] = ("netperf", "iperf2", "iperf3", "ditg")
SIDES: tuple[str, ...] = ("sender", "receiver", "both")
# Which way the data of a record flowed: from the host that ran the client
# (iperf -c) to the server, back, or both ways (an aggregate of both).
DIRECTIONS: tuple[str, ...] = ("client-to-server", "server-to-client", "both")
STATUSES: tuple[str, ...] = ("ok", "failed")


@dataclass(slots=True)
class RunRecord:
    # identity
    tool: str
    tool_version: str | None = None
    test: str | None = None
    transport: str | None = None  # "TCP" | "UDP"
    ip_version: int | None = None  # 4 | 6
    side: str | None = None  # "sender" | "receiver" | "both"
    direction: str | None = None  # "client-to-server" | "server-to-client" | "both" (iperf 2, iperf3)
    flow: str | None = None  # D-ITG flow id, iperf stream id, "SUM" for aggregates
    local_address: str | None = None
    remote_address: str | None = None
    message_size_bytes: float | None = None  # send size; the request size of request/response tests
    response_size_bytes: float | None = None  # request/response tests only
    duration_s: float | None = None
    started_at: datetime | None = None  # timezone-aware (UTC); None when the tool prints no start or no zone offset
    # metrics
    throughput_mbps: float | None = None
    offered_mbps: float | None = None  # a UDP sender's own rate (what it offered), never what arrived
    transactions_per_s: float | None = None
    rtt_ms: float | None = None
    rtt_min_ms: float | None = None
    rtt_max_ms: float | None = None
    rtt_sd_ms: float | None = None
    rtt_last_sample_ms: float | None = None  # one RTT sample (iperf 2 -e: tcp_info at the end), not a mean
    # latency_*: a latency that is no round trip (netperf omni stream tests: the time of one send or
    # recv call), or the percentiles of any test's latency (an RR test's are of its round trips)
    latency_ms: float | None = None
    latency_min_ms: float | None = None
    latency_max_ms: float | None = None
    latency_sd_ms: float | None = None
    latency_p50_ms: float | None = None
    latency_p90_ms: float | None = None
    latency_p99_ms: float | None = None
    owd_ms: float | None = None
    owd_min_ms: float | None = None
    owd_max_ms: float | None = None
    owd_sd_ms: float | None = None
    jitter_ms: float | None = None
    loss_pct: float | None = None
    packets_sent: float | None = None
    packets_received: float | None = None
    packets_lost: float | None = None
    packets_out_of_order: float | None = None
    packets_duplicate: float | None = None
    bytes: float | None = None
    retransmits: float | None = None
    send_errors: float | None = None  # netperf UDP_STREAM: sends the stack refused
    cpu_local_pct: float | None = None
    cpu_remote_pct: float | None = None
    service_demand_local_us_per_kb: float | None = None
    service_demand_remote_us_per_kb: float | None = None
    service_demand_local_us_per_tr: float | None = None  # request/response tests: CPU us per transaction
    service_demand_remote_us_per_tr: float | None = None
    send_socket_bytes: float | None = None
    recv_socket_bytes: float | None = None
    confidence_level_pct: float | None = None
    confidence_interval_pct: float | None = None  # achieved width, +/- % of the mean
    confidence_achieved: bool | None = None
    # outcome
    status: str = "ok"
    error: str | None = None
    # provenance (source_path and source_sha256 are filled in by ingest)
    source_path: str | None = None
    source_sha256: str | None = None
    record_index: int = 0
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        # A shallow copy: dataclasses.asdict deep-copies every value, which
        # dominated the time of ingesting many small files.
        row = dict(zip(RUN_FIELDS, _run_values(self)))
        row["warnings"] = list(self.warnings)
        return row


@dataclass(slots=True)
class IntervalRecord:
    """One time-series row: an iperf interval, a netperf ``-D`` interim line,
    or an ITGDec ``-b/-d/-j/-p`` sample. ``record_index`` names the run record
    it belongs to."""

    record_index: int
    start_s: float
    end_s: float
    side: str | None = None
    flow: str | None = None
    throughput_mbps: float | None = None
    bytes: float | None = None
    jitter_ms: float | None = None
    delay_ms: float | None = None
    loss_pct: float | None = None
    packets_lost: float | None = None
    packets_total: float | None = None
    retransmits: float | None = None
    send_errors: float | None = None  # netperf UDP_STREAM: sends the stack refused
    rtt_ms: float | None = None
    omitted: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(zip(INTERVAL_FIELDS, _interval_values(self)))


RUN_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(RunRecord))
INTERVAL_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(IntervalRecord))
# Every field's value in one C call (a getattr per field took a third of to_dict's time).
_run_values = attrgetter(*RUN_FIELDS)
_interval_values = attrgetter(*INTERVAL_FIELDS)


@dataclass(slots=True)
class ParseResult:
    """A parser's answer for one file: its run records, its time series,
    for packet logs its packets (:class:`.ditg_log.Packets`, whose
    :func:`.ditg_log.packets_frame` is the per-packet table; or None), and
    warnings about the file as a whole: what the content could not decide and
    the parser had to read one way (the CLI prints them, ingest keeps them in
    the file's account). A warning about a record is in its ``warnings``."""

    tool: str
    variant: str
    records: list[RunRecord] = field(default_factory=list)
    intervals: list[IntervalRecord] = field(default_factory=list)
    packets: Any = None
    warnings: list[str] = field(default_factory=list)
