"""iperf 2 parser: values checked by hand against the fixture texts.

Fixtures: tests/fixtures/iperf2/ (genuine 2.1.8 runs made here, genuine
2.0.14a and 2.2.1 runs named v2.0.14a_* and v2.2.1_* made by
scripts/fixtures/iperf2_versions.sh, genuine public pastes named public_*, hand-damaged copies in ../damaged/iperf2/, genuine
2.1.8 runs between two network namespaces (-d, -r, -R, --full-duplex, a
killed server; see each .cmd), and genuine iperf3 outputs in foreign_iperf3/
as negative detection samples).

The contract every parser keeps (each fixture parses or is refused with
file:line, no parser claims another tool's output, fuzzing) is in test_contract.py.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from analysis.errors import ParseError
from analysis.parsers import iperf2, parse_file

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
HERE = FIXTURES / "iperf2"
DAMAGED_DIR = FIXTURES / "damaged" / "iperf2"  # hand-damaged copies
GiB, MiB, KiB = 2.0**30, 2.0**20, 1024.0


def parse(name: str):
    return iperf2.parse((HERE / name).read_text(encoding="utf-8"), name)


def by_flow(result):
    return {r.flow: r for r in result.records}


# ---------------------------------------------------------------- TCP client


def test_tcp_client_2_1_8():
    (rec,) = parse("client_tcp.txt").records
    assert (rec.tool, rec.transport, rec.side, rec.flow, rec.ip_version) == ("iperf2", "TCP", "sender", "1", 4)
    assert (rec.local_address, rec.remote_address) == ("127.0.0.1", "127.0.0.1")
    assert rec.duration_s == pytest.approx(1.0068)
    assert rec.throughput_mbps == pytest.approx(16200.0)
    assert rec.bytes == pytest.approx(1.90 * GiB)
    assert rec.loss_pct is None and rec.jitter_ms is None and rec.retransmits is None


def test_tcp_parallel_streams_and_sum():
    result = parse("client_tcp_P3.txt")
    flows = by_flow(result)
    assert [r.flow for r in result.records] == ["2", "3", "1", "SUM"]
    assert flows["1"].bytes == pytest.approx(794 * MiB)
    assert flows["3"].throughput_mbps == pytest.approx(5360.0)
    assert flows["SUM"].throughput_mbps == pytest.approx(18800.0)
    assert flows["SUM"].duration_s == pytest.approx(1.0013)
    assert flows["SUM"].ip_version == 4 and flows["SUM"].local_address is None


def test_tcp_intervals_attach_to_their_record():
    result = parse("client_tcp_i05.txt")
    assert result.records[0].duration_s == pytest.approx(1.0137)
    rows = [(i.start_s, i.end_s, i.throughput_mbps, i.record_index, i.side) for i in result.intervals]
    assert rows == [(0.0, 0.5, pytest.approx(8330.0), 0, "sender"), (0.5, 1.0, pytest.approx(11600.0), 0, "sender")]
    assert result.intervals[1].bytes == pytest.approx(692 * MiB)


def test_tcp_enhanced_retransmits_rtt_and_write_size():
    result = parse("client_tcp_e.txt")
    (rec,) = result.records
    assert result.variant == "text-enhanced-client-tcp"
    assert (rec.retransmits, rec.message_size_bytes) == (4.0, 131072.0)
    # '895K/475(834) us' on the final line is one tcp_info sample taken at the
    # end, not a mean over the run: it is no rtt_ms (iperf3's run mean)
    assert rec.rtt_last_sample_ms == 0.475 and rec.rtt_ms is None
    assert rec.started_at == datetime(2026, 11, 22, 1, 51, 50, tzinfo=timezone.utc)  # "(UTC)"
    assert rec.local_address == "127.0.0.1"  # "%lo" device suffix removed
    assert [(i.retransmits, i.rtt_ms) for i in result.intervals] == [(0.0, 0.226), (4.0, 0.091)]


def test_tcp_enhanced_sum_has_retries_but_no_rtt():
    flows = by_flow(parse("client_tcp_e_P2.txt"))
    assert flows["SUM"].retransmits == 15.0 and flows["SUM"].rtt_last_sample_ms is None
    assert flows["1"].rtt_last_sample_ms == 1.034 and flows["1"].rtt_ms is None


@pytest.mark.parametrize(
    ("name", "mbps", "nbytes"),
    [
        ("client_tcp_fk.txt", 12177667e3 / 1e6, 1496576 * KiB),  # Kbits/sec decimal, KBytes binary
        ("client_tcp_fm.txt", 15413.0, 1850 * MiB),
        ("client_tcp_fK.txt", 1887782 * KiB * 8 / 1e6, 1919104 * KiB),  # KBytes/sec binary
        ("client_tcp_fM.txt", 1872 * MiB * 8 / 1e6, 1875 * MiB),
        ("public_2.0_tcp_bytes_i1.txt", 1735.167481, 2169110528.0),  # Bytes, bits/sec
    ],
)
def test_format_units(name, mbps, nbytes):
    rec = parse(name).records[0]
    assert rec.throughput_mbps == pytest.approx(mbps)
    assert rec.bytes == pytest.approx(nbytes)


def test_connection_refused_is_a_failed_run():
    (rec,) = parse("client_tcp_refused.txt").records
    assert (rec.status, rec.error) == ("failed", "tcp connect failed: Connection refused")
    assert rec.throughput_mbps is None and rec.bytes is None and rec.duration_s is None
    assert rec.remote_address == "127.0.0.1"


def test_ipv6_and_ipv4_mapped():
    assert parse("client_tcp_v6.txt").records[0].ip_version == 6
    assert parse("client_tcp_v6.txt").records[0].duration_s == pytest.approx(2.0085)
    native, mapped = parse("server_tcp_v6.txt").records
    assert (native.ip_version, native.local_address) == (6, "::1")
    assert (mapped.ip_version, mapped.local_address) == (4, "::ffff:127.0.0.1")
    assert any("IPv4-mapped" in w for w in mapped.warnings)


# ---------------------------------------------------------------- UDP


def test_udp_client_reports_the_relayed_server_report_not_offered_load():
    (rec,) = parse("client_udp.txt").records
    assert (rec.transport, rec.side, rec.message_size_bytes) == ("UDP", "receiver", 1024.0)
    assert rec.duration_s == pytest.approx(1.0008)  # the Server Report's 0.0000-1.0008, not the client's 1.0009
    assert (rec.jitter_ms, rec.packets_lost, rec.packets_sent, rec.loss_pct) == (0.006, 0.0, 1283.0, 0.0)
    assert rec.packets_received == 1283.0
    assert rec.throughput_mbps == pytest.approx(10.5)
    assert rec.offered_mbps == 10.5  # the client's own final line: what it offered, kept beside what arrived


def test_udp_client_enhanced_server_report_has_latency():
    result = parse("client_udp_i05.txt")
    (rec,) = result.records
    assert (rec.owd_ms, rec.owd_min_ms, rec.owd_max_ms, rec.owd_sd_ms) == (0.008, 0.002, 1.151, 0.048)
    assert [(i.side, i.jitter_ms, i.loss_pct) for i in result.intervals] == [("sender", None, None)] * 2


def test_udp_missing_server_report_is_unknown_loss_not_zero():
    (rec,) = parse("client_udp_noserver.txt").records
    assert (rec.status, rec.error, rec.side) == ("failed", "read failed: Connection refused", "sender")
    assert rec.loss_pct is None and rec.packets_lost is None and rec.throughput_mbps is None
    assert rec.packets_sent == 92.0 and rec.message_size_bytes == 1470.0
    assert any("did not receive ack" in w for w in rec.warnings)
    assert any("not zero" in w for w in rec.warnings)


def test_udp_parallel_client_sum_is_offered_load_only():
    flows = by_flow(parse("client_udp_P2.txt"))
    assert flows["1"].jitter_ms == 0.002 and flows["2"].jitter_ms == 0.001
    assert flows["SUM"].throughput_mbps is None and flows["SUM"].loss_pct is None
    assert flows["SUM"].packets_sent == 2568.0 and flows["SUM"].status == "ok"
    assert flows["SUM"].offered_mbps == 21.0  # [SUM] 2.51 MBytes 21.0 Mbits/sec
    assert (flows["1"].offered_mbps, flows["2"].offered_mbps) == (10.5, 10.5)


def test_udp_server_multi_session_log():
    result = parse("server_udp_multi.txt")
    assert [r.flow for r in result.records] == ["1", "2", "3", "4", "SUM"]
    assert all(r.side == "receiver" for r in result.records)
    flows = by_flow(result)
    assert (flows["4"].jitter_ms, flows["4"].remote_address) == (0.003, "127.0.0.1")
    assert (flows["SUM"].packets_sent, flows["SUM"].jitter_ms, flows["SUM"].loss_pct) == (2566.0, None, 0.0)


def test_udp_server_enhanced_intervals():
    result = parse("server_udp_e.txt")
    assert result.records[0].owd_ms == 0.008 and result.records[0].packets_sent == 1283.0
    assert [(i.packets_lost, i.packets_total, i.jitter_ms) for i in result.intervals] == [
        (0.0, 641.0, 0.001), (0.0, 640.0, 0.001)]


def test_public_2_0_udp_server_out_of_order_and_spaced_counts():
    result = parse("public_2.0_udp_server_ooo.txt")
    (rec,) = result.records
    assert result.variant == "text-server-udp"  # no header in the paste: inferred from the Jitter columns
    assert (rec.side, rec.flow, rec.duration_s) == ("receiver", "4", pytest.approx(30.6))
    assert (rec.packets_lost, rec.packets_sent, rec.loss_pct, rec.jitter_ms) == (4.0, 852.0, 0.47, 12.562)
    assert rec.packets_out_of_order == 4.0
    assert rec.throughput_mbps == pytest.approx(0.327)
    assert len(result.intervals) == 30
    first = result.intervals[0]
    assert (first.start_s, first.end_s, first.packets_lost, first.packets_total, first.loss_pct) == (
        0.0, 1.0, 4.0, 42.0, 9.5)


def test_reused_stream_ids_in_one_log_are_separate_sessions():
    # Two genuine 2.0.x sessions back to back, as a long-running server logs them.
    text = (HERE / "public_2.0_udp_server_ooo.txt").read_text()
    result = iperf2.parse(text + text, "concatenated")
    assert [r.flow for r in result.records] == ["4", "4"]
    assert [i.record_index for i in result.intervals].count(1) == 30


# ---------------------------------------------------------------- server logs, old formats


def test_tcp_server_log_with_several_sessions():
    result = parse("server_tcp_multi.txt")
    assert [r.flow for r in result.records] == ["1", "2", "3", "4", "SUM", "5"]
    flows = by_flow(result)
    assert flows["4"].duration_s == pytest.approx(0.9999)
    assert flows["SUM"].throughput_mbps == pytest.approx(18800.0)
    assert all(r.side == "receiver" for r in result.records)


def test_tcp_server_enhanced_sum_intervals():
    result = parse("server_tcp_e.txt")
    sum_index = by_flow(result)["SUM"].record_index
    sums = [i for i in result.intervals if i.record_index == sum_index]
    assert [(i.start_s, i.end_s, i.throughput_mbps) for i in sums] == [
        (0.0, 0.5, pytest.approx(25300.0)), (0.5, 1.0, pytest.approx(27100.0))]


def test_public_2_0_parallel_with_interleaved_finals():
    result = parse("public_2.0_tcp_P3_i1.txt")
    flows = by_flow(result)
    assert [r.flow for r in result.records] == ["5", "3", "4", "SUM"]
    assert flows["5"].bytes == pytest.approx(701 * MiB) and flows["5"].duration_s == 10.0
    assert flows["SUM"].throughput_mbps == pytest.approx(1730.0)
    assert flows["SUM"].bytes == pytest.approx(2.02 * GiB)
    assert len(result.intervals) == 40
    first = [i for i in result.intervals if i.flow == "4"][0]
    assert (first.start_s, first.end_s, first.throughput_mbps) == (0.0, 1.0, pytest.approx(562.0))


def test_public_2_0_13_ipv6_client():
    (rec,) = parse("public_2.0.13_tcp_v6.txt").records
    assert (rec.ip_version, rec.remote_address, rec.duration_s) == (6, "2001:db8:dead:beaf::3", 60.0)
    assert rec.throughput_mbps == pytest.approx(926.0) and rec.bytes == pytest.approx(6.47 * GiB)


def test_public_two_decimal_interval_format():
    (rec,) = parse("public_2.1_tcp_2decimals.txt").records
    assert (rec.duration_s, rec.throughput_mbps, rec.bytes) == (pytest.approx(10.04), 467.0, 559 * MiB)


# ---------------------------------------------------------------- CSV


def test_csv_tcp_client():
    result = parse("client_tcp_csv.txt")
    (rec,) = result.records
    assert result.variant == "csv-tcp"
    assert (rec.bytes, rec.throughput_mbps, rec.duration_s) == (1738407996.0, 13657.884652, 1.0)
    assert rec.side is None and any("side unknown" in w for w in rec.warnings)
    assert [(i.start_s, i.end_s, i.bytes) for i in result.intervals] == [(0.0, 0.5, 850001980.0),
                                                                        (0.5, 1.0, 888274944.0)]


def test_csv_parallel_streams():
    flows = by_flow(parse("client_tcp_P2_csv.txt"))
    assert flows["2"].bytes == 630063164.0 and flows["1"].throughput_mbps == pytest.approx(10929.828143)


def test_csv_udp_client_without_server_report():
    result = parse("client_udp_csv.txt")
    (rec,) = result.records
    assert (rec.transport, rec.side, rec.throughput_mbps, rec.loss_pct, rec.packets_lost) == (
        "UDP", "sender", None, None, None)
    assert rec.offered_mbps == 10.478255  # 10478255 bits/sec
    assert any("not zero" in w for w in rec.warnings)
    assert [(i.side, i.loss_pct, i.packets_total) for i in result.intervals] == [("sender", None, None)] * 2


def test_csv_udp_server():
    (rec,) = parse("server_udp_csv.txt").records
    assert (rec.side, rec.jitter_ms, rec.packets_lost, rec.packets_sent, rec.packets_out_of_order) == (
        "receiver", 0.005, 0.0, 1281.0, 0.0)
    assert rec.throughput_mbps == pytest.approx(10.476613)


def test_csv_2_0_udp_client_row_then_relayed_server_row():
    # CONSTRUCTED, not a genuine output: the 2.0.x layout that ReportCSV.c
    # (CSV_stats / CSV_serverstats) prints for a UDP client -- its own 9-field
    # row (offered load), then the server's 14-field row with the addresses
    # reversed. No public paste with a citable origin was found for it.
    text = ("20090226144426,10.0.0.68,48338,10.0.0.65,5001,3,0.0-10.0,1252440,999996\n"
            "20090226144426,10.0.0.65,5001,10.0.0.68,48338,3,0.0-10.0,1252440,999986,0.004,7,852,0.822,2\n")
    (rec,) = iperf2.parse(text, "constructed").records
    assert (rec.side, rec.flow, rec.throughput_mbps) == ("receiver", "3", pytest.approx(0.999986))
    assert (rec.jitter_ms, rec.packets_lost, rec.packets_sent, rec.loss_pct, rec.packets_out_of_order) == (
        0.004, 7.0, 852.0, 0.822, 2.0)
    assert (rec.local_address, rec.remote_address) == ("10.0.0.68", "10.0.0.65")
    assert rec.offered_mbps == 0.999996  # the client's own 9-field row


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("name", "line", "words"),
    [
        ("damaged_wrong_unit.txt", 7, "unrecognised iperf 2 report line"),
        ("damaged_truncated_no_final.txt", 8, "no final 0.0-N summary"),
        ("damaged_csv_field_count.txt", 1, "9 or 14 fields"),
        ("damaged_empty.txt", 1, "empty output"),
        ("damaged_garbage.txt", 1, "no iperf 2 report line"),
        ("damaged_public_2.0_udp_client_ooo_truncated.txt", 13, "out-of-orde"),
    ],
)
def test_damaged_outputs_name_the_line(name, line, words):
    text = (DAMAGED_DIR / name).read_bytes().decode("utf-8", "replace")
    with pytest.raises(ParseError) as info:
        iperf2.parse(text, name)
    assert info.value.line == line and words in info.value.reason


def test_udp_csv_client_whose_server_died_is_a_failed_run_with_the_tools_words():
    """-u -y C, server killed mid-run: the client prints its offered-load row
    (total -1) and 'read failed: Connection refused' twice. Not 'not
    recognised': a failed record with the tool's words."""
    result = parse_file(HERE / "client_udp_csv_server_died.txt")
    (rec,) = result.records
    assert (result.tool, result.variant) == ("iperf2", "csv-udp")
    assert (rec.status, rec.error, rec.side) == ("failed", "read failed: Connection refused", "sender")
    assert rec.offered_mbps == 10.490867 and rec.throughput_mbps is None and rec.loss_pct is None


# ---------------------------------------------------------------- -d, -r, -R, --full-duplex

D = ("client-to-server", "server-to-client", "both")


def sides(result):
    return [(r.flow, r.side, r.direction, r.test) for r in result.records]


def test_dual_test_client_and_server_one_record_per_direction():
    """-d: the client also listens; its own connection sends, the accepted
    one receives. The server's connection back is starred ([ *2])."""
    assert sides(parse("client_tcp_dual.txt")) == [("1", "sender", D[0], "dual"), ("2", "receiver", D[1], "dual")]
    server = parse("server_tcp_dual.txt")
    assert sides(server) == [("1", "receiver", D[0], "dual"), ("2", "sender", D[1], "dual"),
                             ("SUM", "both", "both", "dual")]
    client = by_flow(parse("client_tcp_dual.txt"))
    assert client["2"].bytes == by_flow(server)["2"].bytes == round(1.10 * GiB)  # the same data, seen from both ends
    assert client["2"].local_address == "198.18.10.1" and client["2"].remote_address == "198.18.10.2"
    assert parse("client_tcp_dual.txt").variant == "text-client-tcp"
    assert parse("server_tcp_dual.txt").variant == "text-server-tcp"


