"""D-ITG: ITGDec summaries, time series and packet logs, and the binary log reader.

Fixtures are genuine D-ITG 2.8.1 outputs made on loopback (see each NAME.cmd),
two pasted in seed-labs/seed-emulator's README, one derived log (records
removed/duplicated/swapped, with ITGDec's genuine output on it) and hand-damaged
copies for the error paths.

The contract every parser keeps (each fixture parses or is refused with
file:line, no parser claims another tool's output, fuzzing) is in test_contract.py.
"""

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from analysis.errors import ParseError
from analysis.parsers import ditg, ditg_format, ditg_log, ditg_stats, parse_bytes, parse_file

from budget import examples

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "ditg"
DAMAGED = Path(__file__).resolve().parents[1] / "fixtures" / "damaged" / "ditg"  # hand-damaged copies
BINARIES = sorted(p.name for p in FIX.glob("*.bin"))


def text(name):
    return (FIX / name).read_text()


def parse(name, **kw):
    return ditg.parse(text(name), name, **kw)


# --- summaries -----------------------------------------------------------------

def test_receiver_summary_values():
    res = parse("udp4_recv_summary.txt")
    assert res.variant == "summary-receiver"
    flow, total = res.records
    assert (flow.flow, total.flow) == ("1", "TOTAL")
    assert flow.tool_version == "2.8.1 (r1023)"
    assert flow.side == "receiver"
    assert (flow.local_address, flow.remote_address, flow.ip_version) == ("127.0.0.1", "127.0.0.1", 4)
    assert flow.duration_s == 1.993377
    assert flow.packets_received == 198 and flow.packets_lost == 0 and flow.loss_pct == 0.0
    assert flow.owd_min_ms == pytest.approx(0.026) and flow.owd_max_ms == pytest.approx(0.511)
    assert flow.owd_ms == pytest.approx(0.082) and flow.jitter_ms == pytest.approx(0.040)
    assert flow.owd_sd_ms == pytest.approx(0.055)
    assert flow.bytes == 101376
    assert flow.throughput_mbps == pytest.approx(0.406851288, abs=1e-12)
    assert flow.rtt_ms is None and flow.packets_sent is None


def test_bitrate_is_kbit_per_s_to_mbps_exactly():
    flow = parse("multi_recv_summary.txt").records[1]
    assert flow.flow == "2" and flow.throughput_mbps == pytest.approx(0.102953409, abs=1e-12)
    assert flow.bytes == 19200 and flow.packets_received == 75


def test_ipv6_endpoints_without_brackets():
    flow = parse("udp6_recv_summary.txt").records[0]
    assert (flow.local_address, flow.remote_address, flow.ip_version) == ("::1", "::1", 6)
    shared = parse("shared_recv_summary.txt").records
    assert [(r.remote_address, r.ip_version) for r in shared[:2]] == [("127.0.0.1", 4), ("::1", 6)]


def test_two_flows_sharing_a_flow_number_stay_apart():
    a, b, total = parse("shared_recv_summary.txt").records
    assert a.flow == b.flow == "1" and total.flow == "TOTAL"
    assert (a.packets_received, b.packets_received, total.packets_received) == (148, 75, 223)
    assert a.bytes == 75776 and b.bytes == 19200
    assert "127.0.0.1:51310 -> 127.0.0.1:29131" in a.warnings[0]
    assert "this record is ::1:55391 -> ::1:29132" in b.warnings[0]
    assert total.warnings == []


def test_loss_and_its_percentage():
    flow, total = parse("loss2_recv_summary.txt").records
    assert flow.packets_received == 634 and flow.packets_lost == 16 and flow.loss_pct == 2.46
    assert flow.throughput_mbps == pytest.approx(41.089620255)
    assert total.packets_lost == 16


def test_sender_log_counts_packets_sent_and_reports_no_delay():
    res = parse("udp4_send_summary.txt")
    assert res.variant == "summary-sender"
    flow = res.records[0]
    assert flow.side == "sender" and flow.packets_sent == 198
    assert flow.packets_received is None and flow.owd_ms is None and flow.jitter_ms is None
    assert (flow.local_address, flow.remote_address) == ("127.0.0.1", "127.0.0.1")


