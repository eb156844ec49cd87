"""Live SSH collector tests: real sshd in each namespace of a p2p testbed
(tests/collect/sshlab.py), the collector reaching both hosts only over SSH.

A small plan end to end (facts, OS factors, checksums, D-ITG logs, strict
ingest); interrupted by SIGINT, SIGTERM and by the receiving host's sshd
being killed, with nothing left running on either host and --resume
completing; and the errors a lab user meets first (a missing tool, a refused
key, an unknown host key, one-way delay without synchronised clocks), each
one clear error naming the host. Needs root, ip netns, openssh-server and
netcat-openbsd; skipped with the reason elsewhere.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import signal
import subprocess
import tempfile
import time
import tracemalloc
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import sshlab
from cli_process import start_collector
from analysis.cli import app
from analysis.collect import ssh
from analysis.collect.campaign import Collector
from analysis.collect.hosts import RemoteServer, RemoteServerSet
from analysis.collect.plan import HostSpec, Plan, PlanError, Ports
from analysis.collect.scratch import owner_of, stale_scratch
from analysis.collect.readiness import Endpoint, Readiness, ServerNotReady
from analysis.collect.ssh import HostError, SshHost
from analysis.collect.testbed import Interrupted, netns_available, signals_raise
from analysis.ingest.ingest import ingest_campaign
from analysis.ingest.manifest import load_manifest

TOOLS = ("netperf", "netserver", "iperf3", "ITGSend", "ITGRecv", "ITGDec")
WHY_NOT = netns_available() or sshlab.why_not() or next((f"{t} is not installed" for t in TOOLS if shutil.which(t) is None), None)
pytestmark = [pytest.mark.netns, pytest.mark.skipif(WHY_NOT is not None, reason=f"live SSH tests: {WHY_NOT}")]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    lab = sshlab.start_lab(tmp_path_factory.mktemp("sshlab"))
    yield lab
    lab.stop()


def lab_plan(lab, blocks, hosts=None, testbed=None, **extra) -> Plan:
    raw = {
        "name": "ssh-live", "title": "two hosts over SSH", "seed": 5, "runs_per_cell": 1, "duration_s": 1,
        "pause_s": 0, "timeout_s": 10,
        "hosts": hosts or {"alice": lab.host_spec("alice"), "bob": lab.host_spec("bob")},
        "testbeds": {"lab": {"kind": "hosts", "sender": "alice", "receiver": "bob",
                             "clock_sync": "one kernel clock: both hosts are namespaces of the same machine"} | (testbed or {})},
        "blocks": blocks,
    }
    return Plan.model_validate(raw | extra)


def assert_nothing_left(lab):
    for name in lab.hosts:
        assert lab.others(name) == [], f"left running on {name}"


# --- end to end -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def campaign(lab):
    work = {name: lab.dir / f"{name}'s $(touch PWNED) `work` dir" for name in lab.hosts}
    for folder in work.values():
        folder.mkdir()
    hosts = {name: lab.host_spec(name, workdir=str(work[name])) for name in lab.hosts}
    plan = lab_plan(lab, [
        {"name": "netperf", "tool": "netperf", "factors": {"ip_version": [4, 6], "packet_size_bytes": [512]}},
        {"name": "iperf3", "tool": "iperf3", "factors": {"transport": ["UDP"]}},
        {"name": "ditg", "tool": "ditg", "factors": {"mode": ["rttm"]}},  # both logs: sender's on alice, receiver's on bob
    ], hosts=hosts)
    out = lab.dir / "campaign"
    started = time.monotonic()
    progress = Collector(plan, out).run()
    return out, progress, work, time.monotonic() - started


def test_campaign_over_ssh_completes_and_leaves_nothing_on_either_host(lab, campaign):
    out, progress, work, seconds = campaign
    assert progress["complete"] and progress["runs_done"] == 4 and progress["runs_failed"] == 0, \
        yaml.safe_load((out / "manifest.yaml").read_text())["files"]["table"]
    assert_nothing_left(lab)
    for folder in work.values():
        assert list(folder.iterdir()) == []  # scratch folders removed, outputs deleted after their copy
    assert not list(lab.dir.rglob("PWNED")) and not Path("PWNED").exists()
    assert seconds < 60


def test_manifest_carries_each_hosts_facts_and_os_factors(campaign):
    out, _, _, _ = campaign
    manifest = load_manifest(out)
    constants = manifest.files.constants
    assert constants["os"] == constants["receiver_os"] and constants["os"]
    assert constants["os_version"] and constants["receiver_os_version"]
    lab_facts = manifest.campaign.extra["testbeds"]["lab"]
    assert set(lab_facts["hosts"]) == {"alice", "bob"}
    for name, facts in lab_facts["hosts"].items():
        assert facts["kernel"] == os.uname().release and facts["cpu_count"] == os.cpu_count()
        assert facts["mtu"] == 1500 and facts["nic_driver"] == "veth" and facts["interface"].startswith("nr-")
        assert facts["congestion_control"] and facts["sysctls"]["net.ipv4.tcp_rmem"]
        assert facts["offloads"]["tcp-segmentation-offload"] in ("on", "off")
        assert facts["ssh"]["address"].startswith("198.18.0.")
        assert facts["mem_total_kib"] == int(Path("/proc/meminfo").read_text().split()[1])  # MemTotal, the first line
        # one kernel clock: the host read it between sending and receiving, so within half the round trip
        assert abs(facts["clock"]["offset_s"]) <= facts["clock"]["uncertainty_s"] + 2e-6, facts["clock"]
        assert facts["clock"]["uncertainty_s"] < 1 and "one SSH session" in facts["clock"]["method"]
    assert set(lab_facts["hosts"]["alice"]["tool_versions"]) >= {"netperf", "iperf3", "ditg"}
    assert lab_facts["clock"]["sync"]["recorded_by"] == "the plan (clock_sync)"
    assert any(h.startswith("alice (root@198.18.0.1:22, sender)") for h in manifest.campaign.hosts)
    assert manifest.campaign.tool_versions["netperf"] == "2.7.0" or manifest.campaign.tool_versions["netperf"]


def test_every_output_came_back_verified_with_its_remote_command_line(campaign):
    out, _, work, _ = campaign
    table = load_manifest(out).files.table
    assert len(table) == 5  # four runs, the rttm run with its receiver-log summary too
    for e in table:
        data = (out / e.path).read_bytes()
        assert e.meta["status"] == "ok" and e.meta["exit_status"] == 0
        if not e.path.endswith(".recv.txt"):
            assert e.meta["output_sha256"] == hashlib.sha256(data).hexdigest()
        hosts = e.meta["command_hosts"].split()
        assert len(hosts) == len(e.meta["commands"].splitlines())
        assert hosts[0] == "alice"
    v6 = next(e for e in table if e.levels.get("ip_version") == 6)
    assert v6.meta["commands"].startswith("netperf -6 -H 2001:2:0:0::2 ")
    rttm = next(e for e in table if e.levels.get("mode") == "rttm" and e.levels.get("log") == "sender")
    # the sender log lives in alice's hostile scratch folder: quoted, not interpreted
    assert "'\"'\"'s $(touch PWNED) `work` dir/netrepro." in rttm.meta["commands"]
    assert rttm.meta["command_hosts"] == "alice alice bob"
    for side, digest in (x.split("=") for x in rttm.meta["ditg_logs_sha256"].split()):
        log = out / "collect" / "ditg-logs" / f"{rttm.path}.{side}.log"
        assert hashlib.sha256(log.read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in (out / "collect" / "servers").iterdir()) == ["bob.ditg.0.log", "bob.iperf3.0.log", "bob.netperf.0.log"]


def test_campaign_over_ssh_ingests_strictly(campaign):
    out, _, _, _ = campaign
    result = ingest_campaign(out, strict=True)
    assert result.counts["rejected"] == 0 and result.counts["failed"] == 0, result.rejected.to_dict("records")
    runs = result.runs
    assert set(runs["tool"]) == {"netperf", "iperf3", "ditg"}
    assert runs["os"].nunique() == 1 and runs["os"].notna().all()
    assert (runs.loc[runs["tool"] == "netperf", "throughput_mbps"] > 0).all()
    ditg = runs[runs["tool"] == "ditg"]
    assert ditg.loc[ditg["log"] == "receiver", "owd_ms"].notna().all()  # the plan records a clock sync
    assert ditg.loc[ditg["log"] == "sender", "rtt_ms"].notna().all()


# --- interruptions --------------------------------------------------------------------
INTERRUPT_BLOCKS = [{"name": "np", "tool": "netperf", "factors": {"packet_size_bytes": [256, 1024, 1408]}}]


def _start_cli(lab, tmp_path):
    plan = lab_plan(lab, INTERRUPT_BLOCKS)
    plan_file = tmp_path / "plan.yaml"
    plan_file.write_text(yaml.safe_dump(plan.model_dump(mode="json")))
    out = tmp_path / "interrupted"
    proc = start_collector(plan_file, out)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        manifest = out / "manifest.yaml"
        if manifest.is_file() and yaml.safe_load(manifest.read_text())["campaign"]["extra"]["progress"]["runs_done"] >= 1:
            break
        time.sleep(0.1)
    return plan, out, proc


def _resume(plan, out):
    before = {e.path: e.meta["started"] for e in load_manifest(out).files.table}
    assert 1 <= len(before) < 3
    progress = Collector(plan, out, resume=True).run()
    assert progress["complete"] and progress["runs_done"] == 3 and progress["runs_failed"] == 0
    after = {e.path: e.meta["started"] for e in load_manifest(out).files.table}
    assert {p: after[p] for p in before} == before  # complete runs were skipped, not redone


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_stops_every_remote_process_and_resume_completes(lab, tmp_path, sig):
    plan, out, proc = _start_cli(lab, tmp_path)
    proc.send_signal(sig)
    output, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, output.decode()
    assert f"interrupted by {sig.name}; testbeds torn down; continue with --resume".encode() in output
    progress = yaml.safe_load((out / "manifest.yaml").read_text())["campaign"]["extra"]["progress"]
    assert [r["signal"] for r in progress["interruptions"]] == [sig.name]
    assert_nothing_left(lab)
    _resume(plan, out)
    assert_nothing_left(lab)


def test_dropped_connection_leaves_nothing_and_names_the_host(lab, tmp_path):
    plan, out, proc = _start_cli(lab, tmp_path)
    try:
        lab.kill_sshd("bob")  # every SSH connection to the receiver drops
        output, _ = proc.communicate(timeout=60)
    finally:
        if lab.hosts["bob"].sshd is None:
            lab.start_sshd("bob")
    text = output.decode()
    assert proc.returncode == 2, text
    error = [line for line in text.splitlines() if line.startswith("error: ")]
    assert len(error) == 1 and error[0].startswith("error: host bob (root@198.18.0.2:22): "), text
    assert "continue with --resume" in error[0]
    assert_nothing_left(lab)  # the servers on bob ended with their SSH channel
    stale = list((lab.dir / "bob-work").iterdir())
    assert len(stale) == 1  # bob was unreachable: its scratch folder had to stay
    _resume(plan, out)
    assert_nothing_left(lab)
    assert list((lab.dir / "bob-work").iterdir()) == []  # ... and the resumed session removed it


def test_collector_killed_outright_leaves_no_session_and_nothing_on_the_hosts(lab, tmp_path, sole_cleanup):
    """SIGKILL gives the collector no chance to clean up: its ssh children
    die with it (PR_SET_PDEATHSIG), their channels close, and the wrappers
    on the hosts end their own process groups."""
    _, _, proc = _start_cli(lab, tmp_path)
    proc.kill()
    proc.communicate(timeout=30)
    time.sleep(0.5)
    assert_nothing_left(lab)
    ours = [line for line in subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout.splitlines()
            if line.startswith("ssh ") and str(lab.key) in line]
    assert ours == []
    # its local control folder stays (sockets gone with the masters); --cleanup knows it as a killed collector's
    (left,) = [f for f in Path(tempfile.gettempdir()).glob("nr-ssh-*") if owner_of(f) == proc.pid]
    assert left in stale_scratch()
    shutil.rmtree(left)


# --- the first errors a lab user meets ---------------------------------------------------
def test_missing_tool_is_one_error_naming_the_host(lab, tmp_path):
    plan = lab_plan(lab, [{"name": "np", "tool": "netperf"}],
                    hosts={"alice": lab.host_spec("alice"), "bob": lab.host_spec("bob", tools={"netserver": "/opt/no such/netserver"})})
    plan_file = tmp_path / "plan.yaml"
    plan_file.write_text(yaml.safe_dump(plan.model_dump(mode="json")))
    result = CliRunner().invoke(app, ["collect", str(plan_file), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    error = [line for line in result.output.splitlines() if line.startswith("error: ")]
    assert len(error) == 1 and error[0].startswith("error: host bob (root@198.18.0.2:22): /opt/no such/netserver not found")
    assert "hosts.bob.tools" in error[0]
    assert_nothing_left(lab)


def test_refused_key_is_one_error_naming_the_host(lab, tmp_path):
    stranger = tmp_path / "stranger_key"
    sshlab.keygen(stranger, "not authorised")
    plan = lab_plan(lab, [{"name": "np", "tool": "netperf"}],
                    hosts={"alice": lab.host_spec("alice", identity_file=str(stranger)), "bob": lab.host_spec("bob")})
    with pytest.raises(HostError, match=r"^host alice \(root@198\.18\.0\.1:22\): the host refused the key"):
        Collector(plan, tmp_path / "out").run()
    assert_nothing_left(lab)


def test_unknown_host_key_is_refused_under_the_strict_default(lab, tmp_path):
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    plan = lab_plan(lab, [{"name": "np", "tool": "netperf"}],
                    hosts={"alice": lab.host_spec("alice"), "bob": lab.host_spec("bob", known_hosts_file=str(empty))})
    with pytest.raises(HostError, match=r"^host bob \(root@198\.18\.0\.2:22\): its host key is not in known_hosts"):
        Collector(plan, tmp_path / "out").run()
    assert empty.read_text() == ""  # strict: nothing was added


def test_one_way_delay_is_refused_without_a_recorded_clock_sync(lab, tmp_path):
    plan = lab_plan(lab, [{"name": "itg", "tool": "ditg", "factors": {"mode": ["owdm"]}}])
    unsynced = Plan.model_validate(plan.model_dump() | {"testbeds": {"lab": {"kind": "hosts", "sender": "alice", "receiver": "bob"}}})
    with pytest.raises(PlanError, match="one-way delay .* needs synchronised clocks on alice and bob"):
        Collector(unsynced, tmp_path / "out").run()
    assert_nothing_left(lab)


# --- one host: the connection, copies, readiness ---------------------------------------
@pytest.fixture
def bob(lab):
    host = SshHost("bob", HostSpec.model_validate(lab.host_spec("bob")))
    host.connect()
    host.make_workdir()
    yield host
    host.remove_workdir()
    host.close()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the dropped exception, on purpose
def test_a_signal_python_drops_while_a_step_forks_still_stops_the_step(lab, bob):
    """As for a guest's boot (test_uml_live): the exception of a signal handled in
    Python's fork hooks (the step's ssh has a preexec_fn) is dropped; the step must
    stop at once, not when it ends. (The hook stays registered: it fires once.)"""
    assert bob.workdir is not None
    armed = [True]
    os.register_at_fork(after_in_parent=lambda: armed and armed.pop() and signal.raise_signal(signal.SIGTERM))
    with signals_raise(), pytest.raises(Interrupted, match="SIGTERM"):
        bob.start(bob.dialect.step(bob.workdir, ["sleep", "30"], f"{bob.workdir}/sleep.out", None))
    pids = subprocess.run(["ip", "netns", "pids", lab.hosts["bob"].ns], capture_output=True, text=True).stdout.split()
    assert not armed and [p for p in pids if sshlab._cmdline(int(p)) == "sleep 30"] == []  # stopped by its PID


def test_proxy_command_with_ssh_tokens_reaches_the_host(lab):
    """docs/collecting.md's form: %h and %p are ssh's to expand (here to 198.18.0.1 and 22)."""
    alice = lab.hosts["alice"]
    spec = HostSpec.model_validate(lab.host_spec("alice", proxy_command=["ip", "netns", "exec", alice.ns, "nc", "%h", "%p"]))
    host = SshHost("alice", spec)
    try:
        host.connect()
        said = host.run("echo $SSH_CONNECTION").out.decode().split()
    finally:
        host.close()
    assert said[2:] == ["198.18.0.1", "22"]


def _large_file(host: SshHost, mib: int) -> tuple[str, str]:
    """A file of seeded random bytes in the host's scratch folder (a local folder here): its path and SHA-256."""
    assert host.workdir is not None
    path, digest, rng = Path(host.workdir) / "large.bin", hashlib.sha256(), random.Random(24)
    with open(path, "wb") as f:
        for _ in range(mib):
            chunk = rng.randbytes(1 << 20)
            f.write(chunk)
            digest.update(chunk)
    return str(path), digest.hexdigest()