def test_tradeoff_test_reads_like_a_dual_test():
    """-r runs the two directions one after the other; the output does not
    say -d from -r, both are 'dual'."""
    assert sides(parse("client_tcp_tradeoff.txt")) == [("1", "sender", D[0], "dual"), ("2", "receiver", D[1], "dual")]
    assert sides(parse("server_tcp_tradeoff.txt")) == [("1", "receiver", D[0], "dual"), ("2", "sender", D[1], "dual")]
    result = parse("client_tcp_tradeoff.txt")
    assert [(i.flow, i.side) for i in result.intervals] == [("1", "sender")] * 2 + [("2", "receiver")] * 2


def test_reverse_client_receives_and_its_server_sends():
    assert sides(parse("client_tcp_reverse.txt")) == [("1", "receiver", D[1], "reverse")]
    assert sides(parse("server_tcp_reverse.txt")) == [("1", "sender", D[1], "reverse")]
    assert sides(parse("client_tcp_reverse_P2.txt")) == [("1", "receiver", D[1], "reverse"),
                                                         ("2", "receiver", D[1], "reverse"),
                                                         ("SUM", "receiver", D[1], "reverse")]
    assert sides(parse("server_tcp_reverse_P2.txt"))[-1] == ("SUM", "sender", D[1], "reverse")


