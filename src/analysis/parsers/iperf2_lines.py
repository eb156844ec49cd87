"""The iperf 2 line grammar shared by the text and CSV readers: report
lines and the columns after their rate in every version's layout (2.0.x,
2.1.x, 2.2.x, with and without ``-e``), and the tool's own error words.

Columns after the rate, by version (``-e`` unless said):

* TCP sender: ``Write/Err Rtry Cwnd/RTT`` -- 2.0.14a ``2685K/342 us``
  (its final: ``NA/0 us``, nothing measured), 2.1 ``895K/91(84) us``
  (RTT and its variance), 2.2 ``InF(pkts)/Cwnd(pkts)/RTT(var)``
  ``127K(2)/767K(12)/133(45) us``; ``[SUM]`` only ``Write/Err Rtry``.
* TCP receiver: ``Reads=Dist`` (``9393=2:7:3:1:2:2:1:9375``).
* UDP sender: ``Write/Err PPS`` (2.0, 2.1) or ``Write/Err/Timeo PPS`` (2.2).
* UDP receiver: ``Jitter Lost/Total (pct)``, with -e ``Latency
  avg/min/max/stdev`` (2.0.14a pads it: ``0.009/ 0.002/ 1.090/ 0.052 ms``)
  and then ``PPS`` and extras each version names differently (``inP
  NetPwr``, ``Rx/inP``, ``Read/Timeo/NA``, ``Read/Timeo/Trunc``) that hold
  no canonical column.
"""

from __future__ import annotations

import re

from analysis.errors import ParseError
from analysis.parsers.iperf2_model import Row
from analysis.parsers.units import UnitError, rate_to_mbps, size_to_bytes, us_to_ms
from analysis.parsers.values import to_float

NUM = r"\d+(?:\.\d+)?"
ID = r"^\[\s*(?P<id>\*?\d+|SUM(?:-\d+)?|FD\d+)\s*\]\s*"
REPORT = re.compile(
    ID + rf"(?P<start>{NUM})\s*-\s*(?P<end>{NUM})\s+sec\s+"
    rf"(?P<size>{NUM})\s+(?P<size_unit>[KMGT]?Bytes)\s+"
    rf"(?P<rate>{NUM})\s+(?P<rate_unit>[KMGT]?(?:bits|Bytes)/sec)(?P<tail>.*)$"
)
OOO = re.compile(ID + rf"(?P<start>{NUM})\s*-\s*(?P<end>{NUM})\s+sec\s+(?P<n>\d+) datagrams received out-of-order$")
SENT = re.compile(ID + r"Sent (?P<n>\d+) datagrams$")
SERVER_REPORT = re.compile(ID + r"Server Report:$")
CONNECTED = re.compile(
    ID + r"local (?P<local>\S+) port (?P<lport>\d+) connected with (?P<remote>\S+) port (?P<rport>\d+)"
    r"(?P<rest>.*)$"
)
STARTED = re.compile(r" on (?P<date>\d{4}-\d{2}-\d{2}) (?P<time>\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?) \((?P<tz>[^)]+)\)")
IGNORED_BRACKETED = re.compile(r"^\[\s*(?:ID|CT|SUM-cnt)\s*\]|" + ID + r"MSS size \d+ bytes")
ACK_WARNING = re.compile(ID + r"(?P<msg>WARNING: .*)$")

_LATENCY = rf"(?P<lat_avg>{NUM})/\s*(?P<lat_min>{NUM})/\s*(?P<lat_max>{NUM})/\s*(?P<lat_sd>{NUM})\s+ms"
_EXTRA = r"(?:\s+[\w.=:/()-]+)*"  # -e extras of no canonical column (pps, inP, NetPwr, Read/Timeo/NA ...)
TAIL_UDP = re.compile(
    rf"^\s+(?:(?P<jitter>{NUM})\s+ms\s+)?(?P<lost>-?\d+)/\s*(?P<total>-?\d+)\s+\((?P<pct>[-+0-9.e]+|-?nan)%\)"
    rf"(?:\s+{_LATENCY}{_EXTRA})?$"
)
TAIL_TCP_E = re.compile(
    r"^\s+(?P<writes>\d+)/(?P<errs>\d+)\s+(?P<retry>\d+)"
    r"(?:\s+(?:\d+K\(\d+\)/)?(?P<cwnd>\d+K|NA)(?:\(\d+\))?/(?P<rtt>\d+)(?:\(\d+\))?\s+us(?:\s+\S+)?)?$"
)
TAIL_UDP_E_SENDER = re.compile(r"^\s+\d+/\d+(?:/\d+)?\s+-?\d+\s+pps$")
TAIL_TCP_E_RECEIVER = re.compile(r"^\s+\d+=[\d:]+$")
TAIL_UDP_DATAGRAMS_PPS = re.compile(r"^\s+\d+\s+\d+ pps$")

