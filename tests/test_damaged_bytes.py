"""A damaged byte is never data: a NUL or another control byte inside a
genuine output refuses the file with its line, instead of being dropped (a
NUL over the dot of ``5.05`` once made it 505) or read as white space."""

from pathlib import Path

import pytest

from analysis.errors import ParseError
from analysis.parsers import parse_bytes

FIX = Path(__file__).resolve().parent / "fixtures"

# (genuine output, 1-based line, the text of a value on that line)
VALUES = [
    ("iperf3/tcp6.txt", 7, b"9.69 Gbits/sec"),
    ("iperf3/tcp6_json.json", 99, b"10356032664.483454"),
    ("iperf2/client_tcp.txt", None, b"16.2 Gbits/sec"),
    ("netperf/tcp_stream_demo.txt", None, b"13458.15"),
    ("ditg/udp4_recv_summary.txt", 12, b"0.000082"),
]


def _line_of(data: bytes, needle: bytes, line: int | None) -> int:
    lines = data.split(b"\n")
    if line is None:  # the last line holding it
        line = max(i for i, text in enumerate(lines, 1) if needle in text)
    assert needle in lines[line - 1]
    return line


def _damaged(data: bytes, line: int, needle: bytes, byte: bytes) -> bytes:
    """``data`` with ``byte`` written over the second character of the value (a digit or the dot)."""
    lines = data.split(b"\n")
    at = lines[line - 1].index(needle) + 1
    lines[line - 1] = lines[line - 1][:at] + byte + lines[line - 1][at + 1:]
    return b"\n".join(lines)


@pytest.mark.parametrize("name, line, value", VALUES)
@pytest.mark.parametrize("byte", [b"\x00", b"\x1f", b"\x0c", b"\x7f"])
def test_a_control_byte_over_a_value_refuses_the_file_at_its_line(name, line, value, byte):
    data = (FIX / name).read_bytes()
    parse_bytes(data, name)  # the genuine output parses
    line = _line_of(data, value, line)
    with pytest.raises(ParseError) as refused:
        parse_bytes(_damaged(data, line, value, byte), name)
    assert refused.value.line == line and refused.value.source == name
    assert f"control byte 0x{byte[0]:02x}" in refused.value.reason


def test_the_reported_case_is_refused_not_read_as_another_rate():
    """``5.05 Gbits/sec`` with a NUL over its 0 was read as 5,500 Mbit/s."""
    data = (FIX / "iperf3/tcp6.txt").read_bytes().replace(b"9.69 Gbits/sec    1             sender",
                                                           b"5.\x005 Gbits/sec    1             sender")
    with pytest.raises(ParseError, match=r"tcp6\.txt:7: control byte 0x00 at column \d+"):
        parse_bytes(data, "tcp6.txt")


def test_a_zero_filled_tail_is_still_padding_not_damage():
    data = (FIX / "iperf3/tcp6.txt").read_bytes()
    padded = parse_bytes(data + b"\x00" * 4096, "tcp6.txt")
    assert [r.throughput_mbps for r in padded.records] == [r.throughput_mbps for r in parse_bytes(data, "x").records]
    assert all("ends in 4096 NUL bytes" in r.warnings[-1] for r in padded.records)


def test_colour_escapes_and_a_spinner_are_not_damage():
    """An OSC escape ends in BEL (0x07) and a spinner draws with backspaces: both are terminal text."""
    data = (FIX / "iperf3/tcp6.txt").read_bytes()
    coloured = b"\x1b]0;iperf3\x07" + data.replace(b"sender", b"\x1b[32msender\x1b[0m").replace(b"receiver", b"|\b/\breceiver")
    assert [r.to_dict() for r in parse_bytes(coloured, "c").records] == [r.to_dict() for r in parse_bytes(data, "c").records]
