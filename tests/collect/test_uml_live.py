"""Live tests of ``kind: uml`` testbeds: real User-mode Linux kernels booted
as guests, real iperf3 between them, real ingest.

Each test checks that nothing a UML testbed makes outlives it -- no guest
process (a guest's command line carries its testbed's prefix), no namespace
(its taps and bridge live in it), no mount, no scratch folder, no owner file
-- after a normal end and after SIGINT, SIGTERM or SIGHUP while the guests
boot, during a run and during a copy-back; after SIGKILL while they boot and
during a run no guest process is left within seconds, and ``--cleanup`` removes
the rest. They need root, the tools and the kernels that
scripts/install-uml.sh fetches; elsewhere they are skipped with the reason.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import yaml
from cli_process import start_collector

from analysis.collect.campaign import Collector
from analysis.collect.plan import Plan
from analysis.collect.testbed import STATE_DIR, Interrupted, our_links, our_namespaces
from analysis.collect.uml import UmlTestbed, find_kernel, uml_unavailable
from analysis.ingest.ingest import ingest_campaign
from analysis.ingest.manifest import load_manifest

KERNELS = ("bookworm", "bullseye")
WHY_NOT = uml_unavailable(list(KERNELS)) or (None if Path("/usr/bin/iperf3").exists() else "iperf3 is not installed")
pytestmark = [pytest.mark.netns, pytest.mark.skipif(WHY_NOT is not None, reason=f"live UML tests: {WHY_NOT}")]


def make_plan(testbeds: dict, factors: dict, **extra) -> Plan:
    raw = {"name": "uml-live", "title": "UML live", "seed": 5, "runs_per_cell": 1, "duration_s": 1,
           "pause_s": 0.1, "timeout_s": 20, "testbeds": testbeds,
           "blocks": [{"name": "iperf3", "tool": "iperf3", "factors": factors}]}
    return Plan.model_validate(raw | extra)


def prefixes_of(out: Path) -> list[str]:
    beds = yaml.safe_load((out / "manifest.yaml").read_text())["campaign"]["extra"]["testbeds"]
    return [b["prefix"] for b in beds.values() if b.get("prefix")]


def guest_processes(prefix: str) -> list[str]:
    """Processes whose command line names the testbed (a guest's carries umid=<prefix>-snd)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if prefix in cmdline and "linux.uml" in cmdline:
            out.append(f"{entry.name} {cmdline[:120]}")
    return out


def leftovers(prefix: str) -> list[str]:
    """Everything of one UML testbed still on this host."""
    found = guest_processes(prefix)
    found += [f"namespace {n}" for n in our_namespaces() if n.startswith(prefix)]
    found += [f"link {n}" for n in our_links() if n.startswith(prefix)]
    found += [f"mount {line.split()[4]}" for line in Path("/proc/self/mountinfo").read_text().splitlines() if prefix in line]
    found += [f"scratch {p}" for p in Path(tempfile.gettempdir()).glob(f"netrepro-{prefix}-*")]
    found += [f"owner {p}" for p in [STATE_DIR / f"{prefix}.json"] if p.exists()]
    return found


def wait_for_runs(out: Path, runs: int, proc: subprocess.Popen, seconds: float = 240) -> None:
    deadline = time.monotonic() + seconds
    manifest = out / "manifest.yaml"
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"collector ended early: {proc.communicate()[0].decode()[-2000:]}")
        if manifest.is_file():
            progress = yaml.safe_load(manifest.read_text())["campaign"]["extra"]["progress"]
            if progress["runs_done"] >= runs:
                return
        time.sleep(0.3)
    raise AssertionError(f"no {runs} runs within {seconds} s")


def interrupted(proc: subprocess.Popen, stop) -> bytes:
    """The collector's output after ``stop`` signalled it; killed should it outlive the test."""
    try:
        stop()
        output, _ = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return output


def write_plan(tmp_path: Path, plan: Plan) -> Path:
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(plan.model_dump(mode="json")))
    return path


ONE_PAIR = {"mixed": {"kind": "uml", "kernel": "bookworm", "receiver_kernel": "bullseye"}}


def one_pair_plan() -> Plan:
    """4 runs of >= 1 s on one guest pair, for the tests that stop a collector: UDP at
    1 Mbit/s, as the runs' traffic is not what they test (a TCP run keeps both guests'
    CPUs busy for its second; the core test, next, measures TCP)."""
    return make_plan(ONE_PAIR, {"transport": ["UDP"], "ip_version": [4, 6], "packet_size_bytes": [1200, 1400]},
                     options={"iperf3_udp_bitrate": "1M"})


