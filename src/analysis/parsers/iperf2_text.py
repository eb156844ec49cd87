"""iperf 2 text output (every version, with and without ``-e``), client
and server: one pass over the lines collects connections and streams, then
each stream's direction is worked out from the headers' ports and the
connection lines (see docs/formats/iperf2.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from analysis.errors import ParseError
from analysis.parsers.iperf2_lines import (
    ACK_WARNING, BRACKETED_ERROR, CONNECTED, IGNORED_BRACKETED, NUM, OOO, REPORT, SENT, SERVER_REPORT, STARTED, WARNING,
    report_row, tool_error, usage_reason,
)
from analysis.parsers.iperf2_model import (
    TOOL, Conn, Row, Stream, fill, flow_name, interval, ip_version, joined, sum_ip_version,
)
from analysis.parsers.records import IntervalRecord, ParseResult, RunRecord
from analysis.parsers.units import size_to_bytes, span_s
from analysis.parsers.values import strip_zone, utc_from_zone_name

CLIENT = re.compile(r"^Client connecting to (?P<host>\S+), (?P<transport>TCP|UDP) port (?P<port>\d+)")
SERVER = re.compile(r"^Server listening on (?P<transport>TCP|UDP) port (?P<port>\d+)")
_DATAGRAMS = re.compile(r"^(?:Sending|Receiving) (?P<n>\d+) byte datagrams")
_WRITE_BUFFER = re.compile(rf"^Write buffer size:\s*(?P<n>{NUM})\s*(?P<unit>[KMG]?Byte)\b")
_VERSION = re.compile(r"^iperf version (?P<v>\S+)")


def parse_text(lines: list[str], source: str) -> ParseResult:
    return _TextParser(lines, source).parse()


@dataclass
class _Orientation:
    """Which way a stream's data went, seen from the host that printed it."""

    side: str | None = None  # sender | receiver | both
    direction: str | None = None  # client-to-server | server-to-client | both
    test: str | None = None  # forward | reverse | dual | full-duplex