# The tool's own error words: 2.0/2.1 print them unbracketed ('tcp connect
# failed: Connection refused', 'read failed: ...'), 2.2 inside a stream's
# brackets ('[  1] tcp connect to H port P failed (Connection refused) on
# DATE (UTC)', '[  1] Read UDP fin failed: ...'); option errors name the program.
ERROR = re.compile(
    r"^(?:(?:tcp|udp) )?(?:connect|read|write|recv|send|bind|listen|shutdown)\w* failed: .+$|"
    r"^\S*iperf: (?:unrecognized option|invalid option|option requires an argument|ignoring extra argument).*$|"
    r"^ERROR: .+$",
    re.IGNORECASE,
)
BRACKETED_ERROR = re.compile(ID + r"(?P<msg>[A-Za-z][^\[\]]*? failed\b.*?)(?: on \d{4}-\d{2}-\d{2} [\d:.]+ \([^)]*\))?$")
WARNING = re.compile(r"^WARNING: .+$")
USAGE = re.compile(r"^Usage: \S*iperf \[-s\|-c host\] \[options\]$")
USAGE_HINT = re.compile(r"^Try `\S*iperf --help' for more information\.$")


def report_row(source: str, lineno: int, m: re.Match[str]) -> tuple[Row, str]:
    """A report line -> its row and what its tail showed: 'udp' (receiver
    columns), 'enhanced' (-e extras only), 'enhanced-udp' (both),
    'udp-sum' (a full-duplex UDP [SUM]) or '' (no tail)."""
    try:
        size = size_to_bytes(float(m["size"]), m["size_unit"])
        mbps = rate_to_mbps(float(m["rate"]), m["rate_unit"])
    except UnitError as exc:
        raise ParseError(source, lineno, str(exc)) from exc
    row = Row(lineno, float(m["start"]), float(m["end"]), size, mbps)
    return row, _tail(source, lineno, m["tail"], row)


def _tail(source: str, lineno: int, tail: str, row: Row) -> str:
    if not tail.strip():
        return ""
    if t := TAIL_UDP.match(tail):
        _udp_columns(t, row)
        return "enhanced-udp" if t["lat_avg"] else "udp"
    if t := TAIL_TCP_E.match(tail):
        row.retransmits = float(t["retry"])
        # 2.0.14a's final prints 'NA/0 us': no sample, not a zero RTT
        row.rtt_ms = us_to_ms(t["rtt"]) if t["rtt"] and t["cwnd"] != "NA" else None
        return "enhanced"
    if TAIL_UDP_E_SENDER.match(tail) or TAIL_TCP_E_RECEIVER.match(tail):
        return "enhanced"
    if TAIL_UDP_DATAGRAMS_PPS.match(tail):
        return "udp-sum"
    raise ParseError(source, lineno, f"unrecognised columns after the rate: {tail.strip()!r}")


def _udp_columns(t: re.Match[str], row: Row) -> None:
    """Jitter, lost/total (%), and the -e latency columns. A total of -1
    (2.1 client CSV/text with nothing received) means 'not measured'."""
    total = float(t["total"])
    if total < 0:
        return
    row.jitter_ms = to_float(t["jitter"]) if t["jitter"] else None
    row.lost, row.total = float(t["lost"]), total
    row.loss_pct = to_float(t["pct"])
    if t["lat_avg"]:
        row.owd = (float(t["lat_avg"]), float(t["lat_min"]), float(t["lat_max"]), float(t["lat_sd"]))


def tool_error(line: str) -> str | None:
    """The tool's own error words in ``line`` (without 2.2's stream id and
    date), or None."""
    if ERROR.match(line):
        return line
    if m := BRACKETED_ERROR.match(line):
        return m["msg"].strip()
    return None


def usage_reason(lines: list[str]) -> str | None:
    """iperf 2's usage text ('Usage: iperf [-s|-c host] [options]' and its
    hint), printed instead of a run: the tool's words as the reason."""
    text = [line.strip() for line in lines if line.strip()]
    usage = [line for line in text if USAGE.match(line) or USAGE_HINT.match(line)]
    if not usage or not USAGE.match(usage[0]):
        return None
    return " ".join(usage)
