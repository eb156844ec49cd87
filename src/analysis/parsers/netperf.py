"""netperf 2.4-2.7 text outputs -> RunRecords.

netperf prints one result table per run, shaped by the test family
(STREAM, UDP_STREAM, RR) and by the options: ``-c/-C`` add CPU and
service-demand columns, ``-f`` changes the throughput unit (named only in
the table header), ``-P 0`` drops banner and header, ``-v 0`` keeps only
the figure of merit, ``-v 2`` appends extra sections, ``-I/-i`` add a
confidence banner and maybe a ``!!! WARNING`` block, ``-D`` adds interim
lines, and the omni output selectors (``-k``, ``-o``, ``-O``) replace the
table altogether. docs/formats/netperf.md lists every variant and pitfall.
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass, field

from analysis.parsers import units
from analysis.errors import ParseError
from analysis.parsers.records import IntervalRecord, ParseResult, RunRecord
from analysis.parsers.text import clean_lines
from analysis.parsers.values import ip_version_of, to_float

TOOL = "netperf"

# ---------------------------------------------------------------- patterns

_BANNER = re.compile(
    r"^(?P<migrated>MIGRATED )?(?P<title>[A-Za-z_/| ]+?) TEST from "
    r"(?P<lname>\S+) \((?P<laddr>[^)]*)\) port \d+ (?P<lfam>AF_\w+) to "
    r"(?P<rname>\S+) \((?P<raddr>[^)]*)\) port \d+ (?P<rfam>AF_\w+)(?P<rest>.*)$"
)
_TITLES = {
    "TCP STREAM": ("TCP_STREAM", "TCP"),
    "TCP MAERTS": ("TCP_MAERTS", "TCP"),
    "TCP SENDFILE": ("TCP_SENDFILE", "TCP"),
    "UDP STREAM": ("UDP_STREAM", "UDP"),
    "UDP UNIDIRECTIONAL SEND": ("UDP_STREAM", "UDP"),
    "TCP REQUEST/RESPONSE": ("TCP_RR", "TCP"),
    "UDP REQUEST/RESPONSE": ("UDP_RR", "UDP"),
    "TCP Connect/Request/Response": ("TCP_CRR", "TCP"),
    "TCP Connect/Close": ("TCP_CC", "TCP"),
}
_CONF = re.compile(r"\+/-\s*(?P<half>[\d.]+)%\s+(?:@\s+)?(?P<level>\d+)% conf")
_BURST = re.compile(r"first burst (\d+)")
_INTERIM = re.compile(
    r"^Interim result:\s+(?P<value>[\d.]+) (?P<unit>\S+) over (?P<dur>[\d.]+) seconds ending at (?P<end>[\d.]+)$"
)
_CONFID_WARN = re.compile(r"^!!! Confidence intervals: Throughput\s*:\s*(?P<width>[\d.]+)%")
_UNIT = re.compile(r"10\^([369])bits/s|([KMG])Bytes\s*/s")
_KEYVAL = re.compile(r"^([A-Z][A-Z0-9_]+)=(.*)$")

# A tool's own error words: (pattern, also-usage?). Usage text after a bad
# global option is dropped from the error, the option complaint kept.
_ERRORS = (
    re.compile(r"^establish control: are you sure there is a netserver listening on (?P<host>\S+) at port"),
    re.compile(r"^establish_control could not establish the control connection"),
    re.compile(r"^resolve_host: could not resolve host"),
    re.compile(r"^Netperf could not resolve "),
    re.compile(r"^netperf: (invalid option|option requires an argument)"),
    re.compile(r"^The test you requested \(\S+\) is unknown to this netperf"),
    re.compile(r"^Only 95% and 99% confidence level is supported"),
    re.compile(r"^\w+: data (send|recv) error"),
    re.compile(r"^(send_|recv_)?\w+: (Connection refused|Connection reset by peer|no response received)"),
)
_USAGE = re.compile(r"^Usage: netperf ")
_CLASSIC_HEADER = re.compile(r"^(Recv\s+Send\s+Send|Local /Remote|Socket\s+Message\s+Elapsed)")

_DECIMAL_LETTER = {"3": "k", "6": "m", "9": "g"}
_RR_TESTS = ("TCP_RR", "UDP_RR")  # one transaction outstanding: 1000/tps is an RTT


@dataclass
class _Context:
    """What the banner and the side sections say about a run."""

    source: str
    test: str | None = None
    transport: str | None = None
    ip_version: int | None = None
    local_address: str | None = None
    remote_address: str | None = None
    direction: str | None = None  # omni banner: Send | Recv | Send|Recv
    burst: int | None = None
    banner: bool = False
    conf_level: float | None = None
    conf_desired_half: float | None = None
    conf_warning_width: float | None = None
    interim: list[tuple[int, re.Match]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    hint_test: str | None = None  # parser hint: the -t the run used (a -P 0 output does not print it)
    hint_unit: str | None = None  # parser hint: the -f letter (only a table header prints the unit)


# ---------------------------------------------------------------- detect


def detect(text: str) -> bool:
    """netperf banners, interim lines, its error words, omni key=value
    selectors, or a bare ``-P 0`` result block."""
    lines = [l for l in clean_lines(text[:200_000]) if l.strip()]
    if not lines:
        return False
    for line in lines[:400]:
        if _BANNER.match(line) or _INTERIM.match(line) or any(p.match(line) for p in _ERRORS):
            return True
        m = _KEYVAL.match(line)
        if m and m.group(1) in _OMNI_KEYS:
            return True
    return _headerless_shape(lines) is not None or any(_has_unit_field(l) for l in lines[:4])


def _has_unit_field(line: str) -> bool:
    """An omni value line printed without its titles (-P 0 with -o/-O)."""
    return any(t == "Trans/s" or _UNIT.fullmatch(t) for t in re.split(r"[\s,]+", line.strip()))


# ---------------------------------------------------------------- parse


TESTS = tuple(sorted({t for t, _ in _TITLES.values()}))
UNIT_LETTERS = "bBkmgKMG"
_FAMILY = {name: ("rr" if name in ("TCP_RR", "UDP_RR", "TCP_CRR", "TCP_CC") else
                  "udp-stream" if name == "UDP_STREAM" else "stream") for name in TESTS}


def parse(text: str, source: str = "<string>", *, test: str | None = None, unit: str | None = None) -> ParseResult:
    """Parse a netperf output. What a ``-P 0`` output does not print can be
    given: ``test`` (the ``-t`` name, e.g. ``TCP_MAERTS``) and ``unit`` (the
    ``-f`` letter, for a throughput printed without its table header). A
    banner, when there is one, wins over the hints only if they agree."""
    lines = clean_lines(text)
    if not any(l.strip() for l in lines):
        raise ParseError(source, 1, "empty output: nothing to parse")
    if test is not None and test not in TESTS:
        raise ParseError(source, None, f"parser hint test={test!r} is no netperf test this parser knows: {', '.join(TESTS)}")
    if unit is not None and (len(unit) != 1 or unit not in UNIT_LETTERS):
        raise ParseError(source, None, f"parser hint unit={unit!r} is no netperf -f letter: one of {', '.join(UNIT_LETTERS)}")
    ctx = _Context(source, hint_test=test, hint_unit=unit)
    body, error_lines = _split_errors(lines, _read_preamble(lines, ctx))
    if test is not None and ctx.test not in (None, "omni", test):
        raise ParseError(source, None, f"parser hint test={test} contradicts the banner, which names {ctx.test}")
    if error_lines and not body:
        return ParseResult(TOOL, "error", [_failed_record(ctx, _words(lines, error_lines))])
    if error_lines:
        ctx.warnings.append(_words(lines, error_lines))
    variant, records, intervals = _parse_body(lines, body, ctx)
    for i, rec in enumerate(records):
        rec.record_index = i
        rec.warnings = list(ctx.warnings) + rec.warnings
    return ParseResult(TOOL, variant, records, intervals)


def _read_preamble(lines: list[str], ctx: _Context) -> list[int]:
    """Consume banner, confidence warning and interim lines; return the
    indices of the remaining non-blank lines (the result section)."""
    body: list[int] = []
    for i, line in enumerate(lines):
        if _USAGE.match(line):
            break  # the usage text after a bad option is not the tool's verdict
        if not line.strip():
            continue
        m = _BANNER.match(line)
        if m and not ctx.banner:
            _apply_banner(m, ctx, i)
            continue
        if line.startswith("!!!"):
            _apply_warning_line(line, ctx)
            continue
        im = _INTERIM.match(line)
        if im:
            ctx.interim.append((i, im))
            continue
        body.append(i)
    return body


def _apply_banner(m: re.Match, ctx: _Context, index: int) -> None:
    title = m.group("title")
    if title.startswith("OMNI "):
        ctx.test, ctx.direction = "omni", title[5:]
    elif title in _TITLES:
        ctx.test, ctx.transport = _TITLES[title]
    else:
        raise ParseError(ctx.source, index + 1, f"unknown netperf test banner {title!r}; expected one of {sorted(_TITLES)} or OMNI")
    ctx.banner = True
    ctx.ip_version = _family(m.group("rfam")) or _family(m.group("lfam"))
    ctx.local_address = _address(m.group("lname"), m.group("laddr"))
    ctx.remote_address = _address(m.group("rname"), m.group("raddr"))
    rest = m.group("rest")
    conf = _CONF.search(rest)
    if conf:
        ctx.conf_level = float(conf.group("level"))
        ctx.conf_desired_half = float(conf.group("half"))
    burst = _BURST.search(rest)
    ctx.burst = _count(burst.group(1)) if burst else None


def _count(digits: str) -> int:
    """A printed count; only whether it is 0 matters to the parser, so a
    number too long for int() stands for 'many'."""
    return int(digits) if len(digits) <= 18 else 10**18


def _family(fam: str) -> int | None:
    return {"AF_INET": 4, "AF_INET6": 6}.get(fam)


def _address(name: str, numeric: str) -> str:
    """netperf 2.7 often leaves the numeric form empty: ``127.0.0.1 ()``."""
    return numeric or name


def _apply_warning_line(line: str, ctx: _Context) -> None:
    if "Desired confidence was not achieved" in line:
        ctx.warnings.append(line.lstrip("! ").strip())
    m = _CONFID_WARN.match(line)
    if m:
        ctx.conf_warning_width = float(m.group("width"))
        ctx.warnings.append(f"achieved throughput confidence width {m.group('width')}% (full width)")


# ---------------------------------------------------------------- errors


def _is_result_line(line: str) -> bool:
    """A line of a result: a number row, a table or omni header, key=value."""
    first = re.split(r"[\s,]", line.strip())[0]
    keyval = _KEYVAL.match(line.strip())
    return (to_float(first) is not None or _CLASSIC_HEADER.match(line) is not None
            or first in _OMNI_COLUMN_STARTS or (keyval is not None and keyval.group(1) in _OMNI_KEYS))


def _split_errors(lines: list[str], body: list[int]) -> tuple[list[int], list[int]]:
    """Separate the tool's error words (from a known error line up to the
    next result line) from the result section."""
    result: list[int] = []
    errors: list[int] = []
    in_error = False
    for i in body:
        if any(p.match(lines[i]) for p in _ERRORS):
            in_error = True
        elif _is_result_line(lines[i]):
            in_error = False
        (errors if in_error else result).append(i)
    return result, errors


def _words(lines: list[str], indices: list[int]) -> str:
    return "\n".join(lines[i].strip() for i in indices)


def _failed_record(ctx: _Context, words: str) -> RunRecord:
    m = _ERRORS[0].match(words)
    remote = ctx.remote_address or (m.group("host").rstrip("?") if m else None)
    return RunRecord(
        tool=TOOL, test=ctx.test, transport=ctx.transport,
        ip_version=ctx.ip_version or ip_version_of(remote),
        local_address=ctx.local_address, remote_address=remote,
        status="failed", error=words,
    )


# ---------------------------------------------------------------- body dispatch


def _parse_body(lines: list[str], body: list[int], ctx: _Context):
    if not body:
        raise ParseError(ctx.source, len(lines), "netperf banner without a result: expected a result table, -v 0 figure or omni output")
    first = lines[body[0]].strip()
    if _CLASSIC_HEADER.match(first):
        return _parse_classic_table(lines, body, ctx)
    if to_float(re.split(r"[\s,]", first)[0]) is not None:
        if any(_has_unit_field(lines[i]) for i in body):
            raise ParseError(ctx.source, body[0] + 1, "omni -o/-O values printed without their titles (-P 0): the selectors cannot be named; rerun without -P 0 or use -k")
        return _parse_headerless(lines, body, ctx)
    readers = {"omni-keyval": _read_keyval, "omni-csv": _read_csv, "omni-columns": _read_columns}
    variant = "omni-keyval" if _KEYVAL.match(first) else "omni-csv" if "," in first else "omni-columns"
    if variant == "omni-columns" and first.split()[0] not in _OMNI_COLUMN_STARTS:
        raise ParseError(ctx.source, body[0] + 1, f"unexpected line {first!r}: expected a netperf result table, a -v 0 figure or omni -k/-o/-O output")
    return variant, [_omni_record(readers[variant](lines, body, ctx), ctx)], _intervals(ctx, 0)


# ---------------------------------------------------------------- classic tables


@dataclass
class _Table:
    header: str  # the header lines joined
    rows: list[tuple[int, list[str]]]  # (line index, tokens)
    extra: list[int]  # lines after the result rows (-v 2 sections)


def _split_table(lines: list[str], body: list[int], ctx: _Context) -> _Table:
    header_idx = [i for i in body if to_float(lines[i].split()[0]) is None]
    first_row = next((i for i in body if to_float(lines[i].split()[0]) is not None), None)
    if first_row is None:
        raise ParseError(ctx.source, body[-1] + 1, "netperf table header without a result row")
    head = [i for i in header_idx if i < first_row]
    rows: list[tuple[int, list[str]]] = []
    extra: list[int] = []
    for i in body:
        if i < first_row:
            continue
        if not extra and to_float(lines[i].split()[0]) is not None and _blank_between(lines, rows, i):
            rows.append((i, lines[i].split()))
        else:
            extra.append(i)
    return _Table("\n".join(lines[i] for i in head), rows, extra)


def _blank_between(lines: list[str], rows: list[tuple[int, list[str]]], index: int) -> bool:
    """Result rows are consecutive; a blank line ends them (-v 2 follows)."""
    return not rows or rows[-1][0] == index - 1


def _parse_classic_table(lines: list[str], body: list[int], ctx: _Context):
    table = _split_table(lines, body, ctx)
    header = table.header
    if header.startswith("Local /Remote"):
        return "classic-rr", _rr_records(table, lines, ctx), _intervals(ctx, 0)
    if "Messages" in header and "Okay" in header:
        records = _udp_stream_records(table, ctx, _header_unit(header, ctx, table.rows[0][0] + 1))
        return "classic-udp-stream", records, _intervals(ctx, 0)
    if header.startswith("Recv") and "Throughput" in header:
        rec = _stream_record(table, lines, ctx, _header_unit(header, ctx, table.rows[0][0] + 1))
        return "classic-stream", [rec], _intervals(ctx, 0)
    raise ParseError(ctx.source, body[0] + 1, f"unknown netperf table header {lines[body[0]].strip()!r}; expected a STREAM, UDP_STREAM or RR table")


def _header_unit(header: str, ctx: _Context, line: int) -> str:
    """The ``-f`` letter from the header's unit: ``10^6bits/sec`` -> m,
    ``KBytes  /s`` (CPU layout squeezes it) -> K."""
    m = _UNIT.search(header)
    if not m:
        raise ParseError(ctx.source, line, "netperf table header names no throughput unit (expected 10^Nbits/s or KBytes/MBytes/GBytes/sec)")
    return _DECIMAL_LETTER[m.group(1)] if m.group(1) else m.group(2)


def _numbers(tokens: list[str], count: int, ctx: _Context, line: int, what: str) -> list[float]:
    """The first ``count`` tokens as numbers; what follows is a -B brand."""
    values = [to_float(t) for t in tokens[:count]]
    if len(tokens) < count or any(v is None for v in values):
        raise ParseError(ctx.source, line + 1, f"expected {count} numbers in the {what} row, got {' '.join(tokens)!r}")
    if len(tokens) > count:
        ctx.warnings.append(f"brand (-B): {' '.join(tokens[count:])}")
    return values  # type: ignore[return-value]


def _measured(value: float | None) -> float | None:
    """netperf prints -1 for 'not measured' (CPU, service demand, confidence)."""
    return None if value is None or value == -1 else value


def _cpu_columns(header: str) -> bool:
    return "Utilization" in header or re.search(r"\bCPU\b", header) is not None


def _stream_record(table: _Table, lines: list[str], ctx: _Context, unit: str) -> RunRecord:
    cpu = _cpu_columns(table.header)
    row_line, tokens = table.rows[0]
    v = _numbers(tokens, 9 if cpu else 5, ctx, row_line, "STREAM result")
    rec = _base_record(ctx)
    rec.side = _stream_side(ctx.test)
    rec.recv_socket_bytes, rec.send_socket_bytes, rec.message_size_bytes, rec.duration_s = v[0], v[1], v[2], v[3]
    rec.throughput_mbps = units.netperf_rate_to_mbps(v[4], unit)
    if cpu:
        _set_cpu(rec, v[5:9], per_kb=True)
    rec.bytes = _verbose_stream_bytes(table, lines, ctx)
    return rec


def _stream_side(test: str | None) -> str | None:
    """TCP_STREAM: netperf sends and measures (flush to the receiver is
    timed); TCP_MAERTS: netperf receives and measures."""
    return {"TCP_STREAM": "sender", "TCP_SENDFILE": "sender", "TCP_MAERTS": "receiver"}.get(test or "")


def _set_cpu(rec: RunRecord, values: list[float], per_kb: bool) -> None:
    """CPU columns: utilisation, then service demand in us/KB (STREAM)
    or us per transaction (RR)."""
    rec.cpu_local_pct, rec.cpu_remote_pct = _measured(values[0]), _measured(values[1])
    local, remote = _measured(values[2]), _measured(values[3])
    if per_kb:
        rec.service_demand_local_us_per_kb, rec.service_demand_remote_us_per_kb = local, remote
    else:
        rec.service_demand_local_us_per_tr, rec.service_demand_remote_us_per_tr = local, remote


def _verbose_stream_bytes(table: _Table, lines: list[str], ctx: _Context) -> float | None:
    """-v 2 'Alignment ... Bytes Xfered' block: the 5th number."""
    for i in table.extra:
        tokens = lines[i].split()
        if len(tokens) == 9 and all(to_float(t) is not None for t in tokens):
            return float(tokens[4])
    return None


def _udp_stream_records(table: _Table, ctx: _Context, unit: str) -> list[RunRecord]:
    cpu = _cpu_columns(table.header)
    if len(table.rows) < 2:
        raise ParseError(ctx.source, table.rows[0][0] + 2, "UDP_STREAM needs a sender row and a receiver row")
    (l1, t1), (l2, t2) = table.rows[:2]
    s = _numbers(t1, 8 if cpu else 6, ctx, l1, "UDP_STREAM sender")
    r = _numbers(t2, 6 if cpu else 4, ctx, l2, "UDP_STREAM receiver")
    sender, receiver = _base_record(ctx), _base_record(ctx)
    sender.side, receiver.side = "sender", "receiver"
    sender.send_socket_bytes, sender.message_size_bytes, sender.duration_s = s[0], s[1], s[2]
    sender.packets_sent, sender.throughput_mbps = s[3], units.netperf_rate_to_mbps(s[5], unit)
    sender.send_errors = s[4]
    receiver.recv_socket_bytes, receiver.message_size_bytes, receiver.duration_s = r[0], s[1], r[1]
    receiver.packets_received, receiver.throughput_mbps = r[2], units.netperf_rate_to_mbps(r[3], unit)
    receiver.packets_sent = s[3]
    if s[3] > 0:
        receiver.packets_lost = s[3] - r[2]
        receiver.loss_pct = 100.0 * receiver.packets_lost / s[3]
    if cpu:
        sender.cpu_local_pct, sender.service_demand_local_us_per_kb = _measured(s[6]), _measured(s[7])
        receiver.cpu_remote_pct, receiver.service_demand_remote_us_per_kb = _measured(r[4]), _measured(r[5])
    return [sender, receiver]


def _rr_records(table: _Table, lines: list[str], ctx: _Context) -> list[RunRecord]:
    cpu = _cpu_columns(table.header)
    if len(table.rows) < 2:
        raise ParseError(ctx.source, table.rows[0][0] + 2, "RR table needs the remote socket-size line after the result row")
    line, tokens = table.rows[0]
    v = _numbers(tokens, 10 if cpu else 6, ctx, line, "RR result")
    _numbers(table.rows[1][1], 2, ctx, table.rows[1][0], "RR remote socket size")
    rec = _base_record(ctx)
    rec.side = "both"
    rec.send_socket_bytes, rec.recv_socket_bytes = v[0], v[1]
    rec.message_size_bytes, rec.response_size_bytes = v[2], v[3]
    rec.duration_s, rec.transactions_per_s = v[4], v[5]
    if cpu:
        _set_cpu(rec, v[6:10], per_kb=False)
    rec.rtt_ms = _rr_rtt_ms(rec, ctx, _verbose_rr_latency_us(table, lines))
    return [rec]


def _verbose_rr_latency_us(table: _Table, lines: list[str]) -> float | None:
    """-v 2 'RoundTrip Latency usec/Tran': the 5th of 8 numbers."""
    for i in table.extra:
        tokens = lines[i].split()
        if len(tokens) == 8 and all(to_float(t) is not None for t in tokens):
            return float(tokens[4])
    return None


def _rr_rtt_ms(rec: RunRecord, ctx: _Context, printed_us: float | None) -> float | None:
    """Mean RTT only when one transaction is outstanding (TCP_RR/UDP_RR,
    banner present, first burst 0): netperf's own -v 2 figure, else
    1000 / transactions_per_s."""
    if rec.test not in _RR_TESTS or not ctx.banner or (ctx.burst or 0) > 0:
        return None
    if printed_us is not None:
        return units.us_to_ms(printed_us)
    if rec.transactions_per_s:
        return 1000.0 / rec.transactions_per_s
    return None


def _base_record(ctx: _Context) -> RunRecord:
    rec = RunRecord(
        tool=TOOL, test=ctx.test, transport=ctx.transport,
        ip_version=ctx.ip_version or ip_version_of(ctx.remote_address),
        local_address=ctx.local_address, remote_address=ctx.remote_address,
    )
    _apply_confidence(rec, ctx)
    return rec


def _apply_confidence(rec: RunRecord, ctx: _Context) -> None:
    """Banner '+/-2.500% @ 99% conf.' = the desired half width. The warning
    block's width is netperf's full interval width, stored as +/- half."""
    if ctx.conf_level is None:
        return
    rec.confidence_level_pct = ctx.conf_level
    rec.confidence_achieved = ctx.conf_warning_width is None
    if ctx.conf_warning_width is not None:
        rec.confidence_interval_pct = ctx.conf_warning_width / 2.0


# ---------------------------------------------------------------- -P 0 / -v 0


def _headerless_shape(lines: list[str]) -> str | None:
    """Row shape of a header-less result: counts of numbers per line."""
    rows = [l.split() for l in lines if l.strip()]
    if not rows or len(rows) > 2 or any(to_float(r[0]) is None for r in rows):
        return None
    counts = tuple(_leading_numbers(r) for r in rows)
    shapes = {
        (5,): "stream", (9,): "stream-cpu", (6, 4): "udp", (8, 6): "udp-cpu",
        (6, 2): "rr", (10, 2): "rr-cpu", (1,): "figure",
    }
    return shapes.get(counts)


def _leading_numbers(tokens: list[str]) -> int:
    n = 0
    for t in tokens:
        if to_float(t) is None:
            break
        n += 1
    return n


DEFAULT_UNIT = "m"  # what netperf prints without -f for a stream test: 10^6bits/s
_SHAPE_FAMILY = {"stream": "stream", "stream-cpu": "stream", "udp": "udp-stream", "udp-cpu": "udp-stream",
                 "rr": "rr", "rr-cpu": "rr"}
_FAMILY_TEXT = {
    "stream": "a TCP stream test (TCP_STREAM, TCP_MAERTS or TCP_SENDFILE: same columns, so which one, and so the "
              "side, is not printed)",
    "udp-stream": "UDP_STREAM (a sender and a receiver row)",
    "rr": "a request/response test (TCP_RR, UDP_RR, TCP_CRR or TCP_CC: same columns, so the test and transport "
          "are not printed)",
}


def _parse_headerless(lines: list[str], body: list[int], ctx: _Context):
    """-P 0: no banner and no header. The row shape decides the family where
    it can (one row of 5 numbers, 9 with -c/-C: a TCP stream test; 6 and 2,
    10 and 2 with CPU: request/response; 6 and 4, 8 and 6: UDP_STREAM); a
    ``test`` hint names the test, a ``unit`` hint the -f unit. A warning
    says which of the two the record rests on."""
    shape = _headerless_shape([lines[i] for i in body])
    if shape is None:
        raise ParseError(ctx.source, body[0] + 1, "unrecognised netperf result rows: expected a STREAM, UDP_STREAM or RR row (with or without -c/-C), or a -v 0 figure")
    if shape == "figure":
        return _parse_figure(lines, body[0], ctx)
    family = _SHAPE_FAMILY[shape]
    if not ctx.banner:
        _test_without_banner(ctx, family, body[0] + 1)
    table = _Table("", [(i, lines[i].split()) for i in body], [])
    if family == "udp-stream":
        table.header = "CPU" if shape == "udp-cpu" else ""
        records = _udp_stream_records(table, ctx, ctx.hint_unit or DEFAULT_UNIT)
        return "nobanner-udp-stream", _unit_hinted(records, ctx, table.rows[0][1][5]), _intervals(ctx, 0)
    if family == "rr":
        table.header = "CPU" if shape == "rr-cpu" else ""
        return "nobanner-rr", _rr_records(table, lines, ctx), _intervals(ctx, 0)
    table.header = "Utilization" if shape == "stream-cpu" else ""
    record = _stream_record(table, lines, ctx, ctx.hint_unit or DEFAULT_UNIT)
    return "nobanner-stream", _unit_hinted([record], ctx, table.rows[0][1][4]), _intervals(ctx, 0)


def _test_without_banner(ctx: _Context, family: str, line: int) -> None:
    """Name the test of a bannerless output from the hint, checked against
    the columns, or from the columns alone where they decide it."""
    hint = ctx.hint_test
    if hint is not None:
        if _FAMILY[hint] != family:
            raise ParseError(ctx.source, line, f"parser hint test={hint} does not fit the columns, which are those of "
                             f"{_FAMILY_TEXT[family]}")
        ctx.test, ctx.transport = hint, next(t for n, t in _TITLES.values() if n == hint)
        ctx.warnings.append(f"-P 0 (no banner): test {hint} from the parser hint netperf.test, checked against "
                            "the columns; no address family or first burst is printed")
        return
    if family == "udp-stream":
        ctx.test, ctx.transport = "UDP_STREAM", "UDP"
    elif family == "stream":
        ctx.transport = "TCP"
    ctx.warnings.append(f"-P 0 (no banner): the columns make it {_FAMILY_TEXT[family]}; no address family or first "
                        "burst is printed" + ("" if ctx.test else "; name the test with the parser hint "
                                                                  "netperf.test=NAME"))


def _unit_less(ctx: _Context, raw: str) -> None:
    ctx.warnings.append(f"throughput printed without its unit (no table header): raw figure {raw} in the run's -f "
                        "unit, not converted; give the -f letter with the parser hint netperf.unit")


def _unit_hinted(records: list[RunRecord], ctx: _Context, raw: str) -> list[RunRecord]:
    """The unit is only in the header: without a unit a figure stays None
    (and the record says so). The records were read in the hint's unit or
    netperf's default, whichever :func:`_headerless_unit` chose."""
    if _headerless_unit(ctx) is not None:
        return records
    _unit_less(ctx, raw)
    for rec in records:
        rec.throughput_mbps = None
    return records


