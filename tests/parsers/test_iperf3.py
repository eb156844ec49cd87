"""iperf3 parser: values checked by hand against the fixture texts.

Fixtures: tests/fixtures/iperf3/ (genuine 3.12 runs made here on loopback,
genuine public outputs named public_*; hand-damaged copies are in ../damaged/iperf3/).

The contract every parser keeps (each fixture parses or is refused with
file:line, no parser claims another tool's output, fuzzing) is in test_contract.py.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from analysis.errors import ParseError
from analysis.parsers import iperf3, parse_file

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
HERE = FIXTURES / "iperf3"
DAMAGED_DIR = FIXTURES / "damaged" / "iperf3"  # hand-damaged copies
MiB, GiB = 2.0**20, 2.0**30


def load(name: str):
    return parse_file(HERE / name, name)


def rec(result, flow="SUM", side="sender"):
    [match] = [r for r in result.records if r.flow == flow and r.side == side]
    return match


# ---------------------------------------------------------------- TCP JSON


def test_tcp_json_sender_and_receiver():
    r = load("tcp_client_json.json")
    assert r.variant == "json-client"
    s, v = rec(r), rec(r, side="receiver")
    assert s.throughput_mbps == pytest.approx(13388.267115131384)
    assert s.bytes == 1673789440 and s.retransmits == 7 and s.duration_s == pytest.approx(1.000153)
    assert (s.rtt_ms, s.rtt_min_ms, s.rtt_max_ms) == (pytest.approx(0.201),) * 3
    assert v.throughput_mbps == pytest.approx(13337.677598259239) and v.bytes == 1672609792
    assert v.retransmits is None and v.rtt_ms is None
    assert s.cpu_local_pct == pytest.approx(27.1271736932439)
    assert s.cpu_remote_pct == pytest.approx(51.915540015230235)
    assert (s.tool_version, s.transport, s.ip_version, s.test) == ("3.12", "TCP", 4, "forward")
    assert s.message_size_bytes == 131072
    assert s.started_at == datetime(2026, 11, 22, 1, 51, 33, tzinfo=timezone.utc)  # timesecs 1795312293
    [iv] = r.intervals
    assert (iv.side, iv.flow, iv.retransmits, iv.rtt_ms, iv.omitted) == ("sender", "SUM", 7, 0.201, False)
    assert iv.record_index == s.record_index


def test_tcp6_json_ip_version():
    s = rec(load("tcp6_json.json"))
    assert s.ip_version == 6 and s.local_address == "::1"


def test_reverse_json_roles_flip_and_remote_rtt_is_not_zero_but_none():
    r = load("tcp_reverse_json.json")
    s, v = rec(r), rec(r, side="receiver")
    assert s.test == "reverse"
    assert s.throughput_mbps == pytest.approx(15605.585094596132) and s.retransmits == 0
    assert s.rtt_ms is s.rtt_min_ms is s.rtt_max_ms is None  # printed as 0: the server's tcp_info
    assert v.throughput_mbps == pytest.approx(15591.857364279072)
    [iv] = r.intervals
    assert iv.side == "receiver" and iv.record_index == v.record_index


def test_parallel_json_per_stream_and_sum():
    r = load("tcp_parallel2_json.json")
    assert sorted({x.flow for x in r.records}) == ["5", "7", "SUM"]
    assert rec(r).bytes == 1937244160 and rec(r).retransmits == 6
    assert rec(r, "5").retransmits == 4 and rec(r, "7").rtt_ms == pytest.approx(0.422)
    total = rec(r)
    assert total.rtt_ms is None  # no mean of means is invented
    assert (total.rtt_min_ms, total.rtt_max_ms) == (pytest.approx(0.422), pytest.approx(0.427))
    assert {(i.flow, i.side) for i in r.intervals} == {("SUM", "sender"), ("5", "sender"), ("7", "sender")}


def test_bidir_json_marks_the_reverse_direction():
    r = load("tcp_bidir_json.json")
    assert {x.test for x in r.records} == {"bidir"}
    fwd, back = rec(r), rec(r, "SUM_bidir_reverse")
    assert fwd.throughput_mbps == pytest.approx(9257.386862496286) and fwd.rtt_ms == pytest.approx(0.718)
    assert back.throughput_mbps == pytest.approx(7287.216977500192) and back.retransmits == 19
    assert back.rtt_ms is None  # the reverse stream was sent by the server
    assert rec(r, "SUM_bidir_reverse", "receiver").bytes == 910557078
    assert {(i.flow, i.side) for i in r.intervals} == {("SUM", "sender"), ("SUM_bidir_reverse", "receiver")}


def test_omitted_intervals_are_flagged():
    r = load("tcp_omit_json.json")
    assert [i.omitted for i in r.intervals] == [True, False, False]
    assert rec(r).duration_s == pytest.approx(2.000162) and rec(r).rtt_ms == pytest.approx(0.087)


def test_get_server_output_is_not_double_counted():
    for name in ("tcp_server_output_json.json", "tcp_server_output_both_json.json", "tcp_server_output.txt"):
        r = load(name)
        assert [(x.flow, x.side) for x in r.records] == [("SUM", "sender"), ("SUM", "receiver")], name
        assert len(r.intervals) == 1, name
    assert rec(load("tcp_server_output.txt"), side="receiver").throughput_mbps == pytest.approx(8210)


def test_concatenated_documents_give_two_runs():
    r = load("concatenated_two_runs_json.json")
    assert [x.transport for x in r.records] == ["TCP", "TCP", "UDP", "UDP"]
    assert "document 2 of 2" in r.records[3].warnings[0]
    assert r.intervals[1].record_index == 2


MSS_WARNING = "UDP block size 8952 exceeds TCP MSS 8948, may result in fragmentation / drops"


def test_leading_iperf3_warning_is_kept_and_the_json_parsed():
    """iperf3 3.12 with stderr kept: its 'warning:' line, then the -J document."""
    text = (HERE / "udp_mss_warning_json.json").read_text()
    r = load("udp_mss_warning_json.json")
    assert r.variant == "json-client"
    assert [(x.side, x.transport, x.message_size_bytes, x.tool_version) for x in r.records] == [
        ("sender", "UDP", 8952, "3.12"), ("receiver", "UDP", 8952, "3.12")]
    assert all(x.warnings == [f"iperf3 warned: {MSS_WARNING}"] for x in r.records)
    bare = iperf3.parse(text.split("\n", 1)[1], "bare")  # the same document without the warning line
    for got, plain in zip(r.records, bare.records, strict=True):
        assert got.to_dict() | {"warnings": []} == plain.to_dict()
    assert r.intervals == bare.intervals


def test_other_text_before_the_json_is_refused_naming_its_line():
    document = (HERE / "udp_mss_warning_json.json").read_text().split("\n", 1)[1]
    for prefix, line in (("note: not from iperf3\n", 1), (f"warning: {MSS_WARNING}\nrunning test\n", 2)):
        with pytest.raises(ParseError, match="text before the iperf3 JSON document") as err:
            iperf3.parse(prefix + document, "x")
        assert (err.value.source, err.value.line) == ("x", line)


def test_json_error_is_a_failed_run():
    [r] = load("error_refused_json.json").records
    assert (r.status, r.error) == ("failed", "unable to connect to server: Connection refused")
    assert r.tool_version == "3.12" and r.throughput_mbps is None


# ---------------------------------------------------------------- UDP JSON


def test_udp_json_jitter_and_loss_from_the_receiver():
    r = load("udp_loss_json.json")
    s, v = rec(r), rec(r, side="receiver")
    assert s.throughput_mbps == pytest.approx(1406.7252729672441) and s.packets_sent == 171740
    assert s.jitter_ms is None and s.loss_pct is None  # the sender prints 0 for both
    assert v.throughput_mbps == pytest.approx(601.3658879887396) and v.bytes == 75195392
    assert v.jitter_ms == pytest.approx(0.0011380090251626915) and v.packets_lost == 98307
    assert v.packets_received == 171740 - 98307 and v.loss_pct == pytest.approx(57.241760801211136)
    assert v.packets_out_of_order == 0 and v.message_size_bytes == 1024


def test_udp_parallel_json_per_stream_receiver_has_no_invented_rate():
    r = load("udp_parallel2_json.json")
    v5 = rec(r, "5", "receiver")
    assert v5.throughput_mbps is None and v5.jitter_ms == pytest.approx(0.0114226597085393)
    assert rec(r, "5").throughput_mbps == pytest.approx(9.993300629740804)
    assert rec(r, side="receiver").packets_received == 2440


def test_udp_bidir_json():
    r = load("udp_bidir_json.json")
    back = rec(r, "SUM_bidir_reverse", "receiver")
    assert back.jitter_ms == pytest.approx(0.012166118081004918) and back.packets_received == 1221


def test_udp_31_json_has_no_receiver_rate():
    r = load("public_3.1.3_udp_pscheduler_json.json")
    s, v = rec(r), rec(r, side="receiver")
    assert s.tool_version == "3.1.3" and s.throughput_mbps == pytest.approx(1.048481633493)
    assert s.bytes == 1310720 and s.packets_sent is None
    assert v.throughput_mbps is None and v.bytes is None  # not copied from the sender
    assert v.jitter_ms == pytest.approx(2735.461) and v.packets_lost == 0 and v.packets_received == 159
    assert len(r.intervals) == 10 and {i.side for i in r.intervals} == {"sender"}


# ---------------------------------------------------------------- server side


def test_server_json_keeps_only_what_the_server_measured():
    r = load("server_tcp_json.json")
    assert r.variant == "json-server"
    [v] = r.records
    assert v.side == "receiver" and v.bytes == 1747058688
    assert v.cpu_remote_pct is None and v.cpu_local_pct == pytest.approx(75.21423197698873)
    assert "not reported" in v.warnings[0]
    [u] = load("server_udp_json.json").records
    assert u.side == "receiver" and u.packets_received == 1220


def test_server_text_sides():
    assert [(x.side, round(x.throughput_mbps)) for x in load("server_tcp.txt").records] == [("receiver", 17800)]
    [s] = load("server_tcp_reverse.txt").records
    assert (s.side, s.retransmits) == ("sender", 0)
    r = load("server_tcp_bidir.txt")
    assert [(x.flow, x.side) for x in r.records] == [("SUM", "receiver"), ("SUM_bidir_reverse", "sender")]
    assert {i.side for i in r.intervals if i.flow == "SUM"} == {"receiver"}


def test_server_log_with_two_sessions():
    r = parse_file(FIXTURES / "iperf2" / "foreign_iperf3" / "iperf3_server_two_sessions.txt")
    assert [(x.flow, x.transport) for x in r.records] == [("SUM", "UDP"), ("5", "TCP"), ("7", "TCP"), ("SUM", "TCP")]
    assert r.records[3].ip_version == 6 and r.records[3].throughput_mbps == pytest.approx(12300)


# ---------------------------------------------------------------- text


def test_tcp_text_summary_and_interval():
    r = load("tcp_client.txt")
    assert r.variant == "text-client"
    s, v = rec(r), rec(r, side="receiver")
    assert (s.throughput_mbps, s.bytes, s.retransmits, s.duration_s) == pytest.approx((17800, 2.07 * GiB, 9, 1.0))
    assert v.throughput_mbps == pytest.approx(17800) and v.retransmits is None
    assert (s.transport, s.ip_version, s.local_address) == ("TCP", 4, "127.0.0.1")
    [iv] = r.intervals
    assert (iv.side, iv.retransmits, iv.record_index) == ("sender", 9, 0)


def test_text_reverse_and_ipv6():
    r = load("tcp_reverse.txt")
    assert rec(r).test == "reverse" and rec(r).retransmits == 0
    assert r.intervals[0].side == "receiver"
    assert rec(load("tcp6.txt"), side="receiver").duration_s == pytest.approx(1.01)
    assert rec(load("udp6.txt")).ip_version == 6


def test_text_parallel_and_bidir_flows():
    r = load("tcp_parallel2.txt")
    assert rec(r, "7").retransmits == 1 and rec(r).bytes == pytest.approx(1.98 * GiB)
    b = load("tcp_bidir_parallel2.txt")
    assert rec(b, "SUM_bidir_reverse").retransmits == 3
    assert rec(b, "12_bidir_reverse", "receiver").throughput_mbps == pytest.approx(3880)
    assert rec(b, "SUM", "receiver").bytes == 730 * MiB


def test_text_udp_and_loss():
    r = load("udp_loss.txt")
    s, v = rec(r), rec(r, side="receiver")
    assert (s.throughput_mbps, s.packets_sent, s.jitter_ms) == (pytest.approx(889), 108600, None)
    assert (v.throughput_mbps, v.jitter_ms, v.packets_lost, v.packets_received, v.loss_pct) == (
        pytest.approx(354), 0.034, 65390, 108600 - 65390, 60)
    assert r.intervals[0].packets_total == 108600 and r.intervals[0].side == "sender"
    rr = load("udp_reverse.txt")
    assert rr.intervals[0].jitter_ms == 0.171 and rr.intervals[0].side == "receiver"


def test_text_timestamps_prefix():
    r = load("tcp_timestamps.txt")
    assert rec(r).throughput_mbps == pytest.approx(11000) and rec(r, side="receiver").duration_s == pytest.approx(1.01)


def test_text_omitted_interval():
    assert [i.omitted for i in load("tcp_omit.txt").intervals] == [True, False, False]


def test_text_error_is_a_failed_run():
    [r] = load("error_refused.txt").records
    assert (r.status, r.error) == ("failed", "unable to connect to server: Connection refused")


def test_old_bandwidth_header_tcp():
    r = load("public_tcp_bandwidth_pscheduler396.txt")
    assert (rec(r).throughput_mbps, rec(r).retransmits, rec(r).bytes) == pytest.approx((508, 128, 607 * MiB))
    assert r.intervals[5].retransmits == 123 and len(r.intervals) == 10


def test_old_untagged_udp_summary():
    r = load("public_3.1_udp_issue519.txt")
    s, v = rec(r), rec(r, side="receiver")
    assert (s.throughput_mbps, s.packets_sent, s.bytes) == pytest.approx((1.04, 889, 1.24 * MiB))
    assert (v.throughput_mbps, v.jitter_ms, v.packets_lost, v.packets_received, v.loss_pct) == (
        None, 0.228, 166, 723, 19)
    assert r.intervals[0].throughput_mbps == pytest.approx(0.944)


# ---------------------------------------------------------------- tolerant JSON and damage


@pytest.mark.parametrize("name", ["damaged_crlf_bom_json.json", "damaged_escape_prefix_json.json"])
def test_transport_damage_parses_like_the_original(name):
    assert parse_file(DAMAGED_DIR / name, name).records == load("tcp_client_json.json").records


def test_nan_and_exponent_gap_load():
    r = parse_file(DAMAGED_DIR / "damaged_nan_exponent_json.json")
    assert rec(r, side="receiver").loss_pct == pytest.approx(57.241760801211136)  # sum_received untouched
    assert rec(r).jitter_ms is None


@pytest.mark.parametrize("snippet, key, value", [
    # esnet/iperf#520 (iperf 3.1.2), verbatim
    ('{"socket":7,"start":0,"end":15.0119,"seconds":15.0119,"bytes":11116296,"bits_per_second":5.924e 06,"omitted":false}',
     "bits_per_second", 5.924e6),
    # esnet/iperf#826 (iperf 3.1b3): "lost_percent":\tnan
    ('{"lost_percent":\tnan,\n"packets": 0}', "lost_percent", None),
    # esnet/iperf#364 (iperf 3.0.11): -nan
    ('{"lost_percent":\t-nan,\n"omitted":\tfalse}', "lost_percent", None),
    ('{"x": "nan inside a string stays", "y": inf}', "x", "nan inside a string stays"),
])
def test_tolerant_loader_on_genuine_snippets(snippet, key, value):
    [(doc, line)] = iperf3.load_json_documents(snippet.split("\n"), "s")
    assert doc[key] == value and line == 1


def test_json_stream_events_are_assembled():
    # The start event line is verbatim from esnet/iperf#1098 (--json-stream, iperf 3.9+).
    start = ('{"event":"start","data":{"connected":[{"socket":5,"local_host":"127.0.0.1","local_port":62151,'
             '"remote_host":"127.0.0.1","remote_port":5201}],"version":"iperf 3.9+","system_info":"<snip>",'
             '"timestamp":{"time":"Sun, 03 Jan 2021 10:00:43 UTC","timesecs":1609668043},"connecting_to":'
             '{"host":"127.0.0.1","port":5201},"cookie":"bm5yvcnf4lhitapzhq5cbcnzppdiahy4giue","tcp_mss_default":16332,'
             '"sock_bufsize":0,"sndbuf_actual":131072,"rcvbuf_actual":131072,"test_start":{"protocol":"TCP",'
             '"num_streams":1,"blksize":131072,"omit":0,"duration":10,"bytes":0,"blocks":0,"reverse":0,"tos":0}}}')
    assert iperf3.detect(start)
    with pytest.raises(ParseError, match="neither sum_sent"):  # a stream cut before its end event
        iperf3.parse(start + "\n", "s")
    with pytest.raises(ParseError, match=r"s:2: unknown json-stream event"):
        iperf3.parse(start + '\n{"event":"bogus","data":{}}\n', "s")


def test_truncated_outputs_are_parse_errors_with_lines():
    with pytest.raises(ParseError) as err:
        parse_file(DAMAGED_DIR / "damaged_truncated_json.json")
    assert err.value.line == 60
    with pytest.raises(ParseError, match="without a summary") as err:
        parse_file(DAMAGED_DIR / "damaged_truncated.txt")
    assert err.value.line == 4


def test_garbage_after_a_document_names_its_line():
    text = (HERE / "tcp_client_json.json").read_text() + "oops\n"
    with pytest.raises(ParseError, match="expected a JSON object") as err:
        iperf3.parse(text, "x")
    assert err.value.line == text.count("\n")


def test_unknown_data_line_is_an_error():
    text = (HERE / "tcp_client.txt").read_text().replace("9             sender", "9   ??        sender")
    with pytest.raises(ParseError, match="unexpected columns"):
        iperf3.parse(text, "x")



def test_text_start_time_is_the_same_timestamp_type_as_json():
    """-V prints 'Time: Mon, 23 Nov 2026 20:49:09 GMT' (RFC 1123): stored as a
    timezone-aware UTC datetime, like JSON's timesecs and iperf 2's -e time."""
    (s, r) = load("tcp_verbose.txt").records
    assert s.started_at == r.started_at == datetime(2026, 11, 23, 20, 49, 9, tzinfo=timezone.utc)


def test_udp_bidir_parallel_streams_are_matched_by_socket_and_direction():
    """--bidir -u -P 2 -J (3.12): sum_sent_bidir_reverse says sender: true, yet
    the client receives in that direction; its streams are sockets 9 and 12
    (sender: false), not copies of the forward sockets 5 and 7."""
    r = load("udp_bidir_parallel2_json.json")
    flows = [(x.flow, x.side) for x in r.records]
    assert [f for f, s in flows if s == "sender"] == ["SUM", "5", "7", "SUM_bidir_reverse", "9_bidir_reverse",
                                                      "12_bidir_reverse"]
    assert rec(r, "5").bytes == 1249280 and rec(r, "9_bidir_reverse").bytes == 1250304
    assert rec(r, "9_bidir_reverse", "receiver").jitter_ms == pytest.approx(0.07038650660348743)
    assert rec(r, "12_bidir_reverse", "receiver").jitter_ms == pytest.approx(0.06909591085385247)
    assert rec(r, "5", "receiver").jitter_ms == pytest.approx(0.009812889705795804)
    # the server's text of the same run names the same directions
    s = load("server_udp_bidir_parallel2.txt")
    assert rec(s, "SUM", "receiver").packets_received == 2440
    assert rec(s, "SUM_bidir_reverse", "sender").packets_sent == 2442


def test_bidir_stream_without_a_sender_flag_is_refused():
    import json
    doc = json.loads((HERE / "udp_bidir_parallel2_json.json").read_text())
    del doc["end"]["streams"][2]["udp"]["sender"]
    with pytest.raises(ParseError, match="without a 'sender' flag"):
        iperf3.parse(json.dumps(doc), "noflag.json")


def test_title_prefix_is_removed_from_every_text_line():
    """--title T: every text line starts with 'T:  ' (a blank one is 'T:')."""
    r = load("tcp_title.txt")
    assert r.variant == "text-client"
    s, v = rec(r), rec(r, side="receiver")
    assert (s.test, s.transport, s.local_address, s.retransmits) == ("forward", "TCP", "127.0.0.1", 1)
    assert s.throughput_mbps == 14700.0 and v.throughput_mbps == 14600.0
    assert s.bytes == round(1.71 * GiB) and s.duration_s == 1.0
    # a title may hold colons and blanks itself
    text = (HERE / "tcp_title.txt").read_text().replace("T:", "run 7: a:  b:")
    assert [x.to_dict() for x in iperf3.parse(text, "t").records] == [x.to_dict() for x in iperf3.parse(
        (HERE / "tcp_title.txt").read_text(), "t").records]


def test_title_in_json_is_no_obstacle():
    r = load("tcp_title_json.json")
    assert [(x.side, x.test) for x in r.records] == [("sender", "forward"), ("receiver", "forward")]
    assert rec(r).bytes == 1543897088 and rec(r).retransmits == 9


@pytest.mark.parametrize("name", ["server_tcp_reverse.txt", "server_udp_reverse.txt", "server_tcp_reverse_json.json"])
def test_server_log_of_a_reverse_run_is_labelled_reverse(name):
    """The server of a -R run prints no 'Reverse mode' line; its own interval
    columns (Retr/Cwnd, or datagram counts without jitter) show it sent."""
    r = load(name)
    assert {(x.test, x.side) for x in r.records} == {("reverse", "sender")}


@pytest.mark.parametrize("name", ["server_tcp.txt", "server_udp.txt", "server_tcp_parallel2.txt", "server_tcp_json.json"])
def test_server_log_of_a_forward_run_stays_forward(name):
    assert {x.test for x in load(name).records} == {"forward"}


@pytest.mark.parametrize(("name", "expected"), [
    ("tcp_client_json.json", {("sender", "client-to-server"), ("receiver", "client-to-server")}),
    ("tcp_reverse.txt", {("sender", "server-to-client"), ("receiver", "server-to-client")}),
    ("server_tcp_reverse.txt", {("sender", "server-to-client")}),
    ("tcp_bidir_json.json", {("sender", "client-to-server"), ("receiver", "client-to-server"),
                             ("sender", "server-to-client"), ("receiver", "server-to-client")}),
])
def test_direction_names_which_way_the_data_went(name, expected):
    r = load(name)
    assert {(x.side, x.direction) for x in r.records} == expected
    for x in r.records:
        assert (x.direction == "server-to-client") == (x.test == "reverse" or x.flow.endswith("_bidir_reverse"))


# ---------------------------------------------------------------- iperf3 3.9 --bidir (issue 24, item 3)
# 3.9 prints no bidir flag, and its sum_sent / sum_received (UDP: sum) hold
# the server-to-client direction only; values below read by hand from the JSON.


def test_v39_bidir_reads_each_direction_from_its_stream():
    r = load("v3.9_tcp_bidir_json.json")
    assert {x.test for x in r.records} == {"bidir"}
    fwd_s, fwd_r = rec(r), rec(r, side="receiver")  # stream 5, "sender": true on the client
    assert (fwd_s.direction, fwd_s.bytes, fwd_s.retransmits) == ("client-to-server", 828375040, 14)
    assert fwd_s.throughput_mbps == pytest.approx(6618.733521831232) and fwd_s.rtt_ms == pytest.approx(0.082)
    assert (fwd_r.bytes, fwd_r.throughput_mbps) == (827195392, pytest.approx(6334.505746708338))
    assert all("no client-to-server sum" in w for x in (fwd_s, fwd_r) for w in x.warnings)
    rev_s = rec(r, flow="SUM_bidir_reverse")  # stream 7, "sender": false: what 3.9's sums hold
    rev_r = rec(r, flow="SUM_bidir_reverse", side="receiver")
    assert (rev_s.direction, rev_s.bytes, rev_s.retransmits, rev_s.rtt_ms) == ("server-to-client", 537395200, 12, None)
    assert rev_r.bytes == 531759104 and rev_r.throughput_mbps == pytest.approx(4072.110571129096)
    assert rev_r.duration_s == pytest.approx(1.044685)  # sum_received's own seconds
    assert not rev_s.warnings and not rev_r.warnings
    assert [(iv.flow, iv.side, iv.bytes) for iv in r.intervals] == [
        ("SUM", "sender", 828375040), ("SUM_bidir_reverse", "receiver", 531759104)]
    assert r.intervals[0].record_index == fwd_s.record_index and r.intervals[1].record_index == rev_r.record_index


def test_v39_bidir_parallel_adds_up_the_unsummed_direction():
    r = load("v3.9_tcp_bidir_parallel2_json.json")
    fwd_s, fwd_r = rec(r), rec(r, side="receiver")  # streams 5 and 7
    assert fwd_s.bytes == 224133120 + 218890240 and fwd_s.retransmits == 9 + 9
    assert fwd_s.throughput_mbps == pytest.approx((1778467300.3983305 + 1736865726.120007) / 1e6)
    assert fwd_r.bytes == 209321878 + 202637312
    assert "adds up its 2 streams" in fwd_s.warnings[0]
    rev = rec(r, flow="SUM_bidir_reverse")  # sum_sent: streams 9 and 11
    assert (rev.bytes, rev.retransmits) == (681574400, 6) and rev.throughput_mbps == pytest.approx(5408.204656182057)
    assert rec(r, flow="9_bidir_reverse").bytes == 356515840 and rec(r, flow="5").bytes == 224133120
    flows = {(iv.flow, iv.side) for iv in r.intervals}
    assert flows == {("5", "sender"), ("7", "sender"), ("SUM_bidir_reverse", "receiver"),
                     ("9_bidir_reverse", "receiver"), ("11_bidir_reverse", "receiver")}


def test_v39_udp_bidir_directions():
    r = load("v3.9_udp_bidir_json.json")
    fwd, fwd_r = rec(r), rec(r, side="receiver")  # stream 5
    assert (fwd.direction, fwd.bytes, fwd.throughput_mbps) == ("client-to-server", 1277952, pytest.approx(10.222665292127833))
    assert (fwd_r.jitter_ms, fwd_r.packets_received, fwd_r.throughput_mbps) == (pytest.approx(0.05852774728057024), 39, None)
    rev_r = rec(r, flow="SUM_bidir_reverse", side="receiver")  # end.sum = stream 7
    assert (rev_r.direction, rev_r.jitter_ms, rev_r.packets_received) == ("server-to-client", pytest.approx(0.3268910975447272), 40)
    assert rec(r, flow="SUM_bidir_reverse").bytes == 1310720


def test_v39_one_way_run_is_not_bidir():
    r = load("v3.9_tcp_client_json.json")
    assert {x.test for x in r.records} == {"forward"} and rec(r).bytes == 905707520


# ---------------------------------------------------------------- error outputs carry the tool's reason


@pytest.mark.parametrize("name, variant, reason", [
    # 3.9: an empty JSON run, then the error as text (stderr kept)
    ("v3.9_error_refused_json.json", "json-client", "unable to send control message: Bad file descriptor"),
    # 3.18 --json-stream: an error event before any start event
    ("v3.18_error_refused_json_stream.json", "json-stream-client",
     "unable to connect to server - server may have stopped running or use a different port, firewall issue, etc.: "
     "Connection refused"),
    # a command line iperf3 refused: its reason, then its usage text
    ("error_usage_json.txt", "text-client", "unrecognized option '--no-such-option'"),
    ("error_parameter_json.txt", "text-client", "parameter error - must either be a client (-c) or server (-s)"),
    # Ctrl-C in a terminal: the echoed ^C starts the JSON
    ("error_interrupted_json.json", "json-client", "interrupt - the client has terminated"),
    # the server reset the control connection; the client still exited 0
    ("error_control_reset_exit0_json.json", "json-client", "unable to receive control message: Connection reset by peer"),
])
def test_error_outputs_give_the_tools_reason(name, variant, reason):
    r = load(name)
    assert r.variant == variant
    assert [(x.status, x.error) for x in r.records] == [("failed", reason)]


def test_v318_json_stream_run():
    r = load("v3.18_tcp_json_stream.json")
    s, v = rec(r), rec(r, side="receiver")
    assert r.variant == "json-stream-client" and s.tool_version == "3.18"
    assert (s.bytes, s.retransmits, v.bytes) == (1465516032, 27, 1465647104)
    assert s.throughput_mbps == pytest.approx(11691.952004084756)


# ---------------------------------------------------------------- the strict fast path


def _json_fixtures():
    return sorted(p.name for p in HERE.iterdir() if p.suffix == ".json")


@pytest.mark.parametrize("name", _json_fixtures())
def test_strict_json_fast_path_reads_what_the_tolerant_path_reads(name):
    """A file read at once by orjson gives the records and intervals the
    cleaning, tolerant reader gives (numbers exact)."""
    text = (HERE / name).read_text(encoding="utf-8")
    lines = iperf3._without_interrupt_echo(iperf3.untitled(iperf3.clean_lines(text)))
    try:
        slow = iperf3._parse_json(lines, name)
    except ParseError as err:
        with pytest.raises(ParseError) as fast:
            iperf3.parse(text, name)
        assert (fast.value.line, fast.value.reason) == (err.line, err.reason)
        return
    fast = iperf3.parse(text, name)
    assert fast.records == slow.records and fast.intervals == slow.intervals and fast.variant == slow.variant


def test_strict_path_takes_plain_outputs_only():
    def strict(name):
        return iperf3._strict_document((HERE / name).read_text(encoding="utf-8")) is not None

    assert strict("tcp_client_json.json") and strict("v3.9_tcp_bidir_json.json")
    assert not strict("concatenated_two_runs_json.json")  # two documents
    assert not strict("error_interrupted_json.json")  # ^C before the JSON
    assert not strict("v3.9_error_refused_json.json")  # text after the JSON
    assert not strict("v3.18_tcp_json_stream.json")  # events
