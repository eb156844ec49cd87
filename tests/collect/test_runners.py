"""Command building (argument lists, never shell strings) and bounded steps."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from analysis.collect.hostfacts import CpuSample, cpu_percent, cpu_sample
from analysis.collect.plan import Ports, ToolOptions
from analysis.collect.readiness import Endpoint
from analysis.collect import runners
from analysis.collect.runners import Step, client_steps, run_step, server_commands
from analysis.collect.testbed import in_ns

PORTS = Ports()
OPTS = ToolOptions()
SCRATCH = Path("/scratch")


def steps(levels, target="198.18.0.2", ns="nr-abcdef-snd", duration=1.0, opts=OPTS):
    return client_steps(levels, target, ns, PORTS, duration, opts, SCRATCH, "run7", 15)


def argv(levels, **kw):
    (step,) = steps(levels, **kw)
    return step.argv


def test_netperf_stream_in_sender_namespace_with_cpu():
    assert argv({"tool": "netperf", "mode": "stream", "ip_version": 4, "transport": "TCP", "packet_size_bytes": 640}) == [
        "ip", "netns", "exec", "nr-abcdef-snd",
        "netperf", "-4", "-H", "198.18.0.2", "-p", "15865", "-t", "TCP_STREAM", "-l", "1", "-c", "-C", "--", "-m", "640",
    ]


def test_netperf_udp_stream_allows_routing():
    # without -R 1 netperf sets SO_DONTROUTE and IPv4 UDP_STREAM cannot cross the routers
    a = argv({"tool": "netperf", "mode": "stream", "ip_version": 6, "transport": "UDP", "packet_size_bytes": 128}, target="2001:2:0:2::2")
    assert a[a.index("--"):] == ["--", "-m", "128", "-R", "1"]
    assert a[4:8] == ["netperf", "-6", "-H", "2001:2:0:2::2"]


def test_netperf_rr_uses_request_and_response_size_and_no_cpu_when_off():
    a = argv({"tool": "netperf", "mode": "rr", "ip_version": 4, "transport": "UDP", "packet_size_bytes": 384},
             ns=None, opts=ToolOptions(netperf_cpu=False))
    assert a == ["netperf", "-4", "-H", "198.18.0.2", "-p", "15865", "-t", "UDP_RR", "-l", "1", "--", "-r", "384,384"]


def test_iperf3_udp_ipv6_json():
    a = argv({"tool": "iperf3", "mode": "stream", "ip_version": 6, "transport": "UDP", "packet_size_bytes": 1408},
             ns=None, target="::1", duration=1.5, opts=ToolOptions(iperf3_udp_bitrate="500M"))
    assert a == ["iperf3", "-c", "::1", "-p", "15201", "-t", "1.5", "--json", "-6", "-l", "1408", "-u", "-b", "500M"]


def test_iperf2_tcp_ipv6():
    a = argv({"tool": "iperf2", "mode": "stream", "ip_version": 6, "transport": "TCP"}, ns=None, target="::1")
    assert a == ["iperf", "-c", "::1", "-p", "15001", "-t", "1", "-V"]


def test_ditg_one_way_sends_then_decodes_receiver_log():
    send, dec = steps({"tool": "ditg", "mode": "owdm", "ip_version": 4, "transport": "UDP", "frame_size_bytes": 1518})
    assert send.argv[4:] == ["ITGSend", "-a", "198.18.0.2", "-Sdp", "15900", "-rp", "15998", "-t", "1000",
                             "-x", "/scratch/run7.recv.log", "-T", "UDP", "-C", "1000", "-c", "1472"]
    assert send.output is None and send.timeout_s == 16
    assert dec.argv == ["ITGDec", "/scratch/run7.recv.log"] and dec.output == "" and dec.log == "receiver"
    assert not dec.merge_stderr  # ITGDec's stderr is a per-packet spinner


def test_ditg_round_trip_decodes_both_logs():
    send, rtt, owd = steps({"tool": "ditg", "mode": "rttm", "ip_version": 6, "transport": "TCP", "packet_size_bytes": 512})
    assert send.argv[send.argv.index("-m"):][:4] == ["-m", "rttm", "-l", "/scratch/run7.send.log"]
    assert "-x" in send.argv  # ITGRecv 2.8.1 aborts rttm flows without a receiver log after a logged flow
    assert (rtt.argv[1], rtt.output, rtt.log) == ("/scratch/run7.send.log", "", "sender")
    assert (owd.argv[1], owd.output, owd.log) == ("/scratch/run7.recv.log", ".recv", "receiver")


def test_ditg_packet_log_copies_the_logs_out_instead_of_decoding_them():
    keep = ToolOptions(ditg_packet_log=True, ditg_rate_pps=50000)
    send, log = steps({"tool": "ditg", "mode": "owdm", "ip_version": 4, "transport": "UDP"}, opts=keep)
    assert send.argv[-3:] == ["-C", "50000", "-poll"]  # gaps under 1 ms need ITGSend's busy wait
    assert (log.argv, log.output, log.log, log.merge_stderr) == (["cat", "/scratch/run7.recv.log"], "", "receiver", False)
    _, rtt, owd = steps({"tool": "ditg", "mode": "rttm", "ip_version": 4, "transport": "UDP"}, opts=keep)
    assert (rtt.argv, rtt.output, owd.argv, owd.output) == (["cat", "/scratch/run7.send.log"], "",
                                                            ["cat", "/scratch/run7.recv.log"], ".recv")


@pytest.mark.parametrize("app, tail", [
    ("DNS", ["DNS"]), ("CSa", ["CSa"]), ("CSi", ["CSi"]), ("Quake3", ["Quake3"]), ("Telnet", ["Telnet"]),
    ("VoIP-G.711.1", ["VoIP", "-x", "G.711.1", "-h", "RTP"]), ("VoIP-G.723.1", ["VoIP", "-x", "G.723.1", "-h", "RTP"]),
    ("VoIP-G.729.3", ["VoIP", "-x", "G.729.3", "-h", "RTP"]),
])
def test_ditg_application_presets_come_last(app, tail):
    send = steps({"tool": "ditg", "mode": "owdm", "ip_version": 4, "application": app})[0]
    assert send.argv[-len(tail):] == tail
    assert "-C" not in send.argv and "-T" not in send.argv  # the preset sets rate, size and transport


def test_every_command_is_a_list_of_plain_strings():
    for levels in ({"tool": "netperf", "mode": "rr"}, {"tool": "iperf3", "mode": "stream"},
                   {"tool": "iperf2", "mode": "stream", "transport": "UDP"}, {"tool": "ditg", "mode": "rttm"}):
        for s in steps(levels):
            assert isinstance(s.argv, list) and all(isinstance(x, str) and x for x in s.argv)


def test_servers_per_tool_and_the_port_each_listens_on():
    assert server_commands("netperf", PORTS) == [(["netserver", "-D", "-p", "15865"], Endpoint("tcp", 15865))]
    assert server_commands("iperf3", PORTS) == [(["iperf3", "-s", "-p", "15201"], Endpoint("tcp", 15201))]
    assert server_commands("iperf2", PORTS) == [(["iperf", "-s", "-V", "-p", "15001"], Endpoint("tcp", 15001)),
                                                (["iperf", "-s", "-u", "-V", "-p", "15001"], Endpoint("udp", 15001))]
    assert server_commands("ditg", Ports(ditg=16900)) == [(["ITGRecv", "-Sp", "16900"], Endpoint("tcp", 16900))]


def test_in_ns():
    assert in_ns(None, ["a"]) == ["a"]
    assert in_ns("nr-abcdef-rcv", ["a", "b"]) == ["ip", "netns", "exec", "nr-abcdef-rcv", "a", "b"]


def test_run_step_kills_only_its_own_group_at_the_deadline():
    t0 = time.monotonic()
    res = run_step(Step(["sh", "-c", "sleep 30 & sleep 30"], timeout_s=0.5))
    assert res.exit_status is None
    assert time.monotonic() - t0 < 10


def _daemon(pidfile: Path) -> str:
    """A grandchild that leaves the step's process group (setsid) and keeps its stdout open."""
    return f"setsid sh -c 'echo $$ > {pidfile}; exec sleep 60' &"