def _headerless_unit(ctx: _Context) -> str | None:
    """The -f letter of a stream figure printed without its header: the
    ``unit`` hint; else, when the ``test`` hint names the test (whoever
    gives hints from the command line names -f too if it was used), the
    unit netperf prints for that test without -f, 10^6bits/s (``m``; see
    the headers of tcp_stream_v4 and v2.7.1_tcp_stream); else unknown."""
    if ctx.hint_unit is not None:
        ctx.warnings.append(f"throughput unit -f {ctx.hint_unit} from the parser hint netperf.unit (no table header)")
        return ctx.hint_unit
    if ctx.hint_test is not None:
        ctx.warnings.append(f"throughput unit not printed (no table header): read in netperf's default unit for "
                            f"{ctx.hint_test}, 10^6bits/s (-f m), as the parser hint netperf.test names the test and "
                            "no netperf.unit names another -f")
        return DEFAULT_UNIT
    return None


def _parse_figure(lines: list[str], index: int, ctx: _Context):
    """-v 0: only the figure of merit. RR figures are transactions/s; a
    STREAM figure has no unit (the -f unit is only in a header). With -P 0
    as well the figure says nothing of its test: a ``test`` hint is needed."""
    if not ctx.banner:
        if ctx.hint_test is None:
            raise ParseError(ctx.source, index + 1, "-P 0 -v 0 output is a bare figure: it carries no test type and no "
                             "unit; give the parser hint netperf.test=NAME (and netperf.unit=LETTER for a stream "
                             "test), or rerun without -P 0 or with -o/-k selectors")
        ctx.test, ctx.transport = ctx.hint_test, next(t for n, t in _TITLES.values() if n == ctx.hint_test)
        ctx.warnings.append(f"-P 0 -v 0 (a bare figure): test {ctx.hint_test} from the parser hint netperf.test")
    tokens = lines[index].split()
    value = float(tokens[0])
    if len(tokens) > 1:
        ctx.warnings.append(f"brand (-B): {' '.join(tokens[1:])}")
    rec = _base_record(ctx)
    if ctx.test in ("TCP_RR", "UDP_RR", "TCP_CRR", "TCP_CC"):
        rec.side, rec.transactions_per_s = "both", value
        rec.rtt_ms = _rr_rtt_ms(rec, ctx, None)
    else:
        rec.side = "receiver" if ctx.test == "UDP_STREAM" else _stream_side(ctx.test)
        unit = _headerless_unit(ctx)
        if unit is not None:
            rec.throughput_mbps = units.netperf_rate_to_mbps(tokens[0], unit)
        else:
            _unit_less(ctx, tokens[0])
    return "classic-v0", [rec], _intervals(ctx, 0)