def test_full_duplex_gives_both_directions_of_one_stream():
    client = parse("client_tcp_fullduplex.txt")
    assert sides(client) == [("1", "sender", D[0], "full-duplex"), ("1", "receiver", D[1], "full-duplex")]
    server = parse("server_tcp_fullduplex.txt")
    assert sides(server) == [("1", "receiver", D[0], "full-duplex"), ("1", "sender", D[1], "full-duplex"),
                             ("SUM", "both", "both", "full-duplex")]
    c, s = client.records, server.records
    assert c[0].bytes == s[0].bytes == 780 * MiB and c[1].bytes == s[1].bytes == round(1.08 * GiB)
    fd = by_flow(parse("client_tcp_fullduplex_e.txt"))["FD1"]  # -e adds [FD1]: both directions of stream 1
    assert (fd.side, fd.direction, fd.bytes) == ("both", "both", round(1.92 * GiB))


def test_enhanced_dual_and_reverse_keep_the_senders_rtt_sample():
    server = by_flow(parse("server_tcp_dual_e.txt"))
    assert (server["2"].side, server["2"].rtt_last_sample_ms, server["2"].rtt_ms) == ("sender", 1.382, None)
    assert server["1"].rtt_last_sample_ms is None  # the receiving side has no tcp_info RTT
    assert by_flow(parse("server_tcp_reverse_e.txt"))["1"].retransmits == 2766.0