def test_round_trip_mode_puts_delays_in_rtt():
    plain = parse("rttm4_send_summary.txt").records[0]
    rtt = parse("rttm4_send_summary.txt", meter="rttm").records[0]
    assert plain.owd_ms == pytest.approx(0.139) and plain.rtt_ms is None
    assert rtt.owd_ms is None and rtt.side == "sender"
    assert (rtt.rtt_ms, rtt.rtt_min_ms, rtt.rtt_max_ms) == pytest.approx((0.139, 0.059, 0.348))
    assert rtt.packets_received == 149


def test_spinner_glued_into_the_output():
    assert "\b" in text("udp4_recv_summary_spinner.txt")
    spun = parse("udp4_recv_summary_spinner.txt").records
    clean = parse("udp4_recv_summary.txt").records
    assert [r.to_dict() for r in spun] == [r.to_dict() for r in clean]


def test_public_paste_with_spinner_and_two_flows_numbered_1():
    res = parse("seed_emulator_sender_2flows.txt")
    a, b, total = res.records
    assert res.variant == "summary-sender" and a.tool_version == "2.8.1 (r1023)"
    assert (a.packets_sent, b.packets_sent, total.packets_sent) == (1033, 4182, 5215)
    assert a.remote_address == "10.170.0.73" and b.remote_address == "10.162.0.73"
    assert "sequence gaps" in a.warnings[-1] and "shared by 2 flows" in a.warnings[0]
    spin = parse("seed_emulator_sender_spinner.txt").records[0]
    assert spin.packets_sent == 51873 and spin.throughput_mbps == pytest.approx(3.541267861)


def test_text_log_summary_pads_addresses():
    # ITGDec -t (summary of its own text log) prints the padded address field
    flow = parse("udp6_recv_packets_summary.txt").records[0]
    assert (flow.local_address, flow.packets_received) == ("::1", 148)


def test_tool_error_is_a_failed_record():
    res = ditg.parse("ITGDec version 2.8.1 (r1023)\nCompile-time options: sctp dccp bursty multiport\n\n"
                     " Error opening log file 'nope.log'\nerror : No such file or directory\n", "e.txt")
    (rec,) = res.records
    assert rec.status == "failed" and rec.error.startswith("Error opening log file 'nope.log'")


@pytest.mark.parametrize("name, line, reason", [
    ("damaged_truncated.txt", 4, "truncated ITGDec block 1: missing"),
    ("damaged_wrong_unit.txt", 16, "in Kbit/s"),
    ("damaged_garbage_value.txt", 12, "is not a number"),
    ("damaged_packets.txt", 41, "expected an ITGDec -l packet line"),
])
def test_damaged_outputs_name_the_line(name, line, reason):
    with pytest.raises(ParseError) as err:
        parse_file(DAMAGED / name, name)
    assert err.value.line == line and reason in err.value.reason


def test_unknown_label_is_an_error():
    bad = text("udp4_recv_summary.txt").replace("Average jitter  ", "Median jitter   ")
    with pytest.raises(ParseError, match=r":13: unknown ITGDec label 'Median jitter'"):
        ditg.parse(bad, "x.txt")


# --- time series ---------------------------------------------------------------

def test_bitrate_series_per_flow_and_aggregate():
    res = parse("multi_bitrate.txt", series="bitrate")
    assert [r.flow for r in res.records] == ["1", "2", "TOTAL"]
    first = [i for i in res.intervals if i.start_s == 0.0]
    assert [(i.flow, i.record_index, i.end_s) for i in first] == [("1", 0, 0.1), ("2", 1, 0.1), ("TOTAL", 2, 0.1)]
    assert [i.throughput_mbps for i in first] == pytest.approx([0.4096, 0.1024, 0.512])
    assert len(res.intervals) == 15 * 3


