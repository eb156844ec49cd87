"""`netrepro collect` as a command: dry run, plan errors, refusing to overwrite."""

from __future__ import annotations

from pathlib import Path

import yaml
from typer.testing import CliRunner

from analysis.cli import app

PLANS = Path(__file__).resolve().parents[2] / "plans"


def invoke(*args: str):
    return CliRunner().invoke(app, ["collect", *args])


def test_dry_run_prints_schedule_and_expected_duration():
    result = invoke(str(PLANS / "jumbo-routed.yaml"), "--dry-run", "--show", "3")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("    0  ")
    assert any("ITGSend -a '<receiver-ipv" in line for line in lines)
    assert "  ... 267 more runs" in lines
    assert lines[-1].startswith("270 runs on 1 testbed(s); expected duration ")


def test_bad_plan_is_an_error_before_anything_runs(tmp_path):
    plan = tmp_path / "bad.yaml"
    plan.write_text(yaml.safe_dump({"name": "x", "title": "x", "testbeds": {"lo": {"kind": "loopback"}},
                                    "blocks": [{"name": "b", "tool": "netperf", "factors": {"packet_size_bytes": [1]}}],
                                    "seed": 1, "runs_per_cell": 1, "duration_s": 1}))
    result = invoke(str(plan), "--out", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert "packet_size_bytes: 1 is outside 16..65000" in result.output
    assert not (tmp_path / "out").exists()


def test_existing_folder_needs_resume(tmp_path):
    plan = tmp_path / "p.yaml"
    plan.write_text(yaml.safe_dump({"name": "x", "title": "x", "testbeds": {"lo": {"kind": "loopback"}},
                                    "blocks": [{"name": "b", "tool": "netperf"}],
                                    "seed": 1, "runs_per_cell": 1, "duration_s": 1}))
    out = tmp_path / "out"
    out.mkdir()
    (out / "something.txt").write_text("earlier data")
    result = invoke(str(plan), "--out", str(out))
    assert result.exit_code == 2 and "add --resume" in result.output
    result = invoke(str(plan), "--out", str(out), "--resume")
    assert result.exit_code == 2 and "not a campaign this collector started" in result.output
    assert sorted(p.name for p in out.iterdir()) == ["something.txt"]
