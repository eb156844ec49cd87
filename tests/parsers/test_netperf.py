"""netperf parser: values checked by hand against the genuine fixtures.

The contract every parser keeps (each fixture parses or is refused with
file:line, no parser claims another tool's output, fuzzing) is in test_contract.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.errors import ParseError
from analysis.parsers import netperf, parse_file

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "netperf"


def load(name: str):
    return parse_file(FIX / f"{name}.txt")


def one(name: str):
    result = load(name)
    assert len(result.records) == 1
    return result.records[0]


# ---------------------------------------------------------------- STREAM


def test_tcp_stream_ipv4():
    r = one("tcp_stream_v4")
    assert (r.test, r.transport, r.ip_version, r.side) == ("TCP_STREAM", "TCP", 4, "sender")
    assert (r.local_address, r.remote_address) == ("0.0.0.0", "127.0.0.1")
    assert (r.recv_socket_bytes, r.send_socket_bytes, r.message_size_bytes) == (131072, 16384, 16384)
    assert r.duration_s == 1.00 and r.throughput_mbps == pytest.approx(13634.66)
    assert r.cpu_local_pct is None and r.service_demand_local_us_per_kb is None


def test_tcp_stream_ipv6_addresses():
    r = one("tcp_stream_v6")
    assert (r.ip_version, r.local_address, r.remote_address) == (6, "::", "::1")
    assert r.throughput_mbps == pytest.approx(13631.21)


def test_tcp_stream_cpu_columns():
    r = one("tcp_stream_cpu")
    assert r.throughput_mbps == pytest.approx(15129.13)
    assert (r.cpu_local_pct, r.cpu_remote_pct) == (87.54, 87.54)
    assert (r.service_demand_local_us_per_kb, r.service_demand_remote_us_per_kb) == (0.948, 0.948)


def test_maerts_is_measured_at_the_receiver():
    r = one("tcp_maerts_cpu_v6")
    assert (r.test, r.side, r.ip_version) == ("TCP_MAERTS", "receiver", 6)
    assert r.throughput_mbps == pytest.approx(13462.09)
    assert (r.cpu_local_pct, r.service_demand_remote_us_per_kb) == (97.98, 1.192)


@pytest.mark.parametrize("name, mbps", [
    ("tcp_stream_f_lower_k", 12672013.63 / 1e3),
    ("tcp_stream_f_lower_m", 12295.24),
    ("tcp_stream_f_lower_g", 10.92 * 1e3),
    ("tcp_stream_f_upper_K", 1596322.46 * 1024 * 8 / 1e6),
    ("tcp_stream_f_upper_M", 1809.74 * 2**20 * 8 / 1e6),
    ("tcp_stream_f_upper_G", 1.62 * 2**30 * 8 / 1e6),
    ("tcp_maerts_f_upper_K_cpu", 1729389.92 * 1024 * 8 / 1e6),  # header says 'KBytes  /s'
])
def test_f_units_from_header(name, mbps):
    assert one(name).throughput_mbps == pytest.approx(mbps)


def test_upper_case_f_is_binary_bytes():
    # -v 2 prints the bytes moved: 1327513600 B in ~1.00 s at 1265.56 MBytes/s
    r = one("tcp_stream_f_upper_M_v2")
    assert r.bytes == 1327513600
    assert r.bytes / 2**20 == pytest.approx(1265.56, rel=2e-3)
    assert r.throughput_mbps == pytest.approx(1265.56 * 2**20 * 8 / 1e6)


def test_v2_stream_bytes():
    assert one("tcp_stream_v2").bytes == 1656274944


# ---------------------------------------------------------------- UDP_STREAM


def test_udp_stream_two_sides_and_loss():
    sender, receiver = load("udp_stream").records
    assert (sender.side, receiver.side) == ("sender", "receiver")
    assert (sender.packets_sent, sender.throughput_mbps, sender.message_size_bytes) == (68154, 557.95, 1024)
    assert (receiver.packets_received, receiver.throughput_mbps) == (39170, 320.67)
    assert receiver.packets_lost == 68154 - 39170
    assert receiver.loss_pct == pytest.approx(100 * (68154 - 39170) / 68154)
    assert sender.loss_pct is None and (sender.record_index, receiver.record_index) == (0, 1)
    assert sender.send_errors == 0 and receiver.send_errors is None


def test_udp_stream_cpu_per_side():
    sender, receiver = load("udp_stream_cpu_v6").records
    assert (sender.cpu_local_pct, sender.service_demand_local_us_per_kb) == (100.0, 26.207)
    assert (receiver.cpu_remote_pct, receiver.service_demand_remote_us_per_kb) == (100.0, 26.207)
    assert sender.cpu_remote_pct is None and receiver.ip_version == 6


def test_udp_stream_bytes_unit():
    sender, receiver = load("udp_stream_f_upper_M_cpu").records
    assert sender.throughput_mbps == pytest.approx(158.9 * 2**20 * 8 / 1e6)
    assert receiver.throughput_mbps == pytest.approx(152.2 * 2**20 * 8 / 1e6)


def test_old_banner_udp_nothing_received():
    sender, receiver = load("old24_udp_stream_nothing_received").records
    assert (receiver.packets_received, receiver.loss_pct, receiver.throughput_mbps) == (0, 100.0, 0.0)
    assert sender.remote_address == "192.168.2.125"


# ---------------------------------------------------------------- RR


def test_tcp_rr_rtt_derived():
    r = one("tcp_rr")
    assert (r.test, r.side, r.transactions_per_s) == ("TCP_RR", "both", 53193.44)
    assert (r.send_socket_bytes, r.recv_socket_bytes, r.message_size_bytes) == (16384, 131072, 1)
    assert r.rtt_ms == pytest.approx(1000 / 53193.44)


def test_rr_cpu_service_demand_per_transaction_not_stored_as_per_kb():
    r = one("tcp_rr_cpu")
    assert (r.cpu_local_pct, r.cpu_remote_pct) == (100.0, 100.0)
    assert r.service_demand_local_us_per_kb is None and r.service_demand_remote_us_per_kb is None
    # "16384  131072 1       1      1.00    51002.11  100.00 100.00 39.214  39.214"
    assert (r.service_demand_local_us_per_tr, r.service_demand_remote_us_per_tr) == (39.214, 39.214)
    assert r.response_size_bytes == 1


def test_rr_v2_uses_printed_round_trip_latency():
    assert one("tcp_rr_v2_cpu").rtt_ms == pytest.approx(63.748 / 1000)


def test_no_rtt_with_burst_or_crr():
    assert one("tcp_rr_burst").rtt_ms is None
    crr = one("tcp_crr_cpu_v6")
    assert (crr.test, crr.transactions_per_s, crr.rtt_ms, crr.cpu_remote_pct) == ("TCP_CRR", 7643.19, None, 338.68)


def test_udp_rr_ipv6():
    r = one("udp_rr_v6")
    assert (r.test, r.transport, r.ip_version, r.transactions_per_s) == ("UDP_RR", "UDP", 6, 50064.10)


def test_old_banner_udp_rr_cpu():
    r = one("old24_udp_rr_cpu")
    assert (r.test, r.duration_s, r.transactions_per_s, r.cpu_local_pct, r.cpu_remote_pct) == (
        "UDP_RR", 10.01, 15262.48, 13.90, 16.11)


# ---------------------------------------------------------------- -P 0 / -v 0


def test_p0_rr_has_no_test_name_and_no_rtt():
    r = one("tcp_rr_P0_brand")
    assert (r.test, r.transport, r.transactions_per_s, r.rtt_ms) == (None, None, 35251.48, None)
    assert "brand (-B): run7" in r.warnings


def test_p0_stream_throughput_has_no_unit():
    r = one("tcp_stream_P0")
    assert r.throughput_mbps is None and any("19350.46" in w for w in r.warnings)
    assert (r.message_size_bytes, r.duration_s) == (16384, 1.00)


def test_p0_udp_stream_shape_names_the_test():
    sender, receiver = load("udp_stream_P0_cpu").records
    assert (sender.test, sender.packets_sent, receiver.packets_received) == ("UDP_STREAM", 175448, 161111)


def test_v0_rr_figure_is_transactions():
    r = one("tcp_rr_v0")
    assert (r.test, r.transactions_per_s) == ("TCP_RR", 17041.05)


def test_v0_stream_figure_not_converted():
    r = one("tcp_stream_v0_f_upper_K")
    assert r.throughput_mbps is None and any("1445640.00" in w for w in r.warnings)


def test_p0_v0_bare_figure_is_a_parse_error():
    with pytest.raises(ParseError, match="no test type"):
        load("tcp_stream_P0_v0")


# ---------------------------------------------------------------- confidence


def test_confidence_not_achieved():
    r = one("tcp_stream_conf_cpu")
    assert (r.confidence_level_pct, r.confidence_achieved) == (99.0, False)
    assert r.confidence_interval_pct == pytest.approx(48.632 / 2)
    assert "Desired confidence was not achieved within the specified iterations." in r.warnings


def test_confidence_achieved():
    r = one("udp_rr_conf_achieved")
    assert (r.confidence_level_pct, r.confidence_achieved, r.confidence_interval_pct) == (95.0, True, None)


def test_omni_confidence_from_selectors():
    r = one("omni_stream_csv_cpu_conf")
    assert (r.confidence_level_pct, r.confidence_achieved) == (99.0, False)
    assert r.confidence_interval_pct == pytest.approx(112.665 / 2)


# ---------------------------------------------------------------- -D interim


def test_interim_rows():
    result = load("tcp_stream_demo")
    first, second = result.intervals
    assert (first.start_s, first.end_s, first.throughput_mbps) == (0.0, 1.441, 11982.11)
    assert (second.start_s, second.end_s) == (1.441, 2.0)


def test_interim_bytes_unit():
    first = load("tcp_maerts_demo_f_upper_K").intervals[0]
    assert first.throughput_mbps == pytest.approx(2235434.02 * 1024 * 8 / 1e6)


# ---------------------------------------------------------------- omni


LATENCY_MS = dict(rtt_min_ms=0.025, rtt_ms=0.09161, latency_p50_ms=0.077, latency_p90_ms=0.113,
                  latency_p99_ms=0.326, rtt_max_ms=4.111, rtt_sd_ms=0.08424)


def test_omni_keyval_latency():
    r = one("omni_rr_keyval_latency_v6")
    assert (r.test, r.transport, r.side, r.ip_version, r.transactions_per_s) == ("omni", "TCP", "both", 6, 10902.670)
    for name, value in LATENCY_MS.items():
        assert getattr(r, name) == pytest.approx(value), name


def test_omni_csv_and_columns_latency():
    csv_rec, col = one("omni_rr_csv_latency"), one("omni_rr_columns_latency")
    assert (csv_rec.rtt_min_ms, csv_rec.latency_p99_ms, csv_rec.rtt_max_ms) == pytest.approx((0.023, 0.280, 2.508))
    assert (col.rtt_ms, col.latency_p50_ms, col.rtt_sd_ms) == pytest.approx((0.0741, 0.072, 0.03972))
    assert (col.transactions_per_s, col.duration_s, col.message_size_bytes) == (13480.527, 1.00, 1)


def test_omni_default_columns_with_wrapped_titles():
    r = one("omni_default")
    assert (r.send_socket_bytes, r.recv_socket_bytes, r.message_size_bytes) == (4194304, 1987632, 16384)
    assert r.throughput_mbps == pytest.approx(13236.66) and r.side == "sender"


def test_omni_udp_send_is_receiver_throughput_with_loss():
    r = one("omni_udp_stream_keyval")
    assert (r.side, r.throughput_mbps, r.packets_sent, r.packets_received) == ("receiver", 1037.78, 172673, 126694)
    assert r.loss_pct == pytest.approx(100 * (172673 - 126694) / 172673)
    assert r.cpu_local_pct is None and r.service_demand_local_us_per_kb is None  # -1.00 = not measured


def test_migrated_rr_with_keyval():
    r = one("tcp_rr_keyval_latency")
    assert (r.test, r.transactions_per_s, r.rtt_ms, r.rtt_max_ms) == ("TCP_RR", 11702.448, 0.08533, 4.814)


def test_omni_without_titles_is_a_parse_error():
    with pytest.raises(ParseError, match="without their titles"):
        load("omni_rr_csv_P0")


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize("name, words, remote, ipv", [
    ("error_no_netserver", "establish control: are you sure there is a netserver listening on 127.0.0.1", "127.0.0.1", 4),
    ("error_no_netserver_v6", "establish control: are you sure there is a netserver listening on ::1", "::1", 6),
    ("error_v6_host_with_4", "resolve_host: could not resolve host '::1'", None, None),
    ("error_bad_option", "netperf: invalid option -- 'X'", None, None),
    ("error_bad_test", "The test you requested (TCP_FOO) is unknown to this netperf.", None, None),
    ("error_conf_level", "Only 95% and 99% confidence level is supported", None, None),
    ("error_old24_udp_send_too_long", "udp_send: data send error: Message too long", "192.168.2.125", 4),
])
def test_tool_errors_are_failed_runs(name, words, remote, ipv):
    r = one(name)
    assert r.status == "failed" and r.error.startswith(words)
    assert (r.remote_address, r.ip_version) == (remote, ipv)
    assert "Usage" not in r.error


def test_ignored_test_option_is_a_warning():
    r = one("tcp_stream_ignored_test_option")
    assert r.status == "ok" and r.throughput_mbps == 10290.75
    assert "netperf: invalid option -- 'Q'" in r.warnings


def test_unknown_banner_names_the_line():
    text = "MIGRATED SCTP FOO TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 127.0.0.1 () port 0 AF_INET\n"
    with pytest.raises(ParseError) as err:
        netperf.parse(text, "x.txt")
    assert err.value.line == 1 and "SCTP FOO" in err.value.reason



# ---------------------------------------------------------------- -P 0: columns or hints


@pytest.mark.parametrize(("name", "family"), [("tcp_stream_P0", "a TCP stream test"), ("tcp_maerts_P0_cpu", "a TCP stream test"),
                                              ("tcp_rr_P0", "a request/response test"), ("udp_rr_P0_cpu", "a request/response test"),
                                              ("udp_stream_P0_cpu", "UDP_STREAM")])
def test_p0_columns_decide_the_family_and_a_warning_says_so(name, family):
    """5 (9 with CPU) numbers: a TCP stream test; 6 and 2: request/response;
    6 and 4: UDP_STREAM. Only UDP_STREAM's shape names the test itself."""
    records = load(name).records
    assert all(f"the columns make it {family}" in r.warnings[0] for r in records)
    assert {r.test for r in records} == ({"UDP_STREAM"} if family == "UDP_STREAM" else {None})
    if family == "a TCP stream test":
        assert {(r.transport, r.side) for r in records} == {("TCP", None)}  # STREAM sends, MAERTS receives: unknown


