"""Empty and aborted runs are failed runs of the campaign; damaged files are
rejected; manifest mistakes are one line; undeclared factors reach the report."""

import shutil
from pathlib import Path

import yaml
from typer.testing import CliRunner

from analysis.cli import app
from analysis.ingest.campaign import load_campaign
from analysis.ingest.ingest import ingest_campaign
from analysis.report.overview import design_factors, design_sentence

FIX = Path(__file__).resolve().parent / "fixtures"
runner = CliRunner()


def _campaign(root: Path, files: dict[str, Path | bytes], manifest: dict) -> Path:
    for rel, source in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        if isinstance(source, bytes):
            (root / rel).write_bytes(source)
        else:
            shutil.copyfile(source, root / rel)
    (root / "manifest.yaml").write_text(yaml.safe_dump({"campaign": {"title": "t", "synthetic": False}} | manifest))
    return root


def test_failed_runs_and_rejected_files_are_told_apart(tmp_path):
    camp = _campaign(tmp_path / "c", {
        "iperf3/killed.json": FIX / "damaged/iperf3/damaged_truncated_json.json",  # cut after line 60: killed mid-write
        "iperf2/cut.txt": FIX / "damaged/iperf2/damaged_truncated_no_final.txt",  # no final summary
        "iperf2/refused.txt": FIX / "iperf2/client_tcp_refused.txt",  # the tool said why
        "iperf2/empty.txt": b"\n\n",
        "ditg/bad_value.txt": FIX / "damaged/ditg/damaged_garbage_value.txt",  # damage on line 12 of 39
        "iperf2/not_a_tool.txt": FIX / "damaged/iperf2/damaged_garbage.txt",
        "iperf3/ok.json": FIX / "iperf3/tcp_client_json.json",
    }, {"files": {"templates": ["{tool}/{name}.json", "{tool}/{name}.txt"]}})
    result = ingest_campaign(camp, progress=False)
    outcome = {f.path: (f.outcome, f.reason) for f in result.files}
    assert {p for p, (o, _) in outcome.items() if o == "failed"} == {
        "iperf3/killed.json", "iperf2/cut.txt", "iperf2/refused.txt", "iperf2/empty.txt"}
    assert outcome["iperf3/killed.json"][1].startswith("aborted run: the iperf3 output stops at line 60 before its result")
    assert outcome["ditg/bad_value.txt"] == ("rejected", "'Average delay': '0.0x0081' is not a number")
    assert outcome["iperf2/not_a_tool.txt"][0] == "rejected" and outcome["iperf3/ok.json"][0] == "parsed"
    failed = result.runs[result.runs["status"] == "failed"].drop_duplicates("source_path").set_index("source_path")
    assert failed.loc["iperf2/empty.txt", ["tool", "error", "name"]].tolist() == [
        "iperf2", "empty output: the run wrote nothing", "empty"]  # the manifest's tool level names the tool
    assert failed.loc["iperf2/refused.txt", "error"] == "tcp connect failed: Connection refused"
    assert result.counts == {"files": 7, "parsed": 1, "failed": 4, "rejected": 2, "ignored": 0}


def test_manifest_mistakes_are_one_line_without_a_traceback(tmp_path):
    camp = _campaign(tmp_path / "c", {"a.txt": FIX / "iperf2/client_tcp.txt"},
                     {"factors": {"size": {"type": "int"}}, "files": {"table": [{"path": "a.txt", "levels": {"size": "big"}}]}})
    result = runner.invoke(app, ["ingest", str(camp), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr == f"error: {camp / 'manifest.yaml'}:10: factor size: 'big' is not an int\n"
    (camp / "manifest.yaml").write_text("campaign: {title: t, synthetic: false}\nfactors:\n  test: {type: str}\nfiles: {}\n")
    result = runner.invoke(app, ["ingest", str(camp), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and result.stderr.startswith(f"error: {camp / 'manifest.yaml'}:3: factor: factor 'test' has "
                                                             "the name of the column 'test'")


def test_factors_only_in_templates_are_in_the_design(tmp_path, monkeypatch):
    files = {f"{scenario}/run{run}.json": FIX / "iperf3/tcp_client_json.json"
             for scenario in ("calm", "busy") for run in (1, 2)}
    camp = _campaign(tmp_path / "raw" / "c", files, {"files": {"templates": ["{scenario}/run{run:int}.json"]}})
    campaign = load_campaign(camp, tmp_path / "processed")
    assert {"scenario": "str", "run": "int"} == {k: v.type for k, v in campaign.manifest.factors.items()}
    assert design_factors(campaign, campaign.runs) == ["scenario"]
    assert "Scenario (busy, calm)" in design_sentence(campaign, campaign.runs.drop_duplicates("source_path"))
