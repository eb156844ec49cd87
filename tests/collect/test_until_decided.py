"""Which runs a collection until decided makes, and in which order, without a
testbed: look blocks over the plan's seeded order, and the runs a decided cell
no longer needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.collect.plan import Plan, PlanError, schedule
from analysis.collect.until_decided import UntilDecided, in_looks, look_points
from analysis.verdicts import parse_hypotheses

PLAN = Plan.model_validate({
    "name": "u", "title": "until decided", "seed": 3, "runs_per_cell": 6, "duration_s": 1,
    "testbeds": {"loopback": {"kind": "loopback"}},
    "blocks": [{"name": "np", "tool": "netperf", "factors": {"ip_version": [4, 6], "packet_size_bytes": [64, 1408]}},
               {"name": "i3", "tool": "iperf3", "factors": {"ip_version": [4, 6]}}],
})
STOP = {"min_runs": 2, "look_every": 2, "max_runs": 4}


def claims(*extra):
    return parse_hypotheses([
        {"id": "v4", "statement": "s", "metric": "throughput_mbps", "scope": {"tool": "netperf"},
         "compare": {"factor": "ip_version", "levels": [4, 6]}, "direction": "greater", "per": "packet_size_bytes",
         "stop": STOP}, *extra])


def test_runs_come_in_look_blocks_in_the_seeded_order():
    runs = schedule(PLAN)
    ordered = in_looks(runs, look_points(claims()))
    blocks = [0 if r.levels["run"] <= 2 else 1 if r.levels["run"] <= 4 else 2 for r in ordered]
    assert blocks == sorted(blocks) and sorted(r.path for r in ordered) == sorted(r.path for r in runs)
    first = [r.order for r in ordered if r.levels["run"] <= 2]
    assert first == sorted(first)  # within a block, the plan's seeded order


def test_a_decided_cell_is_skipped_unless_another_claim_needs_it():
    looks = UntilDecided(Path("."), Path("claims.yaml"), claims(), [2, 4])
    looks.decisions = {("v4", "packet_size_bytes=64"): "decided", ("v4", "packet_size_bytes=1408"): "open"}
    netperf = {"tool": "netperf", "ip_version": 4, "packet_size_bytes": 64, "run": 3}
    assert not looks.needed(netperf)
    assert looks.needed(netperf | {"packet_size_bytes": 1408})
    assert not looks.needed(netperf | {"packet_size_bytes": 1408, "run": 5})  # beyond its max_runs
    assert looks.needed({"tool": "iperf3", "ip_version": 4, "run": 3})  # no claim is about it: the plan's run stays
    assert looks.skipped == 2
    fixed = {"id": "fixed", "statement": "s", "metric": "throughput_mbps", "scope": {"tool": "netperf"},
             "compare": {"factor": "ip_version", "levels": [4, 6]}, "direction": "different"}
    with_fixed = UntilDecided(Path("."), Path("claims.yaml"), claims(fixed), [2, 4], dict(looks.decisions))
    assert with_fixed.needed(netperf)  # a fixed claim needs every run of its scope


def test_a_file_without_stop_claims_collects_as_planned(tmp_path):
    path = tmp_path / "claims.yaml"
    path.write_text("hypotheses:\n- {id: a, statement: s, metric: throughput_mbps, direction: different,\n"
                    "   compare: {factor: ip_version, levels: [4, 6]}}\n")
    assert UntilDecided.of(tmp_path, path) is None
    assert UntilDecided.of(tmp_path, None) is None


def test_a_plan_with_fewer_runs_than_max_runs_is_refused(tmp_path):
    path = tmp_path / "claims.yaml"
    path.write_text("hypotheses:\n- {id: a, statement: s, metric: throughput_mbps, direction: different,\n"
                    "   scope: {tool: netperf}, compare: {factor: ip_version, levels: [4, 6]},\n"
                    "   stop: {min_runs: 2, look_every: 2, max_runs: 8}}\n")
    looks = UntilDecided.of(tmp_path, path)
    assert looks is not None
    with pytest.raises(PlanError, match="max_runs 8 but block np makes 6 runs a cell; give it runs_per_cell: 8"):
        looks.check(PLAN)
    looks.check(PLAN.model_copy(update={"runs_per_cell": 8}))