@pytest.mark.parametrize(("client", "server", "expect_client", "expect_server"), [
    ("client_tcp_dual_P2.txt", "server_tcp_dual_P2.txt",
     [("1", "sender"), ("2", "sender"), ("3", "receiver"), ("4", "receiver"), ("SUM", "both")],
     [("1", "receiver"), ("3", "receiver"), ("2", "sender"), ("4", "sender"), ("SUM", "both")]),
    ("client_tcp_fullduplex_P2.txt", "server_tcp_fullduplex_P2.txt",
     [("1", "sender"), ("2", "sender"), ("1", "receiver"), ("2", "receiver"), ("SUM", "both")],
     [("1", "receiver"), ("2", "receiver"), ("2", "sender"), ("1", "sender"), ("SUM", "both")]),
])
def test_parallel_streams_in_both_directions(client, server, expect_client, expect_server):
    """-P 2: 2.1.8 may print a connection line before its header (threads);
    the ports, not the order, tell the directions apart."""
    assert [(r.flow, r.side) for r in parse(client).records] == expect_client
    assert [(r.flow, r.side) for r in parse(server).records] == expect_server


def test_udp_dual_reverse_and_full_duplex():
    """A UDP sender keeps its own rate in offered_mbps; what arrived is the
    receiver's (printed by the receiver, or relayed in a Server Report)."""
    client = by_flow(parse("client_udp_dual.txt"))
    assert (client["1"].side, client["1"].direction, client["1"].offered_mbps) == ("receiver", D[0], 10.5)
    assert client["1"].packets_sent == 1283.0  # the relayed Server Report's total
    assert (client["2"].side, client["2"].direction, client["2"].packets_received) == ("receiver", D[1], 1282.0)
    server = parse("server_udp_dual.txt").records
    assert [(r.flow, r.side, r.direction) for r in server] == [("1", "receiver", D[0]), ("2", "receiver", D[1]),
                                                              ("SUM", "both", "both")]
    assert server[1].offered_mbps == 10.5 and server[1].jitter_ms == 0.0  # its relayed Server Report
    (reverse,) = parse("server_udp_reverse.txt").records
    assert (reverse.side, reverse.direction, reverse.offered_mbps, reverse.throughput_mbps) == ("sender", D[1], 10.5, None)
    assert reverse.packets_sent == 1283.0
    (received,) = parse("client_udp_reverse.txt").records
    assert (received.side, received.direction, received.jitter_ms, received.packets_lost) == ("receiver", D[1], 0.001, 0.0)
    fd = parse("client_udp_fullduplex.txt").records
    assert [(r.flow, r.side, r.direction) for r in fd] == [("1", "sender", D[0]), ("1", "receiver", D[1]),
                                                          ("SUM", "both", "both")]
    assert fd[0].offered_mbps == 10.5 and fd[0].packets_sent == 1284.0
    assert fd[2].bytes == round(2.50 * MiB)  # [SUM] ... 2566    2563 pps