class _TextParser:
    """Walks the cleaned lines once, collecting streams; builds records last."""

    def __init__(self, lines: list[str], source: str):
        self.lines = lines
        self.source = source
        self.role: str | None = None  # role named by the first header: "client" | "server"
        self.transport: str | None = None
        self.version: str | None = None
        self.message_size: float | None = None
        self.enhanced = False
        self.errors: list[str] = []
        self.warnings: list[str] = []
        self.streams: list[Stream] = []
        self.open: dict[str, Stream] = {}
        self.awaiting_report: set[str] = set()
        self.last_row: dict[str, Row] = {}
        self.last_stream: dict[str, Stream] = {}
        self.udp_seen = False
        self.listen_ports: set[int] = set()
        self.connect_ports: set[int] = set()
        self.conns: list[Conn] = []
        self.conn_of: dict[str, Conn] = {}
        self.session = 0

    def parse(self) -> ParseResult:
        for lineno, line in enumerate(self.lines, 1):
            self._line(lineno, line.strip())
        return self._result()

    # -- line dispatch

    def _line(self, lineno: int, line: str) -> None:
        if not line:
            return
        if line.startswith("["):
            self._bracketed(lineno, line)
        else:
            self._plain(lineno, line)

    def _plain(self, lineno: int, line: str) -> None:
        if m := CLIENT.match(line) or SERVER.match(line):
            self._header(lineno, "client" if line.startswith("Client") else "server", m)
        elif m := _DATAGRAMS.match(line):
            self.message_size = float(m["n"])
        elif m := _WRITE_BUFFER.match(line):
            self.message_size = size_to_bytes(float(m["n"]), m["unit"])
        elif m := _VERSION.match(line):
            self.version = m["v"]
        elif error := tool_error(line):
            self.errors.append(error)
        elif WARNING.match(line):
            self.warnings.append(line)
        # other header lines (window size, TOS, pid, ...) carry nothing we record

    def _header(self, lineno: int, role: str, m: re.Match[str]) -> None:
        """A client header says which port it connects to, a server header
        which port it listens on: -d/-r clients and servers print both, and
        the ports tell their connections apart."""
        if self.transport not in (None, m["transport"]):
            raise ParseError(self.source, lineno, f"a {m['transport']} header after {self.transport} ones: two "
                             "runs of different protocols in one output; split the file per run")
        self.transport = m["transport"]
        self.role = self.role or role
        (self.connect_ports if role == "client" else self.listen_ports).add(_port(m["port"]))

    def _bracketed(self, lineno: int, line: str) -> None:
        if m := REPORT.match(line):
            self._report(lineno, m)
        elif m := CONNECTED.match(line):
            self._connected(lineno, m)
        elif m := OOO.match(line):
            self._out_of_order(lineno, m)
        elif m := SENT.match(line):
            self._sent(m)
        elif m := SERVER_REPORT.match(line):
            self.awaiting_report.add(m["id"].lstrip("*"))
        elif m := ACK_WARNING.match(line):
            self._stream_warning(m["id"], m["msg"])
        elif m := BRACKETED_ERROR.match(line):
            self.errors.append(tool_error(line) or m["msg"])
        elif not IGNORED_BRACKETED.match(line):
            raise ParseError(self.source, lineno, f"unrecognised iperf 2 report line {line!r}: expected "
                             "'[ ID] START-END sec SIZE UNIT RATE UNIT ...', a 'connected with' line, "
                             "'Sent N datagrams', 'Server Report:' or 'N datagrams received out-of-order'")

    # -- line handlers

    def _connected(self, lineno: int, m: re.Match[str]) -> None:
        raw = m["id"]
        number = raw.lstrip("*")
        if self._session_over():
            self.session += 1
            self.open = {k: s for k, s in self.open.items() if not s.aggregate}
        conn = Conn(number, lineno, strip_zone(m["local"]), _port(m["lport"]), strip_zone(m["remote"]),
                     _port(m["rport"]), raw.startswith("*"), "(reverse)" in m["rest"], "(full-duplex)" in m["rest"],
                     self.session)
        self.conns.append(conn)
        self.conn_of[number] = conn
        current = self.open.get(raw)
        if current is None or current.rows or current.connect_line is not None:
            current = self._new_stream(raw)
        current.conn = conn
        current.local, current.remote = conn.local, conn.remote
        current.connect_line = lineno
        if s := STARTED.search(m["rest"]):
            current.started_at = utc_from_zone_name(s["date"], s["time"], s["tz"])
            if current.started_at is None:
                current.warnings.append(f"start time {s['date']} {s['time']} printed in time zone {s['tz']!r}, "
                                        "which is no UTC offset: started_at left empty")

    def _session_over(self) -> bool:
        """A connection line opens a new session (one client run against a
        server log) after the open [SUM] has its lines, or once every
        stream opened so far has its final line: a server logs one run
        after another, and only the streams of one run are one test."""
        if any(s.aggregate and s.rows for s in self.open.values()):
            return True
        streams = [s for s in self.streams if not s.aggregate and s.session == self.session]
        return bool(streams) and all(s.final() is not None for s in streams)

    def _new_stream(self, key: str) -> Stream:
        flow = flow_name(key)
        stream = Stream(flow=flow, key=key, session=self.session)
        if not stream.aggregate and flow in self.conn_of:
            conn = self.conn_of[flow]
            stream.conn, stream.local, stream.remote = conn, conn.local, conn.remote
        self.streams.append(stream)
        self.open[key] = stream
        return stream

    def _report(self, lineno: int, m: re.Match[str]) -> None:
        row = self._row(lineno, m)
        key = m["id"]
        number = key.lstrip("*")
        if number in self.awaiting_report:
            self.awaiting_report.discard(number)
            target = self.open.get(key) or self.last_stream.get(number) or self._new_stream(key)
            target.relayed = row
        else:
            stream = self._stream_for(key, row)
            stream.rows.append(row)
            self.last_stream[number] = stream
        self.last_row[key] = row

    def _stream_for(self, key: str, row: Row) -> Stream:
        stream = self.open.get(key)
        if stream is None and key.startswith("*"):
            # -R: the connected line says "[  1]", the reports "[ *1]"
            plain = self.open.get(key[1:])
            if plain is not None and not plain.rows and plain.conn is not None and not plain.conn.full_duplex:
                del self.open[key[1:]]
                plain.key, self.open[key] = key, plain
                stream = plain
        if stream is None or not stream.accepts(row):
            stream = self._new_stream(key)
        return stream

    def _row(self, lineno: int, m: re.Match[str]) -> Row:
        row, shape = report_row(self.source, lineno, m)
        self.udp_seen = self.udp_seen or "udp" in shape
        self.enhanced = self.enhanced or shape.startswith("enhanced")
        return row

    def _out_of_order(self, lineno: int, m: re.Match[str]) -> None:
        row = self.last_row.get(m["id"])
        if row is None or (row.start, row.end) != (float(m["start"]), float(m["end"])):
            raise ParseError(self.source, lineno, "out-of-order count without a report line for the same interval")
        row.out_of_order = float(m["n"])

    def _sent(self, m: re.Match[str]) -> None:
        """'[  1] Sent N datagrams' follows the final of the stream that sent
        them (printed without the star of a reverse stream's reports)."""
        key = m["id"]
        if key.startswith("SUM"):
            target = self.open.get("SUM")
        else:
            target = self.last_stream.get(key.lstrip("*")) or self.open.get(key)
        if target is not None:
            target.sent = float(m["n"])

    def _stream_warning(self, key: str, message: str) -> None:
        target = self.open.get(key) or self.last_stream.get(key.lstrip("*"))
        (target.warnings if target else self.warnings).append(message)

    # -- which way the data went

    def _kind(self, conn: Conn) -> str | None:
        """'accept' (a listener's connection) or 'connect' (opened by this
        host), from the ports of the headers; None without headers."""
        if conn.lport in self.listen_ports:
            return "accept"
        if conn.rport in self.connect_ports:
            return "connect"
        if self.listen_ports and not self.connect_ports:
            return "connect"  # a host that only listens opened this one (a 2.0.x server's connection back)
        return None

    def _back(self, conn: Conn) -> bool:
        """A server's connection back to a -d/-r client: starred (2.1 on),
        or (2.0.x) one opened by a host that printed only a 'Server
        listening' header (2.0.14a prints no 'Client connecting' for it)."""
        return conn.starred or (not self.connect_ports and self._kind(conn) == "connect")

    def _roles(self) -> dict[int, str | None]:
        """Role of the process that printed each connection: 'client' (ran
        iperf -c) or 'server'. A 2.1 server stars its connection back to a
        -d/-r client; a connection this host opened unstarred is a client's;
        an accepted one is a server's, unless the same host opened one to
        that peer (the listener of a -d/-r client): earlier, or anywhere in
        an output whose servers star their connections back (2.1 on, where
        stream ids start at 1; 2.2 may print the accepted connection first).
        A 2.0.x server's connection back is unstarred and follows the one
        it answers, so there only an earlier one counts."""
        roles: dict[int, str | None] = {}
        opened_to: set[str] = set()
        if any(c.starred or c.number in ("1", "2") for c in self.conns):
            opened_to = {c.remote for c in self.conns if not c.starred and self._kind(c) == "connect"}
        for conn in self.conns:
            kind = self._kind(conn) or {"client": "connect", "server": "accept"}.get(self.role or "")
            if self._back(conn):
                roles[id(conn)] = "server"
            elif kind == "connect":
                roles[id(conn)] = "client"
                opened_to.add(conn.remote)
            elif kind == "accept":
                roles[id(conn)] = "client" if conn.remote in opened_to else "server"
            else:
                roles[id(conn)] = None
        return roles

    def _dual(self, roles: dict[int, str | None]) -> set[int]:
        """Connections of a dual test (-d at once, -r one after the other:
        the output does not say which): a server's connection back, the accepted connection it answers (same peer, same [SUM]
        session, or the very next connection from that peer), and every
        connection of a client that also accepted one from its peer."""
        dual: set[int] = set()
        listener_peers = {c.remote for c in self.conns if roles[id(c)] == "client" and self._kind(c) == "accept"}
        back = {(c.remote, c.session) for c in self.conns if self._back(c)}
        following: dict[str, Conn] = {}
        for conn in reversed(self.conns):
            nxt = following.get(conn.remote)
            following[conn.remote] = conn
            role = roles[id(conn)]
            if self._back(conn) or (role == "client" and conn.remote in listener_peers):
                dual.add(id(conn))
            elif role == "server" and not (conn.reverse or conn.full_duplex) and (
                    (conn.remote, conn.session) in back or (nxt is not None and self._back(nxt))):
                dual.add(id(conn))
        return dual

    def _orientations(self) -> dict[int, _Orientation]:
        roles, out = self._roles(), {}
        dual = self._dual(roles)
        for stream in self.streams:
            if not stream.aggregate:
                out[id(stream)] = self._orient(stream, roles, dual)
        for stream in self.streams:
            if stream.aggregate:
                out[id(stream)] = self._orient_aggregate(stream, out)
        return out

    def _orient(self, stream: Stream, roles: dict[int, str | None], dual: set[int]) -> _Orientation:
        """A starred report runs against its process's usual direction (a
        client receives, a server sends); otherwise a connection this host
        opened sends and an accepted one receives, both turned round by
        '(reverse)' (-R) on an unstarred connection."""
        conn = stream.conn
        role = roles[id(conn)] if conn is not None else self.role
        if role is None:
            return _Orientation()
        if stream.key.startswith("*"):
            sends = role == "server"
        else:
            kind = (self._kind(conn) if conn is not None else None) or ("connect" if role == "client" else "accept")
            sends = kind == "connect"
            if conn is not None and conn.reverse and not conn.starred:
                sends = not sends
        direction = "client-to-server" if sends == (role == "client") else "server-to-client"
        test = None
        if conn is not None:
            test = ("full-duplex" if conn.full_duplex else "reverse" if conn.reverse and not conn.starred
                    else "dual" if id(conn) in dual else "forward")
        return _Orientation("sender" if sends else "receiver", direction, test)

    def _orient_aggregate(self, stream: Stream, out: dict[int, _Orientation]) -> _Orientation:
        """[SUM] adds up the streams of its session, [FD1] both directions of
        stream 1: one direction if its streams share one, else both."""
        number = stream.flow[2:] if stream.flow.startswith("FD") else None
        members = [out[id(s)] for s in self.streams if not s.aggregate and s.session == stream.session
                   and (number is None or s.flow == number)]
        directions = {o.direction for o in members}
        tests = {o.test for o in members}
        test = tests.pop() if len(tests) == 1 else None
        if number is not None or (len(directions) > 1 and None not in directions):
            return _Orientation("both", "both", test)
        if len(directions) == 1 and None not in directions:
            return _Orientation(members[0].side, directions.pop(), test)
        return _Orientation({"client": "sender", "server": "receiver"}.get(self.role or ""), None, test)

    # -- records

    def _result(self) -> ParseResult:
        self._settle_transport()
        orientations = self._orientations()
        complete = any(s.final() is not None for s in self.streams)
        records: list[RunRecord] = []
        intervals: list[IntervalRecord] = []
        for stream in self.streams:
            record, rows, row_side = self._record(stream, orientations[id(stream)], complete)
            record.record_index = len(records)
            records.append(record)
            intervals += [interval(r, record.record_index, row_side, stream.flow) for r in rows]
        if not records:
            records.append(self._failed_without_stream())
        sum_ip_version(records)
        return ParseResult(tool=TOOL, variant=self._variant(), records=records, intervals=intervals)

    def _settle_transport(self) -> None:
        """Without a header, UDP shows in the receiver columns or in the
        client's 'Sent N datagrams'; anything else is TCP."""
        if self.transport is None:
            udp = self.udp_seen or any(s.sent is not None or s.relayed for s in self.streams)
            self.transport = "UDP" if udp else "TCP"
        if self.role is None and self.udp_seen and not any(s.relayed for s in self.streams):
            self.role = "server"

    def _variant(self) -> str:
        if not self.streams:
            return "text-error"
        roles = self._roles()
        role = next((r for r in roles.values() if r), None) or self.role or "unknown-side"
        return f"text{'-enhanced' if self.enhanced else ''}-{role}-{(self.transport or 'tcp').lower()}"

    def _record(self, stream: Stream, where: _Orientation, complete: bool) -> tuple[RunRecord, list[Row], str | None]:
        record = self._base_record(stream, where)
        final = stream.final()
        if final is None:
            self._no_final(stream, record, complete)
            return record, stream.rows, record.side
        if self.errors:
            record.warnings.append(f"the tool also printed: {joined(self.errors)}")
        if self.transport == "UDP" and where.side == "sender":
            self._udp_sender(stream, final, record)
            return record, stream.rows[:-1], "sender"
        fill(record, final)
        return record, stream.rows[:-1], record.side

    def _base_record(self, stream: Stream, where: _Orientation) -> RunRecord:
        warnings = list(self.warnings) + stream.warnings
        if where.side is None:
            warnings.append("the output has no 'Client connecting'/'Server listening' header: side unknown")
        return RunRecord(
            tool=TOOL, tool_version=self.version, test=where.test, transport=self.transport, side=where.side,
            direction=where.direction, flow=stream.flow, ip_version=ip_version(stream.remote or stream.local, warnings),
            local_address=stream.local, remote_address=stream.remote,
            message_size_bytes=self.message_size, started_at=stream.started_at, warnings=warnings,
        )

    def _no_final(self, stream: Stream, record: RunRecord, complete: bool) -> None:
        """A stream without its summary: failed with the tool's own error if
        it printed one, or, when other streams of the output are complete (a
        server log whose last run was cut off), failed as cut short; an
        output with no complete stream at all is refused."""
        record.status = "failed"
        if self.errors:
            record.error = joined(self.errors)
            return
        line = stream.rows[-1].lineno if stream.rows else stream.connect_line
        reason = f"stream {stream.flow} has no final 0.0-N summary line (output cut short?)"
        if not complete:
            raise ParseError(self.source, line, reason)
        record.error = f"line {line}: {reason}"

    def _udp_sender(self, stream: Stream, own_final: Row, record: RunRecord) -> None:
        """A UDP sender's own final line is the load it offered
        (``offered_mbps``); only the receiver's numbers, relayed in a
        'Server Report', say what arrived."""
        record.duration_s = span_s(own_final.start, own_final.end)
        record.offered_mbps = own_final.mbps
        if stream.relayed is not None:
            record.side = "receiver"
            record.warnings.append("receiver statistics relayed by the server in the client's 'Server Report'; "
                                   "offered_mbps is the client's own sending rate")
            fill(record, stream.relayed)
            return
        record.packets_sent = stream.sent
        record.warnings.append(f"stream {stream.flow}: no Server Report, so throughput, jitter and loss at the "
                               "receiver are unknown (not zero); offered_mbps is only the sender's own rate")
        if self.errors:
            record.status, record.error = "failed", joined(self.errors)

    def _failed_without_stream(self) -> RunRecord:
        """No stream at all: a failed run with the tool's own reason (its
        error words, or its usage text), else nothing iperf 2 ran."""
        usage = usage_reason(self.lines)
        if not self.errors and usage is None:
            raise ParseError(self.source, 1, "no iperf 2 report line found (expected '[ ID] START-END sec ...')")
        side = {"client": "sender", "server": "receiver"}.get(self.role or "")
        reason = joined(self.errors + ([usage] if usage else []))
        return RunRecord(tool=TOOL, tool_version=self.version, transport=self.transport, side=side,
                         status="failed", error=reason, warnings=list(self.warnings))


def _port(digits: str) -> int:
    """A port as printed; -1 for a number no port can be (it then matches no
    header's port)."""
    return int(digits) if len(digits) <= 5 else -1
