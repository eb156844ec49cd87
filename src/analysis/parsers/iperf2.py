"""iperf 2 (2.0.5 .. 2.1.x) text and ``-y C`` CSV outputs, client and server.

One :class:`RunRecord` per stream's final report (``flow`` = the stream id,
``"SUM"`` for the ``[SUM]`` aggregate); the other report lines of a stream are
its :class:`IntervalRecord` rows. A UDP client's own numbers are only the
offered load: its record carries the relayed ``Server Report`` (side
``receiver``), and a missing report leaves loss and throughput unknown (None,
with a warning), never zero. See docs/formats/iperf2.md for every variant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from analysis.errors import ParseError
from analysis.parsers.records import IntervalRecord, ParseResult, RunRecord
from analysis.parsers.units import UnitError, bits_per_s_to_mbps, rate_to_mbps, size_to_bytes, span_s, us_to_ms
from analysis.parsers.text import clean_lines
from analysis.parsers.values import ip_version_of, is_ipv4_mapped, strip_zone, to_float, utc_from_zone_name

TOOL = "iperf2"

_NUM = r"\d+(?:\.\d+)?"
_ID = r"^\[\s*(?P<id>\*?\d+|SUM(?:-\d+)?|FD\d+)\s*\]\s*"
_REPORT = re.compile(
    _ID + rf"(?P<start>{_NUM})\s*-\s*(?P<end>{_NUM})\s+sec\s+"
    rf"(?P<size>{_NUM})\s+(?P<size_unit>[KMGT]?Bytes)\s+"
    rf"(?P<rate>{_NUM})\s+(?P<rate_unit>[KMGT]?(?:bits|Bytes)/sec)(?P<tail>.*)$"
)
_OOO = re.compile(_ID + rf"(?P<start>{_NUM})\s*-\s*(?P<end>{_NUM})\s+sec\s+(?P<n>\d+) datagrams received out-of-order$")
_SENT = re.compile(_ID + r"Sent (?P<n>\d+) datagrams$")
_SERVER_REPORT = re.compile(_ID + r"Server Report:$")
_CONNECTED = re.compile(
    _ID + r"local (?P<local>\S+) port (?P<lport>\d+) connected with (?P<remote>\S+) port (?P<rport>\d+)"
    r"(?P<rest>.*)$"
)
_STARTED = re.compile(r" on (?P<date>\d{4}-\d{2}-\d{2}) (?P<time>\d{2}:\d{2}:\d{2}) \((?P<tz>[^)]+)\)")
_IGNORED_BRACKETED = re.compile(r"^\[\s*(?:ID|CT)\s*\]|" + _ID + r"MSS size \d+ bytes")
_ACK_WARNING = re.compile(_ID + r"(?P<msg>WARNING: .*)$")

# Tails after the rate column, one per report layout.
_TAIL_UDP = re.compile(
    rf"^\s+(?:(?P<jitter>{_NUM})\s+ms\s+)?(?P<lost>-?\d+)/\s*(?P<total>-?\d+)\s+\((?P<pct>[-+0-9.e]+|-?nan)%\)"
    rf"(?:\s+(?P<lat_avg>{_NUM})/(?P<lat_min>{_NUM})/(?P<lat_max>{_NUM})/(?P<lat_sd>{_NUM})\s+ms"
    r"\s+\d+\s+pps\s+\S+\s+pkts\s+\S+)?$"
)
_TAIL_TCP_E = re.compile(
    r"^\s+(?P<writes>\d+)/(?P<errs>\d+)\s+(?P<retry>\d+)"
    r"(?:\s+(?P<cwnd>\d+)K/(?P<rtt>\d+)(?:\(\d+\))?\s+us(?:\s+\S+)?)?$"
)
_TAIL_UDP_E_CLIENT = re.compile(r"^\s+\d+/\d+\s+\d+\s+pps$")
_TAIL_TCP_E_SERVER = re.compile(r"^\s+\d+=[\d:]+$")
_TAIL_UDP_DATAGRAMS_PPS = re.compile(r"^\s+\d+\s+\d+ pps$")

_CLIENT = re.compile(r"^Client connecting to (?P<host>\S+), (?P<transport>TCP|UDP) port (?P<port>\d+)")
_SERVER = re.compile(r"^Server listening on (?P<transport>TCP|UDP) port (?P<port>\d+)")
_DATAGRAMS = re.compile(r"^(?:Sending|Receiving) (?P<n>\d+) byte datagrams")
_WRITE_BUFFER = re.compile(rf"^Write buffer size:\s*(?P<n>{_NUM})\s*(?P<unit>[KMG]?Byte)\b")
_VERSION = re.compile(r"^iperf version (?P<v>\S+)")
_ERROR = re.compile(r"^(?:(?:tcp|udp) )?(?:connect|read|write|recv|send|bind|listen|shutdown)\w* failed: .+$", re.IGNORECASE)
_WARNING = re.compile(r"^WARNING: .+$")

_CSV = re.compile(r"^\d{14}(?:\.\d{3})?,")
# the text banner 2.1.8 prints even with -y C for a -d/-r server's connection back to the client
_CSV_BANNER = re.compile(r"^(?:-{20,}|Client connecting to \S+, (?:TCP|UDP) port \d+|"
                         r"(?:TCP window|UDP buffer) size: .+)$")
_CSV_INTERVAL = re.compile(rf"^(?P<start>{_NUM})-(?P<end>{_NUM})$")

# iperf3 prints these and iperf 2 never does; a file with any of them is not ours.
_IPERF3_MARKERS = re.compile(
    r"^iperf Done\.|^Connecting to host |^Accepted connection from |^- - - - -|"
    r"^Server listening on \d+|\s(?:sender|receiver)\s*$|^\s*\{\s*$|connected to \S+ port \d+"
)
_IPERF2_MARKERS = re.compile(
    r"^Client connecting to \S+, (?:TCP|UDP) port \d+|^Server listening on (?:TCP|UDP) port \d+|"
    r"^\[\s*(?:\*?\d+|SUM)\s*\] local \S+ port \d+ connected with \S+ port \d+"
)


def detect(text: str) -> bool:
    """True for iperf 2 text or CSV; False as soon as an iperf3 marker shows up,
    because iperf3 text shares the ``[ ID] Interval`` header with iperf 2."""
    lines = clean_lines(text)
    if any(_IPERF3_MARKERS.search(line) for line in lines):
        return False
    if any(_IPERF2_MARKERS.search(line) for line in lines):
        return True
    # -y C: CSV rows, and maybe the tool's error words on stderr (a UDP run
    # whose server died prints its row and 'read failed: ...')
    data = [line.strip() for line in lines if line.strip()]
    rows = [_is_csv_row(line) for line in data]
    return any(rows) and all(r or _ERROR.match(l) or _WARNING.match(l) for r, l in zip(rows, data))


def _is_csv_row(line: str) -> bool:
    return bool(_CSV.match(line)) and len(line.split(",")) in (9, 14)


def parse(text: str, source: str = "<string>") -> ParseResult:
    lines = clean_lines(text)
    if not any(line.strip() for line in lines):
        raise ParseError(source, 1, "empty output: nothing to parse")
    if any(_CSV.match(line) for line in lines):
        return _CsvParser(lines, source).parse()
    return _TextParser(lines, source).parse()


# ---------------------------------------------------------------- shared model


@dataclass
class _Row:
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
class _Conn:
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
class _Stream:
    """The report lines of one stream id in one session (ids are reused by
    2.0.x servers, so a server log holds several streams with the same id).
    ``key`` is the id as printed: 2.1 prefixes ``*`` to the reports of a
    stream that runs against its host's usual direction (``[ *1]``)."""

    flow: str
    rows: list[_Row] = field(default_factory=list)
    key: str = ""
    session: int = 0
    conn: _Conn | None = None
    local: str | None = None
    remote: str | None = None
    started_at: datetime | None = None
    sent: float | None = None
    relayed: _Row | None = None
    warnings: list[str] = field(default_factory=list)
    connect_line: int | None = None

    def accepts(self, row: _Row) -> bool:
        """A line starting at 0 that ends before what we have already seen
        opens a new session of this id (the final always ends last)."""
        if not self.rows or row.start != 0:
            return True
        return row.end >= max(r.end for r in self.rows)

    def final(self) -> _Row | None:
        last = self.rows[-1] if self.rows else None
        return last if last is not None and last.start == 0 else None

    @property
    def aggregate(self) -> bool:
        """``[SUM]`` (all streams of a session) or ``[FD1]`` (both directions of a full-duplex stream)."""
        return self.flow == "SUM" or self.flow.startswith("FD")