def test_delay_series_drops_the_summed_aggregate():
    res = parse("multi_delay.txt", series="delay")
    assert [r.flow for r in res.records] == ["1", "2"]
    assert res.intervals[0].delay_ms == pytest.approx(0.070) and res.intervals[1].delay_ms == pytest.approx(0.091)


def test_packet_loss_series_is_a_count():
    res = parse("loss2_packetloss.txt", series="packetloss")
    last = [i for i in res.intervals if i.start_s == pytest.approx(0.007)]
    assert [(i.flow, i.packets_lost) for i in last] == [("1", 16.0), ("TOTAL", 16.0)]
    assert res.intervals[0].end_s == pytest.approx(0.001)


def test_combined_series_keeps_bitrate_and_loss():
    res = parse("loss2_combined.txt")
    assert res.variant == "series-combined" and len(res.intervals) == 8
    last = res.intervals[-1]
    assert last.throughput_mbps == pytest.approx(109.568) and last.packets_lost == 16.0
    assert last.delay_ms is None and last.jitter_ms is None


def test_series_without_its_metric_is_an_error():
    with pytest.raises(ParseError, match="does not say its metric"):
        parse("multi_jitter.txt")


def test_series_with_shared_flow_number_and_ipv6_columns():
    res = parse("shared_bitrate.txt", series="bitrate")
    assert [(r.flow, r.remote_address, r.ip_version) for r in res.records[:2]] == [("1", "127.0.0.1", 4), ("1", "::1", 6)]
    assert "shared by 2 flows" in res.records[1].warnings[-1]


# --- text packet log -------------------------------------------------------------

def test_packet_log_table_and_records():
    res = parse("shared_recv_packets.txt")
    df = ditg_log.packets_frame(res.packets)
    assert len(df) == 223 and list(df.columns[:6]) == ["flow", "seq", "src", "src_port", "dst", "dst_port"]
    row = df.iloc[0]
    assert (row.flow, row.seq, row.src, row.src_port, row.dst_port, row.size_bytes) == (1, 1, "127.0.0.1", 51310, 29131, 512)
    assert set(df.dst) == {"127.0.0.1", "::1"}
    a, b, total = res.records
    assert (a.packets_received, b.packets_received, total.flow) == (148, 75, "TOTAL")


def test_packet_log_stats_equal_itgdec_on_the_text_log():
    packets_summary = ditg_format.format_summary(_text_log_summary("udp6_recv_packets.txt"))
    itgdec = text("udp6_recv_packets_summary.txt").split("\n", 2)[2]
    strip = lambda s: [" ".join(l.split()) for l in s.splitlines()]  # ITGDec -t pads From/To
    assert strip(packets_summary) == strip(itgdec)


def _text_log_summary(name):
    return ditg_stats.summarize(parse(name).packets)


# --- binary logs -------------------------------------------------------------------

def itgdec_summary_of(binary_name):
    """The committed ITGDec output for a binary fixture, without its version lines."""
    return text(binary_name.replace(".bin", "").replace(".", "_") + "_summary.txt").split("\n", 2)[2]


@pytest.mark.parametrize("chunk", [ditg_log.CHUNK, 7, 64])
@pytest.mark.parametrize("name", BINARIES)
def test_binary_reader_reproduces_every_itgdec_summary_line(name, chunk, monkeypatch):
    """Read whole and in parts of 7 and 64 records (flows, losses, jitter and
    sums carried across parts): every printed digit as ITGDec prints it."""
    monkeypatch.setattr(ditg_log, "CHUNK", chunk)
    summarizer = ditg_stats.Summarizer()
    for part in ditg_log.read_log((FIX / name).read_bytes(), name):
        summarizer.add(part)
    assert ditg_format.format_summary(summarizer.summary()) == itgdec_summary_of(name)


def test_binary_records_match_the_text_summary_to_printed_precision():
    binary = parse_file(FIX / "shared.recv.bin").records
    printed = parse("shared_recv_summary.txt").records
    for b, t in zip(binary, printed, strict=True):
        assert (b.flow, b.local_address, b.remote_address, b.side) == (t.flow, t.local_address, t.remote_address, t.side)
        assert b.owd_ms == pytest.approx(t.owd_ms, abs=5e-4) and b.jitter_ms == pytest.approx(t.jitter_ms, abs=5e-4)
        assert b.throughput_mbps == pytest.approx(t.throughput_mbps, abs=5e-10)
        assert b.packets_received == t.packets_received and b.bytes == t.bytes


