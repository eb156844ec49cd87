"""The numpy reader of ITGDec -l text packet logs (ditg_text) against the
regular expression it replaces (ditg._regex_packets), which stays the
reference: same packets, flows, times to the last bit, records and summary,
on every text fixture, on what ITGDec -l writes from every binary fixture,
and on generated lines; and never a line the regular expression refuses.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from analysis.errors import ParseError
from analysis.parsers import ditg, ditg_format, ditg_text, parse_bytes
from analysis.parsers.ditg_log import FlowNumbers, Packets
from analysis.parsers.ditg_records import records_from_summary
from analysis.parsers.ditg_stats import summarize

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FIX = FIXTURES / "ditg"


def _is_packet_log(path: Path) -> bool:
    first = next((l for l in path.read_text(errors="replace").splitlines() if l.strip()), "")
    return bool(ditg._PACKET.match(first))


PACKET_LOGS = sorted(p for p in FIXTURES.rglob("*.txt") if _is_packet_log(p))
BINARIES = sorted(FIX.glob("*.bin"))


def read_packets(text):
    """The fast reader over a whole text, pieces joined (None when it refuses a piece)."""
    if not text.isascii():
        return None
    flows, parts = FlowNumbers(), []
    for _, _, packets in ditg_text.read_pieces(text.encode("ascii")):
        if packets is None:
            return None
        parts.append(flows.renumber(packets))
    return Packets.join(parts) if parts else None


def assert_same_packets(fast, reference):
    assert fast is not None, "the fast reader refused a text the regular expression reads"
    assert fast.endpoints == reference.endpoints
    for name in ("flow", "seq", "size", "tx_s", "rx_s"):
        a, b = getattr(fast, name), getattr(reference, name)
        assert a.dtype == b.dtype and a.shape == b.shape, name
        assert np.array_equal(a.view(np.int64), b.view(np.int64)), name  # floats bit for bit
    assert fast.error_lines == reference.error_lines == 0


def assert_same_text_result(text, name):
    """Packets, summary and records of the fast reader equal the regex's."""
    reference = ditg._regex_packets(text, name)
    fast = read_packets(text)
    assert_same_packets(fast, reference)
    ours, theirs = summarize(fast), summarize(reference)
    assert ditg_format.format_summary(ours) == ditg_format.format_summary(theirs)
    assert records_from_summary(ours, None) == records_from_summary(theirs, None)


def test_the_fixtures_include_packet_logs():
    assert {p.name for p in PACKET_LOGS} >= {"shared_recv_packets.txt", "udp6_recv_packets.txt"}


@pytest.mark.parametrize("path", PACKET_LOGS, ids=lambda p: p.name)
def test_every_text_fixture_reads_as_with_the_regex(path):
    text = path.read_text()
    try:
        ditg._regex_packets(text, path.name)
    except ParseError:  # a damaged copy: the fast reader must refuse it too
        assert read_packets(text) is None
        return
    assert_same_text_result(text, path.name)


@pytest.mark.parametrize("path", PACKET_LOGS, ids=lambda p: p.name)
def test_many_pieces_and_threads_read_the_same(path):
    """Pieces of 300 characters: every line boundary case and the flow keys
    carried across pieces (and threads) get exercised on genuine lines."""
    text = path.read_text()
    with mock.patch.object(ditg_text, "PIECE", 300):
        fast = read_packets(text)
    try:
        reference = ditg._regex_packets(text, path.name)
    except ParseError:
        assert fast is None
        return
    assert_same_packets(fast, reference)