# ---------------------------------------------------------------- interim (-D)


def _intervals(ctx: _Context, record_index: int) -> list[IntervalRecord]:
    """'Interim result: X UNIT over D seconds ending at EPOCH' -> rows with
    times relative to the start of the first interval."""
    raw = ctx.interim
    if not raw:
        return []
    t0 = float(raw[0][1].group("end")) - float(raw[0][1].group("dur"))
    rows = []
    for line, m in raw:
        end = round(float(m.group("end")) - t0, 6)
        row = IntervalRecord(record_index=record_index, start_s=round(end - float(m.group("dur")), 6), end_s=end)
        _interim_value(row, float(m.group("value")), m.group("unit"), ctx, line)
        rows.append(row)
    return rows


def _interim_value(row: IntervalRecord, value: float, unit: str, ctx: _Context, line: int) -> None:
    if unit == "Trans/s":
        row.rtt_ms = 1000.0 / value if value and ctx.test in _RR_TESTS and not ctx.burst else None
        return
    m = _UNIT.fullmatch(unit)
    if not m:
        raise ParseError(ctx.source, line + 1, f"unknown interim unit {unit!r}; expected 10^Nbits/s, [KMG]Bytes/s or Trans/s")
    row.throughput_mbps = units.netperf_rate_to_mbps(value, _DECIMAL_LETTER[m.group(1)] if m.group(1) else m.group(2))