def _stop_daemon(pidfile: Path) -> None:
    deadline = time.monotonic() + 5
    while not pidfile.is_file() or not pidfile.read_text().strip():
        assert time.monotonic() < deadline, "the daemon never wrote its PID"
        time.sleep(0.05)
    pid = int(pidfile.read_text())
    assert Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"sleep\0")
    os.kill(pid, signal.SIGKILL)  # the test's own daemon, by its PID


@pytest.fixture
def drain_s(monkeypatch):
    """The pipes' drain after a step ends, a quarter of the collector's 2 s (the same code
    path: waits the tests below would otherwise spend idle)."""
    monkeypatch.setattr(runners, "DRAIN_S", runners.DRAIN_S / 4)
    return runners.DRAIN_S


def test_a_daemonised_grandchild_holding_stdout_does_not_hang_a_timed_out_step(tmp_path, drain_s):
    pidfile = tmp_path / "daemon.pid"
    t0 = time.monotonic()
    try:
        res = run_step(Step(["sh", "-c", f"{_daemon(pidfile)} echo started; sleep 30"], timeout_s=1))
        elapsed = time.monotonic() - t0
    finally:
        _stop_daemon(pidfile)
    assert res.exit_status is None and res.output == b"started\n"  # killed at the deadline, output kept
    assert 1 <= elapsed < 1 + drain_s + 1