def test_loopback_server_log_of_reverse_dual_and_full_duplex_runs():
    """The genuine loopback server log once refused: three sessions, one per
    direction variant, each record with its direction. The -d session's
    [SUM] adds up 2, 4 and *3 only (1.29 + 2.24 + 2.24 = 5.77 GBytes): the
    reverse run before it had ended, so the [SUM] is 'dual', not mixed."""
    result = parse("server_tcp_reverse_dual_fullduplex_loopback.txt")
    assert [(r.flow, r.side, r.test) for r in result.records] == [
        ("1", "sender", "reverse"), ("2", "receiver", "dual"), ("4", "receiver", "dual"), ("3", "sender", "dual"),
        ("SUM", "both", "dual"), ("5", "receiver", "full-duplex"), ("5", "sender", "full-duplex"),
        ("SUM", "both", "full-duplex")]
    assert sides(parse("client_tcp_reverse_loopback.txt")) == [("1", "receiver", D[1], "reverse")]


def test_server_log_with_a_stream_cut_short_keeps_the_complete_streams():
    """The server was killed during its second run: streams 1, 2 and their
    SUM are complete, stream 3 has intervals but no final line."""
    result = parse("server_tcp_cut_short.txt")
    assert [(r.flow, r.status) for r in result.records] == [("1", "ok"), ("2", "ok"), ("SUM", "ok"), ("3", "failed")]
    cut = result.records[3]
    assert "line 21" in cut.error and "no final" in cut.error and cut.throughput_mbps is None
    assert [i.end_s for i in result.intervals if i.record_index == 3] == [0.5, 1.0, 1.5]
    assert by_flow(result)["SUM"].bytes == round(1.14 * GiB)


def test_complete_stream_keeps_the_tools_error_words_as_a_warning():
    (rec,) = parse("client_tcp_server_killed.txt").records
    assert rec.status == "ok" and rec.bytes == round(1.47 * GiB)
    assert any("tcp write failed: Connection reset by peer" in w for w in rec.warnings)


def test_start_time_in_a_named_zone_is_not_stored_without_its_offset():
    """'on 2026-11-22 01:51:50 (CET)': a zone name is no offset; the time is
    not stored (never a naive time beside aware ones) and the record says why."""
    text = (HERE / "client_tcp_e.txt").read_text().replace("(UTC)", "(CET)")
    (rec,) = iperf2.parse(text, "cet.txt").records
    assert rec.started_at is None
    assert any("time zone 'CET'" in w for w in rec.warnings)


# ---------------------------------------------------------------- CSV endpoints (genuine, two namespaces)

CLIENT, SERVER = "198.18.20.1", "198.18.20.2"  # rb2-a ran iperf -c, rb2-b ran iperf -s