def test_two_kernels_campaign_carries_each_kernel_as_os_version(tmp_path):
    """The core: 2 kernels x 2 IP versions x 1 size x 1 run of iperf3, ingested."""
    plan = make_plan({"k61": {"kind": "uml", "kernel": "bookworm"}, "k510": {"kind": "uml", "kernel": "bullseye"}},
                     {"topology": ["k61", "k510"], "ip_version": [4, 6], "packet_size_bytes": [64000]})
    out = tmp_path / "kernels"
    progress = Collector(plan, out).run()
    assert progress["complete"] and progress["runs_failed"] == 0, yaml.safe_load((out / "manifest.yaml").read_text())
    prefixes = prefixes_of(out)
    assert len(prefixes) == 2
    for prefix in prefixes:
        assert leftovers(prefix) == []

    result = ingest_campaign(out)
    assert result.counts["rejected"] == 0 and result.counts["failed"] == 0
    runs = result.runs
    releases = {"k61": find_kernel("bookworm").release, "k510": find_kernel("bullseye").release}
    assert releases["k61"] != releases["k510"]
    for topology, release in releases.items():
        mine = runs[runs["topology"] == topology]
        assert set(mine["os_version"]) == {release} and set(mine["receiver_os_version"]) == {release}
        assert set(mine["ip_version"]) == {4, 6}
        assert (mine["throughput_mbps"] > 0).all()
    manifest = load_manifest(out)
    assert manifest.factors["os_version"].levels is not None and set(manifest.factors["os_version"].levels) == set(releases.values())
    beds = manifest.campaign.extra["testbeds"]
    for topology, suite in (("k61", "bookworm"), ("k510", "bullseye")):
        facts = beds[topology]["hosts"][f"{topology}-snd"]
        assert facts["kernel"] == releases[topology] and facts["uml"]["suite"] == suite
        assert facts["cpu_count"] >= 1 and facts["congestion_control"]
        assert 0 < facts["uml"]["mem_total_kib"] <= facts["uml"]["mem_mb"] * 1024
        assert facts["uml"]["console"]["entropy_credited"]  # else 5.10's sshd waits ~10 s for its RNG
        assert facts["sysctls"]["net.ipv4.tcp_rmem"] and facts["interface"] == "vec0"
        assert facts["offloads"]["generic-segmentation-offload"] in ("on", "off")
        assert beds[topology]["clock"]["sync"] is None  # each guest keeps its own clock: no one-way delays
        assert set(beds[topology]["clock"]["offsets_from_collector"]) == {f"{topology}-snd", f"{topology}-rcv"}
        at_end = beds[topology]["guests_at_end"]
        assert all(g["link_counters"]["rx"]["packets"] > 0 for g in at_end.values())
    assert "User-mode Linux" in manifest.campaign.notes
    for key in ("guest_rx_errors", "guest_rx_budget_messages"):
        assert all(isinstance(e.meta[key], int) and e.meta[key] >= 0 for e in manifest.files.table)


# The collector turns SIGINT, SIGTERM and SIGHUP into one exception by one handler
# (testbed.signals_raise), so each moment is stopped once, and each signal is sent at
# one moment at least: bringing up a guest pair costs some 10 s of CPU.
def test_interrupt_stops_the_guests_and_resume_completes(tmp_path):
    sig = signal.SIGTERM
    plan = one_pair_plan()  # the signal comes after the first of its 4 runs
    out = tmp_path / "interrupted"
    proc = start_collector(write_plan(tmp_path, plan), out)

    def after_one_run():
        wait_for_runs(out, 1, proc)
        proc.send_signal(sig)

    output = interrupted(proc, after_one_run)
    assert proc.returncode == 130, output.decode()[-2000:]
    assert f"interrupted by {sig.name}; testbeds torn down".encode() in output
    (prefix,) = prefixes_of(out)
    assert leftovers(prefix) == []
    done = {e.path: e.meta["started"] for e in load_manifest(out).files.table}
    assert 1 <= len(done) < 4
    resumed = Collector(plan, out, resume=True)  # a session boots its guests afresh
    progress = resumed.run()
    assert progress["complete"] and progress["runs_done"] == 4
    after = {e.path: e.meta["started"] for e in load_manifest(out).files.table}
    assert {p: after[p] for p in done} == done
    assert leftovers(str(resumed.testbeds["mixed"].prefix)) == []


