"""Content sniffing and the dispatch's error contract."""

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from analysis.errors import ParseError
from analysis.parsers import parse_bytes, parse_text, sniff


@pytest.mark.parametrize("blank", [b"", b"   \n\n", b"\r\n"])
def test_empty_output_is_a_parse_error_at_line_1(blank):
    with pytest.raises(ParseError, match=r"^x\.txt:1: empty output"):
        parse_bytes(blank, "x.txt")


def test_unrelated_text_names_its_first_line():
    with pytest.raises(ParseError, match=r"^notes\.txt:2: not recognised as an output"):
        parse_text("\nDear diary, the network was slow today.\n", "notes.txt")
    assert sniff("Dear diary") is None


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_raise_only_parse_errors(data):
    try:
        parse_bytes(data, "fuzz.bin")
    except ParseError:
        pass


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=2000))
def test_arbitrary_text_raises_only_parse_errors(text):
    try:
        parse_text(text, "fuzz.txt")
    except ParseError:
        pass
