"""`netrepro manifest init` on a tree of genuine tool outputs under awkward
names, then `netrepro ingest` with the proposal: every file accounted for on
the first try."""

import itertools
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from analysis.cli import app

FIX = Path(__file__).resolve().parent / "fixtures"
runner = CliRunner()

SCENARIOS = ["baseline", "high_load", "café_night"]  # '_' inside a field, and a non-ASCII letter
REGIONS = ["us-east-1", "eu-west-2", "ap-south-1"]  # '-' inside a field


def _awkward_tree(root: Path) -> dict[str, Path]:
    """<scenario>_<source-region>_<dest-region>_<run>.json iperf3 outputs at
    the top; netperf outputs in nested folders with spaces and unicode; an
    empty output and an aborted one; notes and a hidden file. Returns
    relative path -> the genuine fixture copied there (None for made files)."""
    jsons = sorted((FIX / "iperf3").glob("*client*_json.json"))
    placed = {}
    for i, (scenario, src, dst, run) in enumerate(itertools.product(SCENARIOS, REGIONS, REGIONS, (1, 2, 13))):
        if src == dst:
            continue
        placed[f"{scenario}_{src}_{dst}_{run}.json"] = jsons[i % len(jsons)]
    for size, trial in itertools.product((128, 1408), (1, 2)):
        placed[f"netperf runs/Größe {size}/trial {trial}.txt"] = FIX / "netperf/tcp_stream_cpu.txt"
    placed["netperf runs/Größe 128/trial 3.txt"] = FIX / "damaged/netperf/damaged_truncated_stream.txt"  # killed mid-run
    for rel, source in placed.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, root / rel)
    (root / "netperf runs/Größe 1408/trial 3.txt").write_bytes(b"")  # the run wrote nothing
    (root / "notes.md").write_text("how we ran it\n")
    (root / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    return placed


@pytest.fixture()
def tree(tmp_path):
    root = tmp_path / "awkward campaign"
    return root, _awkward_tree(root)


def test_init_then_ingest_accounts_for_every_file_on_the_first_try(tree, tmp_path):
    root, placed = tree
    shown = runner.invoke(app, ["manifest", "init", str(root)])
    assert shown.exit_code == 0, shown.output
    assert not (root / "manifest.yaml").exists()  # printing writes nothing
    proposal = yaml.safe_load(shown.stdout)
    assert "mapped: 60 of 60 files (2 more ignored); unmatched: none" in shown.stderr
    assert "ignored 1 file by rule '.*', e.g. .DS_Store" in shown.stderr
    first = shown.stderr.split("first mappings:", 1)[1]
    assert "baseline_ap-south-1_eu-west-2_1.json ->" in first

    written = runner.invoke(app, ["manifest", "init", str(root), "--write"])
    assert written.exit_code == 0, written.output
    assert yaml.safe_load((root / "manifest.yaml").read_text()) == proposal

    out = tmp_path / "out"
    ingested = runner.invoke(app, ["ingest", str(root), "--out", str(out), "--strict"])
    assert ingested.exit_code == 0, ingested.output
    report = json.loads((out / "ingest.json").read_text())
    assert report["counts"] | {"records": 0, "intervals": 0, "rows_with_warnings": 0} == {
        "files": 62, "parsed": 58, "failed": 2, "rejected": 0, "ignored": 2,
        "records": 0, "intervals": 0, "rows_with_warnings": 0}
    runs = pd.read_parquet(out / "runs.parquet")
    per_file = runs.drop_duplicates("source_path").set_index("source_path")
    # every name split as it was made: '_' inside the scenario, '-' inside the regions
    factor_of = {v: k for k, spec in proposal["factors"].items() for v in spec.get("levels", [])}
    assert {factor_of["high_load"], factor_of["us-east-1"]} <= set(runs.columns)
    for rel in placed:
        if rel.endswith(".json"):
            scenario, src, dst, run = rel[: -len(".json")].rsplit("_", 3)
            row = per_file.loc[rel]
            assert scenario in SCENARIOS and row[factor_of[scenario]] == scenario
            assert {row[c] for c in proposal["factors"] if proposal["factors"][c].get("levels") == sorted(REGIONS)} == {src, dst}
            assert int(run) in set(row[[c for c in proposal["factors"] if proposal["factors"][c]["type"] == "int"]])
    # the aborted and the empty netperf runs are failed runs of their cells, not rejected files
    from analysis.ingest.campaign import load_campaign
    from analysis.report.overview import failed_runs

    shown_failed = failed_runs(load_campaign(root, out)).set_index("source_path")
    assert shown_failed.loc["netperf runs/Größe 128/trial 3.txt"].tolist() == [
        "netperf", "aborted run: the netperf output stops at line 3 before its result "
                   "(netperf table header without a result row)"]
    assert shown_failed.loc["netperf runs/Größe 1408/trial 3.txt", "error"] == "empty output: the run wrote nothing"
    # the aborted one has its row (the content names netperf); the empty one names no tool, so it is in the account only
    assert runs.loc[runs["status"] == "failed", "source_path"].tolist() == ["netperf runs/Größe 128/trial 3.txt"]
    measured = runs[(runs["status"] == "ok") & runs["source_path"].str.startswith("netperf runs/")]
    assert (measured["throughput_mbps"] > 0).all() and len(measured["source_path"].unique()) == 4


def test_init_never_writes_over_a_manifest_and_names_every_unmatched_file(tree):
    root, _ = tree
    (root / "manifest.yaml").write_text("campaign: {title: mine, synthetic: false}\nfiles: {}\n")
    before = (root / "manifest.yaml").read_bytes()
    refused = runner.invoke(app, ["manifest", "init", str(root), "--write"])
    assert refused.exit_code == 2 and "exists" in refused.stderr and "never writes over" in refused.stderr
    assert (root / "manifest.yaml").read_bytes() == before
    assert runner.invoke(app, ["manifest", "init", str(root)]).exit_code == 0  # printing is always allowed


def test_every_file_a_manifest_does_not_map_is_named_with_why(tmp_path):
    from analysis.ingest.manifest_command import account_lines
    from analysis.ingest.manifest_init import tried

    names = ["a_b_c_1.json", "a_b_2.json", "x y.json", "run1.json"]
    manifest = {"campaign": {"title": "t", "synthetic": False},
                "factors": {"scenario": {"type": "str"}, "peer": {"type": "str"}, "run": {"type": "int"}},
                "files": {"templates": ["{scenario}_{peer}_{run}.json", "run{run}.json"]}}
    proposal = tried(manifest, names, tmp_path)
    lines = account_lines(tmp_path, proposal, show=5)
    assert lines[0].endswith("mapped: 2 of 4 files; unmatched: 2")
    assert "  a_b_2.json -> scenario='a', peer='b', run=2" in lines and "  run1.json -> run=1" in lines
    unmatched = [line for line in lines if line.startswith("unmatched ")]
    assert unmatched[0].startswith("unmatched a_b_c_1.json: not described by the manifest: template "
                                   "'{scenario}_{peer}_{run}.json' splits the name two ways")
    assert unmatched[1].startswith("unmatched x y.json: not described by the manifest: no files.templates")


def test_the_proposal_is_the_same_for_the_same_names(tree):
    root, _ = tree
    a = runner.invoke(app, ["manifest", "init", str(root)]).stdout
    b = runner.invoke(app, ["manifest", "init", str(root)]).stdout
    assert a == b and yaml.safe_load(a)["campaign"]["synthetic"] is False
