"""D-ITG outputs as text: ITGDec's summary, its time series and its packet log.

* Summary (``ITGDec LOG``): one block per flow and a TOTAL block with the same
  labels -> one RunRecord per flow plus flow="TOTAL". Flows that share a flow
  number (two ITGSend runs into one ITGRecv) stay apart, with a warning.
* Time series (``-b/-d/-j/-p DT``): a ``Time <flow columns> Aggregate-Flow``
  table. The file does not say which metric it holds, so the caller names it
  (``series=``); ``-c DT`` (combined, no header, five columns) needs no name.
* Packet log (``-l``): one ``Flow>... Seq>...`` line per packet -> the packets
  in ``ParseResult.packets`` and the records ITGDec would print. Read with
  numpy by :mod:`.ditg_text` (millions of lines a second); lines it does
  not take go to the regular expression ``_PACKET``, which names the first
  bad line.

* Binary log (``ITGRecv -l`` / ``ITGSend -l``): read by :mod:`.ditg_log`,
  summarised with ITGDec's arithmetic by :mod:`.ditg_stats`
  (:func:`detect_binary`, :func:`parse_binary`).

Records are built by :mod:`.ditg_records` whatever the input was.
"""

from __future__ import annotations

import math
import mmap
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from analysis.errors import ParseError
from analysis.parsers import units
from analysis.parsers.ditg_log import RECORD_SIZE, Endpoint, FlowNumbers, Packets, detect_binary, read_log, \
    seconds_of_day
from analysis.parsers.ditg_records import check_meter, fill_metrics, log_kind, meter_warnings, \
    records_from_summary, set_endpoints, shared_flow_warnings
from analysis.parsers.ditg_stats import Summarizer
from analysis.parsers.ditg_text import line_at, read_pieces
from analysis.parsers.records import IntervalRecord, ParseResult, RunRecord
from analysis.parsers.text import clean_lines, decode
from analysis.parsers.values import to_float

__all__ = ["TOOL", "SERIES", "RECORD_SIZE", "detect", "parse", "detect_binary", "parse_binary", "PacketSink"]

TOOL = "ditg"
SERIES = {"bitrate": "throughput_mbps", "delay": "delay_ms", "jitter": "jitter_ms", "packetloss": "packets_lost"}

_VERSION = re.compile(r"ITGDec version (?P<version>\d[\w.]*(?: \(r\d+\))?)")
_BANNER = re.compile(r"\*{5,}\s+TOTAL RESULTS\s+\*{5,}")
_RULE = re.compile(r"^[|\\/-]?(-{10,}|_{10,})$")
_FLOW = re.compile(r"^[|\\/-]?Flow number: (?P<id>[0-9]{1,10})$")
_ENDPOINT = re.compile(r"^[|\\/-]?(?P<dir>From|To)\s+(?P<host>\S+):(?P<port>[0-9]{1,10})$")
_FIELD = re.compile(r"^[|\\/-]?(?P<label>[A-Z][A-Za-z -]*?)\s*=\s*(?P<value>\S.*)$")
_DROPPED = re.compile(r"^(?P<n>\d+) \((?P<pct>[\d.]+|-?nan|inf) %\)$")
_TOOL_ERROR = re.compile(r"^(Error opening log file '.*'|Empty log file|Error reading input file)$")
# Fields are unsigned 32-bit numbers in the log (at most 10 digits) and seconds
# printed as %f: anything else is no ITGDec line and is refused with its line.
_U32 = r"[0-9]{1,10}"
_SECS = r"[0-9]{1,20}(?:\.[0-9]{1,20})?"
_PACKET = re.compile(
    rf"^Flow>(?P<flow>{_U32}) Seq>\s*(?P<seq>{_U32}) Src>\s*(?P<src>\S+)/(?P<sport>{_U32}) "
    rf"Dest>\s*(?P<dst>\S+)/(?P<dport>{_U32}) txTime>(?P<txh>{_U32}):(?P<txm>{_U32}):(?P<txs>{_SECS}) "
    rf"rxTime>(?P<rxh>{_U32}):(?P<rxm>{_U32}):(?P<rxs>{_SECS}) Size>\s*(?P<size>{_U32})\r?$", re.M)
_SERIES_HEAD = re.compile(r"^Time(?: \d+-\S+)+ Aggregate-Flow$")
_NUMBERS = re.compile(r"^\d+\.\d{6}(?: -?\d+\.\d{6})+$")