# ---------------------------------------------------------------- omni selectors

# Human titles (-o / -O) of the selectors this parser maps.
_OMNI_TITLES = {
    "Protocol": "PROTOCOL", "Direction": "DIRECTION", "Elapsed Time (sec)": "ELAPSED_TIME",
    "Throughput": "THROUGHPUT", "Throughput Units": "THROUGHPUT_UNITS",
    "Local Send Socket Size Final": "LSS_SIZE_END", "Local Recv Socket Size Final": "LSR_SIZE_END",
    "Remote Send Socket Size Final": "RSS_SIZE_END", "Remote Recv Socket Size Final": "RSR_SIZE_END",
    "Local Send Size": "LOCAL_SEND_SIZE", "Remote Send Size": "REMOTE_SEND_SIZE",
    "Request Size Bytes": "REQUEST_SIZE", "Response Size Bytes": "RESPONSE_SIZE",
    "Local CPU Util %": "LOCAL_CPU_UTIL", "Remote CPU Util %": "REMOTE_CPU_UTIL",
    "Local Service Demand": "LOCAL_SD", "Remote Service Demand": "REMOTE_SD", "Service Demand Units": "SD_UNITS",
    "Confidence Level Percent": "CONFIDENCE_LEVEL", "Confidence Width Target": "CONFIDENCE_INTERVAL",
    "Throughput Confidence Width (%)": "THROUGHPUT_CONFID", "Local CPU Confidence Width (%)": "LOCAL_CPU_CONFID",
    "Remote CPU Confidence Width (%)": "REMOTE_CPU_CONFID",
    "Transaction Rate Tran/s": "TRANSACTION_RATE", "Round Trip Latency usec/tran": "RT_LATENCY",
    "Initial Burst Requests": "BURST_SIZE", "Local Transport Retransmissions": "LOCAL_TRANSPORT_RETRANS",
    "Source Address": "SOURCE_ADDR", "Destination Address": "DEST_ADDR",
    "Local Send Calls": "LOCAL_SEND_CALLS", "Remote Recv Calls": "REMOTE_RECV_CALLS",
    "Local Bytes Sent": "LOCAL_BYTES_SENT", "Local Bytes Received": "LOCAL_BYTES_RECVD",
    "Remote Bytes Received": "REMOTE_BYTES_RECVD",
    "Minimum Latency Microseconds": "MIN_LATENCY", "Maximum Latency Microseconds": "MAX_LATENCY",
    "50th Percentile Latency Microseconds": "P50_LATENCY", "90th Percentile Latency Microseconds": "P90_LATENCY",
    "99th Percentile Latency Microseconds": "P99_LATENCY", "Mean Latency Microseconds": "MEAN_LATENCY",
    "Stddev Latency Microseconds": "STDDEV_LATENCY",
}
_OMNI_KEYS = frozenset(_OMNI_TITLES.values()) | {"SOCKET_TYPE", "UUID", "COMMAND_LINE", "RESULT_BRAND", "DEST_FAMILY", "SOURCE_FAMILY"}
_OMNI_COLUMN_STARTS = frozenset(t.split()[0] for t in _OMNI_TITLES) | {"Socket", "Minimum", "Maximum", "Mean", "Stddev", "50th", "90th", "99th"}
# An RR test's latency is its round trip; a stream test's is the time of one
# send (or recv) call, no round trip: it goes to the latency_* columns.
_LATENCY_FIELDS_RR = (
    ("MIN_LATENCY", "rtt_min_ms"), ("MEAN_LATENCY", "rtt_ms"), ("P50_LATENCY", "latency_p50_ms"),
    ("P90_LATENCY", "latency_p90_ms"), ("P99_LATENCY", "latency_p99_ms"), ("MAX_LATENCY", "rtt_max_ms"),
    ("STDDEV_LATENCY", "rtt_sd_ms"),
)
_LATENCY_FIELDS_STREAM = (
    ("MIN_LATENCY", "latency_min_ms"), ("MEAN_LATENCY", "latency_ms"), ("P50_LATENCY", "latency_p50_ms"),
    ("P90_LATENCY", "latency_p90_ms"), ("P99_LATENCY", "latency_p99_ms"), ("MAX_LATENCY", "latency_max_ms"),
    ("STDDEV_LATENCY", "latency_sd_ms"),
)