@pytest.mark.skipif(shutil.which("ITGDec") is None, reason="needs D-ITG's ITGDec (scripts/install-system.sh)")
@pytest.mark.parametrize("path", BINARIES, ids=lambda p: p.name)
def test_itgdec_own_text_logs_read_as_with_the_regex(path, tmp_path):
    """ITGDec -l of every genuine binary log, made now by ITGDec itself."""
    out = tmp_path / "packets.txt"
    subprocess.run(["ITGDec", str(path), "-l", str(out)], cwd=tmp_path, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    assert_same_text_result(out.read_text(), out.name)
    with mock.patch.object(ditg_text, "PIECE", 1000):
        assert_same_packets(read_packets(out.read_text()), ditg._regex_packets(out.read_text(), "p"))


# --- generated lines --------------------------------------------------------------

U32 = st.integers(0, 2**32 - 1)
ADDRESSES = st.one_of(
    st.ip_addresses(v=4).map(str), st.ip_addresses(v=6).map(str),
    st.sampled_from(["::1", "127.0.0.1", "::ffff:192.168.100.200", "fe80::1%eth0", "host.example", "a/b", "x"]),
)
HOURS = st.one_of(st.sampled_from([0, 23]), st.integers(0, 24))
MINUTES = st.one_of(st.sampled_from([0, 59]), st.integers(0, 59))
MICROSECONDS = st.one_of(st.sampled_from([0, 59_999_999, 9_999_999, 10_000_000]), st.integers(0, 59_999_999))


@st.composite
def seconds(draw) -> str:
    """ITGDec's %f, mostly; also other fraction lengths and none."""
    us = draw(MICROSECONDS)
    whole, frac = divmod(us, 10**6)
    digits = draw(st.sampled_from([6, 6, 6, 1, 3, 9, 0]))
    text = f"{frac:06d}"[:digits] + "7" * max(0, digits - 6)
    return f"{whole:0{draw(st.integers(1, 2))}d}" + (f".{text}" if digits else "")


@st.composite
def flows(draw):
    return draw(U32), draw(ADDRESSES), draw(st.integers(0, 65535)), draw(ADDRESSES), draw(st.integers(0, 65535))


@st.composite
def packet_lines(draw, flow_set):
    """One -l line, padded as ITGDec pads (Flow>%04d Seq>%7d Src>%46s ...)
    or not at all or by a few spaces."""
    fid, src, sport, dst, dport = draw(st.sampled_from(flow_set))
    style = draw(st.sampled_from(["itgdec", "itgdec", "tight", "loose"]))
    if style == "itgdec":
        head = f"Flow>{fid:04d} Seq>{draw(U32):7d} Src>{src:>46}/{sport} Dest>{dst:>46}/{dport}"
        size = f"Size>{draw(U32):5d}"
    else:
        pad = (lambda: "") if style == "tight" else (lambda: " " * draw(st.integers(0, 3)))
        head = f"Flow>{fid} Seq>{pad()}{draw(U32)} Src>{pad()}{src}/{sport} Dest>{pad()}{dst}/{dport}"
        size = f"Size>{pad()}{draw(U32)}"
    hm = draw(st.sampled_from(["0:12", "23:59", "1:0"]) | st.builds(lambda h, m: f"{h}:{m}", HOURS, MINUTES))
    tx, rx = f"{hm}:{draw(seconds())}", f"{hm}:{draw(seconds())}"
    return f"{head} txTime>{tx} rxTime>{rx} {size}"


@st.composite
def packet_logs(draw) -> str:
    """A few flows, lines in runs or interleaved, LF or CRLF, blank lines
    (empty, spaces, a lone CR) here and there, a final newline or not."""
    flow_set = draw(st.lists(flows(), min_size=1, max_size=3))
    lines = draw(st.lists(packet_lines(flow_set), min_size=1, max_size=40))
    blank = st.sampled_from(["", "   ", "\r"])
    for _ in range(draw(st.integers(0, 3))):
        lines.insert(draw(st.integers(0, len(lines))), draw(blank))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    return eol.join(lines) + draw(st.sampled_from([eol, "", eol + eol]))


@settings(suppress_health_check=[HealthCheck.too_slow])  # the profile's count: 100 fixed inputs ("ci"), 5000 ("dev")
@given(packet_logs(), st.sampled_from([ditg_text.PIECE, 64, 500]))
def test_generated_logs_read_as_with_the_regex(text, piece):
    with mock.patch.object(ditg_text, "PIECE", piece):
        fast = read_packets(text)
    assert_same_packets(fast, ditg._regex_packets(text, "generated.txt"))


MUTANTS = st.sampled_from(list("0123456789 :./>xF\t\r\n\x00\x0c\x1cé") + ["", "  ", "\r\n", "Size>"])


@settings(suppress_health_check=[HealthCheck.too_slow])  # the profile's count: 100 fixed inputs ("ci"), 5000 ("dev")
@given(packet_logs(), st.data())
def test_mutated_logs_are_refused_or_read_as_with_the_regex(text, data):
    """One to three characters replaced, deleted or inserted anywhere: the
    fast reader refuses what the regular expression refuses, and reads the
    rest as it does (or leaves it to it)."""
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 1))
        text = text[:at] + data.draw(MUTANTS) + text[at + cut:]
    fast = read_packets(text)
    try:
        reference = ditg._regex_packets(text, "mutated.txt")
    except ParseError:
        assert fast is None
        return
    if fast is not None:
        assert_same_packets(fast, reference)