def test_binary_duplicates_and_losses_as_itgdec_counts_them():
    flow = ditg.parse_binary((FIX / "derived_loss_dup.recv.bin").read_bytes(), "d.bin").records[0]
    # 4 records removed, one written twice: ITGDec's formula sees 3 lost and no duplicate
    assert (flow.packets_received, flow.packets_lost, flow.packets_duplicate) == (195, 3, 0)


def test_loss_counters_follow_itgdec():
    # (lost, duplicates, loss events) as ITGDec 2.8.1 printed them for logs of
    # genuine records with these sequence numbers written in (checked by hand):
    # a duplicate hides the loss event, and the event count can wrap (uint32)
    assert ditg_stats.loss_counters(np.array([1, 2, 2, 3, 5])) == (1, 1, 0)
    assert ditg_stats.loss_counters(np.array([1, 2, 5, 6])) == (2, 0, 1)
    assert ditg_stats.loss_counters(np.array([3, 1, 2, 2, 7, 4, 4, 9])) == (2, 1, 2**32 - 2)


def test_binary_sender_log_and_rttm():
    assert parse_file(FIX / "udp4.send.bin").variant == "binary-sender"
    rtt = ditg.parse_binary((FIX / "rttm4.send.bin").read_bytes(), "r.bin", meter="rttm").records[0]
    assert rtt.side == "sender" and rtt.rtt_ms == pytest.approx(0.139, abs=5e-4) and rtt.owd_ms is None


def test_binary_dispatch_and_ipv6():
    res = parse_bytes((FIX / "udp6.recv.bin").read_bytes(), "u.bin")
    assert res.tool == "ditg" and res.variant == "binary-receiver"
    assert (res.records[0].local_address, res.records[0].ip_version, res.records[0].packets_received) == ("::1", 6, 148)


def test_midnight_rollover_is_handled_derived():
    """DERIVED: a genuine log rewritten so that the flow crosses midnight."""
    arr = np.frombuffer((FIX / "udp4.recv.bin").read_bytes(), ditg_log.RECORD).copy()
    genuine = ditg.parse_binary(arr.tobytes(), "g.bin").records[0]
    half = len(arr) // 2
    for side in ("tx", "rx"):
        arr[f"{side}_hour"] = 23
        arr[f"{side}_min"] = 59
    # shift every time so that the first half is before midnight, the rest after it
    for side in ("tx", "rx"):
        secs = arr[f"{side}_sec"] - arr["rx_sec"][half] + 60.0
        before = secs < 60.0
        arr[f"{side}_sec"] = np.where(before, secs, secs - 60.0)
        arr[f"{side}_hour"] = np.where(before, 23, 0)
        arr[f"{side}_min"] = np.where(before, 59, 0)
    assert ditg.detect_binary(arr.tobytes())
    rec = ditg.parse_binary(arr.tobytes(), "m.bin").records[0]
    assert "crosses midnight" in rec.warnings[-1]
    assert rec.owd_max_ms < 1.0 and rec.owd_min_ms > 0
    assert rec.duration_s == pytest.approx(genuine.duration_s, abs=1e-6)
    assert rec.owd_ms == pytest.approx(genuine.owd_ms, abs=1e-6)


def test_damaged_binary_is_a_parse_error():
    data = (DAMAGED / "damaged_truncated.recv.bin").read_bytes()
    assert not ditg.detect_binary(data)
    with pytest.raises(ParseError, match="not a whole number of 144-byte"):
        ditg.parse_binary(data, "t.bin")


def test_no_text_fixture_passes_as_a_binary_log():
    for path in FIX.glob("*"):
        if path.suffix in (".txt", ".cmd"):
            assert not ditg.detect_binary(path.read_bytes()), path.name