def test_a_tool_that_exits_while_a_daemon_holds_its_stdout_keeps_its_status(tmp_path, drain_s):
    pidfile = tmp_path / "daemon.pid"
    t0 = time.monotonic()
    try:
        res = run_step(Step(["sh", "-c", f"{_daemon(pidfile)} echo done; exit 4"], timeout_s=30))
        elapsed = time.monotonic() - t0
    finally:
        _stop_daemon(pidfile)
    assert (res.exit_status, res.output) == (4, b"done\n")
    assert elapsed < drain_s + 1  # not the step's 30 s deadline


def test_run_step_merges_or_separates_stderr():
    merged = run_step(Step(["sh", "-c", "echo out; echo err >&2; exit 3"], timeout_s=5))
    assert merged.exit_status == 3 and b"out" in merged.output and b"err" in merged.output and merged.stderr == b""
    split = run_step(Step(["sh", "-c", "echo out; echo err >&2"], timeout_s=5, merge_stderr=False))
    assert (split.exit_status, split.output, split.stderr) == (0, b"out\n", b"err\n")


def test_cpu_percent():
    assert cpu_percent(CpuSample(100, 1000), CpuSample(150, 1100)) == 50.0
    assert cpu_percent(CpuSample(100, 1000), CpuSample(100, 1000)) is None
    s = cpu_sample()
    assert 0 <= s.busy <= s.total


def test_an_iperf3_json_that_reports_an_error_fails_the_run_even_with_exit_status_0():
    """iperf3 3.12 exited 0 after the server reset its control connection (a genuine output)."""
    from analysis.collect.campaign import _failure
    from analysis.collect.runners import StepResult
    fixture = Path(__file__).parents[1] / "fixtures" / "iperf3" / "error_control_reset_exit0_json.json"
    step = Step(["iperf3", "-c", "::1", "-p", "16201", "-t", "1", "--json", "-6", "-u", "-b", "100M"], 10.0, "")
    res = StepResult(step, 0, fixture.read_bytes(), b"", 0.0, 1.0)
    assert res.tool_error() == "iperf3 reported: unable to receive control message: Connection reset by peer"
    assert _failure(res).endswith("iperf3 reported: unable to receive control message: Connection reset by peer")
    good = Path(__file__).parents[1] / "fixtures" / "iperf3" / "concatenated_two_runs_json.json"
    assert StepResult(step, 0, b'{"start": {}, "intervals": [], "end": {"sum": {}}}', b"", 0.0, 1.0).tool_error() is None
    assert StepResult(Step(["netperf", "-H", "::1"], 10.0, ""), 0, good.read_bytes(), b"", 0.0, 1.0).tool_error() is None
