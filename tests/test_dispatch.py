"""Content sniffing and the dispatch's error contract."""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from analysis.errors import ParseError
from analysis.parsers import parse_bytes, parse_text, sniff

from budget import examples


@pytest.mark.parametrize("blank", [b"", b"   \n\n", b"\r\n"])
def test_empty_output_is_a_parse_error_at_line_1(blank):
    with pytest.raises(ParseError, match=r"^x\.txt:1: empty output"):
        parse_bytes(blank, "x.txt")


def test_unrelated_text_names_its_first_line():
    with pytest.raises(ParseError, match=r"^notes\.txt:2: not recognised as an output"):
        parse_text("\nDear diary, the network was slow today.\n", "notes.txt")
    assert sniff("Dear diary") is None


@settings(max_examples=examples(300), suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_raise_only_parse_errors(data):
    try:
        parse_bytes(data, "fuzz.bin")
    except ParseError:
        pass


@settings(max_examples=examples(300), suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=2000))
def test_arbitrary_text_raises_only_parse_errors(text):
    try:
        parse_text(text, "fuzz.txt")
    except ParseError:
        pass


FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.mark.parametrize("name", ["iperf3/tcp_client.txt", "iperf2/client_tcp.txt", "netperf/tcp_stream_v4.txt",
                                  "ditg/udp4_recv_summary.txt", "iperf3/tcp_client_json.json",
                                  "ditg/udp4.recv.bin"])
def test_trailing_nul_padding_parses_with_a_warning(name):
    """A crash leaves a file's preallocated tail as NUL bytes: the records are
    those of the intact file, each with a warning naming the padding."""
    data = (FIXTURES / name).read_bytes()
    intact = parse_bytes(data, name)
    for padding in (1, 4096):
        padded = parse_bytes(data + b"\x00" * padding, name)
        assert [r.to_dict() | {"warnings": []} for r in padded.records] == \
            [r.to_dict() | {"warnings": []} for r in intact.records]
        assert all(f"ends in {padding} NUL bytes" in r.warnings[-1] for r in padded.records)


def test_only_nul_bytes_is_empty_output():
    with pytest.raises(ParseError, match="empty output"):
        parse_bytes(b"\x00" * 512, "zeros.bin")