def test_p0_test_and_unit_hints_name_what_the_output_does_not_print():
    path = FIX / "tcp_maerts_P0_cpu.txt"
    rec, = parse_file(path, hints={"netperf": {"test": "TCP_MAERTS", "unit": "m"}}).records
    assert (rec.test, rec.transport, rec.side, rec.throughput_mbps) == ("TCP_MAERTS", "TCP", "receiver", 8851.74)
    assert "test TCP_MAERTS from the parser hint" in rec.warnings[0]
    assert any("unit -f m from the parser hint" in w for w in rec.warnings)
    rr, = parse_file(FIX / "tcp_rr_P0.txt", hints={"netperf": {"test": "TCP_RR"}}).records
    assert (rr.test, rr.transport, rr.transactions_per_s) == ("TCP_RR", "TCP", 22831.09)
    assert rr.rtt_ms is None  # no banner, so the first burst is not known: 1000/tps is no RTT for sure


def test_p0_bare_figure_needs_a_test_hint_and_takes_it():
    with pytest.raises(ParseError, match="parser hint netperf.test"):
        load("tcp_stream_P0_v0")
    rec, = parse_file(FIX / "tcp_stream_P0_v0.txt", hints={"netperf": {"test": "TCP_STREAM", "unit": "m"}}).records
    assert (rec.test, rec.side, rec.throughput_mbps) == ("TCP_STREAM", "sender", 9993.78)