def _read_keyval(lines: list[str], body: list[int], ctx: _Context) -> dict[str, str]:
    out = {}
    for i in body:
        m = _KEYVAL.match(lines[i].strip())
        if not m:
            raise ParseError(ctx.source, i + 1, f"expected KEY=VALUE omni output (-k), got {lines[i].strip()!r}")
        out[m.group(1)] = m.group(2).strip()
    return out


def _read_csv(lines: list[str], body: list[int], ctx: _Context) -> dict[str, str]:
    """-o: a title line and a value line (values may be quoted)."""
    if len(body) != 2:
        raise ParseError(ctx.source, body[0] + 1, "omni -o output must be one title line and one value line (with -P 0 netperf drops the titles)")
    titles, values = (next(csv.reader([lines[i]])) for i in body)
    if len(titles) != len(values):
        raise ParseError(ctx.source, body[1] + 1, f"omni -o value line has {len(values)} fields for {len(titles)} titles")
    return _by_selector(titles, values)


def _read_columns(lines: list[str], body: list[int], ctx: _Context) -> dict[str, str]:
    """-O: titles wrapped over several header lines, one value line. Column
    starts are where the left-aligned values start; a value containing a
    blank splits its column, whose cut title then maps to nothing."""
    value_line = lines[body[-1]]
    starts = [m.start() for m in re.finditer(r"\S+", value_line)]
    header = [lines[i] for i in body[:-1]]
    if not header:
        raise ParseError(ctx.source, body[-1] + 1, "omni -O values without column titles")
    bounds = list(zip(starts, starts[1:] + [None]))
    titles = [" ".join(" ".join(h[a:b].split()) for h in header if h[a:b].strip()) for a, b in bounds]
    values = [value_line[a:b].strip() for a, b in bounds]
    return _by_selector(titles, values)