# label -> (key, unit printed after the value, or None for a bare count)
_LABELS = {
    "Total time": ("duration", "s"), "Total packets": ("packets", None),
    "Minimum delay": ("min", "s"), "Maximum delay": ("max", "s"), "Average delay": ("mean", "s"),
    "Average jitter": ("jitter", "s"), "Delay standard deviation": ("sd", "s"),
    "Bytes received": ("bytes", None), "Average bitrate": ("kbps", "Kbit/s"),
    "Average packet rate": ("pps", "pkt/s"), "Packets dropped": ("dropped", None),
    "Average loss-burst size": ("burst", "pkt"), "Number of flows": ("flows", None),
    "Error lines": ("errors", None),
}
_REQUIRED = ("duration", "packets", "min", "max", "mean", "jitter", "sd", "bytes", "kbps", "pps", "dropped")


def detect(text: str) -> bool:
    head = text[:4000]
    if _VERSION.search(head) or _BANNER.search(head) or "\nFlow number: " in "\n" + head:
        return True
    first = next((l for l in head.splitlines() if l.strip()), "")
    return bool(_PACKET.match(first) or _SERIES_HEAD.match(first.strip()) or _is_combined(text))


def _is_combined(text: str) -> bool:
    """``ITGDec -c``: only rows of five ``%lf`` numbers, from time 0."""
    if not text.lstrip().startswith("0.000000 "):
        return False
    lines = [l.strip() for l in text.strip().splitlines()]
    return all(
        _NUMBERS.match(l) and len(l.split()) == 5 for l in lines)


def parse(text: str, source: str = "<string>", *, meter: str | None = None,
          series: str | None = None) -> ParseResult:
    """Parse an ITGDec text output. ``meter="rttm"`` for outputs of ITGSend's
    log in round-trip mode (delays become ``rtt_*``; the text cannot tell);
    ``series`` names the metric of a ``-b/-d/-j/-p`` time series."""
    check_meter(meter, source)
    first = next((l for l in text[:4000].splitlines() if l.strip()), "")
    if _PACKET.match(first):
        return _parse_packet_log(text, source, meter)
    if _SERIES_HEAD.match(first.strip()):
        return _parse_series(clean_lines(text), source, series)
    if _is_combined(text):
        return _parse_combined(clean_lines(text), source)
    return _parse_summary(clean_lines(text), source, meter)


# --- summary -----------------------------------------------------------------

@dataclass
class _Block:
    line: int
    flow: str
    fields: dict[str, tuple[float, int]] = field(default_factory=dict)  # key -> (value, line)
    pct: float | None = None
    src: tuple[str, int] | None = None
    dst: tuple[str, int] | None = None