@pytest.mark.parametrize(("name", "hints", "words"), [
    ("tcp_rr_P0.txt", {"test": "TCP_STREAM"}, "does not fit the columns"),
    ("tcp_stream_v4.txt", {"test": "TCP_RR"}, "contradicts the banner"),
    ("tcp_stream_P0.txt", {"test": "TCP_NOPE"}, "no netperf test"),
    ("tcp_stream_P0.txt", {"unit": "x"}, "no netperf -f letter"),
])
def test_a_hint_that_does_not_fit_is_refused(name, hints, words):
    with pytest.raises(ParseError, match=words):
        parse_file(FIX / name, hints={"netperf": hints})


# ---------------------------------------------------------------- netperf 2.7.1 (Debian trixie), defaults, omni stream latency


def test_default_unit_is_printed_by_2_7_1_without_f():
    """The header of a run without -f names 10^6bits/sec (2.7.1 as 2.7.0's tcp_stream_v4)."""
    r = one("v2.7.1_tcp_stream")
    assert (r.test, r.side, r.throughput_mbps, r.duration_s) == ("TCP_STREAM", "sender", 1780.31, 1.01)


@pytest.mark.parametrize(("name", "test", "values"), [
    ("v2.7.1_tcp_stream_P0", "TCP_STREAM", [("sender", 2568.89)]),  # '131072  16384  16384    1.02     2568.89'
    ("v2.7.1_tcp_maerts_P0", "TCP_MAERTS", [("receiver", 3007.08)]),
    ("v2.7.1_udp_stream_P0", "UDP_STREAM", [("sender", 454.68), ("receiver", 228.54)]),
])
def test_p0_row_with_a_test_hint_reads_netperfs_default_unit(name, test, values):
    """-P 0 drops the header, the only place of the unit. A test hint
    without a unit hint means the run used no -f: netperf's default for a
    stream test, 10^6bits/s, and each record says it was read so."""
    records = parse_file(FIX / f"{name}.txt", hints={"netperf": {"test": test}}).records
    assert [(r.side, r.throughput_mbps) for r in records] == values
    assert all(any("default unit for " + test in w for w in r.warnings) for r in records)


