"""iperf 2 ``-y C`` output: the classic rows (every version) and 2.2's
``-y C -e`` rows under their header line.

Classic rows have 9 fields (TCP, or a UDP sender's own rate in 2.0.x-era
builds) or 14 (UDP: jitter, lost, total, %, out-of-order; total -1 at a
sender, whose jitter 2.2 prints as ``-nan``). A 2.0.x UDP client prints its
own rows and then the server's report as *text* (``Sent N datagrams``,
``Server Report:`` and a report line): that report is read and kept as the
receiver's numbers, as the text reader does.

2.2's ``-y C -e`` starts with a header naming its columns (``time,srcaddress,
...,istart,iend,bytes,speed,...``); rows start with the UTC offset
(``+0000:20261202004124.768497``), the interval is two columns, a ``[SUM]``
row has transferid -1 and source port 0. The header says which host printed
the rows: ``writecnt`` a sender, ``readcnt`` a receiver.

The address columns name the stream's *sender* first and its *receiver*
second, on both hosts (2.1.8, checked between two namespaces for forward,
-R, -d and --full-duplex runs; 2.2.1's client and server rows of one run
match). Which host printed a classic row is not in it, so local/remote follow
only where the side is known (UDP: the final's total is -1 at the sender;
-e: the header); a TCP record otherwise keeps them empty and names the sender
and receiver in a warning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from analysis.errors import ParseError
from analysis.parsers.iperf2_lines import (
    ACK_WARNING, IGNORED_BRACKETED, NUM, OOO, REPORT, SENT, SERVER_REPORT, WARNING, report_row, tool_error,
)
from analysis.parsers.iperf2_model import (
    TOOL, Row, Stream, fill, interval, ip_version, joined, offered, sum_ip_version,
)
from analysis.parsers.records import IntervalRecord, ParseResult, RunRecord
from analysis.parsers.units import bits_per_s_to_mbps, span_s, us_to_ms
from analysis.parsers.values import to_float

CSV = re.compile(r"^\d{14}(?:\.\d{3})?,")
CSV_E = re.compile(r"^[+-]\d{4}:\d{14}(?:\.\d+)?,")
CSV_E_HEADER = re.compile(r"^time,srcaddress,srcport,dstaddr,dstport,transferid,istart,iend,bytes,speed(?:,\w+)*$")
# the text banner 2.1.8 prints even with -y C for a -d/-r server's connection back to the client
_CSV_BANNER = re.compile(r"^(?:-{20,}|Client connecting to \S+, (?:TCP|UDP) port \d+|"
                         r"(?:TCP window|UDP buffer) size: .+)$")
_CSV_INTERVAL = re.compile(rf"^(?P<start>{NUM})-(?P<end>{NUM})$")
_NAN = ("nan", "-nan")


def is_csv_row(line: str) -> bool:
    if CSV_E.match(line) or CSV_E_HEADER.match(line):
        return True
    return bool(CSV.match(line)) and len(line.split(",")) in (9, 14)


def is_csv_companion(line: str) -> bool:
    """Lines a CSV output may hold besides its rows: the tool's error words
    and a 2.0.x UDP client's text server report."""
    return bool(tool_error(line) or WARNING.match(line) or ACK_WARNING.match(line) or SENT.match(line)
                or SERVER_REPORT.match(line) or REPORT.match(line) or OOO.match(line)
                or IGNORED_BRACKETED.match(line) or _CSV_BANNER.match(line))


def parse_csv(lines: list[str], source: str) -> ParseResult:
    return _CsvParser(lines, source).parse()


@dataclass
class _CsvStream:
    """One stream's rows (one id, one sender/receiver pair, one session)."""

    flow: str
    sender: str
    receiver: str
    own: list[Row] = field(default_factory=list)  # 9 fields: TCP or a 2.0.x UDP sender's rate
    udp: list[Row] = field(default_factory=list)  # 14 fields, or -e UDP rows
    printed_by: str | None = None  # "sender" | "receiver", from a -e header
    udp_e: bool = False
    relayed: Row | None = None  # a 2.0.x client's text Server Report
    sent: float | None = None