class _Summary:
    """Line-by-line reader of the summary; every line must be one it knows."""

    def __init__(self, source: str):
        self.source = source
        self.version: str | None = None
        self.blocks: list[_Block] = []
        self.total: _Block | None = None
        self.started = False
        self.error: str | None = None

    def fail(self, lineno: int, reason: str) -> ParseError:
        return ParseError(self.source, lineno, reason)

    def feed(self, lineno: int, line: str) -> None:
        if not line.strip() or _RULE.match(line):
            return
        if m := _VERSION.search(line):
            self.version, self.started = m["version"], True
        elif line.startswith("Compile-time options:"):
            self.started = True
        elif _BANNER.search(line):
            self.total = _Block(lineno, "TOTAL")
        elif m := _FLOW.match(line):
            self._open_flow(lineno, m["id"])
        elif m := _ENDPOINT.match(line):
            self._endpoint(lineno, m)
        elif m := _FIELD.match(line):
            self._field(lineno, m["label"], m["value"].strip())
        elif _TOOL_ERROR.match(line.strip()) or line.startswith("error :"):
            self.error = (self.error + "; " if self.error else "") + line.strip()
        elif not self.started and "ITGDec" in line:
            return  # the command line of a pasted session
        else:
            raise self.fail(lineno, f"unexpected line in an ITGDec summary: {line.strip()[:80]!r}")

    def _open_flow(self, lineno: int, flow: str) -> None:
        if self.total is not None:
            raise self.fail(lineno, "a flow block after the TOTAL RESULTS block")
        self.blocks.append(_Block(lineno, flow))

    def _endpoint(self, lineno: int, m: re.Match) -> None:
        block = self._current(lineno)
        if block is self.total or block.fields:
            raise self.fail(lineno, f"'{m['dir']}' line outside a flow header")
        setattr(block, "src" if m["dir"] == "From" else "dst", (m["host"], int(m["port"])))

    def _current(self, lineno: int) -> _Block:
        if self.total is not None:
            return self.total
        if not self.blocks:
            raise self.fail(lineno, "a summary line before any 'Flow number:' block")
        return self.blocks[-1]

    def _field(self, lineno: int, label: str, value: str) -> None:
        if label not in _LABELS:
            raise self.fail(lineno, f"unknown ITGDec label {label!r}")
        key, unit = _LABELS[label]
        block = self._current(lineno)
        if key in block.fields:
            raise self.fail(lineno, f"{label!r} twice in one block: a flow header is missing")
        if key in ("flows", "errors") and block is not self.total:
            raise self.fail(lineno, f"{label!r} belongs to the TOTAL block")
        if key == "dropped":
            m = _DROPPED.match(value)
            if not m:
                raise self.fail(lineno, f"expected 'N (P %)' after 'Packets dropped', got {value!r}")
            block.fields[key], block.pct = (float(m["n"]), lineno), to_float(m["pct"])
            return
        block.fields[key] = (self._number(lineno, label, value, unit), lineno)

    def _number(self, lineno: int, label: str, value: str, unit: str | None) -> float:
        parts = value.split()
        if (unit is None and len(parts) != 1) or (unit is not None and parts[1:] != [unit]):
            raise self.fail(lineno, f"expected {label!r} in {unit or 'a bare count'}, got {value!r}")
        number = float(parts[0]) if parts[0] in ("inf", "nan", "-nan") else to_float(parts[0])
        if number is None:
            raise self.fail(lineno, f"{label!r}: {parts[0]!r} is not a number")
        return number


def _parse_summary(lines: list[str], source: str, meter: str | None) -> ParseResult:
    reader = _Summary(source)
    for lineno, line in enumerate(lines, 1):
        reader.feed(lineno, line)
    if reader.error and not reader.blocks:
        rec = RunRecord(tool=TOOL, tool_version=reader.version, status="failed", error=reader.error)
        return ParseResult(TOOL, "summary-error", [rec])
    total = _check_complete(reader, source, len(lines))
    sender = all(b.fields[k][0] == 0 for b in reader.blocks for k in ("min", "max", "mean", "jitter", "sd"))
    kind = log_kind(sender, meter)
    shared = shared_flow_warnings([_endpoint(b) for b in reader.blocks])
    records = [_summary_record(b, kind, reader.version, i, shared.get(i, []))
               for i, b in enumerate(reader.blocks + [total])]
    total_min = total.fields["min"][0]
    return ParseResult(TOOL, f"summary-{kind}", records, warnings=meter_warnings(kind, meter, total_min))


def _endpoint(block: _Block) -> Endpoint:
    """(flow id, source, port, destination, port) of a checked flow block."""
    if block.src is None or block.dst is None:
        raise ValueError(f"flow block {block.flow} without endpoints")
    return int(block.flow), block.src[0], block.src[1], block.dst[0], block.dst[1]


def _check_complete(reader: _Summary, source: str, nlines: int) -> _Block:
    """A cut paste must fail loudly, naming what is missing. Returns the
    TOTAL block."""
    if not reader.blocks and reader.total is None:
        raise ParseError(source, nlines, "an ITGDec header without any flow block")
    for block in reader.blocks + ([reader.total] if reader.total else []):
        missing = [k for k in _REQUIRED + (("flows",) if block is reader.total else ()) if k not in block.fields]
        if missing:
            raise ParseError(source, block.line, f"truncated ITGDec block {block.flow}: missing {', '.join(missing)}")
        if block is not reader.total and (block.src is None or block.dst is None):
            raise ParseError(source, block.line, f"flow {block.flow} has no 'From'/'To' endpoints")
    if reader.total is None:
        raise ParseError(source, nlines, "truncated ITGDec summary: no TOTAL RESULTS block")
    flows, line = reader.total.fields["flows"]
    if flows != len(reader.blocks):
        raise ParseError(source, line, f"TOTAL counts {flows:.0f} flows but {len(reader.blocks)} flow blocks were read")
    return reader.total