def _by_selector(titles: list[str], values: list[str]) -> dict[str, str]:
    return {_OMNI_TITLES[t.strip()]: v.strip() for t, v in zip(titles, values) if t.strip() in _OMNI_TITLES}


def _omni_float(sel: dict[str, str], key: str) -> float | None:
    return _measured(to_float(sel[key])) if key in sel else None


def _omni_record(sel: dict[str, str], ctx: _Context) -> RunRecord:
    rec = _base_record(ctx)
    if ctx.conf_warning_width is None:
        rec.confidence_achieved = None  # selectors suppress the WARNING block
    direction = sel.get("DIRECTION") or ctx.direction or _classic_direction(ctx.test)
    rec.transport = sel.get("PROTOCOL") or rec.transport
    rec.local_address = ctx.local_address or sel.get("SOURCE_ADDR")
    rec.remote_address = ctx.remote_address or sel.get("DEST_ADDR")
    rec.ip_version = rec.ip_version or ip_version_of(rec.remote_address)
    rec.duration_s = _omni_float(sel, "ELAPSED_TIME")
    burst = _omni_float(sel, "BURST_SIZE")
    if burst is not None and math.isfinite(burst):
        ctx.burst = int(burst)
    rr = direction == "Send|Recv"
    _omni_rate(rec, sel, rr, ctx)
    _omni_sizes(rec, sel, direction)
    _omni_cpu(rec, sel)
    _omni_confidence(rec, sel)
    for key, name in _LATENCY_FIELDS_RR if rr else _LATENCY_FIELDS_STREAM:
        value = _omni_float(sel, key)
        setattr(rec, name, units.us_to_ms(value) if value is not None else None)
    if rr:
        rec.side = "both"
        if rec.rtt_ms is None:
            rt = _omni_float(sel, "RT_LATENCY")
            rec.rtt_ms = units.us_to_ms(rt) if rt is not None and not ctx.burst else _rr_rtt_ms(rec, ctx, None)
    else:
        rec.side = _omni_stream_side(direction, rec.transport)
    rec.retransmits = _omni_float(sel, "LOCAL_TRANSPORT_RETRANS")
    return rec