# --- what goes to the regular expression -------------------------------------------

def _lines(name="shared_recv_packets.txt"):
    return (FIX / name).read_text().splitlines(keepends=True)


@pytest.mark.parametrize("piece", [ditg_text.PIECE, 2000])
@pytest.mark.parametrize("line, damage, reason", [
    (37, lambda l: l[:90] + "\n", "expected an ITGDec -l packet line"),  # truncated
    (150, lambda l: l.replace("Size>  512", "Size>  5x2"), "got 'Flow>0001"),  # garbage field
    (223, lambda l: l.replace("txTime>", "txTime>+"), "expected an ITGDec -l packet line"),  # the last line
    (2, lambda l: l.replace("Seq>", "Seq"), "expected an ITGDec -l packet line"),
])
def test_a_bad_line_is_named_with_its_number(line, damage, reason, piece):
    lines = _lines()
    lines[line - 1] = damage(lines[line - 1])
    text = "".join(lines)
    with mock.patch.object(ditg_text, "PIECE", piece):
        assert read_packets(text) is None
        with pytest.raises(ParseError) as err:
            ditg.parse(text, "bad.txt")
    assert err.value.line == line and reason in err.value.reason and err.value.source == "bad.txt"


LINE = "Flow>0001 Seq> {seq} Src> {src}/80 Dest> ::1/90 txTime>{hms}.5 rxTime>{hms}.75 Size> 64\n"


@pytest.mark.parametrize("src", ["", " "])
def test_an_empty_address_is_refused(src):
    text = LINE.format(seq=1, src="10.0.0.1", hms="1:2:3") + LINE.format(seq=2, src=src, hms="1:2:3")
    assert read_packets(text) is None
    with pytest.raises(ParseError, match=":2: expected an ITGDec -l packet line"):
        ditg.parse(text, "x.txt")


@pytest.mark.parametrize("length", [14, 15, 16, 17, 30])
def test_addresses_that_differ_before_their_last_16_characters_are_two_flows(length):
    """Where the 16 bytes before the slash equal the line before's, a line
    keeps that line's address only if the address fits in them."""
    a = "1" * length
    b = "b" + a  # the same last characters
    text = "".join(LINE.format(seq=i, src=src, hms=hms) for i, (src, hms) in
                   enumerate([(a, "1:2:3"), (b, "1:2:3"), (b, "1:2:4"), (a, "10:2:4"), (a, "10:2:4")]))
    packets = read_packets(text)
    assert_same_packets(packets, ditg._regex_packets(text, "x.txt"))
    assert [e[1] for e in packets.endpoints] == [a, b] and list(packets.flow) == [0, 1, 1, 0, 0]
    assert list(packets.tx_s) == [3723.5, 3723.5, 3724.5, 36124.5, 36124.5]


def read_as_the_regex(text):
    """The fast reader's packets, after checking them against the regex's;
    None where it leaves the text to the regex (which must then refuse it
    or read it)."""
    fast = read_packets(text)
    try:
        reference = ditg._regex_packets(text, "t.txt")
    except ParseError:
        assert fast is None, "the fast reader read a text the regular expression refuses"
        return None
    if fast is not None:
        assert_same_packets(fast, reference)
    return fast


BIG = "4294967295"
GOOD = "Flow>{flow} Seq>{seq} Src>  10.0.0.1/{port} Dest> ::1/90 txTime>{tx} rxTime>1:2:3.75 Size>{size}"