def _summary_record(b: _Block, kind: str, version: str | None, index: int, warnings: list[str]) -> RunRecord:
    f = {k: v for k, (v, _) in b.fields.items()}
    rec = RunRecord(tool=TOOL, tool_version=version, flow=b.flow, duration_s=f["duration"], bytes=f["bytes"],
                    throughput_mbps=units.kbps_to_mbps(f["kbps"]), record_index=index, warnings=list(warnings))
    fill_metrics(rec, kind, f["packets"], f["dropped"], None,
                             (f["mean"], f["min"], f["max"], f["sd"], f["jitter"]))
    if kind != "sender" and b.pct is not None:
        rec.loss_pct = b.pct  # as printed: the TOTAL's is ITGDec's own arithmetic
    if b.src is not None and b.dst is not None:
        set_endpoints(rec, b.src[0], b.dst[0])
    if f.get("errors"):
        rec.warnings.append(f"ITGDec skipped {f['errors']:.0f} error lines (records with out-of-range times)")
    return rec


# --- time series -------------------------------------------------------------

def _series_columns(header: str, source: str) -> list[tuple[str, str, str]]:
    """``1-127.0.0.1-127.0.0.1`` -> (flow id, source, destination)."""
    cols = []
    for name in header.split()[1:-1]:
        parts = name.split("-")
        if len(parts) != 3 or not re.fullmatch(r"[0-9]+", parts[0]):
            raise ParseError(source, 1, f"time-series column {name!r} is not FLOW-SOURCE-DESTINATION")
        cols.append((parts[0], parts[1], parts[2]))
    return cols


def _rows(lines: list[str], source: str, start: int, width: int) -> np.ndarray:
    rows = []
    for lineno, line in enumerate(lines[start:], start + 1):
        if not line.strip():
            continue
        values = [to_float(t) for t in line.split()]
        if len(values) != width or any(v is None for v in values):
            raise ParseError(source, lineno, f"expected {width} numbers per time-series row, got {line.strip()[:80]!r}")
        rows.append(values)
    if not rows:
        raise ParseError(source, start + 1, "a time series without rows")
    return np.array(rows, dtype=np.float64)


def _step(times: np.ndarray, source: str, first_line: int) -> tuple[float, list[str]]:
    """The interval DT from the time column, which must read 0, DT, 2DT, ...
    (``first_line``: the line of the first row, to cite)."""
    if not np.isfinite(times).all():
        raise ParseError(source, first_line + int(np.argmin(np.isfinite(times))), "a time that is no finite number: "
                         "not an ITGDec time series")
    if len(times) < 2:
        return math.nan, ["one row only: the interval length is unknown"]
    dt = times[1] - times[0]
    expected = times[0] + dt * np.arange(len(times))
    if not dt > 0 or not np.abs(times - expected).max() <= 2e-6:
        raise ParseError(source, first_line, "time column is not evenly spaced: not an ITGDec time series")
    return float(dt), []


def _parse_series(lines: list[str], source: str, series: str | None) -> ParseResult:
    if series not in SERIES:
        raise ParseError(source, 1, "an ITGDec -b/-d/-j/-p time series does not say its metric: "
                         f"pass series= one of {', '.join(SERIES)}")
    cols = _series_columns(lines[0].strip(), source)
    table = _rows(lines, source, 1, len(cols) + 2)
    dt, notes = _step(table[:, 0], source, 2)
    records = [_series_record(fid, src, dst, notes) for fid, src, dst in cols]
    shared = shared_flow_warnings([(int(fid), src, 0, dst, 0) for fid, src, dst in cols])
    for i, extra in shared.items():
        records[i].warnings += extra
    columns = [fid for fid, _, _ in cols]
    if series in ("bitrate", "packetloss"):  # the aggregate of delay/jitter is a sum of means: not kept
        records.append(_series_record("TOTAL", None, None, notes))
        columns.append("TOTAL")
    intervals = [_interval(series, c, flow, t, dt, table[r, 1 + c])
                 for r, t in enumerate(table[:, 0]) for c, flow in enumerate(columns)]
    for i, rec in enumerate(records):
        rec.record_index = i
    return ParseResult(TOOL, f"series-{series}", records, intervals)