def _classic_direction(test: str | None) -> str | None:
    if test in ("TCP_RR", "UDP_RR", "TCP_CRR", "TCP_CC"):
        return "Send|Recv"
    return {"TCP_STREAM": "Send", "UDP_STREAM": "Send", "TCP_SENDFILE": "Send", "TCP_MAERTS": "Recv"}.get(test or "")


def _omni_stream_side(direction: str | None, transport: str | None) -> str | None:
    """omni THROUGHPUT of a UDP send test is what netserver received."""
    if direction == "Send":
        return "receiver" if transport == "UDP" else "sender"
    return "receiver" if direction == "Recv" else None


def _omni_rate(rec: RunRecord, sel: dict[str, str], rr: bool, ctx: _Context) -> None:
    value, unit = _omni_float(sel, "THROUGHPUT"), sel.get("THROUGHPUT_UNITS")
    rec.transactions_per_s = _omni_float(sel, "TRANSACTION_RATE")
    if value is None:
        return
    if unit == "Trans/s" or (unit is None and rr):
        rec.transactions_per_s = rec.transactions_per_s if rec.transactions_per_s is not None else value
        return
    m = _UNIT.fullmatch(unit or "")
    if not m:
        ctx.warnings.append(f"THROUGHPUT {sel['THROUGHPUT']} without a known THROUGHPUT_UNITS ({unit!r}): not converted")
        return
    rec.throughput_mbps = units.netperf_rate_to_mbps(value, _DECIMAL_LETTER[m.group(1)] if m.group(1) else m.group(2))