def test_p0_row_without_any_hint_keeps_no_throughput():
    r = one("v2.7.1_tcp_stream_P0")
    assert r.throughput_mbps is None and any("raw figure 2568.89" in w for w in r.warnings)
    assert parse_file(FIX / "v2.7.1_tcp_stream_P0.txt", hints={"netperf": {"test": "TCP_STREAM", "unit": "K"}}
                      ).records[0].throughput_mbps == pytest.approx(2568.89 * 1024 * 8 / 1e6)


def test_omni_stream_latency_is_no_round_trip():
    """-d send -k ...LATENCY: a stream test's latency is the time of one
    send call, not a round trip: latency_* columns, rtt_* stay empty."""
    r = one("v2.7.1_omni_stream_latency_keyval")
    assert (r.side, r.throughput_mbps, r.duration_s) == ("sender", 2018.06, 1.03)
    # MEAN 62.76, MIN 1, MAX 35120, P50 3, P90 5, P99 50, STDDEV 915.47 (microseconds)
    assert (r.latency_ms, r.latency_min_ms, r.latency_max_ms, r.latency_sd_ms) == (0.06276, 0.001, 35.12, 0.91547)
    assert (r.latency_p50_ms, r.latency_p90_ms, r.latency_p99_ms) == (0.003, 0.005, 0.05)
    assert (r.rtt_ms, r.rtt_min_ms, r.rtt_max_ms, r.rtt_sd_ms) == (None, None, None, None)
