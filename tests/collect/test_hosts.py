"""Lab-host campaigns without a lab: OS factors in the manifest, the dry
run's per-host command lines, the clock-sync rule."""

from __future__ import annotations

import shutil
from pathlib import Path

from analysis.collect.campaign import Collector, dry_run_lines
from analysis.collect.hostfacts import host_facts
from analysis.collect.hosts import HostsTestbed
from analysis.collect.plan import Plan, schedule
from analysis.ingest.ingest import ingest_campaign
from analysis.ingest.manifest import load_manifest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PAIRS = {"xp": ("Microsoft Windows XP Professional", "5.1.2600"), "w7": ("Microsoft Windows 7 Professional", "6.1.7601")}


def across_os_plan() -> Plan:
    hosts = {}
    for pair in PAIRS:
        hosts[f"{pair}-a"] = {"address": f"192.0.2.{len(hosts) + 1}", "roles": ["sender"], "dialect": "powershell"}
        hosts[f"{pair}-b"] = {"address": f"192.0.2.{len(hosts) + 1}", "roles": ["receiver"], "dialect": "powershell",
                              "tools": {"netserver": "C:\\netperf\\netserver.exe"}}
    return Plan.model_validate({
        "name": "across-os", "title": "TCP throughput on two Windows pairs", "seed": 1, "runs_per_cell": 1, "duration_s": 1,
        "hosts": hosts,
        "testbeds": {pair: {"kind": "hosts", "sender": f"{pair}-a", "receiver": f"{pair}-b"} for pair in PAIRS},
        "blocks": [{"name": "np", "tool": "netperf", "factors": {"topology": list(PAIRS)}}],
    })


def test_different_operating_systems_become_an_os_factor_that_ingests(tmp_path):
    """Facts as two Windows pairs would give them (written here, not collected): the manifest
    gets os and os_version as factors with a level per pair, and ingest reads them as such."""
    plan = across_os_plan()
    collector = Collector(plan, tmp_path)
    collector.host = host_facts()
    for pair, (name, version) in PAIRS.items():
        collector.facts[pair] = {"kind": "hosts", "hosts": {
            f"{pair}-{side}": {"os": name, "os_version": version, "distribution": name, "kernel": version,
                               "tool_versions": {"netperf": "2.4.5"}, "ssh": {"address": "192.0.2.1", "port": 22, "roles": ["sender"]}}
            for side in "ab"}}
    for r in schedule(plan):
        pair = r.levels["topology"]
        name, version = PAIRS[pair]
        levels = r.levels | {"os": name, "os_version": version, "receiver_os": name, "receiver_os_version": version}
        collector.entries[r.path] = {"path": r.path, "levels": levels, "meta": {"order": r.order, "status": "ok",
                                                                                "started": "2026-01-01T00:00:00"}}
        (tmp_path / r.path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(FIXTURES / "netperf" / "old24_tcp_stream.txt", tmp_path / r.path)
    collector.write_manifest()
    manifest = load_manifest(tmp_path)
    assert set(manifest.factors["os"].levels or []) == {name for name, _ in PAIRS.values()}
    assert set(manifest.factors["receiver_os_version"].levels or []) == {"5.1.2600", "6.1.7601"}
    assert "os" not in manifest.files.constants
    assert manifest.campaign.os == "Microsoft Windows XP Professional; Microsoft Windows 7 Professional"
    assert len(manifest.campaign.hosts) == 4
    result = ingest_campaign(tmp_path, strict=True)
    assert result.counts["rejected"] == 0
    runs = result.runs
    assert dict(zip(runs["topology"], runs["os"])) == {pair: name for pair, (name, _) in PAIRS.items()}


def test_one_os_is_a_constant_and_survives_resume(tmp_path):
    plan = across_os_plan()
    collector = Collector(plan, tmp_path)
    collector.host = host_facts()
    r = schedule(plan)[0]
    name, version = PAIRS["xp"]
    collector.entries[r.path] = {"path": r.path, "levels": r.levels | {"os": name, "os_version": version, "receiver_os": name,
                                                                      "receiver_os_version": version},
                                 "meta": {"order": 0, "status": "ok", "started": "2026-01-01T00:00:00"}}
    (tmp_path / r.path).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / r.path).write_text("x")
    collector.write_manifest()
    manifest = load_manifest(tmp_path)
    assert manifest.files.constants["os"] == name and "os" not in manifest.factors
    assert "os" not in manifest.files.table[0].levels
    again = Collector(plan, tmp_path, resume=True)
    again._load_previous()
    assert again.entries[r.path]["levels"]["os"] == name  # the constant goes back into the run's levels


def test_dry_run_shows_each_hosts_own_command_lines():
    plan = Plan.model_validate(across_os_plan().model_dump() | {"blocks": [
        {"name": "itg", "tool": "ditg", "factors": {"topology": ["xp"], "mode": ["rttm"]}}]})
    lines = list(dry_run_lines(plan, 1))
    assert lines[1].startswith("         xp-a: ITGSend -a 192.0.2.2 ")
    assert lines[2] == "         xp-a: ITGDec <sender-scratch>/run0.send.log"
    assert lines[3] == "         xp-b: ITGDec <receiver-scratch>/run0.recv.log"


def test_one_way_delay_needs_a_recorded_clock_sync():
    plan = across_os_plan()
    bed = HostsTestbed("xp", plan.testbeds["xp"], plan.hosts, {"ditg"})
    unsynced = {"clock_sync": None, "clock": {"offset_s": 0.2, "uncertainty_s": 0.01}}
    synced = {"clock_sync": {"source": "w32time", "synchronised": True}, "clock": {"offset_s": 0.0, "uncertainty_s": 0.01}}
    bed.host_facts = {"xp-a": unsynced, "xp-b": synced}
    bed.clock = bed._clock()
    assert bed.clock["sync"] is None and not bed.owd_allowed
    bed.host_facts = {"xp-a": synced, "xp-b": synced}
    bed.clock = bed._clock()
    assert bed.clock["sync"]["recorded_by"] == "the hosts" and bed.owd_allowed
    declared = HostsTestbed("xp", plan.testbeds["xp"].model_copy(update={"clock_sync": "PTP on both"}), plan.hosts, {"ditg"})
    declared.host_facts = {"xp-a": unsynced, "xp-b": unsynced}
    declared.clock = declared._clock()
    assert declared.clock["sync"] == {"source": "PTP on both", "recorded_by": "the plan (clock_sync)"}
    waived = HostsTestbed("xp", plan.testbeds["xp"].model_copy(update={"owd_without_clock_sync": True}), plan.hosts, {"ditg"})
    waived.host_facts = {"xp-a": unsynced, "xp-b": unsynced}
    waived.clock = waived._clock()
    assert waived.clock["sync"] is None and waived.owd_allowed
