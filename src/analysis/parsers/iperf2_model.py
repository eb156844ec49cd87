"""What the iperf 2 readers share: one report line (:class:`Row`), one
stream's lines (:class:`Stream`), and filling a run record or an interval
row from them in canonical units. The text and CSV readers differ only in
how they find these; what a final line means is decided here once."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from analysis.parsers.records import IntervalRecord, RunRecord
from analysis.parsers.units import span_s
from analysis.parsers.values import ip_version_of, is_ipv4_mapped

TOOL = "iperf2"


@dataclass
class Row:
    """One report line: an interval or (if it ends the stream) the final."""

    lineno: int
    start: float
    end: float
    bytes: float | None
    mbps: float | None
    jitter_ms: float | None = None
    lost: float | None = None
    total: float | None = None
    loss_pct: float | None = None
    out_of_order: float | None = None
    retransmits: float | None = None
    rtt_ms: float | None = None
    owd: tuple[float, float, float, float] | None = None


@dataclass
class Conn:
    """A ``[ N] local A port P connected with B port Q (flags)`` line: one
    connection and what it says about the direction of its data."""

    number: str  # the stream id without the 2.1 star
    lineno: int
    local: str
    lport: int
    remote: str
    rport: int
    starred: bool  # "[ *2] local ...": a 2.1 server's connection back to a -d/-r client
    reverse: bool  # "(reverse)": -R
    full_duplex: bool  # "(full-duplex)"
    session: int


@dataclass
class Stream:
    """The report lines of one stream id in one session (ids are reused by
    2.0.x servers, so a server log holds several streams with the same id).
    ``key`` is the id as printed: 2.1 prefixes ``*`` to the reports of a
    stream that runs against its host's usual direction (``[ *1]``)."""

    flow: str
    rows: list[Row] = field(default_factory=list)
    key: str = ""
    session: int = 0
    conn: Conn | None = None
    local: str | None = None
    remote: str | None = None
    started_at: datetime | None = None
    sent: float | None = None
    relayed: Row | None = None
    warnings: list[str] = field(default_factory=list)
    connect_line: int | None = None

    def accepts(self, row: Row) -> bool:
        """A line starting at 0 that ends before what we have already seen
        opens a new session of this id (the final always ends last)."""
        if not self.rows or row.start != 0:
            return True
        return row.end >= max(r.end for r in self.rows)

    def final(self) -> Row | None:
        last = self.rows[-1] if self.rows else None
        return last if last is not None and last.start == 0 else None

    @property
    def aggregate(self) -> bool:
        """``[SUM]`` (all streams of a session) or ``[FD1]`` (both directions of a full-duplex stream)."""
        return self.flow == "SUM" or self.flow.startswith("FD")


def ip_version(address: str | None, warnings: list[str]) -> int | None:
    """IP family from an address as printed; an IPv4-mapped IPv6 address
    (``::ffff:127.0.0.1``, an IPv4 client on a ``-V`` server) is IPv4 on the
    wire, and the record says so."""
    if is_ipv4_mapped(address):
        warnings.append(f"IPv4-mapped address {address}: the traffic was IPv4 on an IPv6 socket")
    return ip_version_of(address)


def flow_name(raw: str) -> str:
    """``SUM``/``SUM-2`` -> SUM, ``*1`` -> 1, ``FD1`` stays."""
    return "SUM" if raw.startswith("SUM") else raw.lstrip("*")


def fill(record: RunRecord, row: Row) -> None:
    """Copy a final report line into the record, in canonical units. The -e
    RTT on a final line is one tcp_info sample taken at the end, not a mean
    over the run: it goes to ``rtt_last_sample_ms``, ``rtt_ms`` stays None."""
    record.duration_s = span_s(row.start, row.end)
    record.throughput_mbps = row.mbps
    record.bytes = row.bytes
    record.jitter_ms = row.jitter_ms
    record.packets_lost = row.lost
    record.packets_sent = row.total
    record.packets_received = row.total - row.lost if row.total is not None and row.lost is not None else None
    record.loss_pct = row.loss_pct
    record.packets_out_of_order = row.out_of_order
    record.retransmits = row.retransmits
    record.rtt_last_sample_ms = row.rtt_ms
    if row.owd is not None:
        record.owd_ms, record.owd_min_ms, record.owd_max_ms, record.owd_sd_ms = row.owd


def offered(row: Row) -> Row:
    """A UDP sender's own interval: keep the sending rate, drop the
    receiver columns it prints without measuring anything."""
    return Row(row.lineno, row.start, row.end, row.bytes, row.mbps, retransmits=row.retransmits, rtt_ms=row.rtt_ms)


def interval(row: Row, index: int, side: str | None, flow: str) -> IntervalRecord:
    return IntervalRecord(
        record_index=index, start_s=row.start, end_s=row.end, side=side, flow=flow,
        throughput_mbps=row.mbps, bytes=row.bytes, jitter_ms=row.jitter_ms, loss_pct=row.loss_pct,
        packets_lost=row.lost, packets_total=row.total, retransmits=row.retransmits, rtt_ms=row.rtt_ms,
    )


def sum_ip_version(records: list[RunRecord]) -> None:
    """A SUM line has no addresses: it inherits the family its streams share."""
    families = {r.ip_version for r in records if r.flow != "SUM" and r.ip_version is not None}
    if len(families) == 1:
        family = families.pop()
        for r in records:
            if r.flow == "SUM" and r.ip_version is None:
                r.ip_version = family


def joined(errors: list[str]) -> str | None:
    """The tool's own error words, each once, in the order printed."""
    return "; ".join(dict.fromkeys(errors)) or None