def one_line_log(**fields):
    values = dict(flow="0001", seq="7", port="80", tx="1:2:3.5", size="  64") | fields
    return GOOD.format(flow="1", seq="1", port="80", tx="1:2:3.5", size="64") + "\n" + GOOD.format(**values) + "\n"


@pytest.mark.parametrize("fields", [
    dict(flow=BIG, seq=BIG, port=BIG, size=BIG), dict(seq="0000000007"), dict(tx="23:59:59.999999"),
    dict(tx="0:0:0.000000"), dict(tx="24:0:0"), dict(tx="1:2:3.12345678901234"), dict(tx="1:2:345.9"),
], ids=str)
def test_edge_values_the_fast_reader_reads(fields):
    assert read_as_the_regex(one_line_log(**fields)) is not None


@pytest.mark.parametrize("fields", [
    dict(seq=BIG + "1"), dict(size="1" + BIG), dict(flow="0" + BIG), dict(port=BIG + "0"), dict(seq=""),
    dict(size=""), dict(tx=":2:3.5"), dict(tx="1::3.5"), dict(tx="1:2:.5"), dict(tx="1:2:"), dict(tx="1;2:3.5"),
    dict(tx="1:2;3.5"), dict(tx="1:2:3."), dict(tx="1:2:3.5x"), dict(tx="1:2:3:4.5"), dict(tx="1.2:3.5"),
    dict(size="64 "), dict(size="64Flow>1"), dict(seq="-7"), dict(tx="1:2:3.5 "),
], ids=str)
def test_damaged_fields_are_refused(fields):
    text = one_line_log(**fields)
    assert read_packets(text) is None
    with pytest.raises(ParseError, match=":2: expected an ITGDec -l packet line"):
        ditg.parse(text, "t.txt")


def test_a_lost_newline_is_refused():
    text = (one_line_log() + one_line_log()).replace("64\nFlow>1 ", "64Flow>1 ")
    assert read_packets(text) is None
    with pytest.raises(ParseError, match=":2: expected"):
        ditg.parse(text, "t.txt")


def test_seconds_beyond_a_float64s_exact_digits_are_left_to_the_regex():
    """16 significant digits in S.F: SF / 10**len(F) might not round as
    float() does, so the regular expression reads the log."""
    text = one_line_log(tx="1:2:3.123456789012345")
    assert read_packets(text) is None
    assert ditg.parse(text, "t.txt").packets.tx_s[1] == 3720 + float("3.123456789012345")


def test_lines_the_fast_reader_leaves_are_read_by_the_regex():
    """Valid to the regular expression, outside what the fast reader takes:
    a tab in the padding, a non-ASCII address, a 9-character H:M:S."""
    base = _lines("udp6_recv_packets.txt")
    for damage in (lambda l: l.replace("Seq>  ", "Seq>\t "), lambda l: l.replace("::1/", "é::1/", 1),
                   lambda l: l.replace("txTime>1:52", "txTime>001:52")):
        lines = list(base)
        lines[5] = damage(lines[5])
        text = "".join(lines)
        assert read_packets(text) is None
        assert len(ditg.parse(text, "odd.txt").packets.seq) == 148


def test_a_text_log_is_read_from_its_bytes_a_piece_at_a_time():
    """parse_bytes never decodes a packet log whole: each piece's packets go
    to on_packets as it is read, flows numbered across pieces, and the
    records are those of the text read whole."""
    data = (FIX / "shared_recv_packets.txt").read_bytes()
    whole = ditg.parse(data.decode(), "shared.txt")
    parts = []
    with mock.patch.object(ditg_text, "PIECE", 2000), mock.patch.object(ditg, "TEXT_BATCH", 20):
        streamed = parse_bytes(data, "shared.txt", on_packets=parts.append)
    assert streamed.packets is None and len(parts) > 3
    for ours, theirs in zip(streamed.records, whole.records, strict=True):  # sums added piece by piece: ~1e-16 apart
        for key, value in theirs.to_dict().items():
            expected = pytest.approx(value, rel=1e-12) if isinstance(value, float) else value
            assert ours.to_dict()[key] == expected, key
    assert_same_packets(Packets.join(parts), whole.packets)