def _series_record(flow: str, src: str | None, dst: str | None, notes: list[str]) -> RunRecord:
    rec = RunRecord(tool=TOOL, side="receiver", flow=flow,
                    warnings=["time series only: the values are in the intervals"] + notes)
    if src is not None:
        set_endpoints(rec, src, dst)
    return rec


def _interval(series: str, index: int, flow: str, t: float, dt: float, value: float) -> IntervalRecord:
    row = IntervalRecord(record_index=index, start_s=float(t), end_s=float(t + dt), side="receiver", flow=flow)
    convert: dict[str, Callable[[float], float]] = {"bitrate": units.kbps_to_mbps, "delay": units.s_to_ms,
                                                    "jitter": units.s_to_ms, "packetloss": float}
    converted = convert[series](float(value))
    setattr(row, SERIES[series], converted)
    return row


def _parse_combined(lines: list[str], source: str) -> ParseResult:
    """``-c``: time, bitrate (Kbit/s), delay, jitter, packets lost, all summed
    over flows. Sums of per-flow delays and jitters are no delay: not kept."""
    table = _rows(lines, source, 0, 5)
    dt, notes = _step(table[:, 0], source, 1)
    rec = RunRecord(tool=TOOL, side="receiver", flow="TOTAL", warnings=[
        "time series only: the values are in the intervals",
        "ITGDec -c sums delay and jitter over flows: those columns are not kept"] + notes)
    intervals = [IntervalRecord(record_index=0, start_s=float(t), end_s=float(t + dt), side="receiver",
                                flow="TOTAL", throughput_mbps=units.kbps_to_mbps(float(kbps)),
                                packets_lost=float(lost))
                 for t, kbps, _, _, lost in table]
    return ParseResult(TOOL, "series-combined", [rec], intervals)


# --- packet log ----------------------------------------------------------------

TEXT_BATCH = 1 << 20  # packets summarised and handed on at a time (a row group): the summary costs per call, not per piece


def _parse_packet_log(text: str, source: str, meter: str | None) -> ParseResult:
    return parse_packet_log(text.encode("utf-8"), source, meter)


def is_packet_log(data: bytes | mmap.mmap) -> bool:
    """True when ``data`` begins like an ITGDec ``-l`` text (its first
    non-blank line a packet line), in ASCII and without the NUL padding that
    :func:`.parse_text` strips: then :func:`parse_packet_log` reads it
    straight from the bytes, a piece at a time."""
    head = bytes(data[:4000])
    if not head.isascii() or data[-1:] == b"\x00":
        return False
    first = next((l for l in head.decode("ascii").splitlines() if l.strip()), "")
    return bool(_PACKET.match(first))


def parse_packet_log(data: bytes | mmap.mmap, source: str, meter: str | None = None, packets: bool = True,
                     on_packets: PacketSink | None = None) -> ParseResult:
    """An ITGDec ``-l`` text -> one record per flow and the TOTAL, read a
    piece at a time (:func:`.ditg_text.read_pieces`) and summarised as
    ITGDec would: memory is a few pieces whatever the log's length.
    ``on_packets`` is handed each piece's packets; ``packets`` keeps them
    all (``ParseResult.packets``)."""
    check_meter(meter, source)
    flows, summarizer, kept, batch = FlowNumbers(), Summarizer(), [], []

    def add(parts: list[Packets]) -> None:
        part = Packets.join(parts)
        summarizer.add(part)
        if on_packets is not None and len(part.seq):
            on_packets(part)
        if packets:
            kept.append(part)

    for start, raw, part in read_pieces(data):
        if part is None:  # a line the numpy reader does not vouch for: the regex reads it, or names it
            part = _regex_piece(raw, data, start, source)
        batch.append(flows.renumber(part))
        if sum(len(p.seq) for p in batch) >= TEXT_BATCH:
            add(batch)
            batch = []
    if batch:
        add(batch)
    try:
        summary = summarizer.summary()
    except ValueError:
        raise ParseError(source, None, "an ITGDec -l packet log without any packet line") from None
    kind = log_kind(summary.sender_log, meter)
    return ParseResult(TOOL, f"packets-{kind}", records_from_summary(summary, meter),
                       packets=Packets.join(kept) if packets else None,
                       warnings=meter_warnings(kind, meter, summary.total.min_delay_s))


