"""D-ITG's binary packet logs (``ITGRecv -l``, ``ITGSend -l``), read directly.

A log is a bare sequence of 144-byte records in the host's byte order
(little-endian on every machine D-ITG runs on today), without a header; see
:data:`RECORD`. :func:`summarize` computes ITGDec's summary from the packets
with ITGDec's own arithmetic, so that :func:`format_summary` prints what
``ITGDec LOG`` prints, to the last digit, for any log that does not cross
midnight. ITGDec keeps times as seconds of the day and so turns a flow that
crosses midnight into delays of about -86400 s; we add the day back and warn.

The same engine serves the text packet logs (``ITGDec -l``) in :mod:`.ditg`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.parsers import units
from analysis.errors import ParseError
from analysis.parsers.records import ParseResult, RunRecord

TOOL = "ditg"
RECORD_SIZE = 144
ADDRESS_LEN = 46
RECORD = np.dtype([
    ("flow", "<u4"), ("seq", "<u4"), ("src_port", "<u4"), ("dst_port", "<u4"),
    ("tx_hour", "<u4"), ("tx_min", "<u4"), ("rx_hour", "<u4"), ("rx_min", "<u4"),
    ("size", "<u4"), ("src", f"S{ADDRESS_LEN}"), ("dst", f"S{ADDRESS_LEN}"),
    ("tx_sec", "<f8"), ("rx_sec", "<f8"),
])
assert RECORD.itemsize == RECORD_SIZE
_ADDR_WORDS = slice(9, 32)  # both addresses as 23 little-endian uint32 words
# flags of 8-byte words 0-7 packed in one uint64, one byte each: keep word 1 (ports)
# and words 5-7 (addresses); words 8-15 (addresses) are the second packed word
_KEY_FLAGS = np.uint64(int.from_bytes(bytes([0, 1, 0, 0, 0, 1, 1, 1]), "little") * 0xFF)
_DAY_S = 86400.0
_HALF_DAY_S = 43200.0
_PRINTABLE = np.zeros(256, dtype=bool)
_PRINTABLE[0x21:0x7F] = True


@dataclass(slots=True)
class Packets:
    """Valid packets in file order, as ITGDec sees them: flow index (order of
    first appearance), sequence number, payload size and the tx/rx times in
    seconds of the day, computed as ITGDec computes them."""

    flow: np.ndarray
    endpoints: list[tuple[int, str, int, str, int]]  # (flow id, src, src port, dst, dst port)
    seq: np.ndarray
    size: np.ndarray
    tx_s: np.ndarray
    rx_s: np.ndarray
    error_lines: int = 0


@dataclass(slots=True)
class Stats:
    """One block of ITGDec's summary (a flow, or the TOTAL)."""

    packets: int
    bytes: float
    first_rx_s: float
    last_rx_s: float
    min_delay_s: float
    max_delay_s: float
    mean_delay_s: float
    sd_delay_s: float
    jitter_s: float
    lost: int
    duplicates: int
    loss_events: int
    endpoints: tuple[int, str, int, str, int] | None = None

    @property
    def duration_s(self) -> float:
        return self.last_rx_s - self.first_rx_s

    @property
    def bitrate_kbps(self) -> float:
        return self.bytes * 8 / 1000 / self.duration_s if self.duration_s > 0 else 0.0

    @property
    def packet_rate(self) -> float:
        return self.packets / self.duration_s if self.duration_s > 0 else 0.0


@dataclass(slots=True)
class Summary:
    flows: list[Stats]
    total: Stats
    error_lines: int
    sender_log: bool
    crosses_midnight: bool = False


def detect_binary(data: bytes) -> bool:
    """True only for a plausible D-ITG log: whole records, every time field in
    range (hour < 24, minute < 60, 0 <= seconds < 60) and both addresses
    NUL-terminated printable text padded with NULs, so no text file passes."""
    if not data or len(data) % RECORD_SIZE:
        return False
    arr = np.frombuffer(data, RECORD)
    return _checked_run_starts(arr) is not None and bool(_time_ok(arr).all())