@pytest.mark.parametrize(("name", "sender", "receiver", "mbps"), [
    # 2.1.8 -y C names the stream's sender first on BOTH hosts: the server's row of a
    # forward run starts with the client's address, the client's row of a -R run with the server's
    ("client_tcp_csv_netns.txt", CLIENT, SERVER, 10421.294114),
    ("server_tcp_csv_netns.txt", CLIENT, SERVER, 10468.596975),
    ("client_tcp_reverse_csv.txt", SERVER, CLIENT, 11038.800828),
    ("server_tcp_reverse_csv.txt", SERVER, CLIENT, 11009.54873),
    ("client_tcp_v6_csv.txt", "2001:2:0:20::1", "2001:2:0:20::2", 10729.641447),
    ("server_tcp_v6_csv.txt", "2001:2:0:20::1", "2001:2:0:20::2", 10731.947707),
])
def test_tcp_csv_names_sender_and_receiver_but_not_local_and_remote(name, sender, receiver, mbps):
    """Which host printed a TCP CSV row is not in it: local/remote stay empty
    rather than half of them being swapped; the warning names who sent to whom."""
    (rec,) = parse(name).records
    assert rec.throughput_mbps == mbps  # the final row's bits/sec, exactly
    assert (rec.local_address, rec.remote_address, rec.side) == (None, None, None)
    assert rec.ip_version == (6 if ":" in sender else 4)
    assert any(f"sender {sender} and receiver {receiver}" in w for w in rec.warnings)


@pytest.mark.parametrize(("name", "side", "local", "remote", "field", "value"), [
    ("client_udp_csv_netns.txt", "sender", CLIENT, SERVER, "offered_mbps", 20.980166),
    ("server_udp_csv_netns.txt", "receiver", SERVER, CLIENT, "throughput_mbps", 20.980711),
    ("client_udp_reverse_csv.txt", "receiver", CLIENT, SERVER, "throughput_mbps", 20.980327),
    ("server_udp_reverse_csv.txt", "sender", SERVER, CLIENT, "offered_mbps", 20.974937),
    ("client_udp_v6_csv.txt", "sender", "2001:2:0:20::1", "2001:2:0:20::2", "offered_mbps", 20.979882),
    ("server_udp_v6_csv.txt", "receiver", "2001:2:0:20::2", "2001:2:0:20::1", "throughput_mbps", 20.98004),
])
def test_udp_csv_local_and_remote_follow_the_side_on_both_hosts(name, side, local, remote, field, value):
    """A UDP final says its side (total -1 at the sender), so local/remote are known."""
    (rec,) = parse(name).records
    assert (rec.side, rec.local_address, rec.remote_address) == (side, local, remote)
    assert getattr(rec, field) == value
    if side == "receiver":
        assert (rec.packets_sent, rec.packets_lost) == (4372.0 if "reverse" not in name else 4371.0, 0.0)


def test_csv_dual_and_full_duplex_keep_both_directions_on_both_hosts():
    # -d server: its connection back prints a text banner before the rows
    for name in ("client_tcp_dual_csv.txt", "server_tcp_dual_csv.txt"):
        recs = parse(name).records
        assert sorted(r.flow for r in recs) == ["1", "2"], name
    # --full-duplex: one stream id, two directions; the server's rows share the
    # address pair and used to merge into one record
    server = sorted(r.throughput_mbps for r in parse("server_tcp_fullduplex_csv.txt").records)
    assert server == [7858.148898, 8232.285274]
    client = parse("client_tcp_fullduplex_csv.txt").records
    assert sorted(r.throughput_mbps for r in client) == [7865.818378, 8232.260579]
    # 2.1.8 prints '::' port 0 for the receiver of the client's reverse half
    assert any("receiver (not printed)" in w for r in client for w in r.warnings)


# ---------------------------------------------------------------- other versions: 2.0.14a (bullseye), 2.2.1 (trixie)
# Genuine runs made on loopback by scripts/fixtures/iperf2_versions.sh (each .cmd
# gives the commands); 2.2.1 runs with trixie's own loader and libc.


def test_2_0_14a_enhanced_tcp_client_final_prints_na_for_cwnd_and_rtt():
    """2.0.14a -e: 'Cwnd/RTT' is '1023K/83 us' on intervals and 'NA/0 us' on
    the final: no sample there, not an RTT of zero."""
    result = parse("v2.0.14a_client_tcp_e.txt")
    (rec,) = result.records
    assert result.variant == "text-enhanced-client-tcp"
    assert (rec.flow, rec.side, rec.duration_s, rec.throughput_mbps) == ("3", "sender", 2.0, 13900.0)
    assert rec.bytes == round(3.23 * GiB) and rec.retransmits == 0.0
    assert rec.rtt_last_sample_ms is None and rec.rtt_ms is None
    assert [(i.end_s, i.rtt_ms) for i in result.intervals] == [(1.0, 0.083), (2.0, 0.078), (2.0, 0.078)]


def test_2_2_enhanced_tcp_client_inflight_cwnd_and_rtt_columns():
    """2.2 -e: 'InF(pkts)/Cwnd(pkts)/RTT(var)' = '0K(0)/2302K(36)/433(373) us'."""
    result = parse("v2.2.1_client_tcp_e.txt")
    (rec,) = result.records
    assert (rec.duration_s, rec.throughput_mbps, rec.bytes) == (2.0147, 7380.0, round(1.73 * GiB))
    assert (rec.retransmits, rec.rtt_last_sample_ms, rec.message_size_bytes) == (14.0, 0.433, 131072.0)
    assert [(i.retransmits, i.rtt_ms) for i in result.intervals] == [(2.0, 0.41), (12.0, 0.433)]
    assert rec.started_at == datetime(2026, 12, 2, 0, 44, 12, 954000, tzinfo=timezone.utc)  # '00:44:12.954 (UTC)'