def _regex_piece(raw: memoryview, data: bytes | mmap.mmap, start: int, source: str) -> Packets:
    """A piece (at byte ``start`` of ``data``) read by the regular
    expression; a bad line is named by its line number in the whole log."""
    try:
        return _regex_packets(decode(bytes(raw)), source)
    except ParseError as exc:
        if exc.line is None:
            raise
        raise ParseError(source, exc.line + line_at(data, start) - 1, exc.reason) from None


def _regex_packets(text: str, source: str) -> Packets:
    """The packet log read with ``_PACKET`` (a quarter of a million lines a
    second): the reference :mod:`.ditg_text` is tested against, the reader
    of the lines that one does not take, and where a bad line is named."""
    matches = _PACKET.findall(text)
    expected = len([l for l in text.splitlines() if l.strip()])
    if len(matches) != expected:
        _raise_first_bad_packet_line(text, source)
    cols = list(zip(*matches))
    flow_ids, seq = np.array(cols[0], dtype=np.int64), np.array(cols[1], dtype=np.int64)
    src_port, dst_port = np.array(cols[3], dtype=np.int64), np.array(cols[5], dtype=np.int64)
    tx = seconds_of_day(np.array(cols[6], dtype=np.int64), np.array(cols[7], dtype=np.int64),
                        np.array(cols[8], dtype=np.float64))
    rx = seconds_of_day(np.array(cols[9], dtype=np.int64), np.array(cols[10], dtype=np.int64),
                        np.array(cols[11], dtype=np.float64))
    flow, endpoints = _packet_flows(flow_ids, cols[2], src_port, cols[4], dst_port)
    return Packets(flow, endpoints, seq, np.array(cols[12], dtype=np.int64), tx, rx)


def _packet_flows(flow_ids, src, src_port, dst, dst_port) -> tuple[np.ndarray, list]:
    """Flow index per packet in order of first appearance, keyed like ITGDec."""
    index: dict[tuple, int] = {}
    keys = zip(flow_ids.tolist(), src, src_port.tolist(), dst, dst_port.tolist())
    flow = np.fromiter((index.setdefault(k, len(index)) for k in keys), dtype=np.int64, count=len(flow_ids))
    return flow, list(index)


def _raise_first_bad_packet_line(text: str, source: str) -> None:
    for lineno, line in enumerate(text.splitlines(), 1):
        if line.strip() and not _PACKET.match(line):
            raise ParseError(source, lineno, "expected an ITGDec -l packet line 'Flow>N Seq>N Src>ADDR/PORT "
                             f"Dest>ADDR/PORT txTime>H:M:S rxTime>H:M:S Size>N', got {line.strip()[:80]!r}")
    raise ParseError(source, None, "ITGDec -l packet log could not be read")


# --- binary log ----------------------------------------------------------------

PacketSink = Callable[[Packets], object]


def parse_binary(data: bytes | mmap.mmap, source: str = "<bytes>", meter: str | None = None,
                 packets: bool = False, on_packets: PacketSink | None = None, end: int | None = None,
                 on_read: Callable[[int], object] | None = None) -> ParseResult:
    """A binary D-ITG log -> one record per flow and the TOTAL, as ITGDec
    would summarise it. ``meter="rttm"`` says the log is ITGSend's in
    round-trip mode (the content cannot tell): delays go to ``rtt_*``.

    The log is read part by part (:func:`.ditg_log.read_log`), so its length
    is not bounded by memory: ``on_packets`` is handed each part's packets
    as it is read (ingest writes them to Parquet). ``packets=True`` also
    keeps every packet (``ParseResult.packets``), for a log that fits in
    memory; it is off by default because a long log holds many million.
    ``end``: where the records end (NUL padding after them is not read);
    ``on_read``: see :func:`.ditg_log.read_log`."""
    check_meter(meter, source)
    summarizer, kept = Summarizer(), []
    for part in read_log(data, source, end, on_read):
        summarizer.add(part)
        if on_packets is not None and len(part.seq):
            on_packets(part)
        if packets:
            kept.append(part)
    try:
        summary = summarizer.summary()
    except ValueError:
        raise ParseError(source, None, f"no valid packet: all {summarizer.error_lines} records have "
                         "out-of-range times (ITGDec: 'Empty log file')") from None
    kind = log_kind(summary.sender_log, meter)
    return ParseResult(TOOL, f"binary-{kind}", records_from_summary(summary, meter),
                       packets=Packets.join(kept) if packets else None,
                       warnings=meter_warnings(kind, meter, summary.total.min_delay_s))