def _omni_sizes(rec: RunRecord, sel: dict[str, str], direction: str | None) -> None:
    recv = direction == "Recv"
    if direction == "Send|Recv":
        rec.message_size_bytes = _omni_float(sel, "REQUEST_SIZE")
        rec.response_size_bytes = _omni_float(sel, "RESPONSE_SIZE")
        rec.send_socket_bytes, rec.recv_socket_bytes = _omni_float(sel, "LSS_SIZE_END"), _omni_float(sel, "LSR_SIZE_END")
        return
    rec.message_size_bytes = _omni_float(sel, "REMOTE_SEND_SIZE" if recv else "LOCAL_SEND_SIZE")
    rec.send_socket_bytes = _omni_float(sel, "RSS_SIZE_END" if recv else "LSS_SIZE_END")
    rec.recv_socket_bytes = _omni_float(sel, "LSR_SIZE_END" if recv else "RSR_SIZE_END")
    rec.bytes = _omni_float(sel, "LOCAL_BYTES_RECVD" if recv else "LOCAL_BYTES_SENT")
    if rec.transport == "UDP" and not recv:
        rec.packets_sent = _omni_float(sel, "LOCAL_SEND_CALLS")
        rec.packets_received = _omni_float(sel, "REMOTE_RECV_CALLS")
        rec.bytes = _omni_float(sel, "REMOTE_BYTES_RECVD")
        if rec.packets_sent and rec.packets_received is not None:
            rec.packets_lost = rec.packets_sent - rec.packets_received
            rec.loss_pct = 100.0 * rec.packets_lost / rec.packets_sent


def _omni_cpu(rec: RunRecord, sel: dict[str, str]) -> None:
    rec.cpu_local_pct, rec.cpu_remote_pct = _omni_float(sel, "LOCAL_CPU_UTIL"), _omni_float(sel, "REMOTE_CPU_UTIL")
    if sel.get("SD_UNITS") == "usec/KB":
        rec.service_demand_local_us_per_kb = _omni_float(sel, "LOCAL_SD")
        rec.service_demand_remote_us_per_kb = _omni_float(sel, "REMOTE_SD")
    elif sel.get("SD_UNITS") == "usec/Tran":
        rec.service_demand_local_us_per_tr = _omni_float(sel, "LOCAL_SD")
        rec.service_demand_remote_us_per_tr = _omni_float(sel, "REMOTE_SD")


def _omni_confidence(rec: RunRecord, sel: dict[str, str]) -> None:
    """CONFIDENCE_INTERVAL is the target full width, *_CONFID the achieved
    full widths; netperf prints no WARNING block with selectors, so
    'achieved' is the comparison netperf itself makes."""
    level = _omni_float(sel, "CONFIDENCE_LEVEL")
    if not level:
        return  # 0: no -I/-i given
    rec.confidence_level_pct = level
    target = _omni_float(sel, "CONFIDENCE_INTERVAL")
    widths = [w for w in (_omni_float(sel, k) for k in ("THROUGHPUT_CONFID", "LOCAL_CPU_CONFID", "REMOTE_CPU_CONFID")) if w is not None]
    thr = _omni_float(sel, "THROUGHPUT_CONFID")
    rec.confidence_interval_pct = thr / 2.0 if thr is not None else None
    rec.confidence_achieved = all(w <= target for w in widths) if target is not None and widths else None