@pytest.mark.parametrize(("name", "owd", "received", "duration"), [
    # 2.0.14a pads the latency columns: '0.011/ 0.001/ 3.740/ 0.146 ms ... 14.1 Byte 122409.51'
    ("v2.0.14a_server_udp_e.txt", (0.011, 0.001, 3.74, 0.146), 2563.0, 1.9999),
    # 2.2.1 ends with 'Read/Timeo/NA NetPwr': '854 pps 2563/0/0 193633'
    ("v2.2.1_server_udp_e.txt", (0.007, 0.002, 0.089, 0.004), 2562.0, 2.001),
    # a 2.2.1 client's relayed report: 'Rx/inP Read/Timeo/Trunc NetPwr'; its own lines 'Write/Err/Timeo PPS'
    ("v2.2.1_client_udp_e.txt", (0.007, 0.002, 0.089, 0.004), 2562.0, 2.001),
])
def test_enhanced_udp_receiver_layouts_of_each_version(name, owd, received, duration):
    (rec,) = parse(name).records
    assert (rec.side, rec.transport, rec.jitter_ms, rec.packets_lost) == ("receiver", "UDP", 0.001, 0.0)
    assert (rec.owd_ms, rec.owd_min_ms, rec.owd_max_ms, rec.owd_sd_ms) == owd
    assert (rec.packets_received, rec.duration_s, rec.throughput_mbps) == (received, duration, 10.5)


def test_2_0_x_udp_client_csv_rows_then_text_server_reports():
    """2.0.14a -u -y C: the client prints its own 14-field rows (total -1 on
    the final) and then each server report as text."""
    result = parse("v2.0.14a_client_udp_P2_csv_e.txt")
    assert result.variant == "csv-udp"
    s3, s4 = result.records
    # '[  3] 0.0000-1.9999 sec  2.50 MBytes  10.5 Mbits/sec   0.001 ms    2/ 2563 (0.078%)'
    assert (s3.flow, s3.side, s3.duration_s, s3.throughput_mbps, s3.jitter_ms) == ("3", "receiver", 1.9999, 10.5, 0.001)
    assert (s3.packets_lost, s3.packets_sent, s3.loss_pct, s3.offered_mbps) == (2.0, 2563.0, 0.078, 10.48963)
    assert (s4.packets_out_of_order, s4.offered_mbps) == (2.0, 10.489593)  # '2 datagrams received out-of-order'
    assert (s3.local_address, s3.remote_address) == ("127.0.0.1", "127.0.0.1")
    assert [(i.flow, i.side, i.throughput_mbps, i.loss_pct) for i in result.intervals if i.flow == "3"] == [
        ("3", "sender", 10.486368, None), ("3", "sender", 10.48576, None)]


def test_2_2_udp_client_csv_final_jitter_is_nan():
    """2.2.1 prints '-nan' for the jitter its sender never measured."""
    (rec,) = parse("v2.2.1_client_udp_csv.txt").records
    assert (rec.status, rec.side, rec.offered_mbps, rec.throughput_mbps, rec.jitter_ms) == (
        "ok", "sender", 10.481779, None, None)


def test_2_2_csv_enhanced_tcp_client_reads_columns_by_their_header():
    result = parse("v2.2.1_client_tcp_P2_csv_e.txt")
    assert result.variant == "csv-enhanced-tcp"
    flows = by_flow(result)
    assert [r.flow for r in result.records] == ["1", "2", "SUM"]
    one = flows["1"]  # '...,1,0.0,2.0,570556480,2275006187,4354,0,13,4732,74,765,1184'
    assert (one.side, one.bytes, one.throughput_mbps, one.duration_s) == ("sender", 570556480.0, 2275.006187, 2.0)
    assert (one.retransmits, one.rtt_last_sample_ms) == (13.0, 0.765)
    assert (one.local_address, one.remote_address) == ("127.0.0.1", "127.0.0.1")
    total = flows["SUM"]  # transferid -1, source port 0; its cwnd/rtt columns print 0
    assert (total.side, total.bytes, total.retransmits, total.rtt_last_sample_ms) == ("sender", 999948416.0, 68.0, None)
    assert [(i.start_s, i.end_s, i.throughput_mbps, i.retransmits) for i in result.intervals if i.flow == "1"] == [
        (0.0, 1.0, 2028.995072, 3.0), (1.0, 2.0, 2534.408192, 10.0)]


def test_2_2_csv_enhanced_receivers_and_udp_senders():
    (tcp,) = parse("v2.2.1_server_tcp_csv_e.txt").records  # header 'readcnt,bin0..': the receiver
    assert (tcp.side, tcp.bytes, tcp.throughput_mbps, tcp.retransmits) == ("receiver", 1829240896.0, 7323.855331, None)
    (udp,) = parse("v2.2.1_server_udp_csv_e.txt").records
    assert (udp.side, udp.jitter_ms, udp.packets_lost, udp.packets_sent, udp.throughput_mbps) == (
        "receiver", 0.001, 0.0, 2562.0, 10.487816)
    senders = parse("v2.2.1_client_udp_P2_csv_e.txt").records
    # header 'writecnt': the senders; their finals print jitter -1.000 and datagrams -1, the [SUM] 5126
    assert [(r.flow, r.side, r.offered_mbps, r.throughput_mbps, r.loss_pct) for r in senders] == [
        ("1", "sender", 10.474077, None, None), ("2", "sender", 10.476723, None, None),
        ("SUM", "sender", 20.947234, None, None)]


