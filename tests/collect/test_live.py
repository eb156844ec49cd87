"""Live collector tests: real namespaces, real tools, real ingest.

They build each testbed, run each tool once for about a second, ingest the
campaign, and check that nothing the collector made outlives it: not after a
normal end, not after a failing run, not after SIGINT/SIGTERM. They need root
and ``ip netns``; elsewhere they are skipped with the reason. Loopback runs
use ports 16xxx so they do not meet servers others run on the default ports.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import yaml
from cli_process import start_collector
from typer.testing import CliRunner

from analysis.cli import app
from analysis.collect import campaign as campaign_mod
from analysis.collect.campaign import Collector
from analysis.collect.plan import Plan, Ports, TestbedSpec
from analysis.collect.scratch import OWNER_FILE
from analysis.collect.testbed import STATE_DIR, Testbed, netns_available, our_links, our_namespaces, sh, workdir
from analysis.ingest.ingest import ingest_campaign
from analysis.ingest.manifest import load_manifest

TOOLS = ("ip", "tc", "netperf", "netserver", "iperf3", "iperf", "ITGSend", "ITGRecv", "ITGDec")
WHY_NOT = netns_available() or next((f"{t} is not installed" for t in TOOLS if shutil.which(t) is None), None)
pytestmark = [pytest.mark.netns, pytest.mark.skipif(WHY_NOT is not None, reason=f"live collector tests: {WHY_NOT}")]

LOOPBACK = {"kind": "loopback", "ports": {"netperf": 16865, "iperf3": 16201, "iperf2": 16001, "ditg": 16900, "ditg_data": 16998}}
# The tests of the collector's own work (resume, interrupt, failed runs) do not measure the traffic: a
# shaped link keeps each second of netperf cheap (on loopback or an unshaped link a TCP stream keeps a
# core busy on each side; at 100 Mbit/s the pair takes about a tenth of that).
P2P = {"kind": "p2p", "rate": "100mbit"}


def make_plan(blocks, testbeds=None, **extra) -> Plan:
    raw = {
        "name": "live", "title": "live smoke", "seed": 11, "runs_per_cell": 1, "duration_s": 1,
        "pause_s": 0.1, "timeout_s": 10,
        "testbeds": testbeds or {"p2p": P2P},
        "stack_profiles": {"reno": {"net.ipv4.tcp_congestion_control": "reno"}},
        "blocks": blocks,
    }
    return Plan.model_validate(raw | extra)


def leftovers(prefixes) -> list[str]:
    names = our_namespaces() + our_links()
    return [n for n in names if any(n.startswith(p + "-") for p in prefixes)]


def prefixes_of(manifest_dir: Path) -> list[str]:
    beds = yaml.safe_load((manifest_dir / "manifest.yaml").read_text())["campaign"]["extra"]["testbeds"]
    return [b["prefix"] for b in beds.values() if b.get("prefix")]


# --- testbeds ---------------------------------------------------------------
@pytest.mark.parametrize("spec, qdisc", [
    (TestbedSpec(kind="p2p", mtu=9000, rate="100mbit", shaper="tbf", offloads={"tso": False, "gso": False}), "tbf"),
    (TestbedSpec(kind="routed", mtu=[1500, 9000, 4000], rate="1gbit", shaper="htb"), "htb"),
])
def test_testbed_builds_shapes_routes_and_leaves_nothing(spec, qdisc):
    host_cc = Path("/proc/sys/net/ipv4/tcp_congestion_control").read_text().strip()
    with Testbed("t", spec) as bed:
        assert set(bed.namespaces) <= set(our_namespaces())
        facts = bed.facts()
        sender_links = facts["nodes"]["snd"]["links"]
        (first,) = sender_links.values()
        assert first["mtu"] == spec.link_mtus()[0]
        assert first["qdiscs"][0]["kind"] == qdisc
        if spec.offloads:
            assert first["offloads"]["tso"] == "off"
        effective = bed.apply_stack({"net.ipv4.tcp_congestion_control": "reno"})
        assert effective["net.ipv4.tcp_congestion_control"] == "reno"
        # traffic crosses the testbed: one short netperf run from sender to receiver
        server = subprocess.Popen(["ip", "netns", "exec", bed.receiver.ns, "netserver", "-D", "-p", "16870"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            time.sleep(0.5)
            for ipv in (4, 6):
                out = sh(["ip", "netns", "exec", bed.sender.ns, "netperf", f"-{ipv}", "-H", bed.target(ipv), "-p", "16870",
                          "-t", "TCP_RR", "-l", "1"], timeout=20)
                assert "Trans." in out and bed.target(ipv).split(":")[0] in out
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(5)
        prefix = bed.prefix
    assert leftovers([prefix]) == []
    assert not (STATE_DIR / f"{prefix}.json").exists()
    assert Path("/proc/sys/net/ipv4/tcp_congestion_control").read_text().strip() == host_cc


def test_teardown_after_an_exception_inside():
    with pytest.raises(RuntimeError, match="boom"):
        with Testbed("t", TestbedSpec(kind="routed")) as bed:
            prefix = bed.prefix
            assert len(leftovers([prefix])) == 4
            raise RuntimeError("boom")
    assert leftovers([prefix]) == []


def test_cleanup_removes_only_dead_collectors_leftovers_and_says_what(sole_cleanup):
    dead, live = f"nr-{secrets.token_hex(3)}", f"nr-{secrets.token_hex(3)}"
    gone = subprocess.Popen(["true"])
    gone.wait()  # a pid that no longer runs: its collector was killed
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    (STATE_DIR / f"{dead}.json").write_text(json.dumps({"pid": gone.pid, "prefix": dead}))
    (STATE_DIR / f"{live}.json").write_text(json.dumps({"pid": os.getpid(), "prefix": live}))
    foreign = f"nrx{secrets.token_hex(3)}"
    stale, running = workdir(dead), workdir(live)  # D-ITG scratch folders: of the killed collector, of this one
    (stale / OWNER_FILE).write_text(json.dumps({"pid": gone.pid}))
    unowned = Path(tempfile.mkdtemp(prefix=f"netrepro-{dead}-"))  # the right name, but no owner file: not ours to judge
    try:
        for name in (f"{dead}-snd", f"{live}-snd", foreign):
            sh(["ip", "netns", "add", name])
        sh(["ip", "link", "add", f"{dead}-0a", "type", "veth", "peer", "name", f"{dead}-0b"])
        result = CliRunner().invoke(app, ["collect", "--cleanup"])
        assert result.exit_code == 0, result.output
        said = [line for line in result.output.splitlines() if dead in line]
        assert sorted(said) == [f"removed link {dead}-0a", f"removed link {dead}-0b", f"removed namespace {dead}-snd",
                                f"removed scratch folder {stale}"]
        assert result.output.splitlines()[-1].endswith("left behind by stopped collectors removed")
        assert leftovers([dead]) == [] and not stale.exists()
        assert f"{live}-snd" in our_namespaces() and running.is_dir() and unowned.is_dir()
        assert foreign in sh(["ip", "netns", "list"])
    finally:
        for name in (f"{live}-snd", foreign, f"{dead}-snd"):
            sh(["ip", "netns", "del", name], check=False)
        sh(["ip", "link", "del", f"{dead}-0a"], check=False)
        for p in (dead, live):
            (STATE_DIR / f"{p}.json").unlink(missing_ok=True)
        for folder in (stale, running, unowned):
            shutil.rmtree(folder, ignore_errors=True)


# --- a whole campaign -------------------------------------------------------
SMOKE_BLOCKS = [
    {"name": "netperf", "tool": "netperf", "factors": {"topology": ["p2p", "routed"], "mode": ["stream", "rr"],
                                                       "transport": ["TCP", "UDP"], "packet_size_bytes": [512], "stack": ["reno"]}},
    {"name": "iperf3", "tool": "iperf3", "factors": {"topology": ["loopback", "p2p"], "ip_version": [6], "transport": ["UDP"]}},
    {"name": "iperf2", "tool": "iperf2", "factors": {"topology": ["routed"], "ip_version": [6], "transport": ["TCP", "UDP"]}},
    {"name": "ditg", "tool": "ditg", "factors": {"topology": ["loopback", "routed"], "mode": ["owdm", "rttm"],
                                                 "transport": ["UDP"], "frame_size_bytes": [4329]}},
    {"name": "apps", "tool": "ditg", "factors": {"topology": ["routed"], "ip_version": [6], "application": ["DNS", "VoIP-G.729.2"]}},
]
SMOKE_TESTBEDS = {"loopback": LOOPBACK, "p2p": {"kind": "p2p", "rate": "1gbit"}, "routed": {"kind": "routed", "mtu": 9000}}


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    out = tmp_path_factory.mktemp("collect") / "smoke"
    plan = make_plan(SMOKE_BLOCKS, SMOKE_TESTBEDS, retries=1)  # as the shipped plans: a loaded host resets a server now and then
    collector = Collector(plan, out)
    progress = collector.run()
    return out, progress, collector


def test_smoke_campaign_runs_every_tool_and_leaves_nothing(smoke):
    out, progress, collector = smoke
    assert progress["runs_total"] == 8 + 2 + 2 + 4 + 2
    assert progress["complete"] and progress["runs_failed"] == 0, yaml.safe_load((out / "manifest.yaml").read_text())
    assert leftovers([b.prefix for b in collector.testbeds.values()]) == []
    assert not list(Path("/tmp").glob(f"netrepro-{collector.testbeds['p2p'].prefix}-*"))


def test_smoke_manifest_records_each_run(smoke):
    out, _, _ = smoke
    manifest = load_manifest(out)
    assert manifest.campaign.synthetic is False
    assert manifest.campaign.extra["host"]["cpu_count"] == os.cpu_count()
    assert set(manifest.campaign.tool_versions) >= {"netperf", "iperf3", "iperf2", "ditg"}
    assert manifest.campaign.extra["testbeds"]["routed"]["nodes"]["r1"]["links"]
    table = manifest.files.table
    runs = [e for e in table if not e.path.endswith(".recv.txt")]
    assert sorted(e.meta["order"] for e in runs) == list(range(18))
    for e in runs:
        assert e.meta["status"] == "ok" and e.meta["exit_status"] == 0
        assert e.meta["started"] < e.meta["ended"]
        assert 0 <= e.meta["host_cpu_pct"] <= 100
        assert e.meta["commands"].split()[0] in ("ip", "ITGSend", "iperf3")
    np = [e for e in runs if e.levels["tool"] == "netperf"]
    assert all(e.meta["stack_effective"] == "net.ipv4.tcp_congestion_control=reno" for e in np)
    assert all("ip netns exec nr-" in e.meta["commands"] for e in np)
    rttm = [e for e in table if e.levels.get("mode") == "rttm"]
    assert sorted(e.levels["log"] for e in rttm) == ["receiver", "receiver", "sender", "sender"]


def test_smoke_raw_outputs_are_the_tools_own(smoke):
    out, _, _ = smoke
    texts = {p.relative_to(out).as_posix(): p.read_text(errors="replace") for p in out.rglob("*") if p.is_file() and "collect" not in p.parts}
    by_tool = lambda prefix: [t for k, t in texts.items() if k.startswith(prefix)]  # noqa: E731
    assert all("MIGRATED" in t for t in by_tool("netperf/"))
    assert all(json.loads(t)["end"] for t in by_tool("iperf3/"))
    assert all("Server Report" in t for t in by_tool("iperf2/topology-routed/ip_version-6/transport-UDP"))
    assert all("TOTAL RESULTS" in t and "|\\-/" not in t for t in by_tool("ditg/") + by_tool("apps/"))
    udp_routed = next(t for k, t in texts.items() if k.startswith("netperf/topology-routed/mode-stream/transport-UDP"))
    assert "Network is unreachable" not in udp_routed


def test_smoke_ingests_cleanly(smoke):
    out, _, _ = smoke
    result = ingest_campaign(out)
    assert result.counts["rejected"] == 0, result.rejected.to_dict("records")
    assert result.counts["failed"] == 0
    runs = result.runs
    assert set(runs["tool"]) == {"netperf", "iperf3", "iperf2", "ditg"}
    assert set(runs["topology"].dropna()) == {"loopback", "p2p", "routed"}
    assert (runs.loc[runs["tool"] == "netperf", "stack"] == "reno").all()
    stream = runs[(runs["tool"] == "netperf") & (runs["test"] == "TCP_STREAM")]
    assert (stream["throughput_mbps"] > 0).all()
    rr = runs[(runs["tool"] == "netperf") & (runs["test"] == "UDP_RR")]
    assert (rr["transactions_per_s"] > 0).all()
    assert runs.loc[runs["tool"] == "iperf3", "jitter_ms"].notna().any()
    ditg = runs[runs["tool"] == "ditg"]
    # a round-trip run's own file decodes the sender log: its delays are RTTs (the manifest's parser hint)
    roundtrip = (ditg["mode"] == "rttm") & (ditg["log"] == "sender")
    assert roundtrip.any() and (~roundtrip).any()
    assert ditg.loc[roundtrip, "rtt_ms"].notna().all() and ditg.loc[roundtrip, "owd_ms"].isna().all()
    assert ditg.loc[~roundtrip, "owd_ms"].notna().all()
    # constant-rate flows carry data; a 1 s DNS preset may send a single packet (bitrate 0 by ITGDec)
    assert (ditg.loc[ditg["application"].isna(), "throughput_mbps"] > 0).all()
    assert set(ditg["log"]) == {"sender", "receiver"}
    assert result.counts["ignored"] > 0  # collect/ holds the plan copy, side logs and server logs


# --- failure and interruption -----------------------------------------------
def test_failed_run_is_kept_with_its_reason(tmp_path, monkeypatch):
    real = campaign_mod.client_steps

    def wrong_port(levels, target, ns, ports, *rest):
        return real(levels, target, ns, Ports(netperf=16999), *rest)  # nothing listens there

    monkeypatch.setattr(campaign_mod, "client_steps", wrong_port)
    plan = make_plan([{"name": "np", "tool": "netperf", "factors": {"transport": ["TCP"]}}], retries=1)
    out = tmp_path / "failing"
    collector = Collector(plan, out)
    progress = collector.run()
    assert progress == progress | {"runs_done": 1, "runs_failed": 1, "complete": True}
    (entry,) = load_manifest(out).files.table
    assert entry.meta["status"] == "failed" and entry.meta["reason"] == "netperf: exit status 255"
    assert entry.meta["attempts"] == 2
    assert "netserver" in (out / entry.path).read_text()
    assert (out / "collect" / "failed" / f"{entry.path}.attempt1").is_file()
    assert leftovers([collector.testbeds["p2p"].prefix]) == []
    outcome = next(f for f in ingest_campaign(out).files if f.path == entry.path)
    assert outcome.outcome in ("failed", "rejected")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_tears_down_and_resume_completes(tmp_path, sig):
    plan = make_plan([{"name": "np", "tool": "netperf", "factors": {"packet_size_bytes": [256, 512, 1024, 1408]}}])  # 4 runs of 1 s
    plan_file = tmp_path / "plan.yaml"
    plan_file.write_text(yaml.safe_dump(plan.model_dump(mode="json")))
    out = tmp_path / "interrupted"
    proc = start_collector(plan_file, out)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        manifest = out / "manifest.yaml"
        if manifest.is_file() and yaml.safe_load(manifest.read_text())["campaign"]["extra"]["progress"]["runs_done"] >= 2:
            break
        time.sleep(0.2)
    proc.send_signal(sig)
    output, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, output.decode()
    assert f"interrupted by {sig.name}; testbeds torn down; continue with --resume".encode() in output
    (record,) = yaml.safe_load((out / "manifest.yaml").read_text())["campaign"]["extra"]["progress"]["interruptions"]
    assert record["signal"] == sig.name and record["runs_done"] >= 2
    prefixes = prefixes_of(out)
    assert prefixes and leftovers(prefixes) == []
    before = {e.path: e.meta["started"] for e in load_manifest(out).files.table}
    assert 2 <= len(before) < 4

    resumed = Collector(plan, out, resume=True)
    progress = resumed.run()
    assert progress["complete"] and progress["runs_done"] == 4
    assert progress["interruptions"] == [record]  # the earlier session's interruption stays on record
    after = {e.path: e.meta["started"] for e in load_manifest(out).files.table}
    assert {p: after[p] for p in before} == before  # complete runs were skipped, not redone
    assert leftovers([resumed.testbeds["p2p"].prefix]) == []


def test_unknown_congestion_control_is_refused_before_any_run(tmp_path):
    plan = make_plan([{"name": "np", "tool": "netperf", "factors": {"stack": ["odd"]}}],
                     stack_profiles={"odd": {"net.ipv4.tcp_congestion_control": "vegasx"}})
    collector = Collector(plan, tmp_path / "c")
    with pytest.raises(ValueError, match="congestion control 'vegasx' cannot be selected inside a network namespace"):
        collector.run()
    prefixes = [b.prefix for b in collector.testbeds.values()]
    assert prefixes and leftovers(prefixes) == []
    assert not [e for e in yaml.safe_load((tmp_path / "c" / "manifest.yaml").read_text())["files"]["table"]]


def test_resume_refuses_a_changed_plan(tmp_path):
    plan = make_plan([{"name": "np", "tool": "netperf"}])
    out = tmp_path / "c"
    Collector(plan, out).run()
    other = make_plan([{"name": "np", "tool": "netperf"}], seed=12)
    with pytest.raises(ValueError, match="the plan differs"):
        Collector(other, out, resume=True).run()


def test_resume_with_a_plan_extended_by_new_cells_keeps_every_earlier_run(tmp_path):
    plan = make_plan([{"name": "np", "tool": "netperf", "factors": {"packet_size_bytes": [64]}}], warmup_s=1)
    out = tmp_path / "c"
    Collector(plan, out).run()
    before = {e.path: e for e in load_manifest(out).files.table}
    raw = {p: (out / p).read_bytes() for p in [*before, "collect/warmup/p2p-netperf.txt"]}
    extended = make_plan([{"name": "np", "tool": "netperf", "factors": {"packet_size_bytes": [64, 1024]}}], warmup_s=1)
    progress = Collector(extended, out, resume=True).run()
    assert progress["complete"] and progress["runs_total"] == 2 and progress["runs_failed"] == 0
    manifest = load_manifest(out)
    after = {e.path: e for e in manifest.files.table}
    assert {p: (after[p].meta, after[p].levels) for p in before} == {p: (e.meta, e.levels) for p, e in before.items()}
    assert {p: (out / p).read_bytes() for p in raw} == raw  # no earlier output touched, warm-up included
    assert (out / "collect/warmup/p2p-netperf.2.txt").is_file()  # this session's warm-up beside it
    (added,) = set(after) - set(before)
    assert after[added].levels["packet_size_bytes"] == 1024 and after[added].meta["order"] == 1
    (record,) = manifest.campaign.extra["collector"]["extensions"]
    assert record["runs_added"] == 1 and record["orders"] == "1-1" and "plan_before" not in record
    assert ingest_campaign(out).counts["rejected"] == 0
