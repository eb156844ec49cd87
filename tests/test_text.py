"""Cleaning pasted outputs must never move a line (errors cite line numbers)."""

from hypothesis import given, strategies as st

from analysis.parsers.text import clean_lines, decode
from analysis.parsers.values import ip_version_of, to_float


def test_crlf_bom_ansi_and_backspaces_are_removed():
    raw = "\ufeffTotal time = 1.0 s\r\n\x1b[32mAverage delay\x1b[0m = 2 s\r\n|\b/\b-\bdone\r\n"
    assert clean_lines(raw) == ["Total time = 1.0 s", "Average delay = 2 s", "done"]


def test_markdown_fence_quote_and_indent_keep_line_numbers():
    raw = "```\n    a  b\n      c\n```\n"
    assert clean_lines(raw) == ["", "a  b", "  c", ""]
    assert clean_lines("> x 1\n> y 2\n") == ["x 1", "y 2"]


def test_terminal_redraw_keeps_last_drawing():
    assert clean_lines("10%\r50%\r100% done\n") == ["100% done"]


def test_decode_handles_bom_utf16_and_latin1():
    assert decode("\ufeffabc".encode("utf-8")) == "abc"
    assert decode("abc".encode("utf-16")) == "abc"
    assert decode(b"caf\xe9") == "café"


def test_to_float():
    assert to_float("1.5e3") == 1500.0
    assert to_float("-1.00") == -1.0
    assert to_float("abc") is None
    assert to_float("") is None
    assert to_float("nan") is None and to_float("inf") is None


def test_ip_version_of_every_printed_form():
    assert ip_version_of("127.0.0.1") == 4 and ip_version_of("::1") == 6
    assert ip_version_of("::ffff:127.0.0.1") == 4  # IPv4 on the wire, on an IPv6 socket
    assert ip_version_of("fe80::1%eth0") == 6 and ip_version_of("127.0.0.1%lo") == 4
    assert ip_version_of("[2001:2::1]") == 6
    assert ip_version_of("localhost") is None and ip_version_of("") is None and ip_version_of(None) is None


@given(st.text())
def test_cleaning_preserves_the_line_count(text):
    expected = text.lstrip("\ufeff").split("\n")
    if expected and expected[-1] == "":
        expected.pop()
    assert len(clean_lines(text)) == len(expected)


def test_a_line_of_nul_stays_a_line():
    # the case Hypothesis found: "\x00" was cleaned to no line at all
    assert clean_lines("\x00") == ["\x00"]
    assert clean_lines("a\n\x00\nb\n") == ["a", "\x00", "b"]


def test_no_cleaner_joins_the_digits_around_a_nul():
    """A NUL over the dot of 5.05 used to be deleted, and 505 read."""
    assert clean_lines("5\x0005 Gbits/sec\n") == ["5\x0005 Gbits/sec"]
    assert to_float("5\x0005") is None and to_float("5.05\x1f") is None
    assert to_float(" 5.05\t") == 5.05