class _CsvParser:
    def __init__(self, lines: list[str], source: str):
        self.lines = lines
        self.source = source
        self.errors: list[str] = []
        self.streams: dict[tuple, _CsvStream] = {}
        self.header: list[str] | None = None
        self.awaiting_report: set[str] = set()
        self.last_relayed: Row | None = None

    def parse(self) -> ParseResult:
        for lineno, line in enumerate(self.lines, 1):
            self._line(lineno, line.strip())
        records: list[RunRecord] = []
        intervals: list[IntervalRecord] = []
        for stream in self.streams.values():
            record, rows, side = self._record(stream)
            record.record_index = len(records)
            records.append(record)
            intervals += [interval(r, record.record_index, side, stream.flow) for r in rows]
        if not records:
            raise ParseError(self.source, 1, "no iperf 2 CSV row found")
        sum_ip_version(records)
        transport = "udp" if any(r.transport == "UDP" for r in records) else "tcp"
        enhanced = "-enhanced" if self.header else ""
        return ParseResult(tool=TOOL, variant=f"csv{enhanced}-{transport}", records=records, intervals=intervals)

    # -- lines

    def _line(self, lineno: int, line: str) -> None:
        if not line:
            return
        if error := tool_error(line):
            self.errors.append(error)
        elif WARNING.match(line) or (m := ACK_WARNING.match(line)) is not None:
            self.errors.append(m["msg"] if m else line)
        elif CSV_E_HEADER.match(line):
            self.header = line.split(",")
        elif CSV_E.match(line):
            self._enhanced_row(lineno, line.split(","))
        elif CSV.match(line):
            self._classic_row(lineno, line.split(","))
        elif line.startswith("["):
            self._bracketed(lineno, line)
        elif not _CSV_BANNER.match(line):
            raise ParseError(self.source, lineno, f"expected an iperf 2 CSV row of 9 or 14 fields, got {line!r}")

    def _bracketed(self, lineno: int, line: str) -> None:
        """A 2.0.x UDP client's text between its CSV rows: 'Sent N
        datagrams', 'Server Report:' and the server's report line."""
        if m := SENT.match(line):
            stream = self._last_of(m["id"])
            if stream is not None:
                stream.sent = float(m["n"])
        elif m := SERVER_REPORT.match(line):
            self.awaiting_report.add(m["id"])
        elif (m := REPORT.match(line)) and m["id"] in self.awaiting_report:
            self.awaiting_report.discard(m["id"])
            row, _ = report_row(self.source, lineno, m)
            stream = self._last_of(m["id"])
            if stream is None:
                raise ParseError(self.source, lineno, f"a Server Report for stream {m['id']} before any CSV row of it")
            stream.relayed = self.last_relayed = row
        elif m := OOO.match(line):
            relayed = self.last_relayed
            if relayed is None or (relayed.start, relayed.end) != (float(m["start"]), float(m["end"])):
                raise ParseError(self.source, lineno, "out-of-order count without a report line for the same interval")
            relayed.out_of_order = float(m["n"])
        elif not IGNORED_BRACKETED.match(line):
            raise ParseError(self.source, lineno, f"unexpected text line in a CSV output: {line!r}")

    def _last_of(self, raw_id: str) -> _CsvStream | None:
        flow = "SUM" if raw_id.startswith("SUM") else raw_id.lstrip("*")
        matches = [s for k, s in self.streams.items() if k[0] == flow]
        return matches[-1] if matches else None

    def _classic_row(self, lineno: int, f: list[str]) -> None:
        if len(f) not in (9, 14):
            raise ParseError(self.source, lineno, f"expected an iperf 2 CSV row of 9 or 14 fields, got {','.join(f)!r}")
        interval_ = _CSV_INTERVAL.match(f[6])
        if interval_ is None:
            raise ParseError(self.source, lineno, f"malformed CSV interval {f[6]!r}")
        row = self._numbers(lineno, f, interval_["start"], interval_["end"], f[7:9])
        if len(f) == 14:
            jitter, *rest = _udp_fields(self.source, lineno, f[9:14])
            _udp_columns(row, jitter, *rest)
        flow = self._flow(lineno, f[5])
        ends: tuple = ((f[1], f[2]), (f[3], f[4]))  # sender, receiver
        if len(f) == 14 and any(k[0] == flow and k[1] == ends[::-1] and s.own for k, s in self.streams.items()):
            ends = ends[::-1]  # a 2.0.x client's relayed server row, addresses reversed: its own row's stream
        stream = self._stream(flow, ends, row, len(f) == 14)
        (stream.udp if len(f) == 14 else stream.own).append(row)

    def _enhanced_row(self, lineno: int, f: list[str]) -> None:
        """A 2.2 ``-y C -e`` row, read by the names of its header."""
        if self.header is None or len(f) != len(self.header):
            raise ParseError(self.source, lineno, f"a -y C -e row of {len(f)} fields without a header of as many "
                             f"(header: {len(self.header or [])} fields)")
        col = dict(zip(self.header, f))
        row = self._numbers(lineno, f, col["istart"], col["iend"], [col["bytes"], col["speed"]])
        flow = self._flow(lineno, col["transferid"])
        udp = "jitter" in col
        if udp:
            jitter, *rest = _udp_fields(self.source, lineno, [col[k] for k in
                                                             ("jitter", "errors", "datagrams", "errpercent", "outoforder")])
            _udp_columns(row, jitter, *rest)
        elif "tcpretry" in col:
            retry, rtt = to_float(col["tcpretry"]), to_float(col.get("tcprtt", ""))
            if retry is None or rtt is None:
                raise ParseError(self.source, lineno, f"malformed tcpretry/tcprtt {col['tcpretry']!r}/{col.get('tcprtt')!r}")
            row.retransmits = retry
            row.rtt_ms = us_to_ms(col["tcprtt"]) if flow != "SUM" else None  # a [SUM] row prints 0: no sample
        ends: tuple = ((col["srcaddress"], col["srcport"]), (col["dstaddr"], col["dstport"]))
        stream = self._stream(flow, ends, row, udp)
        stream.printed_by = "sender" if "writecnt" in col else "receiver" if "readcnt" in col else None
        stream.udp_e = udp
        (stream.udp if udp else stream.own).append(row)

    def _numbers(self, lineno: int, f: list[str], start: str, end: str, size_rate: list[str]) -> Row:
        values = [to_float(x) for x in (start, end, *size_rate)]
        if any(v is None for v in values):
            raise ParseError(self.source, lineno, f"malformed CSV fields {','.join(f[5:])!r}")
        s, e, nbytes, bps = (float(v) for v in values if v is not None)
        return Row(lineno, s, e, nbytes, bits_per_s_to_mbps(bps))

    def _flow(self, lineno: int, transfer_id: str) -> str:
        if to_float(transfer_id) is None:
            raise ParseError(self.source, lineno, f"malformed CSV stream id {transfer_id!r}")
        return "SUM" if transfer_id == "-1" else transfer_id

    def _stream(self, flow: str, ends: tuple, row: Row, udp: bool) -> _CsvStream:
        """The stream a row belongs to; reused ids in a long server log open
        a new session (same rule as the text reader)."""
        sessions = [k[2] for k in self.streams if k[0] == flow and k[1] == ends]
        session = max(sessions) if sessions else 0
        current = self.streams.get((flow, ends, session))
        if current is not None and not Stream(flow=flow, rows=current.udp if udp else current.own).accepts(row):
            session, current = session + 1, None
        if current is None:
            current = _CsvStream(flow, f"{ends[0][0]}", f"{ends[1][0]}")
            self.streams[(flow, ends, session)] = current
        return current

    # -- records

    def _record(self, stream: _CsvStream) -> tuple[RunRecord, list[Row], str | None]:
        warnings: list[str] = []
        record = RunRecord(tool=TOOL, flow=stream.flow, warnings=warnings)
        record.ip_version = ip_version(stream.sender, warnings) if stream.flow != "SUM" else None
        if stream.udp:
            out = self._udp_record(record, stream)
        else:
            out = self._tcp_record(record, stream)
        printed_by = self._printed_by(stream)
        if stream.flow == "SUM":
            return out
        if printed_by == "sender":
            record.local_address, record.remote_address = stream.sender, _known(stream.receiver)
        elif printed_by == "receiver":
            record.local_address, record.remote_address = stream.receiver, stream.sender
        else:
            record.warnings.append(f"the CSV names the stream's sender {stream.sender} and receiver "
                                   f"{_known(stream.receiver) or '(not printed)'}; which of them printed it is not "
                                   "in the output, so local_address and remote_address are left empty")
        return out

    def _printed_by(self, stream: _CsvStream) -> str | None:
        if stream.printed_by is not None:
            return stream.printed_by
        if stream.own and stream.udp:  # a 2.0.x client's own row and the server's relayed one
            return "sender"
        if stream.udp:
            return "sender" if stream.udp[-1].total is None else "receiver"
        return None

    def _tcp_record(self, record: RunRecord, stream: _CsvStream) -> tuple[RunRecord, list[Row], str | None]:
        record.transport = "TCP"
        final = self._final(stream.own)
        fill(record, final)
        record.side = stream.printed_by
        if record.side is None:
            record.warnings.append("CSV output does not say whether it was printed by the client or the server: "
                                   "side unknown (a 2.0.x UDP client without its server report looks the same)")
        self._fail_on_errors(record)
        return record, stream.own[:-1], record.side

    def _udp_record(self, record: RunRecord, stream: _CsvStream) -> tuple[RunRecord, list[Row], str | None]:
        record.transport = "UDP"
        rows, own = stream.udp, stream.own
        final = self._final(rows)
        if self._printed_by(stream) == "sender" and not own:
            return self._udp_sender(record, stream, final)
        record.side = "receiver"
        fill(record, final)
        if own:
            record.warnings.append("receiver statistics relayed by the server after the client's own CSV row; "
                                   "offered_mbps is the client's own sending rate")
            if own[-1].start == 0:
                record.offered_mbps = own[-1].mbps
            return record, own[:-1] if own[-1].start == 0 else own, "sender"
        return record, rows[:-1], "receiver"

    def _udp_sender(self, record: RunRecord, stream: _CsvStream, final: Row) -> tuple[RunRecord, list[Row], str]:
        """A UDP sender's rows are the load it offered; the receiver's
        numbers are known only from a relayed Server Report (2.0.x text)."""
        record.duration_s = span_s(final.start, final.end)
        record.offered_mbps = final.mbps
        intervals = [offered(r) for r in stream.udp[:-1]]
        if stream.relayed is not None:
            record.side = "receiver"
            record.warnings.append("receiver statistics relayed by the server in the client's 'Server Report' "
                                   "(text after the CSV rows); offered_mbps is the client's own sending rate")
            fill(record, stream.relayed)
            return record, intervals, "sender"
        record.side = "sender"
        record.packets_sent = stream.sent
        record.warnings.append(f"stream {record.flow}: the sender's CSV has no receiver report, so "
                               "throughput, jitter and loss at the receiver are unknown (not zero); "
                               "offered_mbps is only the sender's own rate")
        self._fail_on_errors(record)
        return record, intervals, "sender"

    def _fail_on_errors(self, record: RunRecord) -> None:
        """The tool's error words fail a record that has no receiver
        report; a complete TCP record keeps them as a warning."""
        if not self.errors:
            return
        if record.transport == "UDP":
            record.status, record.error = "failed", joined(self.errors)
        else:
            record.warnings.append(f"the tool also printed: {joined(self.errors)}")

    def _final(self, rows: list[Row]) -> Row:
        final = rows[-1]
        if final.start != 0:
            raise ParseError(self.source, final.lineno, "CSV stream has no final 0.0-N row (output cut short?)")
        return final


def _udp_fields(source: str, lineno: int, fields: list[str]) -> list[float | None]:
    """jitter, lost, total, %, out-of-order; a jitter of nan/-nan (2.2's
    sender) or below 0 (-1.000: 2.2 -e, not measured) is no value."""
    jitter = None if fields[0].strip().lower() in _NAN else to_float(fields[0])
    rest = [to_float(x) for x in fields[1:]]
    if (jitter is None and fields[0].strip().lower() not in _NAN) or any(v is None for v in rest):
        raise ParseError(source, lineno, f"malformed UDP CSV fields {','.join(fields)!r}")
    return [jitter if jitter is None or jitter >= 0 else None, *rest]


def _udp_columns(row: Row, jitter: float | None, lost: float | None, total: float | None, pct: float | None,
                 ooo: float | None) -> None:
    """Total -1 = nothing measured (a sender's row)."""
    if total is None or total < 0:
        return
    row.jitter_ms, row.lost, row.total, row.loss_pct, row.out_of_order = jitter, lost, total, pct, ooo


def _known(address: str) -> str | None:
    """2.1.8 prints '::' for the receiver of a --full-duplex client's reverse
    half (it does not know it): no address."""
    return None if address in ("::", "0.0.0.0") else address
