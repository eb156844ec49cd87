"""iperf 2 parser: values checked by hand against the fixture texts.

Fixtures: tests/fixtures/iperf2/ (genuine 2.1.8 runs made here, genuine
public pastes named public_*, hand-damaged copies named damaged_*, genuine
outputs of refused variants named unsupported_*, and genuine iperf3 outputs in
foreign_iperf3/ as negative detection samples).

The contract every parser keeps (each fixture parses or is refused with
file:line, no parser claims another tool's output, fuzzing) is in test_contract.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.errors import ParseError
from analysis.parsers import iperf2

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
HERE = FIXTURES / "iperf2"
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
    assert (rec.retransmits, rec.rtt_ms, rec.message_size_bytes) == (4.0, pytest.approx(0.475), 131072.0)
    assert rec.started_at == "2026-11-22T01:51:50Z"
    assert rec.local_address == "127.0.0.1"  # "%lo" device suffix removed
    assert [(i.retransmits, i.rtt_ms) for i in result.intervals] == [(0.0, 0.226), (4.0, 0.091)]


def test_tcp_enhanced_sum_has_retries_but_no_rtt():
    flows = by_flow(parse("client_tcp_e_P2.txt"))
    assert flows["SUM"].retransmits == 15.0 and flows["SUM"].rtt_ms is None
    assert flows["1"].rtt_ms == pytest.approx(1.034)


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
    text = (HERE / name).read_bytes().decode("utf-8", "replace")
    with pytest.raises(ParseError) as info:
        iperf2.parse(text, name)
    assert info.value.line == line and words in info.value.reason


@pytest.mark.parametrize("name", ["unsupported_reverse_client.txt", "unsupported_fullduplex_client.txt",
                                  "unsupported_server_reverse_dual_fullduplex.txt"])
def test_reverse_and_full_duplex_are_refused(name):
    with pytest.raises(ParseError) as info:
        parse(name)
    assert info.value.line == 5 and "reverse (-R) or full-duplex" in info.value.reason


def test_dual_test_mixing_client_and_server_reports_is_refused():
    # The genuine server log with its first (reverse) session cut out by hand:
    # what remains is the -d session, where the server also prints a client header.
    lines = (HERE / "unsupported_server_reverse_dual_fullduplex.txt").read_text().splitlines()
    text = "\n".join(lines[:4] + lines[7:])
    with pytest.raises(ParseError) as info:
        iperf2.parse(text, "cut")
    assert info.value.line == 7 and "-d/-r dual test" in info.value.reason
