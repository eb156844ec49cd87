"""Collect until decided, live: real netperf runs over two links between network
namespaces, collected with a registered claim that carries ``stop:``. The claim
(the link shaped to 100 Mbit/s streams faster than the one shaped to 20) is
decided before max_runs, so the collector skips every later repetition;
interrupted inside the first block and resumed, it evaluates no incomplete look,
continues, and decides as if never stopped. Needs root, ``ip netns`` and
netperf; skipped elsewhere with the reason."""

from __future__ import annotations

import shutil
import tempfile

import pytest
import yaml

from analysis.collect.campaign import Collector
from analysis.collect.plan import Plan
from analysis.collect.testbed import netns_available
from analysis.collect.until_decided import RECORD
from analysis.ingest.campaign import load_campaign
from analysis.ingest.manifest import load_manifest
from analysis.ingest.per_run import one_row_per_run
from analysis.verdicts import evaluate, registration_of

WHY_NOT = netns_available() or next((f"{t} is not installed" for t in ("netperf", "netserver")
                                     if shutil.which(t) is None), None)
pytestmark = [pytest.mark.netns, pytest.mark.skipif(WHY_NOT is not None, reason=f"live collector tests: {WHY_NOT}")]

PLAN = {
    "name": "until-decided", "title": "live: collect until decided", "seed": 27, "runs_per_cell": 9,
    "duration_s": 1, "pause_s": 0.1, "timeout_s": 10,
    # Two shaped links, not loopback: a difference as sure as 16 KiB against 64-byte messages on loopback,
    # for a tenth of the CPU (each second of an unshaped stream keeps a core busy on each side).
    "testbeds": {"fast": {"kind": "p2p", "rate": "100mbit"}, "slow": {"kind": "p2p", "rate": "20mbit"}},
    "blocks": [{"name": "np", "tool": "netperf",
                "factors": {"topology": ["fast", "slow"], "ip_version": [4], "transport": ["TCP"], "packet_size_bytes": [1024]}}],
}
CLAIMS = """hypotheses:
  - id: faster_link_faster
    statement: "the link shaped to 100 Mbit/s streams faster than the one shaped to 20 Mbit/s"
    metric: throughput_mbps
    compare: {factor: topology, levels: [fast, slow]}
    direction: greater
    stop: {when: decided, min_runs: 3, look_every: 3, max_runs: 9, spending: obf}
"""


def test_an_interrupted_collection_resumes_at_its_look_and_stops_when_decided(tmp_path, monkeypatch):
    plan = Plan.model_validate(PLAN)
    scratch = tmp_path / "tmp"  # where each look ingests the runs so far
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    claims = tmp_path / "claims.yaml"
    claims.write_text(CLAIMS)
    out = tmp_path / "campaign"
    made = []
    real_do = Collector._do

    def interrupted_after_four(self, r):
        if len(made) == 4:
            raise KeyboardInterrupt
        made.append(r.path)
        return real_do(self, r)

    monkeypatch.setattr(Collector, "_do", interrupted_after_four)
    with pytest.raises(KeyboardInterrupt):
        Collector(plan, out, hypotheses=claims).run()
    assert all(int(p.split("run")[-1][:3]) <= 3 for p in made)  # the first block: repetitions 1..3 of both cells
    monkeypatch.setattr(Collector, "_do", real_do)

    progress = Collector(plan, out, resume=True, hypotheses=claims).run()
    looks = yaml.safe_load((out / RECORD).read_text())["looks"]
    first, *later = looks  # on resume: runs 1..3 not all made yet, so no complete look
    assert first["when"] == "before repetitions 1..3" and first["cells"][0]["decision"] == "no look yet"
    decided = looks[-1]["cells"][0]
    assert (decided["decision"], decided["verdict"]) == ("decided", "supported")
    look = decided["look"]
    assert look < 3  # 100 against 20 Mbit/s: decided before max_runs
    assert progress["runs_total"] == 18 and progress["runs_done"] == 6 * look and progress["runs_failed"] == 0
    assert {e.levels["run"] for e in load_manifest(out).files.table} == set(range(1, 3 * look + 1))
    assert looks[-1]["runs_skipped_so_far"] == 18 - 6 * look and looks[-1]["when"] == "after the last run"
    assert [p.name for p in scratch.iterdir() if "netrepro-look" in p.name] == []  # nor their lock files

    registration = registration_of(out, claims)
    assert registration.registered and registration.collected_until_decided
    runs = one_row_per_run(load_campaign(out, processed=tmp_path / "processed").runs)
    row = evaluate(runs, claims, registration).table.iloc[0]
    assert (row["verdict"], row["look"]) == ("supported", look)
    assert f"decided at look {look} of ≤3 ({3 * look}+{3 * look} runs" in row["design"]