def test_fetch_streams_a_large_file_to_disk_with_bounded_memory_and_a_checked_hash(bob):
    path, digest = _large_file(bob, 128)
    tracemalloc.start()
    try:
        copy, said = bob.fetch(path, remove=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20  # a 128 MiB copy, never more than a few chunks in memory
    assert said == digest and copy.stat().st_size == 128 << 20
    with open(copy, "rb") as f:
        assert hashlib.file_digest(f, "sha256").hexdigest() == digest
    assert not Path(path).exists()  # taken: removed on the host after the copy


def test_hosts_sharing_a_control_folder_keep_their_copies_apart(lab, tmp_path):
    """A testbed's hosts share one control folder; each host's first copy
    (D-ITG's sender log and receiver summary of one run) is a file of its own."""
    hosts = [SshHost(name, HostSpec.model_validate(lab.host_spec(name)), tmp_path) for name in ("alice", "bob")]
    copies = []
    try:
        for host in hosts:
            host.connect()
            host.make_workdir()
            path = Path(str(host.workdir)) / "log.txt"
            path.write_text(f"written for {host.name}\n")
            copies.append(host.fetch(str(path), remove=True)[0])
        assert copies[0] != copies[1]
        assert [c.read_text() for c in copies] == ["written for alice\n", "written for bob\n"]
    finally:  # closing a host removes the control folder, copies and all
        for host in hosts:
            host.remove_workdir()
            host.close()


def test_fetch_timeout_grows_with_the_size_the_host_reports(bob, monkeypatch):
    """Calibrated on this machine: a copy given its size's time completes;
    given a quarter of what it took, it is stopped with an error and no partial file."""
    path, digest = _large_file(bob, 64)
    monkeypatch.setattr(ssh, "FETCH_BASE_S", 1.0)
    monkeypatch.setattr(ssh, "FETCH_MIN_BYTES_PER_S", (64 << 20) / 60)  # one second, plus a minute for its size
    t0 = time.monotonic()
    copy, said = bob.fetch(path)
    took = time.monotonic() - t0
    assert said == digest and copy.stat().st_size == 64 << 20
    copy.unlink()
    monkeypatch.setattr(ssh, "FETCH_BASE_S", took / 4)
    monkeypatch.setattr(ssh, "FETCH_MIN_BYTES_PER_S", 1e12)  # nothing added for the size
    t0 = time.monotonic()
    with pytest.raises(HostError, match=r"^host bob \(root@198\.18\.0\.2:22\): copying .*large\.bin took longer than \d+ s"):
        bob.fetch(path, remove=True)
    assert time.monotonic() - t0 < took / 4 + 5
    assert list(bob.ctl_dir.glob("fetch-*")) == []  # no partial copy kept
    assert Path(path).is_file()  # not removed on the host: it was not copied


def test_remote_servers_are_ready_when_the_host_lists_their_sockets(bob, tmp_path):
    servers = RemoteServerSet(bob, Ports(iperf2=16001), tmp_path / "servers")
    try:
        t0 = time.monotonic()
        servers.start("iperf2")  # iperf -s: a listening TCP socket; iperf -s -u: a bound UDP socket
        assert time.monotonic() - t0 < 5
        assert all(s.alive for s in servers.servers["iperf2"])
    finally:
        servers.stop()


@pytest.mark.parametrize("transport", ["tcp", "udp"])
def test_a_remote_port_that_never_answers_is_an_error_naming_the_host_and_port(bob, transport):
    assert bob.workdir is not None
    quiet = RemoteServer(["sleep", "30"], Endpoint(transport, 16999), "sleep 30", f"{bob.workdir}/quiet.log")
    quiet.remote = bob.start(bob.dialect.step(bob.workdir, quiet.argv, quiet.log, None))
    servers = RemoteServerSet(bob, Ports(), Path("unused"))
    try:
        t0 = time.monotonic()
        with pytest.raises(ServerNotReady) as caught:
            Readiness(bob.label, None, servers.probe, deadline_s=1).wait([quiet])
        assert 1 <= time.monotonic() - t0 < 5
    finally:
        bob.stop(quiet.remote)
    kind = "listening TCP" if transport == "tcp" else "bound UDP"
    assert str(caught.value) == f"host bob (root@198.18.0.2:22): server not ready after 1 s: no {kind} socket on port 16999 (sleep 30)"