@pytest.mark.parametrize(("name", "error"), [
    ("v2.0.14a_client_tcp_refused.txt", "connect failed: Connection refused"),
    ("v2.0.14a_client_csv_refused.txt", "connect failed: Connection refused"),
    ("v2.2.1_client_tcp_refused.txt", "tcp connect to 127.0.0.1 port 26220 failed (Connection refused)"),
    ("v2.2.1_client_csv_refused.txt", "tcp connect to 127.0.0.1 port 26222 failed (Connection refused)"),
    ("v2.0.14a_usage_no_mode.txt", "Usage: iperf [-s|-c host] [options] Try `iperf --help' for more information."),
    ("v2.2.1_usage_missing_host.txt", "iperf: option requires an argument -- c; Usage: iperf [-s|-c host] [options] "
                                      "Try `iperf --help' for more information."),
    ("v2.2.1_usage_bad_option.txt", "iperf: unrecognized option `--no-such-option'; "
                                    "tcp connect to 127.0.0.1 port 5001 failed (Connection refused)"),
])
def test_error_outputs_are_failed_runs_with_the_tools_own_reason(name, error):
    """Connection refused (2.2 prints it inside a stream's brackets, with a
    date), a CSV run's refusal (no row at all) and the usage text: each is a
    failed record whose error is the tool's own words, not a refused file."""
    result = parse_file(HERE / name)
    (rec,) = result.records
    assert (result.tool, result.variant, rec.status, rec.error) == ("iperf2", "text-error", "failed", error)
    assert rec.throughput_mbps is None and rec.bytes is None


def test_2_2_udp_client_without_server_keeps_its_bracketed_error():
    (rec,) = parse("v2.2.1_client_udp_noserver.txt").records
    assert (rec.status, rec.error, rec.side, rec.packets_sent) == (
        "failed", "Read UDP fin failed: Connection refused", "sender", 180.0)


def test_server_log_labels_each_session_by_its_own_test():
    """A server log of three runs: forward, -d, forward. Only the -d run's
    connections (2, its starred connection back 3, and their [SUM]) are
    'dual'; the runs before and after it are 'forward'."""
    result = parse("v2.2.1_server_tcp_sessions.txt")
    assert [(r.flow, r.side, r.test) for r in result.records] == [
        ("1", "receiver", "forward"), ("2", "receiver", "dual"), ("3", "sender", "dual"),
        ("SUM", "both", "dual"), ("4", "receiver", "forward")]
    assert by_flow(result)["SUM"].bytes == 584 * MiB
    old = parse("v2.0.14a_server_tcp_sessions.txt")  # 2.0.14a reuses id 4; its -d run never connected back
    assert [(r.flow, r.test) for r in old.records] == [("4", "forward"), ("5", "forward"), ("4", "forward")]


def test_2_2_dual_client_that_prints_its_accepted_connection_first():
    """2.2.1 -u -d printed the listener's '[  2] local ... port 26261' before
    its own '[  1]': the ports still tell the two directions apart."""
    result = parse("v2.2.1_client_udp_dual.txt")
    assert result.variant == "text-client-udp"
    assert sides(result) == [("2", "receiver", D[1], "dual"), ("1", "receiver", D[0], "dual"),
                             ("SUM", "both", "both", "dual")]
    own = by_flow(result)["1"]  # its own line offered 10.4, the Server Report says 10.5 arrived
    assert (own.offered_mbps, own.throughput_mbps, own.packets_sent, own.duration_s) == (10.4, 10.5, 2549.0, 1.9899)


def test_2_2_enhanced_dual_client_sum_count_header():
    flows = by_flow(parse("v2.2.1_client_tcp_dual_e.txt"))  # '[SUM-cnt] Interval ...' is a header
    assert (flows["1"].side, flows["1"].retransmits, flows["1"].rtt_last_sample_ms) == ("sender", 16.0, 2.533)
    assert (flows["2"].side, flows["2"].bytes) == ("receiver", 348 * MiB)
    assert (flows["SUM"].side, flows["SUM"].retransmits, flows["SUM"].bytes) == ("both", 51.0, 764 * MiB)


def test_2_0_x_server_log_of_a_dual_run_its_connection_back_unstarred():
    """2.0.14a's own -d client never asks for the connection back, so the
    2.0.x server log comes from a 2.1.8 -d client: the server's connection
    back '[  6] local 127.0.0.1 port 56444 connected with ... port 26351' has
    no star and no 'Client connecting' header; its local port is no listening
    port, so the server opened it and sends on it."""
    server = parse("v2.0.14a_server_tcp_dual_from_2.1.8.txt")
    assert sides(server) == [("4", "receiver", D[0], "dual"), ("6", "sender", D[1], "dual"),
                             ("SUM", "both", "both", "dual")]
    flows = by_flow(server)
    assert (flows["6"].bytes, flows["6"].duration_s, flows["6"].throughput_mbps) == (round(1.49 * GiB), 2.0, 6420.0)
    assert (flows["SUM"].bytes, flows["SUM"].throughput_mbps) == (round(3.14 * GiB), 13400.0)
    client = parse("v2.1.8_client_tcp_dual_to_2.0.14a.txt")  # the same two streams, seen from the client
    assert sides(client) == [("1", "sender", D[0], "dual"), ("2", "receiver", D[1], "dual")]
