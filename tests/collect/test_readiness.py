"""Server readiness: real servers probed on this host and inside a testbed
namespace (the probe joins it); a port that never answers and a server that
exits are clear errors within the deadline. Lab hosts: test_ssh_live.py."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from analysis.collect.plan import Ports, TestbedSpec
from analysis.collect.readiness import Endpoint, NamespaceProbe, Readiness, ServerNotReady
from analysis.collect.runners import Server, ServerSet
from analysis.collect.testbed import Testbed, netns_available

PORTS = Ports(netperf=16865, iperf3=16201, iperf2=16001, ditg=16900, ditg_data=16998)
needs_tools = pytest.mark.skipif(any(shutil.which(t) is None for t in ("iperf", "ITGRecv")), reason="iperf 2 and D-ITG needed")


def started(argv: list[str], endpoint: Endpoint, log: Path, ns: str | None = None) -> Server:
    server = Server(argv, endpoint, ns, log)
    server.start(log.parent)
    return server


@needs_tools
def test_tcp_and_udp_servers_on_this_host_are_ready_once_their_ports_answer(tmp_path):
    servers = ServerSet(None, PORTS, tmp_path, tmp_path / "logs", "127.0.0.1")
    try:
        t0 = time.monotonic()
        servers.start("iperf2")  # iperf -s (TCP) and iperf -s -u (UDP), both on port 16001
        assert time.monotonic() - t0 < 5
        assert all(s.alive for s in servers.servers["iperf2"])
        probe = NamespaceProbe(None, "127.0.0.1")
        assert probe([Endpoint("tcp", 16001), Endpoint("udp", 16001)]) == {Endpoint("tcp", 16001), Endpoint("udp", 16001)}
    finally:
        servers.stop()


@pytest.mark.netns
@pytest.mark.skipif(netns_available() is not None, reason=f"namespaces: {netns_available()}")
@needs_tools
def test_servers_in_a_namespace_are_probed_from_inside_it(tmp_path):
    with Testbed("ready", TestbedSpec(kind="p2p")) as bed:
        servers = ServerSet(bed.receiver.ns, PORTS, tmp_path, tmp_path / "logs", bed.target(4))
        try:
            servers.start("iperf2")
            servers.start("ditg")  # ITGRecv's signalling port is TCP
            # 198.18.0.2 exists only inside the testbed: a probe that did not join the namespace could not connect
            inside = NamespaceProbe(Path("/run/netns") / bed.receiver.netns, bed.target(4))
            assert inside([Endpoint("tcp", PORTS.ditg), Endpoint("udp", PORTS.iperf2)]) == {
                Endpoint("tcp", PORTS.ditg), Endpoint("udp", PORTS.iperf2)}
            assert NamespaceProbe(None, "127.0.0.1")([Endpoint("udp", PORTS.iperf2)]) == set()  # not on this host
        finally:
            servers.stop()


@pytest.mark.parametrize("endpoint, absent", [
    (Endpoint("tcp", 16999), "nothing accepts TCP connections on 127.0.0.1 port 16999"),
    (Endpoint("udp", 16999), "no bound UDP socket on port 16999"),
])
def test_a_port_that_never_answers_is_an_error_naming_where_and_the_port_at_the_deadline(tmp_path, endpoint, absent):
    quiet = started(["sleep", "30"], endpoint, tmp_path / "quiet.log")  # alive, listening nowhere
    try:
        t0 = time.monotonic()
        with pytest.raises(ServerNotReady) as caught:
            Readiness("this host", "127.0.0.1", NamespaceProbe(None, "127.0.0.1"), deadline_s=0.5).wait([quiet])
        assert 0.5 <= time.monotonic() - t0 < 2
    finally:
        quiet.stop()
    assert str(caught.value) == f"this host: server not ready after 0.5 s: {absent} (sleep 30)"


def test_a_server_that_exits_is_reported_at_once_with_its_log(tmp_path):
    log = tmp_path / "dying.log"
    dying = started(["sh", "-c", "echo 'bind failed: Address already in use'; exit 1"], Endpoint("tcp", 16999), log)
    try:
        t0 = time.monotonic()
        with pytest.raises(ServerNotReady) as caught:
            Readiness("this host", "127.0.0.1", NamespaceProbe(None, "127.0.0.1"), deadline_s=10).wait([dying])
        assert time.monotonic() - t0 < 5  # not the whole deadline
    finally:
        dying.stop()
    error = caught.value.with_log(log)
    assert str(error).startswith("this host: server exited before it was ready: sh -c ")
    assert str(error).endswith(": bind failed: Address already in use")