def read_records(data: bytes, source: str = "<bytes>") -> tuple[np.ndarray, np.ndarray]:
    """The log as a structured array (no copy) and the indices where a run of
    one flow starts, after checking the log's shape and addresses."""
    if not data:
        raise ParseError(source, None, "empty D-ITG binary log")
    if len(data) % RECORD_SIZE:
        raise ParseError(source, None, f"{len(data)} bytes is not a whole number of "
                         f"{RECORD_SIZE}-byte D-ITG log records")
    arr = np.frombuffer(data, RECORD)
    starts = _checked_run_starts(arr)
    if starts is None:
        raise ParseError(source, None, "record addresses are not NUL-terminated printable "
                         "text padded with NULs: not a D-ITG binary log")
    return arr, starts


def _words(arr: np.ndarray) -> np.ndarray:
    """The records as rows of 36 uint32 words (a view, no copy)."""
    return arr.view("<u4").reshape(-1, RECORD_SIZE // 4)


def _run_starts(arr: np.ndarray) -> np.ndarray:
    """Indices of the records whose flow key (flow id, ports, addresses)
    differs from the previous record's. Logs come in long runs of one flow,
    so only run starts need a closer look. Compares whole 8-byte words of
    the record with the next one's (contiguous, fast), then picks the words
    that hold the key: 1 (ports) and 5-15 (addresses), plus the flow id and
    the first address bytes that share words with the seq and the size."""
    q = arr.view("<u8").reshape(-1)
    width = RECORD_SIZE // 8
    ne = (q[width:] != q[:-width]).reshape(-1, width)[:, :16].view("<u8")  # 16 flags as two words
    w = _words(arr)
    change = ((ne[:, 0] & _KEY_FLAGS) | ne[:, 1]).astype(bool)
    change |= (w[1:, 0] != w[:-1, 0]) | (w[1:, 9] != w[:-1, 9])
    return np.flatnonzero(np.concatenate(([True], change)))


def _checked_run_starts(arr: np.ndarray) -> np.ndarray | None:
    """Run starts, or None when an address field is not printable text,
    NUL-terminated and NUL-padded (ITGDec compares addresses with strcmp;
    with NUL padding, comparing bytes is the same)."""
    if not len(arr):
        return None
    starts = _run_starts(arr)
    raw = np.ascontiguousarray(_words(arr)[starts, _ADDR_WORDS]).view(np.uint8)
    for field_bytes in (raw[:, :ADDRESS_LEN], raw[:, ADDRESS_LEN:]):
        nul = field_bytes == 0
        first = np.where(nul.any(axis=1), nul.argmax(axis=1), -1)
        if (first <= 0).any():
            return None
        before = np.arange(ADDRESS_LEN)[None, :] < first[:, None]
        if not np.where(before, _PRINTABLE[field_bytes], field_bytes == 0).all():
            return None
    return starts


def _time_ok(arr: np.ndarray) -> np.ndarray:
    return ((arr["tx_hour"] < 24) & (arr["tx_min"] < 60) & (arr["rx_hour"] < 24) & (arr["rx_min"] < 60)
            & (arr["tx_sec"] >= 0) & (arr["tx_sec"] < 60) & (arr["rx_sec"] >= 0) & (arr["rx_sec"] < 60))


def _itgdec_valid(head: np.ndarray, secs: np.ndarray) -> np.ndarray | None:
    """ITGDec's own test: it counts other records as 'Error lines' and skips
    them. None when every record passes (the usual case, tested cheaply)."""
    limit = 59.999999
    top = head[:, 4:8].max(axis=0)  # tx hour, tx minute, rx hour, rx minute
    if top[0] <= 24 and top[2] <= 24 and top[1] <= 59 and top[3] <= 59 and secs.min() >= 0 and secs.max() <= limit:
        return None
    hours, minutes = head[:, [4, 6]], head[:, [5, 7]]
    return (hours <= 24).all(axis=1) & (minutes <= 59).all(axis=1) & ((secs >= 0) & (secs <= limit)).all(axis=1)


def seconds_of_day(hour: np.ndarray, minute: np.ndarray, sec: np.ndarray) -> np.ndarray:
    """ITGDec's ``(double)h*3600 + (double)m*60 + s``; the integer part is exact
    either way, so it is computed in the fields' integer type (no overflow
    for hours <= 24 and minutes <= 59, the only ones ITGDec accepts) and
    converted while adding the seconds."""
    return (hour * 3600 + minute * 60) + sec


def packets_from_records(arr: np.ndarray, starts: np.ndarray) -> Packets:
    """The valid packets of a checked log (see :func:`read_records`). The nine
    integer fields and the two times are copied out once: every later pass
    then reads compact memory instead of striding over 144-byte records."""
    head = _words(arr)[:, :9].copy()
    secs = arr.view("<f8").reshape(-1, RECORD_SIZE // 8)[:, 16:18].copy()
    valid = _itgdec_valid(head, secs)
    errors = 0 if valid is None else int(len(arr) - np.count_nonzero(valid))
    if errors:
        arr, head, secs = arr[valid], head[valid], secs[valid]
        starts = _run_starts(arr) if len(arr) else starts[:0]
    flow, endpoints = _flow_index(arr, starts)
    return Packets(
        flow=flow, endpoints=endpoints, seq=head[:, 1], size=head[:, 8],
        tx_s=seconds_of_day(head[:, 4], head[:, 5], secs[:, 0]),
        rx_s=seconds_of_day(head[:, 6], head[:, 7], secs[:, 1]),
        error_lines=errors,
    )


def _flow_index(arr: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, list]:
    """Flow number of each record, flows in order of first appearance, keyed
    like ITGDec by (flow id, source, source port, destination, dest port)."""
    if not len(arr):
        return np.zeros(0, dtype=np.int64), []
    w = _words(arr)
    key = np.ascontiguousarray(np.concatenate([w[starts][:, [0, 2, 3]], w[starts, _ADDR_WORDS]], axis=1))
    _, first, inverse = np.unique(key.view(f"V{key.shape[1] * 4}").ravel(), return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))  # order of first appearance
    rows = starts[np.sort(first)]
    endpoints = [(int(f), s.decode("ascii"), int(sp), d.decode("ascii"), int(dp))
                 for f, s, sp, d, dp in zip(arr["flow"][rows], arr["src"][rows], arr["src_port"][rows],
                                            arr["dst"][rows], arr["dst_port"][rows])]
    lengths = np.diff(np.append(starts, len(arr)))
    return np.repeat(rank[inverse.ravel()], lengths), endpoints


def packets_frame(packets: Packets) -> pd.DataFrame:
    """The per-packet table: one row per valid packet, delays in seconds."""
    ids = np.array([e[0] for e in packets.endpoints] or [0], dtype=np.int64)
    cols = {name: np.array([e[i] for e in packets.endpoints] or [""], dtype=object)
            for i, name in ((1, "src"), (3, "dst"))}
    ports = {name: np.array([e[i] for e in packets.endpoints] or [0], dtype=np.int64)
             for i, name in ((2, "src_port"), (4, "dst_port"))}
    f = packets.flow
    return pd.DataFrame({
        "flow": ids[f], "seq": packets.seq, "src": cols["src"][f], "src_port": ports["src_port"][f],
        "dst": cols["dst"][f], "dst_port": ports["dst_port"][f], "tx_s": packets.tx_s,
        "rx_s": packets.rx_s, "size_bytes": packets.size, "delay_s": packets.rx_s - packets.tx_s,
    })


def summarize(packets: Packets) -> Summary:
    """ITGDec's summary of ``packets``, with a day added across midnight."""
    if not len(packets.seq):
        raise ValueError("no valid packet")
    rx, delay, crossed = _unwrap_midnight(packets.tx_s, packets.rx_s)
    order = _stable_order(packets.flow, len(packets.endpoints)) if len(packets.endpoints) > 1 else None
    bounds = np.concatenate(([0], np.cumsum(np.bincount(packets.flow, minlength=len(packets.endpoints)))))
    flows = []
    for i, endpoint in enumerate(packets.endpoints):
        sel = order[bounds[i]:bounds[i + 1]] if order is not None else slice(None)
        flows.append(_block(packets.seq[sel], packets.size[sel], rx[sel], delay[sel], endpoint))
    total = _total(flows, rx, delay)
    sender = bool(packets.tx_s[0] == packets.rx_s[0] and np.array_equal(packets.tx_s, packets.rx_s))
    return Summary(flows, total, packets.error_lines, sender, crossed)


def _stable_order(flow: np.ndarray, n_flows: int) -> np.ndarray:
    """Packets grouped by flow, file order kept within each: numpy's stable
    sort is a radix sort for 16-bit keys, several times faster than for int64."""
    return np.argsort(flow.astype(np.uint16) if n_flows <= 2**16 else flow, kind="stable")


def _unwrap_midnight(tx: np.ndarray, rx: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Receive times made monotonic across midnight (file order is arrival
    order) and delays with the day put back; unchanged when nothing wraps."""
    delay = rx - tx
    steps = np.diff(rx)
    back = len(steps) > 0 and steps.min() < -_HALF_DAY_S
    wrapped = np.abs(delay).max() > _HALF_DAY_S
    if back:
        rx = rx + _DAY_S * np.concatenate(([0], np.cumsum(steps < -_HALF_DAY_S)))
    if wrapped:
        delay = delay + _DAY_S * ((delay < -_HALF_DAY_S).astype(np.float64) - (delay > _HALF_DAY_S))
    return rx, delay, bool(back or wrapped)


# ITGDec adds left to right; numpy's sums are pairwise (more accurate). The two
# differ by ~1e-16 relative, some ten orders of magnitude below the printed
# microseconds: the tests compare every printed digit on every fixture.

def _mean_sd(delay: np.ndarray) -> tuple[float, float]:
    """ITGDec's mean and population sd: sqrt(E[d^2] - E[d]^2), 0 if negative."""
    n = len(delay)
    mean = float(delay.sum()) / n
    var = float(np.dot(delay, delay)) / n - mean * mean
    return mean, (math.sqrt(var) if var > 0 else 0.0)


def _jitter(delay: np.ndarray) -> float:
    """Mean |D_i - D_(i-1)| over consecutive packets in file order."""
    return float(np.abs(np.diff(delay)).sum()) / (len(delay) - 1) if len(delay) > 1 else 0.0


def _block(seq, size, rx, delay, endpoint) -> Stats:
    mean, sd = _mean_sd(delay)
    lost, dup, events = loss_counters(seq)
    return Stats(
        packets=len(seq), bytes=float(np.sum(size, dtype=np.int64)), first_rx_s=float(rx.min()),
        last_rx_s=float(rx.max()), min_delay_s=float(delay.min()), max_delay_s=float(delay.max()),
        mean_delay_s=mean, sd_delay_s=sd, jitter_s=_jitter(delay), lost=lost, duplicates=dup,
        loss_events=events, endpoints=endpoint,
    )


def _total(flows: list[Stats], rx: np.ndarray, delay: np.ndarray) -> Stats:
    """The TOTAL block: delay and jitter over all packets in file order (so its
    jitter mixes flows, as ITGDec's does), counts summed over the flows."""
    mean, sd = _mean_sd(delay)
    return Stats(
        packets=sum(f.packets for f in flows), bytes=sum(f.bytes for f in flows),
        first_rx_s=float(rx.min()), last_rx_s=max(f.last_rx_s for f in flows),
        min_delay_s=min(f.min_delay_s for f in flows), max_delay_s=max(f.max_delay_s for f in flows),
        mean_delay_s=mean, sd_delay_s=sd, jitter_s=_jitter(delay),
        lost=sum(f.lost for f in flows) % 2**32, duplicates=sum(f.duplicates for f in flows),
        loss_events=sum(f.loss_events for f in flows) % 2**32,
    )


def loss_counters(seq: np.ndarray) -> tuple[int, int, int]:
    """ITGDec's (lost, duplicated, loss events) of one flow, vectorised.

    ITGDec numbers from 1 and, after each packet k >= 2, keeps the highest
    sequence number M_k, the duplicates D_k = max(D_{k-1}, k - M_k) and the
    loss L_k = M_k - k + D_k (max seq - received + duplicates). A loss event
    starts when seq_k > L_{k-1} + k and is taken back when the loss shrinks
    outside a duplicate step. A duplicate is only seen once the count of
    packets overtakes M_k, so losses hide earlier duplicates (as in ITGDec).
    """
    n = len(seq)
    if n < 2:
        return 0, 0, 0
    seq = seq.astype(np.int64)
    k = np.arange(1, n + 1, dtype=np.int64)
    high = np.maximum.accumulate(seq)
    ahead = k - high
    ahead[0] = 0
    dup = np.maximum.accumulate(np.maximum(ahead, 0))
    loss = high - k + dup
    loss[0] = 0
    prev_loss, prev_dup = loss[:-1], dup[:-1]
    dup_step = ahead[1:] > prev_dup
    starts = np.count_nonzero(seq[1:] > prev_loss + k[1:])
    undone = np.count_nonzero(~dup_step & (loss[1:] < prev_loss))
    return int(loss[-1]), int(dup[-1]), int(starts - undone) % 2**32


# --- ITGDec's text, for checking a reader against ITGDec line by line -------

_RULE = "-" * 58


def format_summary(summary: Summary) -> str:
    """The summary as ``ITGDec LOG`` prints it on stdout after its two
    version lines (same labels, widths and rounding)."""
    out: list[str] = []
    for s in summary.flows:
        fid, src, sport, dst, dport = s.endpoints
        out += [_RULE, f"Flow number: {fid}", f"From {src}:{sport}", f"To    {dst}:{dport}", _RULE]
        out += _metric_lines(s, s.packets)
        out += _flow_loss_lines(s) + [_RULE]
    t = summary.total
    out += ["", "_" * 58, "****************  TOTAL RESULTS   ******************", "_" * 58,
            f"Number of flows          = {len(summary.flows):13d}"]
    out += _metric_lines(t, t.packets) + _total_loss_lines(t)
    out += [f"Error lines              = {summary.error_lines:13d}", _RULE]
    return "\n".join(out) + "\n"


def _metric_lines(s: Stats, packets: int) -> list[str]:
    return [
        f"Total time               = {s.duration_s:13.6f} s",
        f"Total packets            = {packets:13d}",
        f"Minimum delay            = {s.min_delay_s:13.6f} s",
        f"Maximum delay            = {s.max_delay_s:13.6f} s",
        f"Average delay            = {s.mean_delay_s:13.6f} s",
        f"Average jitter           = {s.jitter_s:13.6f} s",
        f"Delay standard deviation = {s.sd_delay_s:13.6f} s",
        f"Bytes received           = {s.bytes:13.0f}",
        f"Average bitrate          = {s.bitrate_kbps:13.6f} Kbit/s",
        f"Average packet rate      = {s.packet_rate:13.6f} pkt/s",
    ]


def _burst(lost: int, events: int) -> float:
    return lost / events if events else math.inf


def _flow_loss_lines(s: Stats) -> list[str]:
    if s.lost > 0:
        pct = 100.0 * s.lost / (s.packets + s.lost)
        return [f"Packets dropped          = {s.lost:13d} ({pct:3.2f} %)",
                f"Average loss-burst size  = {_burst(s.lost, s.loss_events):13f} pkt"]
    return [f"Packets dropped          = {0:13d} ({0.0:3.2f} %)", f"Average loss-burst size  = {0.0:13f} pkt"]


def _total_loss_lines(t: Stats) -> list[str]:
    if t.lost > 0:
        pct = float((100 * t.lost) % 2**32) / (t.packets + t.lost)  # ITGDec multiplies in 32 bits
        return [f"Packets dropped          = {t.lost:13d} ({pct:3.2f} %)",
                f"Average loss-burst size  = {_burst(t.lost, t.loss_events):13f} pkt"]
    return [f"Packets dropped          = {0.0:13.0f} ({0.0:3.2f} %)", f"Average loss-burst size  = {0.0:13.0f} pkt"]


# --- run records -------------------------------------------------------------

def log_kind(sender_log: bool, meter: str | None) -> str:
    """'rttm' (ITGSend's log in round-trip mode: delays are RTTs, gaps are
    round-trip losses), 'sender' (delays all zero, counts are packets sent)
    or 'receiver'."""
    if meter == "rttm":
        return "rttm"
    return "sender" if sender_log else "receiver"


def records_from_summary(summary: Summary, meter: str | None = None) -> list[RunRecord]:
    """One record per flow and one for the TOTAL (flow="TOTAL")."""
    kind = log_kind(summary.sender_log, meter)
    shared = shared_flow_warnings([s.endpoints for s in summary.flows])
    records = [_record(s, kind, i, shared.get(i, [])) for i, s in enumerate(summary.flows)]
    records.append(_record(summary.total, kind, len(records), []))
    for rec in records:
        if summary.crosses_midnight:
            rec.warnings.append("the log crosses midnight: a day was added to the times after it "
                                "(ITGDec itself would report delays near -86400 s there)")
        if summary.error_lines:
            rec.warnings.append(f"{summary.error_lines} records with out-of-range times skipped, as ITGDec does")
    return records


def shared_flow_warnings(endpoints: list[tuple]) -> dict[int, list[str]]:
    """Flows that share a flow number (two ITGSend runs towards one ITGRecv
    both number from 1): each keeps its own record, and says so."""
    by_id: dict[int, list[int]] = {}
    for i, e in enumerate(endpoints):
        by_id.setdefault(e[0], []).append(i)
    out: dict[int, list[str]] = {}
    for fid, members in by_id.items():
        if len(members) > 1:
            names = ", ".join(_endpoint_text(endpoints[i]) for i in members)
            for i in members:
                out[i] = [f"flow number {fid} is shared by {len(members)} flows ({names}); "
                          f"this record is {_endpoint_text(endpoints[i])}"]
    return out


def _endpoint_text(e: tuple) -> str:
    return f"{e[1]}:{e[2]} -> {e[3]}:{e[4]}"


def _record(s: Stats, kind: str, index: int, warnings: list[str]) -> RunRecord:
    rec = RunRecord(tool=TOOL, flow=str(s.endpoints[0]) if s.endpoints else "TOTAL", duration_s=s.duration_s,
                    bytes=s.bytes, throughput_mbps=units.kbps_to_mbps(s.bitrate_kbps),
                    record_index=index, warnings=list(warnings))
    fill_metrics(rec, kind, s.packets, s.lost, s.duplicates,
                 (s.mean_delay_s, s.min_delay_s, s.max_delay_s, s.sd_delay_s, s.jitter_s))
    if s.endpoints:
        set_endpoints(rec, s.endpoints[1], s.endpoints[3])
    return rec


def set_endpoints(rec: RunRecord, src: str, dst: str) -> None:
    """Local is the side that wrote the log: the sender for a sender log."""
    local, remote = (src, dst) if rec.side == "sender" else (dst, src)
    rec.local_address, rec.remote_address = local, remote
    rec.ip_version = 6 if ":" in local + remote else 4


def fill_metrics(rec: RunRecord, kind: str, packets: float, lost: float, dup: float | None,
                 delays: tuple[float, float, float, float, float]) -> None:
    """Counts and delays (seconds: mean, min, max, sd, jitter) of one block,
    by the kind of log (see :func:`log_kind`)."""
    rec.side = "receiver" if kind == "receiver" else "sender"
    if kind == "sender":
        rec.packets_sent = packets
        if lost:
            rec.warnings.append(f"the sender log has {lost:.0f} sequence gaps (packets missing from the "
                                "log itself, not from the network): not counted as loss")
        return
    rec.packets_received, rec.packets_lost, rec.packets_duplicate = packets, lost, dup
    rec.loss_pct = 100.0 * lost / (packets + lost) if packets + lost else None
    ms = [units.s_to_ms(v) for v in delays]
    if kind == "rttm":
        rec.rtt_ms, rec.rtt_min_ms, rec.rtt_max_ms, rec.rtt_sd_ms, rec.jitter_ms = ms
    else:
        rec.owd_ms, rec.owd_min_ms, rec.owd_max_ms, rec.owd_sd_ms, rec.jitter_ms = ms


def parse_binary(data: bytes, source: str = "<bytes>", meter: str | None = None) -> ParseResult:
    """A binary D-ITG log -> one record per flow and the TOTAL, as ITGDec
    would summarise it. ``meter="rttm"`` says the log is ITGSend's in
    round-trip mode (the content cannot tell): delays go to ``rtt_*``."""
    check_meter(meter, source)
    packets = packets_from_records(*read_records(data, source))
    if not len(packets.seq):
        raise ParseError(source, None, f"no valid packet: all {packets.error_lines} records have "
                         "out-of-range times (ITGDec: 'Empty log file')")
    summary = summarize(packets)
    variant = "binary-" + log_kind(summary.sender_log, meter)
    return ParseResult(TOOL, variant, records_from_summary(summary, meter))


def check_meter(meter: str | None, source: str) -> None:
    if meter not in (None, "owdm", "rttm"):
        raise ParseError(source, None, f"unknown D-ITG meter {meter!r}: expected 'owdm' or 'rttm'")