def _ip_version(address: str | None, warnings: list[str]) -> int | None:
    """IP family from an address as printed; an IPv4-mapped IPv6 address
    (``::ffff:127.0.0.1``, an IPv4 client on a ``-V`` server) is IPv4 on the
    wire, and the record says so."""
    if is_ipv4_mapped(address):
        warnings.append(f"IPv4-mapped address {address}: the traffic was IPv4 on an IPv6 socket")
    return ip_version_of(address)


# ---------------------------------------------------------------- text


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
        self.streams: list[_Stream] = []
        self.open: dict[str, _Stream] = {}
        self.awaiting_report: set[str] = set()
        self.last_row: dict[str, _Row] = {}
        self.last_stream: dict[str, _Stream] = {}
        self.udp_seen = False
        self.listen_ports: set[int] = set()
        self.connect_ports: set[int] = set()
        self.conns: list[_Conn] = []
        self.conn_of: dict[str, _Conn] = {}
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
        if m := _CLIENT.match(line) or _SERVER.match(line):
            self._header(lineno, "client" if line.startswith("Client") else "server", m)
        elif m := _DATAGRAMS.match(line):
            self.message_size = float(m["n"])
        elif m := _WRITE_BUFFER.match(line):
            self.message_size = size_to_bytes(float(m["n"]), m["unit"])
        elif m := _VERSION.match(line):
            self.version = m["v"]
        elif _ERROR.match(line):
            self.errors.append(line)
        elif _WARNING.match(line):
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
        if m := _REPORT.match(line):
            self._report(lineno, m)
        elif m := _CONNECTED.match(line):
            self._connected(lineno, m)
        elif m := _OOO.match(line):
            self._out_of_order(lineno, m)
        elif m := _SENT.match(line):
            self._sent(m)
        elif m := _SERVER_REPORT.match(line):
            self.awaiting_report.add(m["id"].lstrip("*"))
        elif m := _ACK_WARNING.match(line):
            self._stream_warning(m["id"], m["msg"])
        elif not _IGNORED_BRACKETED.match(line):
            raise ParseError(self.source, lineno, f"unrecognised iperf 2 report line {line!r}: expected "
                             "'[ ID] START-END sec SIZE UNIT RATE UNIT ...', a 'connected with' line, "
                             "'Sent N datagrams', 'Server Report:' or 'N datagrams received out-of-order'")

    # -- line handlers

    def _connected(self, lineno: int, m: re.Match[str]) -> None:
        raw = m["id"]
        number = raw.lstrip("*")
        if any(s.aggregate and s.rows for s in self.open.values()):
            # a new connection after the session's [SUM] starts a new session
            self.session += 1
            self.open = {k: s for k, s in self.open.items() if not s.aggregate}
        conn = _Conn(number, lineno, strip_zone(m["local"]), _port(m["lport"]), strip_zone(m["remote"]),
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
        if s := _STARTED.search(m["rest"]):
            current.started_at = utc_from_zone_name(s["date"], s["time"], s["tz"])
            if current.started_at is None:
                current.warnings.append(f"start time {s['date']} {s['time']} printed in time zone {s['tz']!r}, "
                                        "which is no UTC offset: started_at left empty")

    def _new_stream(self, key: str) -> _Stream:
        flow = _flow_name(key)
        stream = _Stream(flow=flow, key=key, session=self.session)
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

    def _stream_for(self, key: str, row: _Row) -> _Stream:
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

    def _row(self, lineno: int, m: re.Match[str]) -> _Row:
        try:
            size = size_to_bytes(float(m["size"]), m["size_unit"])
            mbps = rate_to_mbps(float(m["rate"]), m["rate_unit"])
        except UnitError as exc:
            raise ParseError(self.source, lineno, str(exc)) from exc
        row = _Row(lineno, float(m["start"]), float(m["end"]), size, mbps)
        self._tail(lineno, m["tail"], row)
        return row

    def _tail(self, lineno: int, tail: str, row: _Row) -> None:
        """Columns after the rate: UDP receiver stats, or the -e extras."""
        if not tail.strip():
            return
        if t := _TAIL_UDP.match(tail):
            self.udp_seen = True
            self.enhanced = self.enhanced or bool(t["lat_avg"])
            _udp_columns(t, row)
        elif t := _TAIL_TCP_E.match(tail):
            self.enhanced = True
            row.retransmits = float(t["retry"])
            row.rtt_ms = us_to_ms(t["rtt"]) if t["rtt"] else None
        elif _TAIL_UDP_E_CLIENT.match(tail) or _TAIL_TCP_E_SERVER.match(tail):
            self.enhanced = True
        elif _TAIL_UDP_DATAGRAMS_PPS.match(tail):
            self.udp_seen = True  # a full-duplex UDP [SUM]: datagrams both ways and their rate
        else:
            raise ParseError(self.source, lineno, f"unrecognised columns after the rate: {tail.strip()!r}")

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

    def _kind(self, conn: _Conn) -> str | None:
        """'accept' (a listener's connection) or 'connect' (opened by this
        host), from the ports of the headers; None without headers."""
        if conn.lport in self.listen_ports:
            return "accept"
        if conn.rport in self.connect_ports:
            return "connect"
        return None

    def _roles(self) -> dict[int, str | None]:
        """Role of the process that printed each connection: 'client' (ran
        iperf -c) or 'server'. A 2.1 server stars its connection back to a
        -d/-r client; a connection this host opened unstarred is a client's;
        an accepted one is a server's, unless the same host earlier opened
        one to that peer (the listener of a -d/-r client)."""
        roles: dict[int, str | None] = {}
        opened_to: set[str] = set()
        for conn in self.conns:
            kind = self._kind(conn) or {"client": "connect", "server": "accept"}.get(self.role or "")
            if conn.starred:
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
        the output does not say which): a 2.1 server's starred connection
        back, the accepted connection it answers (same peer, same [SUM]
        session, or the very next connection from that peer), and every
        connection of a client that also accepted one from its peer."""
        dual: set[int] = set()
        listener_peers = {c.remote for c in self.conns if roles[id(c)] == "client" and self._kind(c) == "accept"}
        back = {(c.remote, c.session) for c in self.conns if c.starred}
        following: dict[str, _Conn] = {}
        for conn in reversed(self.conns):
            nxt = following.get(conn.remote)
            following[conn.remote] = conn
            role = roles[id(conn)]
            if conn.starred or (role == "client" and conn.remote in listener_peers):
                dual.add(id(conn))
            elif role == "server" and not (conn.reverse or conn.full_duplex) and (
                    (conn.remote, conn.session) in back or (nxt is not None and nxt.starred)):
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

    def _orient(self, stream: _Stream, roles: dict[int, str | None], dual: set[int]) -> _Orientation:
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

    def _orient_aggregate(self, stream: _Stream, out: dict[int, _Orientation]) -> _Orientation:
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
            intervals += [_interval(r, record.record_index, row_side, stream.flow) for r in rows]
        if not records:
            records.append(self._failed_without_stream())
        _sum_ip_version(records)
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
        roles = self._roles()
        role = next((r for r in roles.values() if r), None) or self.role or "unknown-side"
        return f"text{'-enhanced' if self.enhanced else ''}-{role}-{(self.transport or 'tcp').lower()}"

    def _record(self, stream: _Stream, where: _Orientation, complete: bool) -> tuple[RunRecord, list[_Row], str | None]:
        record = self._base_record(stream, where)
        final = stream.final()
        if final is None:
            self._no_final(stream, record, complete)
            return record, stream.rows, record.side
        if self.errors:
            record.warnings.append(f"the tool also printed: {'; '.join(self.errors)}")
        if self.transport == "UDP" and where.side == "sender":
            self._udp_sender(stream, final, record)
            return record, stream.rows[:-1], "sender"
        _fill(record, final)
        return record, stream.rows[:-1], record.side

    def _base_record(self, stream: _Stream, where: _Orientation) -> RunRecord:
        warnings = list(self.warnings) + stream.warnings
        if where.side is None:
            warnings.append("the output has no 'Client connecting'/'Server listening' header: side unknown")
        return RunRecord(
            tool=TOOL, tool_version=self.version, test=where.test, transport=self.transport, side=where.side,
            direction=where.direction, flow=stream.flow, ip_version=_ip_version(stream.remote or stream.local, warnings),
            local_address=stream.local, remote_address=stream.remote,
            message_size_bytes=self.message_size, started_at=stream.started_at, warnings=warnings,
        )

    def _no_final(self, stream: _Stream, record: RunRecord, complete: bool) -> None:
        """A stream without its summary: failed with the tool's own error if
        it printed one, or, when other streams of the output are complete (a
        server log whose last run was cut off), failed as cut short; an
        output with no complete stream at all is refused."""
        record.status = "failed"
        if self.errors:
            record.error = self.errors[0]
            return
        line = stream.rows[-1].lineno if stream.rows else stream.connect_line
        reason = f"stream {stream.flow} has no final 0.0-N summary line (output cut short?)"
        if not complete:
            raise ParseError(self.source, line, reason)
        record.error = f"line {line}: {reason}"

    def _udp_sender(self, stream: _Stream, own_final: _Row, record: RunRecord) -> None:
        """A UDP sender's own final line is the load it offered
        (``offered_mbps``); only the receiver's numbers, relayed in a
        'Server Report', say what arrived."""
        record.duration_s = span_s(own_final.start, own_final.end)
        record.offered_mbps = own_final.mbps
        if stream.relayed is not None:
            record.side = "receiver"
            record.warnings.append("receiver statistics relayed by the server in the client's 'Server Report'; "
                                   "offered_mbps is the client's own sending rate")
            _fill(record, stream.relayed)
            return
        record.packets_sent = stream.sent
        record.warnings.append(f"stream {stream.flow}: no Server Report, so throughput, jitter and loss at the "
                               "receiver are unknown (not zero); offered_mbps is only the sender's own rate")
        if self.errors:
            record.status, record.error = "failed", self.errors[0]

    def _failed_without_stream(self) -> RunRecord:
        if not self.errors:
            raise ParseError(self.source, 1, "no iperf 2 report line found (expected '[ ID] START-END sec ...')")
        side = {"client": "sender", "server": "receiver"}.get(self.role or "")
        return RunRecord(tool=TOOL, tool_version=self.version, transport=self.transport, side=side,
                         status="failed", error=self.errors[0], warnings=list(self.warnings))


def _port(digits: str) -> int:
    """A port as printed; -1 for a number no port can be (it then matches no
    header's port)."""
    return int(digits) if len(digits) <= 5 else -1


def _flow_name(raw: str) -> str:
    """``SUM``/``SUM-2`` -> SUM, ``*1`` -> 1, ``FD1`` stays."""
    return "SUM" if raw.startswith("SUM") else raw.lstrip("*")


def _udp_columns(t: re.Match[str], row: _Row) -> None:
    """Jitter, lost/total (%), and the 2.1 -e latency columns. A total of -1
    (2.1 client CSV/text with nothing received) means 'not measured'."""
    total = float(t["total"])
    if total < 0:
        return
    row.jitter_ms = to_float(t["jitter"]) if t["jitter"] else None
    row.lost, row.total = float(t["lost"]), total
    row.loss_pct = to_float(t["pct"])
    if t["lat_avg"]:
        row.owd = (float(t["lat_avg"]), float(t["lat_min"]), float(t["lat_max"]), float(t["lat_sd"]))


def _fill(record: RunRecord, row: _Row) -> None:
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


def _interval(row: _Row, index: int, side: str | None, flow: str) -> IntervalRecord:
    return IntervalRecord(
        record_index=index, start_s=row.start, end_s=row.end, side=side, flow=flow,
        throughput_mbps=row.mbps, bytes=row.bytes, jitter_ms=row.jitter_ms, loss_pct=row.loss_pct,
        packets_lost=row.lost, packets_total=row.total, retransmits=row.retransmits, rtt_ms=row.rtt_ms,
    )


def _sum_ip_version(records: list[RunRecord]) -> None:
    """A SUM line has no addresses: it inherits the family its streams share."""
    families = {r.ip_version for r in records if r.flow != "SUM" and r.ip_version is not None}
    if len(families) == 1:
        family = families.pop()
        for r in records:
            if r.flow == "SUM" and r.ip_version is None:
                r.ip_version = family


# ---------------------------------------------------------------- CSV (-y C)


class _CsvParser:
    """``-y C`` rows: 9 fields (TCP, or a 2.0.x UDP client's own offered load)
    or 14 (UDP receiver statistics: jitter, lost, total, %, out-of-order).

    The address columns name the stream's *sender* first and its *receiver*
    second, on both hosts (2.1.8, checked between two namespaces for
    forward, -R, -d and --full-duplex runs): a server's row of a forward run
    starts with the client's address. Which host printed a row is not in it,
    so local/remote follow only where the side is known (UDP: the final's
    total is -1 at the sender); a TCP record keeps them empty and names the
    sender and receiver in a warning."""

    def __init__(self, lines: list[str], source: str):
        self.lines = lines
        self.source = source
        self.errors: list[str] = []
        self.streams: dict[tuple, dict[int, list[_Row]]] = {}
        self.endpoints: dict[tuple, tuple[str, str]] = {}

    def parse(self) -> ParseResult:
        for lineno, line in enumerate(self.lines, 1):
            self._line(lineno, line.strip())
        records: list[RunRecord] = []
        intervals: list[IntervalRecord] = []
        for key, by_width in self.streams.items():
            record, rows, side = self._record(key, by_width)
            record.record_index = len(records)
            records.append(record)
            intervals += [_interval(r, record.record_index, side, key[0]) for r in rows]
        if not records:
            raise ParseError(self.source, 1, "no iperf 2 CSV row found")
        _sum_ip_version(records)
        transport = "udp" if any(r.transport == "UDP" for r in records) else "tcp"
        return ParseResult(tool=TOOL, variant=f"csv-{transport}", records=records, intervals=intervals)

    def _line(self, lineno: int, line: str) -> None:
        if not line:
            return
        if _ERROR.match(line) or _WARNING.match(line):
            self.errors.append(line)
            return
        if _CSV_BANNER.match(line):
            return
        fields = line.split(",")
        if not _CSV.match(line) or len(fields) not in (9, 14):
            raise ParseError(self.source, lineno, f"expected an iperf 2 CSV row of 9 or 14 fields, got {line!r}")
        self._row(lineno, fields)

    def _row(self, lineno: int, f: list[str]) -> None:
        interval = _CSV_INTERVAL.match(f[6])
        parsed = [to_float(x) for x in f[7:]]
        numbers = [n for n in parsed if n is not None]
        if interval is None or len(numbers) != len(parsed) or to_float(f[5]) is None:
            raise ParseError(self.source, lineno, f"malformed CSV fields {','.join(f[5:])!r}")
        row = _Row(lineno, float(interval["start"]), float(interval["end"]),
                   numbers[0], bits_per_s_to_mbps(numbers[1]))
        if len(f) == 14:
            _csv_udp_columns(numbers[2:], row)
        flow = "SUM" if f[5] == "-1" else f[5]
        ends: tuple = ((f[1], f[2]), (f[3], f[4]))  # sender, receiver
        if len(f) == 14 and any(k[0] == flow and k[1] == ends[::-1] and 9 in w for k, w in self.streams.items()):
            ends = ends[::-1]  # a 2.0.x client's relayed server row, addresses reversed: its own row's stream
        key = (flow, ends, self._session(flow, ends, row, len(f)))
        self.streams.setdefault(key, {}).setdefault(len(f), []).append(row)
        self.endpoints.setdefault(key, (f[1], f[3]))

    def _session(self, flow: str, ends: tuple, row: _Row, width: int) -> int:
        """Count sessions of one (id, endpoints) pair so reused ids in a long
        server log stay apart (same rule as the text parser)."""
        sessions = [k for k in self.streams if k[0] == flow and k[1] == ends]
        if not sessions:
            return 0
        last = max(s[2] for s in sessions)
        rows = self.streams[(flow, ends, last)].get(width, [])
        probe = _Stream(flow=flow, rows=rows)
        return last if probe.accepts(row) else last + 1

    def _record(self, key: tuple, by_width: dict[int, list[_Row]]) -> tuple[RunRecord, list[_Row], str | None]:
        flow = key[0]
        sender, receiver = self.endpoints[key]
        warnings: list[str] = []
        record = RunRecord(tool=TOOL, flow=flow, warnings=warnings)
        record.ip_version = _ip_version(sender, warnings) if flow != "SUM" else None
        udp_rows, own_rows = by_width.get(14, []), by_width.get(9, [])
        if udp_rows:
            out = self._udp_record(record, udp_rows, own_rows)
        else:
            out = self._tcp_record(record, own_rows)
        if flow == "SUM":
            return out
        if record.side == "sender" or own_rows and udp_rows:  # a 2.0.x client's own row: it sent
            record.local_address, record.remote_address = sender, _known(receiver)
        elif record.side == "receiver":
            record.local_address, record.remote_address = receiver, sender
        else:
            record.warnings.append(f"the CSV names the stream's sender {sender} and receiver "
                                   f"{_known(receiver) or '(not printed)'}; which of them printed it is not "
                                   "in the output, so local_address and remote_address are left empty")
        return out

    def _tcp_record(self, record: RunRecord, rows: list[_Row]) -> tuple[RunRecord, list[_Row], str | None]:
        record.transport = "TCP"
        record.warnings.append("CSV output does not say whether it was printed by the client or the server: "
                               "side unknown (a 2.0.x UDP client without its server report looks the same)")
        final = self._final(rows)
        _fill(record, final)
        return record, rows[:-1], None

    def _udp_record(self, record: RunRecord, rows: list[_Row], own: list[_Row]) -> tuple[RunRecord, list[_Row], str | None]:
        record.transport = "UDP"
        final = self._final(rows)
        if final.total is None:
            record.side = "sender"
            record.duration_s = span_s(final.start, final.end)
            record.offered_mbps = final.mbps
            record.warnings.append(f"stream {record.flow}: the sender's CSV has no receiver report (total -1), so "
                                   "throughput, jitter and loss at the receiver are unknown (not zero); "
                                   "offered_mbps is only the sender's own rate")
            if self.errors:
                record.status, record.error = "failed", self.errors[0]
            return record, [_offered(r) for r in rows[:-1]], "sender"
        record.side = "receiver"
        _fill(record, final)
        if own:
            record.warnings.append("receiver statistics relayed by the server after the client's own CSV row; "
                                   "offered_mbps is the client's own sending rate")
            if own[-1].start == 0:
                record.offered_mbps = own[-1].mbps
            return record, own[:-1] if own[-1].start == 0 else own, "sender"
        return record, rows[:-1], "receiver"

    def _final(self, rows: list[_Row]) -> _Row:
        final = rows[-1]
        if final.start != 0:
            raise ParseError(self.source, final.lineno, "CSV stream has no final 0.0-N row (output cut short?)")
        return final


def _known(address: str) -> str | None:
    """2.1.8 prints '::' for the receiver of a --full-duplex client's reverse
    half (it does not know it): no address."""
    return None if address in ("::", "0.0.0.0") else address


def _csv_udp_columns(numbers: list[float], row: _Row) -> None:
    """jitter_ms, lost, total, %, out-of-order; total -1 = nothing measured."""
    jitter, lost, total, pct, ooo = numbers
    if total < 0:
        return
    row.jitter_ms, row.lost, row.total, row.loss_pct, row.out_of_order = jitter, lost, total, pct, ooo


def _offered(row: _Row) -> _Row:
    """A UDP client's own CSV interval: keep the sending rate, drop the
    zero loss columns it prints without measuring anything."""
    return _Row(row.lineno, row.start, row.end, row.bytes, row.mbps)
