"""iperf3 (3.0 - 3.18) outputs: ``--json``, ``--json-stream`` and text, client and server side.

One run gives one record per data side (``sender`` / ``receiver``) with
``flow="SUM"``; with ``-P n`` also one pair per stream (``flow`` = stream id);
with ``--bidir`` the server-to-client direction carries the suffix
``_bidir_reverse`` (``SUM_bidir_reverse``, ``7_bidir_reverse``). ``side`` is
always the role in the data transfer, so with ``-R`` the *client's* own
numbers are the ``receiver`` record, and ``direction`` says which way the
data went (``client-to-server``, or ``server-to-client`` for -R and the
--bidir reverse flows). docs/formats/iperf3.md lists every variant and
pitfall handled here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson

from analysis.errors import ParseError
from analysis.parsers.records import IntervalRecord, ParseResult, RunRecord
from analysis.parsers.units import UnitError, bits_per_s_to_mbps, rate_to_mbps, size_to_bytes, span_s, us_to_ms
from analysis.parsers.text import clean_lines
from analysis.parsers.values import ip_version_of, json_number, strip_zone, to_float, utc_from_epoch, utc_from_rfc1123

TOOL = "iperf3"
REVERSE = "_bidir_reverse"

# ---------------------------------------------------------------- detection

_JSON_RUN = re.compile(r'"start"\s*:\s*\{.*?("version"\s*:\s*"iperf 3|"connected"|"test_start")', re.S)
_JSON_EVENT = re.compile(r'^\{\s*"event"\s*:\s*"(start|error)"\s*,\s*"data"')
_TEXT_MARKERS = re.compile(
    r"^(iperf3: (error|interrupt|parameter error) - |iperf Done\.$|Connecting to host \S+, port \d+$"
    r"|Usage: iperf3 \[-s\|-c host\] \[options\]$"
    r"|Server listening on \d+|\[\s*(\d+|SUM)\].*\bsec\b.*\s(sender|receiver)$)",
    re.M,
)
_TIMESTAMP = re.compile(r"^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4} ")


def detect(text: str) -> bool:
    """iperf3 from content: a JSON run/event document, or text with an
    iperf3-only marker (iperf 2 never prints these)."""
    window = text[:200_000]
    if _plain(window):  # nothing to clean: look at the text as it is
        head = window.lstrip()
        if head.startswith("{") and (_JSON_EVENT.match(head) or _JSON_RUN.search(head[:20_000])):
            return True
    cleaned = "\n".join(_strip_timestamp(l) for l in without_leading_warnings(untitled(clean_lines(window)))[1])
    head = _INTERRUPT_ECHO.sub("", cleaned.lstrip(), count=1)
    if head.startswith("{"):
        return bool(_JSON_EVENT.match(head) or _JSON_RUN.search(head[:20_000]))
    return bool(_TEXT_MARKERS.search(cleaned))


def parse(text: str, source: str = "<string>") -> ParseResult:
    document = _strict_document(text)
    if document is not None:
        return _parse_documents([document], source)
    lines = _without_interrupt_echo(untitled(clean_lines(text)))
    if "".join(without_leading_warnings(lines)[1]).lstrip().startswith("{"):
        return _parse_json(lines, source)
    try:
        return _parse_text(lines, source)
    except ParseError:
        _refuse_text_before_json(lines, source)
        raise


# iperf3 prints its warnings ("warning: UDP block size 8952 exceeds TCP MSS
# 8948, may result in fragmentation / drops") on stderr; an output kept with
# stderr has them before the -J document.
_WARNING = re.compile(r"^warning: (?P<msg>\S.*?)\s*$")


def without_leading_warnings(lines: list[str]) -> tuple[list[str], list[str]]:
    """iperf3's own ``warning:`` lines before a JSON document, and the lines
    with those blanked (so line numbers stay right). Nothing is taken when no
    JSON document follows them."""
    first = next((i for i, l in enumerate(lines) if l.strip() and not _WARNING.match(l)), len(lines))
    if first == 0 or first == len(lines) or not lines[first].lstrip().startswith("{"):
        return [], lines
    found = [m["msg"] for m in map(_WARNING.match, lines[:first]) if m]
    return found, [""] * first + lines[first:]


def _refuse_text_before_json(lines: list[str], source: str) -> None:
    """A file that the text reader refused but that holds a JSON document
    (a line ``{``, as ``iperf3 -J`` starts one) after other text: say so,
    naming the first line that is not iperf3's."""
    if not any(l.strip() == "{" for l in lines):
        return
    number, line = next((i, l) for i, l in enumerate(lines, 1) if l.strip() and not _WARNING.match(l))
    raise ParseError(source, number, f"text before the iperf3 JSON document: {line.strip()[:80]!r} "
                                     "(only iperf3's own 'warning:' lines may come before it)")


# Ctrl-C typed in a terminal echoes "^C" where the cursor is: before the
# JSON that iperf3 -J prints as it stops, in a terminal's log (script, tmux).
_INTERRUPT_ECHO = re.compile(r"^(\^C)+(?=\s*\{)")


def _without_interrupt_echo(lines: list[str]) -> list[str]:
    """The lines without a terminal's ``^C`` echo before the JSON (the
    document's own ``error`` says that it was interrupted)."""
    first = next((i for i, l in enumerate(lines) if l.strip()), None)
    if first is None or not lines[first].startswith("^C"):
        return lines
    return [*lines[:first], _INTERRUPT_ECHO.sub("", lines[first], count=1), *lines[first + 1:]]


def _plain(text: str) -> bool:
    """Whether clean_lines would change nothing but blanks in ``text``: no
    NUL, backspace or colour escape, and every CR ends a line (CRLF; a lone
    CR redraws a terminal line)."""
    if "\x00" in text or "\b" in text or "\x1b" in text:
        return False
    return "\r" not in text or text.count("\r") == text.count("\r\n")


_BLANKS = re.compile(r"\s*")


def _strict_document(text: str) -> tuple[dict[str, Any], int] | None:
    """The one run document of a file that is strict JSON and nothing else
    (what ``iperf3 -J`` writes), with its first line; None for anything the
    tolerant reader must see: several documents, a ``--json-stream``, nan,
    a prefix, text. Strict JSON has no raw control character in a string and
    no lone CR, so clean_lines would change nothing of it but blanks."""
    start = _BLANKS.match(text).end()  # type: ignore[union-attr]  # (it matches the empty string too)
    if not text.startswith("{", start) or not _plain(text):
        return None
    try:
        doc = orjson.loads(text)
    except orjson.JSONDecodeError:  # not strict JSON, or an integer beyond 64 bits
        return None
    if not isinstance(doc, dict) or "event" in doc:
        return None
    return doc, text.count("\n", 0, start) + 1


_TITLE_GAP = ":  "  # iperf3 --title T prints "T:  " before every text line


def untitled(lines: list[str]) -> list[str]:
    """Lines without the ``--title`` prefix. iperf3 prints ``TITLE:  `` (colon,
    two blanks) before every text line and ``TITLE:`` alone for a blank line;
    no line of its own output has that gap, so the prefix is the longest
    ``X:  `` start of the first line that the non-blank lines share (the title
    may itself hold colons and blanks; a few lines merged from another stream
    keep their text)."""
    first = next((l for l in lines if l.strip()), "")
    if _TITLE_GAP not in first or first.lstrip().startswith("{"):
        return lines
    cuts = [i for i in range(len(first)) if first.startswith(_TITLE_GAP, i)]
    for cut in reversed(cuts):
        title = first[:cut]
        prefix, alone = title + _TITLE_GAP, title + ":"
        titled = [l.startswith(prefix) or l == alone for l in lines if l.strip()]
        if all(titled) or sum(titled) >= max(2, 0.9 * len(titled)):
            return [l[len(prefix):] if l.startswith(prefix) else "" if l == alone else l for l in lines]
    return lines


# ---------------------------------------------------------------- tolerant JSON

_REPAIR = re.compile(
    r'(?P<str>"(?:[^"\\\n]|\\.)*")'
    r"|(?P<bad>[-+]?(?<![\w.])(?:nan|inf(?:inity)?)(?!\w))"
    r"|(?P<mant>\d)[eE][ \t]+(?P<exp>[-+]?\d)",
    re.I,
)


def _repair(match: re.Match[str]) -> str:
    if match.group("str") is not None:
        return match.group("str")
    if match.group("bad") is not None:
        return "null"
    return f"{match.group('mant')}e{match.group('exp')}"


_TRAILING_ERROR = re.compile(r"iperf3: (?:error|interrupt) - (?P<msg>[^\n]+)\s*\Z")


def load_json_documents(lines: list[str], source: str) -> list[tuple[dict[str, Any], int]]:
    """All JSON objects in the file with their first line. Repairs what real
    iperf3 versions print and strict JSON rejects (nan/-nan/inf -> null, the
    3.1.2 ``5.924e 06`` exponent gap); line count is kept so errors point
    at the right line. An ``iperf3: error - ...`` line after the last
    document (3.9 prints an empty run, then its error as text, with stderr
    kept) becomes that document's ``error`` when it has none."""
    text = _REPAIR.sub(_repair, "\n".join(lines))
    decoder = json.JSONDecoder()
    docs: list[tuple[dict[str, Any], int]] = []
    pos = _skip_space(text, 0)
    while pos < len(text):
        line = text.count("\n", 0, pos) + 1
        trailing = _TRAILING_ERROR.match(text, pos) if docs else None
        if trailing is not None and "error" not in docs[-1][0]:
            docs[-1][0]["error"] = trailing["msg"]
            break
        if text[pos] != "{":
            raise ParseError(source, line, f"expected a JSON object, found {text[pos:pos + 20]!r}")
        try:
            doc, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as err:
            raise ParseError(source, err.lineno, f"invalid iperf3 JSON: {err.msg}") from None
        docs.append((doc, line))
        pos = _skip_space(text, pos)
    if not docs:
        raise ParseError(source, 1, "no JSON document")
    return docs


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _assemble_stream(events: list[tuple[dict[str, Any], int]], source: str) -> list[tuple[dict[str, Any], int]]:
    """``--json-stream`` (3.17+): one event object per line -> run documents
    shaped like ``--json`` output (a new ``start`` begins a new run)."""
    runs: list[tuple[dict[str, Any], int]] = []
    for event, line in events:
        name, data = event.get("event"), event.get("data")
        if name == "start":
            runs.append(({"start": data, "intervals": [], "end": {}}, line))
        elif name == "error" and not runs:  # the run failed before it began (3.18: a refused connection)
            runs.append(({"start": {}, "intervals": [], "end": {}, "error": data}, line))
        elif not runs:
            raise ParseError(source, line, f"json-stream event {name!r} before the 'start' event")
        elif name == "interval":
            runs[-1][0]["intervals"].append(data)
        elif name in ("end", "error"):
            runs[-1][0][name] = data
        elif not str(name).startswith("server_output"):
            raise ParseError(source, line, f"unknown json-stream event {name!r} (expected start, interval, end, error)")
    return runs


# ---------------------------------------------------------------- JSON runs


@dataclass
class _Run:
    """What a run document says about itself, shared by all its records."""

    doc: dict[str, Any]
    line: int
    source: str
    is_server: bool = False
    reverse: bool = False
    bidir: bool = False
    unsummed_bidir: bool = False  # 3.9-style --bidir: no flag, and sums of one direction only
    base: dict[str, Any] = field(default_factory=dict)

    def local_sends(self, sfx: str) -> bool:
        """Whether the host that wrote the output sends data in direction sfx
        (used when a 3.0/3.1 document has no ``sender`` flags)."""
        sends = self.reverse == self.is_server
        return not sends if sfx else sends


def _parse_json(lines: list[str], source: str) -> ParseResult:
    warnings, lines = without_leading_warnings(lines)
    docs = load_json_documents(lines, source)
    if all("event" in d for d, _ in docs):
        result = _parse_documents(_assemble_stream(docs, source), source, "json-stream")
    else:
        result = _parse_documents(docs, source)
    for rec in result.records:
        rec.warnings.extend(f"iperf3 warned: {w}" for w in warnings)
    return result


def _parse_documents(docs: list[tuple[dict[str, Any], int]], source: str, variant: str = "json") -> ParseResult:
    records: list[RunRecord] = []
    intervals: list[IntervalRecord] = []
    for number, (doc, line) in enumerate(docs, 1):
        first = len(records)
        try:
            run = _json_run(doc, line, source)
            records.extend(_json_records(run))
            intervals.extend(_json_intervals(run, records, first))
        except (AttributeError, KeyError, TypeError, ValueError, IndexError, ArithmeticError) as err:
            if isinstance(err, ParseError):
                raise
            raise ParseError(source, line, f"iperf3 JSON of an unexpected shape ({type(err).__name__}: {err})") from None
        if len(docs) > 1:
            for rec in records[first:]:
                rec.warnings.append(f"document {number} of {len(docs)} in this file (concatenated outputs)")
    for index, rec in enumerate(records):
        rec.record_index = index
        _set_direction(rec)
    role = "server" if "accepted_connection" in (docs[0][0].get("start") or {}) else "client"
    return ParseResult(tool=TOOL, variant=f"{variant}-{role}", records=records, intervals=intervals)


def _json_run(doc: dict[str, Any], line: int, source: str) -> _Run:
    start = doc.get("start")
    if not isinstance(start, dict):
        raise ParseError(source, line, "iperf3 JSON without a 'start' object")
    test = start.get("test_start") or {}
    connected = start.get("connected") or [{}]
    run = _Run(doc, line, source, is_server="accepted_connection" in start,
               reverse=bool(test.get("reverse")), bidir=bool(test.get("bidir")))
    local, remote = connected[0].get("local_host"), connected[0].get("remote_host")
    end = doc.get("end") or {}
    run.unsummed_bidir = "bidir" not in test and "sum_sent" + REVERSE not in end and _both_ways(end.get("streams"))
    run.base = dict(
        tool=TOOL, tool_version=_version(start.get("version")),
        test="bidir" if run.bidir or run.unsummed_bidir or "sum_sent" + REVERSE in end else ("reverse" if run.reverse else "forward"),
        transport=test.get("protocol"), ip_version=ip_version_of(local),
        local_address=local, remote_address=remote,
        message_size_bytes=json_number(test.get("blksize")),
        started_at=_json_start_time(start.get("timestamp")),
    )
    run.bidir = run.base["test"] == "bidir"
    return run


def _both_ways(streams: Any) -> bool:
    """Whether the end streams carry data both ways: the host that wrote the
    output sent on some (``sender: true``) and received on others. Only
    --bidir does that; iperf3 3.9 says so nowhere else (no ``bidir`` in
    ``test_start``, no ``*_bidir_reverse`` sums)."""
    if not isinstance(streams, list):
        return False
    flags = {_stream_sides(s)[0].get("sender") for s in streams if isinstance(s, dict)}
    return True in flags and False in flags


def _json_start_time(stamp: Any) -> datetime | None:
    """``timesecs`` (exact, UTC) or else the RFC 1123 ``time`` string."""
    if not isinstance(stamp, dict):
        return None
    return utc_from_epoch(stamp.get("timesecs")) or utc_from_rfc1123(stamp.get("time") if isinstance(stamp.get("time"), str) else None)


def _set_direction(rec: RunRecord) -> None:
    """Which way the record's data went, from the test and (--bidir) the
    flow's direction suffix; a failed run moved no data."""
    if rec.status != "ok" or rec.test not in ("forward", "reverse", "bidir"):
        return
    back = rec.test == "reverse" or (rec.test == "bidir" and (rec.flow or "").endswith(REVERSE))
    rec.direction = "server-to-client" if back else "client-to-server"


def _version(text: Any) -> str | None:
    match = re.search(r"3\.\S+", text or "")
    return match.group(0) if match else None


def _json_records(run: _Run) -> list[RunRecord]:
    doc = run.doc
    if doc.get("error"):
        return [RunRecord(**run.base, status="failed", error=str(doc["error"]))]
    end = doc.get("end") or {}
    cpu = _cpu(end.get("cpu_utilization_percent") or {}, run.is_server)
    records: list[RunRecord] = []
    direction_records = _unsummed_bidir_records if run.unsummed_bidir else _direction_records
    for sfx in ("", REVERSE) if run.bidir else ("",):
        for rec in direction_records(run, end, sfx):
            rec.cpu_local_pct, rec.cpu_remote_pct = cpu
            records.append(rec)
    return records


def _cpu(cpu: dict[str, Any], is_server: bool) -> tuple[float | None, float | None]:
    remote = json_number(cpu.get("remote_total"))
    # A server never learns the client's CPU: it prints zeros.
    if is_server and not any(cpu.get(k) for k in ("remote_total", "remote_user", "remote_system")):
        remote = None
    return json_number(cpu.get("host_total")), remote


def _direction_records(run: _Run, end: dict[str, Any], sfx: str) -> list[RunRecord]:
    if "sum_sent" + sfx in end and "sum_received" + sfx in end:
        streams = _streams_of(run, end, sfx)
        pairs = [(f"SUM{sfx}", end["sum_sent" + sfx], end["sum_received" + sfx], streams)]
        if len(streams) > 1:
            pairs += [(f"{_stream_id(s)}{sfx}", *_stream_sides(s), [s]) for s in streams]
        return [rec for flow, sent, recv, ss in pairs for rec in _pair(run, flow, sent, recv, ss)]
    if "sum" in end and run.base["transport"] == "UDP" and not sfx:
        return _udp_sum_only(run, end)
    raise ParseError(run.source, run.line, "iperf3 JSON 'end' has neither sum_sent/sum_received nor a UDP 'sum'")


def _unsummed_bidir_records(run: _Run, end: dict[str, Any], sfx: str) -> list[RunRecord]:
    """One direction of a 3.9-style --bidir run. Its ``sum_sent`` /
    ``sum_received`` (UDP: ``sum``) hold one direction only (the
    server-to-client one, as 3.9 prints it), and nothing says which: the
    sums belong to the direction whose streams' bytes they add up to. The
    other direction's SUM is its stream's figures, or with several streams
    their total (bytes, rates and retransmits add up; UDP jitter does not,
    so a UDP direction of several streams without a sum is refused)."""
    streams = _streams_of(run, end, sfx)
    udp = run.base["transport"] == "UDP"
    name = "server-to-client" if (sfx == REVERSE) else "client-to-server"
    if not streams:
        raise ParseError(run.source, run.line, f"--bidir run without a {name} stream in 'end.streams'")
    note = None
    if _summed_direction(run, end, udp) == sfx:
        sent, recv = (end["sum"], end["sum"]) if udp else (end["sum_sent"], end["sum_received"])
    elif len(streams) == 1:
        sent, recv = _stream_sides(streams[0])
        note = f"iperf3 {run.base['tool_version']} --bidir prints no {name} sum: SUM is its one stream's figures"
    elif udp:
        raise ParseError(run.source, run.line, f"iperf3 {run.base['tool_version']} --bidir UDP prints no {name} sum, "
                         f"and the jitter of its {len(streams)} streams does not add up: give each direction one stream")
    else:
        sent, recv = (_added([_stream_sides(s)[i] for s in streams]) for i in (0, 1))
        note = (f"iperf3 {run.base['tool_version']} --bidir prints no {name} sum: SUM adds up its "
                f"{len(streams)} streams' bytes, rates and retransmits")
    sums = _udp_sum_pair(run, f"SUM{sfx}", sent, streams) if udp else _pair(run, f"SUM{sfx}", sent, recv, streams)
    if note is not None:
        for rec in sums:
            rec.warnings.append(note)
    if len(streams) > 1:
        sums += [rec for s in streams for rec in _pair(run, f"{_stream_id(s)}{sfx}", *_stream_sides(s), [s])]
    return sums


def _summed_direction(run: _Run, end: dict[str, Any], udp: bool) -> str:
    """Which direction ('' or REVERSE) a 3.9-style --bidir run's sums hold:
    the one whose streams' sent bytes they equal (the sums' own ``sender``
    flag decides between two equal directions)."""
    total = end.get("sum" if udp else "sum_sent")
    if not isinstance(total, dict):
        raise ParseError(run.source, run.line, f"iperf3 JSON 'end' without its {'sum' if udp else 'sum_sent'} object")
    matches = [sfx for sfx in ("", REVERSE)
               if sum(json_number(_stream_sides(s)[0].get("bytes")) or 0.0 for s in _streams_of(run, end, sfx))
               == json_number(total.get("bytes"))]
    if len(matches) == 2 and isinstance(total.get("sender"), bool):
        matches = [sfx for sfx in matches if run.local_sends(sfx) == total["sender"]]
    if len(matches) != 1:
        raise ParseError(run.source, run.line, "--bidir run without a bidir flag whose sums match "
                         f"{'neither' if not matches else 'both'} of its directions' streams")
    return matches[0]


def _added(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Several streams' figures of one side as one: bytes, rates and
    retransmits added up, the longest duration."""
    total: dict[str, Any] = {}
    for key in ("bytes", "bits_per_second", "retransmits", "seconds"):
        values = [v for v in (json_number(p.get(key)) for p in parts) if v is not None]
        total[key] = None if len(values) < len(parts) else max(values) if key == "seconds" else sum(values)
    return total


def _streams_of(run: _Run, end: dict[str, Any], sfx: str) -> list[dict[str, Any]]:
    """End streams of one direction (only --bidir mixes them): each stream,
    named by its socket, carries its own ``sender`` flag, i.e. whether the
    host that wrote the output sent on it; the direction says whether that
    host sends. The sums' flags are not evidence: 3.12 marks
    ``sum_sent_bidir_reverse`` of a UDP run ``sender: true`` though the
    client receives in that direction."""
    streams = end.get("streams") or []
    if not run.bidir:
        return streams
    sends = run.local_sends(sfx)
    mine, sockets = [], set()
    for stream in streams:
        side = _stream_sides(stream)[0]
        if not isinstance(side.get("sender"), bool):
            raise ParseError(run.source, run.line, f"--bidir stream (socket {side.get('socket')!r}) without a "
                             "'sender' flag: its direction cannot be told")
        if side["sender"] == sends:
            if side.get("socket") in sockets:
                raise ParseError(run.source, run.line, f"socket {side.get('socket')!r} twice in one direction of 'end.streams'")
            sockets.add(side.get("socket"))
            mine.append(stream)
    return mine


def _stream_id(stream: dict[str, Any]) -> str:
    return str(_stream_sides(stream)[0].get("socket"))


def _stream_sides(stream: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    if "udp" in stream:
        return stream["udp"], stream["udp"]
    return stream.get("sender") or {}, stream.get("receiver") or {}


def _pair(run: _Run, flow: str, sent: dict[str, Any], recv: dict[str, Any], streams: list[dict[str, Any]]) -> list[RunRecord]:
    udp = run.base["transport"] == "UDP"
    per_stream = not flow.startswith("SUM")
    sender = RunRecord(**run.base, side="sender", flow=flow, **_common(sent))
    receiver = RunRecord(**run.base, side="receiver", flow=flow, **_common(recv))
    if udp:
        _udp_receiver(receiver, recv, streams)
        if per_stream:  # a UDP stream object: the sender's bytes and rate, the receiver's counts
            receiver.throughput_mbps = receiver.bytes = None
        else:  # the sender's jitter and loss are always 0: they come from the receiver
            sender.packets_sent = json_number(sent.get("packets"))
    else:
        sender.retransmits = json_number(sent.get("retransmits"))
        _rtt(sender, streams)
    return _drop_unknown_side(run, sender, receiver)


def _common(part: dict[str, Any]) -> dict[str, Any]:
    seconds = json_number(part.get("seconds"))
    if seconds is None and (end := json_number(part.get("end"))) is not None:
        seconds = span_s(json_number(part.get("start")) or 0.0, end)
    return dict(throughput_mbps=_mbps(part), bytes=json_number(part.get("bytes")), duration_s=seconds)


def _mbps(part: dict[str, Any]) -> float | None:
    bps = json_number(part.get("bits_per_second"))
    return None if bps is None else bits_per_s_to_mbps(bps)


def _udp_receiver(rec: RunRecord, recv: dict[str, Any], streams: list[dict[str, Any]]) -> None:
    rec.jitter_ms = json_number(recv.get("jitter_ms"))
    rec.packets_lost = json_number(recv.get("lost_packets"))
    rec.loss_pct = json_number(recv.get("lost_percent"))
    total = json_number(recv.get("packets"))
    if total is not None and rec.packets_lost is not None:
        rec.packets_received = total - rec.packets_lost
    orders = [json_number(_stream_sides(s)[1].get("out_of_order")) for s in streams]
    if orders and None not in orders:
        rec.packets_out_of_order = sum(orders)  # type: ignore[arg-type]


def _rtt(rec: RunRecord, streams: list[dict[str, Any]]) -> None:
    """RTT is the local sender's tcp_info: when the stream was sent by the
    other host (``sender: false``, i.e. -R) iperf3 prints zeros -> None."""
    sides = [_stream_sides(s)[0] for s in streams]
    keys = ("min_rtt", "mean_rtt", "max_rtt")
    own = [s for s in sides if s.get("sender", True) and all(json_number(s.get(k)) is not None for k in keys)]
    if not own or len(own) != len(sides):
        return
    rec.rtt_min_ms = us_to_ms(min(json_number(s["min_rtt"]) or 0.0 for s in own))
    rec.rtt_max_ms = us_to_ms(max(json_number(s["max_rtt"]) or 0.0 for s in own))
    if len(own) == 1:  # a mean over several streams' means would be invented
        rec.rtt_ms = us_to_ms(json_number(own[0]["mean_rtt"]) or 0.0)


def _drop_unknown_side(run: _Run, sender: RunRecord, receiver: RunRecord) -> list[RunRecord]:
    """A server prints zeros for the side it never measured (the client's);
    those zeros are not a measurement."""
    if run.is_server:
        for zero, other in ((sender, receiver), (receiver, sender)):
            if not zero.bytes and not zero.throughput_mbps and other.bytes:
                other.warnings.append(f"server output: the {zero.side} side is not reported (printed as zeros), dropped")
                return [other]
    return [sender, receiver]


def _udp_sum_only(run: _Run, end: dict[str, Any]) -> list[RunRecord]:
    """3.0/3.1 UDP: only ``end.sum`` - the sender's bytes and rate with the
    receiver's jitter and loss. The receiver's rate is not reported at all."""
    if run.reverse or run.is_server:
        raise ParseError(run.source, run.line, "3.0/3.1-style UDP JSON ('end.sum' only) is supported for a forward client run only")
    records = _udp_sum_pair(run, "SUM", end["sum"], end.get("streams") or [])
    cpu = _cpu(end.get("cpu_utilization_percent") or {}, False)
    for rec in records:
        rec.cpu_local_pct, rec.cpu_remote_pct = cpu
    return records


def _udp_sum_pair(run: _Run, flow: str, total: dict[str, Any], streams: list[dict[str, Any]]) -> list[RunRecord]:
    """A UDP object of the old shape (3.0/3.1 ``end.sum``, a 3.9 stream or
    sum): the sender's bytes and rate with the receiver's datagram counts,
    jitter and loss; the receiver's own rate is not in it."""
    sender = RunRecord(**run.base, side="sender", flow=flow, **_common(total))
    receiver = RunRecord(**run.base, side="receiver", flow=flow, duration_s=sender.duration_s)
    _udp_receiver(receiver, total, streams)
    return [sender, receiver]


def _json_intervals(run: _Run, records: list[RunRecord], first: int) -> list[IntervalRecord]:
    index = _record_index(records, first)
    rows: list[IntervalRecord] = []
    for interval in run.doc.get("intervals") or []:
        for sfx in ("", REVERSE):
            sends, total, streams = (_unsummed_interval if run.unsummed_bidir else _interval)(run, interval, sfx)
            side = "sender" if sends else "receiver"
            parts = [] if total is None else [(f"SUM{sfx}", total, streams)]
            if len(streams) > 1:
                parts += [(f"{s.get('socket')}{sfx}", s, [s]) for s in streams]
            rows += [_interval_row(index(flow, side), side, flow, part, ss) for flow, part, ss in parts]
    return rows


Figures = dict[str, Any]


def _interval(run: _Run, interval: Figures, sfx: str) -> tuple[bool, Figures | None, list[Figures]]:
    """One direction of an interval: whether the writer sent, its sum, its streams."""
    total = interval.get("sum" + sfx)
    if not isinstance(total, dict):
        return False, None, []
    sends = bool(total.get("sender", run.local_sends(sfx)))
    return sends, total, [s for s in interval.get("streams") or [] if bool(s.get("sender", sends)) == sends]


def _unsummed_interval(run: _Run, interval: Figures, sfx: str) -> tuple[bool, Figures | None, list[Figures]]:
    """One direction of a 3.9-style --bidir interval: its ``sum`` holds one
    direction (the one whose ``sender`` flag and streams' bytes it matches);
    a direction's only stream is its sum; several streams without one have
    none."""
    sends = run.local_sends(sfx)
    streams = [s for s in interval.get("streams") or [] if s.get("sender") is sends]
    total = interval.get("sum")
    ours = (isinstance(total, dict) and total.get("sender") is sends
            and json_number(total.get("bytes")) == sum(json_number(s.get("bytes")) or 0.0 for s in streams))
    if not ours:
        total = streams[0] if len(streams) == 1 else None
    return sends, total, streams


def _record_index(records: list[RunRecord], first: int):
    """(flow, side) -> index of the run record an interval belongs to."""
    own = {(r.flow, r.side): i for i, r in enumerate(records) if i >= first}

    def index(flow: str, side: str) -> int:
        found = own.get((flow, side))
        if found is None:
            found = own.get((flow, "sender"), own.get((flow, "receiver"), first))
        return found

    return index


def _interval_row(index: int, side: str, flow: str, part: dict[str, Any], streams: list[dict[str, Any]]) -> IntervalRecord:
    rtt = json_number(streams[0].get("rtt")) if len(streams) == 1 else None
    get, omitted = part.get, part.get("omitted")  # (thousands of rows: every lookup counts)
    return IntervalRecord(
        record_index=index, start_s=json_number(get("start")) or 0.0, end_s=json_number(get("end")) or 0.0,
        side=side, flow=flow, throughput_mbps=_mbps(part), bytes=json_number(get("bytes")),
        jitter_ms=json_number(get("jitter_ms")), loss_pct=json_number(get("lost_percent")),
        packets_lost=json_number(get("lost_packets")), packets_total=json_number(get("packets")),
        retransmits=json_number(get("retransmits")), rtt_ms=None if rtt is None else us_to_ms(rtt),
        omitted=omitted if isinstance(omitted, bool) else None,
    )


# ---------------------------------------------------------------- text

_DATA = re.compile(
    r"^\[\s*(?P<id>\d+|SUM)\](?:\[(?P<role>[TR]X-[CS])\])?\s+"
    r"(?P<start>\d+\.\d+)-\s*(?P<end>\d+\.\d+)\s+sec\s+"
    r"(?P<xfer>\d+(?:\.\d+)?)\s+(?P<xunit>[KMGTkmgt]?(?:Bytes|bits))\s+"
    r"(?P<rate>\d+(?:\.\d+)?)\s+(?P<runit>[KMGTkmgt]?(?:bits|Bytes)/sec)"
    r"(?P<rest>.*)$"
)
_UDP_RX = re.compile(
    r"^\s*(?P<jitter>\S+) ms\s+(?P<lost>-?\d+)/\s*(?P<total>\d+)\s+\((?P<pct>[^%)]*)%\)\s*(?P<tag>sender|receiver)?\s*$"
)
_TCP_REST = re.compile(r"^\s*(?P<retr>\d+)?\s*(?:(?P<cwnd>[\d.]+)\s+[KMGT]?Bytes)?\s*(?P<tag>sender|receiver|\(omitted\))?\s*$")
_UDP_TX = re.compile(r"^\s*(?P<packets>\d+)\s*(?P<tag>\(omitted\))?\s*$")
_HEADER = re.compile(r"^\[ ID\](?:\[Role\])?\s+Interval\s+Transfer\s+(?P<rate>Bandwidth|Bitrate)(?P<rest>.*)$")
_CONNECTED = re.compile(r"^\[\s*\d+\] local (?P<local>\S+) port \d+ connected (?:to|with) (?P<remote>\S+) port \d+")
_SENT = re.compile(r"^\[\s*(?P<id>\d+|SUM)\](?:\[[TR]X-[CS]\])? Sent (?P<n>\d+) datagrams")
# The tool's reason a run failed: its error lines, and a command line it
# refused (parameter errors and getopt's, before its usage text; getopt
# names the program as it was started, maybe with its path).
_ERROR = re.compile(r"^(?:\S*/)?iperf3: (?:(?:error|interrupt) - (?P<msg>.+)"
                    r"|(?P<usage>(?:parameter error - |unrecognized option |invalid option |option ).+))$")
_CPU = re.compile(r"CPU Utilization: local/\w+ (?P<local>[\d.]+)%.*remote/\w+ (?P<remote>[\d.]+)%")
_SEPARATOR = re.compile(r"^(- ){10,}-?$")


def _strip_timestamp(line: str) -> str:
    """``--timestamps`` (default format) puts ``Sun Nov 22 01:51:56 2026 `` before every line."""
    return _TIMESTAMP.sub("", line, count=1)


@dataclass
class _Line:
    """One data line of the text output, decoded."""

    number: int
    id: str
    role: str | None
    start: float
    end: float
    bytes: float
    mbps: float
    tag: str | None  # sender | receiver | None (interval, or an old untagged summary)
    omitted: bool = False
    retransmits: float | None = None
    packets: float | None = None  # UDP sender interval: datagrams sent
    jitter_ms: float | None = None
    lost: float | None = None
    total: float | None = None
    loss_pct: float | None = None
    summary: bool = False


@dataclass
class _Text:
    """Everything collected from a text output before records are built."""

    source: str
    lines: list[_Line] = field(default_factory=list)
    udp: bool | None = None
    is_server: bool = False
    reverse: bool = False
    version: str | None = None
    local: str | None = None
    remote: str | None = None
    error: str | None = None
    cpu: tuple[float | None, float | None] = (None, None)
    sent: dict[str, float] = field(default_factory=dict)
    message_size: float | None = None
    started_at: datetime | None = None
    last_separator: int = -1


_SESSION = re.compile(r"^(Server listening on |Connecting to host )")


def _parse_text(raw_lines: list[str], source: str) -> ParseResult:
    """A text file may hold several runs: a long-running server's log, or
    client runs appended to one file; each session is read on its own."""
    sessions = [s for s in (_read_session(seg, source) for seg in _sessions(raw_lines)) if _has_run(s)]
    if not sessions:
        raise ParseError(source, len(raw_lines) or 1,
                         "iperf3 text without a summary (no sender/receiver line) or an 'iperf3: error' line")
    records: list[RunRecord] = []
    intervals: list[IntervalRecord] = []
    for number, state in enumerate(sessions, 1):
        first = len(records)
        records.extend(_text_records(state))
        intervals.extend(_text_intervals(state, records, first))
        if len(sessions) > 1:
            for rec in records[first:]:
                rec.warnings.append(f"session {number} of {len(sessions)} in this file")
    for index, rec in enumerate(records):
        rec.record_index = index
        _set_direction(rec)
    variant = "text-server" if sessions[0].is_server else "text-client"
    return ParseResult(tool=TOOL, variant=variant, records=records, intervals=intervals)


def _sessions(raw_lines: list[str]) -> list[list[tuple[int, str]]]:
    sessions: list[list[tuple[int, str]]] = [[]]
    for number, raw in enumerate(raw_lines, 1):
        line = _strip_timestamp(raw)
        if _SESSION.match(line) and any(_DATA.match(l) or _ERROR.match(l) for _, l in sessions[-1]):
            sessions.append([])
        sessions[-1].append((number, line))
    return sessions


def _read_session(lines: list[tuple[int, str]], source: str) -> _Text:
    state = _Text(source)
    in_summary = False
    for number, line in lines:
        if line.startswith("Server output:"):
            break  # --get-server-output: the server's copy of the same run
        in_summary = _text_line(state, number, line, in_summary)
    if state.error is None and state.lines and not any(l.summary for l in state.lines):
        raise ParseError(source, state.lines[-1].number,
                         "iperf3 text without a summary (no sender/receiver line) after its intervals")
    return state


def _has_run(state: _Text) -> bool:
    """A server that was listening and then stopped ran no test."""
    if state.lines:
        return True
    return state.error is not None and not (state.is_server and state.local is None)


def _text_line(state: _Text, number: int, line: str, in_summary: bool) -> bool:
    """Read one line into state; returns whether the summary block has begun."""
    if _SEPARATOR.match(line):
        state.last_separator = number
        return in_summary
    header = _HEADER.match(line)
    if header:
        kind = "Jitter" in header["rest"] or "Datagrams" in header["rest"]
        state.udp = kind if state.udp is None else state.udp or kind
        # A header right after "- - - -" opens the summary block.
        return in_summary or state.last_separator == number - 1
    data = _DATA.match(line)
    if data:
        state.lines.append(_data_line(state, number, data, in_summary))
        return in_summary
    if line.lstrip().startswith("[") and " sec " in line:
        raise ParseError(state.source, number, f"iperf3 data line not understood: {line.strip()!r}")
    _context_line(state, line)
    return in_summary


def _context_line(state: _Text, line: str) -> None:
    if (m := _ERROR.match(line)) and state.error is None:
        state.error = m["msg"] or m["usage"]
    elif (m := _CONNECTED.match(line)) and state.local is None:
        state.local, state.remote = strip_zone(m["local"]), strip_zone(m["remote"])
    elif (m := _SENT.match(line)):
        state.sent[m["id"]] = float(m["n"])
    elif (m := _CPU.search(line)):
        state.cpu = (float(m["local"]), float(m["remote"]))
    elif line.startswith(("Server listening on", "Accepted connection from")):
        state.is_server = True
    elif line.startswith("Reverse mode"):
        state.reverse = True
    elif (m := re.match(r"^iperf (3\.\S+)$", line)):
        state.version = m[1]
    elif (m := re.match(r"^Time: (.+)$", line)) and state.started_at is None:
        state.started_at = utc_from_rfc1123(m[1])
    elif (m := re.search(r"(\d+) byte blocks", line)):
        state.message_size = float(m[1])


def _data_line(state: _Text, number: int, m: re.Match[str], in_summary: bool) -> _Line:
    try:
        size = size_to_bytes(float(m["xfer"]), m["xunit"])
        mbps = rate_to_mbps(float(m["rate"]), m["runit"])
    except UnitError as err:
        raise ParseError(state.source, number, str(err)) from None
    line = _Line(number, m["id"], m["role"], float(m["start"]), float(m["end"]), size, mbps, None)
    rest = m["rest"]
    if (udp := _UDP_RX.match(rest)):
        line.jitter_ms, line.lost, line.total = to_float(udp["jitter"]), float(udp["lost"]), float(udp["total"])
        line.loss_pct, line.tag = to_float(udp["pct"]), udp["tag"]
    elif state.udp and (tx := _UDP_TX.match(rest)):
        line.packets, line.omitted = float(tx["packets"]), bool(tx["tag"])
    elif (tcp := _TCP_REST.match(rest)):
        line.retransmits = to_float(tcp["retr"] or "")
        line.tag = tcp["tag"] if tcp["tag"] in ("sender", "receiver") else None
        line.omitted = tcp["tag"] == "(omitted)"
    else:
        raise ParseError(state.source, number, f"iperf3 data line with unexpected columns: {rest.strip()!r}")
    line.summary = line.tag is not None or (in_summary and line.jitter_ms is not None)
    return line


def _direction(line: _Line) -> str:
    """'' for client->server data, REVERSE for the --bidir server->client one."""
    return REVERSE if line.role in ("RX-C", "TX-S") else ""


def _flows(lines: list[_Line]) -> dict[int, str]:
    """Flow of each line: 'SUM' lines and, where a direction has no SUM line
    (a single stream), that stream stands for the sum."""
    has_sum = {_direction(l) for l in lines if l.id == "SUM"}
    return {l.number: (l.id if l.id == "SUM" or _direction(l) in has_sum else "SUM") + _direction(l) for l in lines}


def _text_records(state: _Text) -> list[RunRecord]:
    base: dict[str, Any] = dict(
        tool=TOOL, tool_version=state.version,
        test="bidir" if any(l.role for l in state.lines) else ("reverse" if state.reverse else "forward"),
        transport=None if state.udp is None else ("UDP" if state.udp else "TCP"),
        ip_version=ip_version_of(state.local), local_address=state.local, remote_address=state.remote,
        message_size_bytes=state.message_size, started_at=state.started_at,
        cpu_local_pct=state.cpu[0], cpu_remote_pct=state.cpu[1],
    )
    if state.error is not None:
        return [RunRecord(**base, status="failed", error=state.error)]
    summaries = [l for l in state.lines if l.summary]
    flows = _flows(summaries)
    records: list[RunRecord] = []
    for line in summaries:
        records.extend(_summary_records(state, base, line, flows[line.number]))
    records = _drop_server_zeros(state, records)
    if state.is_server and base["test"] == "forward" and _server_sent(state, records):
        for rec in records:  # a 3.x server does not print "Reverse mode": its own data say it sent
            rec.test = "reverse"
    return records


def _server_sent(state: _Text, records: list[RunRecord]) -> bool:
    """Whether a (non-bidir) server sent the data, i.e. the client ran -R:
    its interval lines have the sender's columns (TCP Retr/Cwnd, UDP packet
    counts without jitter), or, without intervals, its only measured summary
    is the sender's."""
    intervals = [l for l in state.lines if not l.summary]
    if intervals:
        return all(l.retransmits is not None or l.packets is not None for l in intervals)
    return {r.side for r in records} == {"sender"}


def _summary_records(state: _Text, base: dict[str, Any], line: _Line, flow: str) -> list[RunRecord]:
    common = dict(**base, flow=flow, duration_s=span_s(line.start, line.end))
    if line.tag is None:  # 3.0/3.1 UDP client: one untagged line, see docs
        sender = RunRecord(**common, side="sender", throughput_mbps=line.mbps, bytes=line.bytes,
                           packets_sent=state.sent.get(line.id))
        receiver = RunRecord(**common, side="receiver")
        _text_udp_receiver(receiver, line)
        return [sender, receiver]
    rec = RunRecord(**common, side=line.tag, throughput_mbps=line.mbps, bytes=line.bytes)
    if line.tag == "sender":
        rec.retransmits = line.retransmits
        rec.packets_sent = line.total
    elif line.jitter_ms is not None:
        _text_udp_receiver(rec, line)
    return [rec]


def _text_udp_receiver(rec: RunRecord, line: _Line) -> None:
    rec.jitter_ms, rec.packets_lost, rec.loss_pct = line.jitter_ms, line.lost, line.loss_pct
    if line.total is not None and line.lost is not None:
        rec.packets_received = line.total - line.lost


def _drop_server_zeros(state: _Text, records: list[RunRecord]) -> list[RunRecord]:
    """Old servers print '0.00 Bytes 0.00 bits/sec sender' for the client's
    side they never learned; that line is not a measurement."""
    if not state.is_server:
        return records
    measured = {r.flow for r in records if r.bytes}
    kept = [r for r in records if r.bytes or r.flow not in measured]
    dropped = {r.flow for r in records if not (r.bytes or r.flow not in measured)}
    for rec in kept:
        if rec.flow in dropped:
            rec.warnings.append("server output: the other side is printed as zeros (not measured), dropped")
    return kept


def _text_intervals(state: _Text, records: list[RunRecord], first: int) -> list[IntervalRecord]:
    lines = [l for l in state.lines if not l.summary]
    flows = _flows(lines)
    index = _record_index(records, first)
    server_sides = {r.side for r in records[first:]}
    rows = []
    for line in lines:
        side = _interval_side(state, line, server_sides)
        flow = flows[line.number]
        rows.append(IntervalRecord(
            record_index=index(flow, side or ""), start_s=line.start, end_s=line.end, side=side, flow=flow,
            throughput_mbps=line.mbps, bytes=line.bytes, jitter_ms=line.jitter_ms, loss_pct=line.loss_pct,
            packets_lost=line.lost, packets_total=line.total if line.total is not None else line.packets,
            retransmits=line.retransmits, omitted=line.omitted,
        ))
    return rows


def _interval_side(state: _Text, line: _Line, own_sides: set[str | None]) -> str | None:
    """Which side the host that printed the interval is on."""
    if line.role:
        return "sender" if line.role.startswith("TX") else "receiver"
    if line.jitter_ms is not None:
        return "receiver"
    if line.packets is not None or line.retransmits is not None:
        return "sender"
    if state.is_server:
        return next(iter(own_sides)) if len(own_sides) == 1 else None
    return "receiver" if state.reverse else "sender"