def collector_children(proc: subprocess.Popen) -> list[str]:
    """The command lines of the collector's child processes."""
    try:
        pids = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
    except OSError:
        return []
    out = []
    for pid in pids:
        try:
            out.append((Path("/proc") / pid / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"))
        except OSError:
            continue
    return out


# The points a collector is stopped at: a child of it whose command line holds all of these words.
MOMENTS = {
    "boot": ("linux.uml",),  # a guest's kernel started, its sshd not yet up
    "run": ("iperf3 -c",),  # the client of a run, over SSH
    "copy-back": ("wc -c <", ".out", "sha256sum"),  # a step's output being copied back (dialect take)
}


def stop_at(moment: str, proc: subprocess.Popen, sig: signal.Signals, seconds: float = 240) -> str:
    """Send ``sig`` to the collector (by its PID) the moment it reaches ``moment``; its testbed's prefix."""
    words = MOMENTS[moment]
    deadline = time.monotonic() + seconds
    prefix = None
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"collector ended before {moment}: {proc.communicate()[0].decode()[-2000:]}")
        prefix = prefix or prefix_of_collector(proc.pid)
        if prefix and any(all(w in line for w in words) for line in collector_children(proc)):
            proc.send_signal(sig)
            return prefix
        time.sleep(0.003)
    raise AssertionError(f"the collector reached no {moment} within {seconds} s")


def prefix_of_collector(pid: int) -> str | None:
    """The testbed prefix whose owner file names the collector (written before anything is built)."""
    import json

    owned = []
    for path in STATE_DIR.glob("nr-*.json"):
        try:
            if json.loads(path.read_text()).get("pid") == pid:
                owned.append(path.stem)
        except (OSError, ValueError):
            continue  # another campaign's, removed or being written
    assert len(owned) <= 1, owned
    return owned[0] if owned else None


@pytest.mark.parametrize(("moment", "sig"), [("boot", signal.SIGINT), ("copy-back", signal.SIGHUP)])
def test_interrupt_while_booting_or_copying_back_leaves_nothing(tmp_path, moment, sig):
    """(During a run: test_interrupt_stops_the_guests_and_resume_completes.)"""
    plan = one_pair_plan()
    out = tmp_path / moment
    proc = start_collector(write_plan(tmp_path, plan), out)
    stopped: list[str] = []
    output = interrupted(proc, lambda: stopped.append(stop_at(moment, proc, sig)))
    (prefix,) = stopped
    assert proc.returncode == 130, output.decode()[-2000:]
    assert f"interrupted by {sig.name}; testbeds torn down".encode() in output
    assert leftovers(prefix) == []


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the dropped exception, on purpose
def test_a_signal_python_drops_while_a_guest_forks_still_stops_the_boot(tmp_path, monkeypatch):
    """Python runs its fork hooks around a Popen with a preexec_fn (each guest's);
    a signal handled in one has its exception dropped ("Exception ignored"). The
    boot must stop at once, not after the guests answered and their facts were read.
    (The hook stays registered in this process: it fires once.)"""
    made: list[UmlTestbed] = []
    monkeypatch.setattr(UmlTestbed, "of", lambda *args, of=UmlTestbed.of: made.append(of(*args)) or made[-1])
    armed = [True]
    os.register_at_fork(after_in_parent=lambda: armed and armed.pop() and signal.raise_signal(signal.SIGTERM))
    with pytest.raises(Interrupted, match="SIGTERM"):
        Collector(one_pair_plan(), tmp_path / "dropped").run()
    (bed,) = made
    assert not armed and bed.hosts == {}  # stopped while booting: no SSH connection made
    assert leftovers(str(bed.prefix)) == []


@pytest.mark.parametrize("moment", ["boot", "run"])
def test_sigkill_ends_the_guests_at_once_and_cleanup_removes_the_rest(tmp_path, moment, sole_cleanup):
    """Each guest is init of its own PID namespace, held by a child that dies with the
    collector: killing the collector outright kills every guest process within seconds.
    While the guests boot (a guest forked as the collector dies: parent_death.py) and
    during a run; a copy-back is, to SIGKILL, a run's moment again (an ssh child of the
    collector, its guests up), and no handler of the collector runs at either."""
    plan = one_pair_plan()
    out = tmp_path / moment
    proc = start_collector(write_plan(tmp_path, plan), out)
    try:
        prefix = stop_at(moment, proc, signal.SIGKILL)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    deadline = time.monotonic() + 5
    while guest_processes(prefix) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert guest_processes(prefix) == []  # without --cleanup
    left = leftovers(prefix)
    assert f"namespace {prefix}-lan" in left and f"owner {STATE_DIR / f'{prefix}.json'}" in left  # for --cleanup
    cleaned = subprocess.run([sys.executable, "-m", "analysis.cli", "collect", "--cleanup"],
                             capture_output=True, text=True, timeout=120)
    assert cleaned.returncode == 0, cleaned.stderr
    assert f"removed namespace {prefix}-lan" in cleaned.stdout
    assert leftovers(prefix) == []