# --- robustness --------------------------------------------------------------------

@settings(max_examples=examples(200), suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=1000))
def test_arbitrary_bytes_raise_only_parse_errors(data):
    try:
        ditg.parse_binary(data, "fuzz.bin")
    except ParseError:
        pass


@settings(max_examples=examples(200), suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 28511), st.binary(min_size=1, max_size=8))
def test_mutated_binary_log_raises_only_parse_errors(offset, patch):
    data = bytearray((FIX / "udp4.recv.bin").read_bytes())
    data[offset:offset + len(patch)] = patch
    try:
        ditg.parse_binary(bytes(data), "mut.bin")
    except ParseError:
        pass


@pytest.mark.parametrize("name", ["rttm4_send_summary.txt", "rttm4.send.bin", "udp4_recv_summary.txt", "udp4.recv.bin",
                                  "udp6_recv_packets.txt"])
def test_a_receiver_looking_log_without_a_meter_hint_carries_a_warning(name):
    """ITGSend's log of a round-trip run (-m rttm) is indistinguishable from a
    receiver's one-way log: read without a hint, the file says so."""
    res = parse_file(FIX / name)
    assert res.variant.endswith("receiver")
    assert len(res.warnings) == 1 and "-m rttm" in res.warnings[0] and "ditg.meter=" in res.warnings[0]
    for meter in ("owdm", "rttm"):
        assert parse_file(FIX / name, hints={"ditg": {"meter": meter}}).warnings == []


@pytest.mark.parametrize("name", ["udp4_send_summary.txt", "udp4.send.bin"])
def test_a_sender_log_is_not_ambiguous(name):
    res = parse_file(FIX / name)
    assert res.variant.endswith("sender") and res.warnings == []


def test_negative_delays_are_one_way_without_doubt():
    """Two hosts' unsynchronised clocks give negative one-way delays, which no
    round trip (one clock) can: no warning then. Derived from a genuine log."""
    arr = np.frombuffer((FIX / "udp4.recv.bin").read_bytes(), ditg_log.RECORD).copy()
    arr["rx_sec"] = arr["tx_sec"] - 0.0001
    res = ditg.parse_binary(arr.tobytes(), "skewed.bin")
    assert res.records[0].owd_ms < 0 and res.warnings == []


def test_binary_packets_table_on_request():
    data = (FIX / "udp4.recv.bin").read_bytes()
    assert ditg.parse_binary(data, "u.bin").packets is None  # not built for a summary
    table = ditg_log.packets_frame(ditg.parse_binary(data, "u.bin", packets=True).packets)
    assert len(table) == 198 and list(table.seq[:3]) == [1, 2, 3]
    assert table.delay_s.iloc[0] == 3.8e-05  # exactly D-ITG's microseconds, no subtraction noise
    assert len(parse_bytes(data, "u.bin", packets=True).packets.seq) == 198


@pytest.mark.skipif(shutil.which("ITGDec") is None, reason="ITGDec (Debian d-itg) is not installed")
def test_a_log_with_error_lines_is_sniffed_as_a_log_and_read_as_itgdec_reads_it(tmp_path):
    records = np.frombuffer((FIX / "udp4.recv.bin").read_bytes(), ditg_log.RECORD).copy()
    records["tx_hour"][10] = 30  # out of range for ITGDec: two 'Error lines', skipped
    records["rx_sec"][20] = 61.5
    damaged = tmp_path / "damaged.recv.bin"
    damaged.write_bytes(records.tobytes())
    result = parse_bytes(damaged.read_bytes(), "damaged.recv.bin", {"ditg": {"meter": "owdm"}})
    assert result.variant == "binary-receiver" and result.records[-1].packets_received == len(records) - 2
    itgdec = subprocess.run(["ITGDec", str(damaged)], capture_output=True, text=True, check=True).stdout
    ours = ditg_format.format_summary(ditg_stats.summarize(ditg.parse_binary(records.tobytes(), packets=True).packets))
    assert ours == itgdec.split("\n", 2)[2]
