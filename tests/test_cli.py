"""The command-line contract: parse prints records, reports FILE:LINE: reason
for what it cannot read, and exits 1 only after processing every file."""

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analysis.cli import app

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "tests/fixtures"
runner = CliRunner()


def test_parse_prints_json_lines_and_reports_bad_files_after_all(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("\nhello, not a benchmark\n")
    good = FIX / "netperf/tcp_rr.txt"
    result = runner.invoke(app, ["parse", str(bad), str(good)])
    assert result.exit_code == 1
    assert f"{bad}:2: not recognised" in result.stderr
    (record,) = [json.loads(l) for l in result.stdout.splitlines()]
    assert record["tool"] == "netperf" and record["test"] == "TCP_RR"
    assert record["transactions_per_s"] == 53193.44 and record["source_path"] == str(good)


def test_parse_csv_and_intervals(tmp_path):
    path = FIX / "netperf/udp_stream.txt"
    result = runner.invoke(app, ["parse", "--format", "csv", str(path)])
    assert result.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [r["side"] for r in rows] == ["sender", "receiver"]
    assert float(rows[1]["throughput_mbps"]) == 320.67
    iperf3 = next(p for p in sorted((FIX / "iperf3").glob("*.json")) if "refused" not in p.name)
    result = runner.invoke(app, ["parse", "--intervals", str(iperf3)])
    assert result.exit_code == 0
    rows = [json.loads(l) for l in result.stdout.splitlines()]
    assert rows and all("start_s" in r and "end_s" in r for r in rows)


def test_parse_unknown_format_and_missing_file(tmp_path):
    assert runner.invoke(app, ["parse", "--format", "xml", str(FIX / "netperf/tcp_rr.txt")]).exit_code == 2
    result = runner.invoke(app, ["parse", str(tmp_path / "nope.txt")])
    assert result.exit_code == 1 and "nope.txt:-: cannot read" in result.stderr


def test_ingest_and_verdicts_on_the_demo(tmp_path):
    demo = ROOT / "data/raw/demo-loopback"
    result = runner.invoke(app, ["ingest", str(demo), "--out", str(tmp_path / "out"), "--strict"])
    assert result.exit_code == 0, result.output
    assert "demo-loopback: 180 files: 180 parsed, 0 failed runs, 0 rejected, 0 ignored" in result.stdout
    assert (tmp_path / "out/runs.parquet").is_file()
    result = runner.invoke(app, ["verdicts", str(demo), str(ROOT / "data/hypotheses/demo-loopback.yaml"), "--csv", str(tmp_path / "v.csv")])
    assert result.exit_code == 0, result.output
    assert "D4" in result.stdout and (tmp_path / "v.csv").read_text().startswith("id,")


def test_ingest_names_a_broken_manifest(tmp_path):
    (tmp_path / "manifest.yaml").write_text("campaign: {title: x}\nfiles: {}\n")
    result = runner.invoke(app, ["ingest", str(tmp_path)])
    assert result.exit_code == 2 and "key 'campaign.synthetic': Field required" in result.stderr


def test_parse_hint_says_what_the_output_cannot():
    path = str(FIX / "ditg/rttm4_send_summary.txt")  # ITGSend's log of a round-trip (-m rttm) run
    plain = [json.loads(l) for l in runner.invoke(app, ["parse", path]).stdout.splitlines()]
    hinted = runner.invoke(app, ["parse", "--hint", "ditg.meter=rttm", path])
    assert hinted.exit_code == 0
    rows = [json.loads(l) for l in hinted.stdout.splitlines()]
    assert rows[0]["rtt_ms"] == pytest.approx(0.139) and rows[0]["owd_ms"] is None
    assert plain[0]["owd_ms"] == pytest.approx(0.139) and plain[0]["rtt_ms"] is None
    bad = runner.invoke(app, ["parse", "--hint", "ditg.colour=blue", path])
    assert bad.exit_code == 1 and "parser hint 'colour' is not one the ditg parser takes" in bad.stderr
    assert runner.invoke(app, ["parse", "--hint", "nonsense", path]).exit_code == 2


def test_parse_prints_the_parsers_file_warnings_on_stderr():
    path = FIX / "ditg/rttm4_send_summary.txt"
    result = runner.invoke(app, ["parse", str(path)])
    assert result.exit_code == 0 and result.stdout
    assert f"{path}: warning: no meter hint" in result.stderr
    result = runner.invoke(app, ["parse", "--hint", "ditg.meter=rttm", str(path)])
    assert result.exit_code == 0 and result.stderr == ""


@pytest.mark.parametrize("name, count", [("ditg/udp4.recv.bin", 198), ("ditg/udp6_recv_packets.txt", 148)])
def test_parse_packets_prints_every_packet_of_a_binary_or_text_log(name, count):
    result = runner.invoke(app, ["parse", "--packets", "--hint", "ditg.meter=owdm", str(FIX / name)])
    assert result.exit_code == 0, result.stderr
    rows = [json.loads(l) for l in result.stdout.splitlines()]
    assert len(rows) == count and rows[0]["seq"] == 1 and rows[0]["source_path"] == str(FIX / name)
    assert {"flow", "src", "dst", "tx_s", "rx_s", "size_bytes", "delay_s"} <= set(rows[0])


def test_parse_packets_says_why_an_output_has_none():
    path = FIX / "iperf3/tcp_client.txt"
    result = runner.invoke(app, ["parse", "--packets", str(path)])
    assert result.exit_code == 1 and result.stdout == ""
    assert f"{path}: no per-packet rows" in result.stderr and "D-ITG packet logs" in result.stderr


def _readme_commands(prefixes=("netrepro parse", "netrepro ingest", "netrepro verdicts")):
    """The netrepro commands of the README's quick start, without comments."""
    text = (ROOT / "README.md").read_text()
    block = text.split("## Quick start", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    lines = [line.split("#", 1)[0].strip() for line in block.splitlines()]
    return [line for line in lines if line.startswith(prefixes)]


@pytest.mark.parametrize("command", [  # -j 2 starts a local Dask cluster (seconds): out of `make test-fast`
    pytest.param(c, marks=pytest.mark.slow) if " -j " in c else c for c in _readme_commands()], ids=lambda c: c[:60])
def test_every_readme_command_succeeds_as_written(command, monkeypatch):
    """The quick start is a new user's first contact: each command exits 0
    (the README's globs expand in the repository, as a shell would there)."""
    import shlex

    monkeypatch.chdir(ROOT)
    argv = []
    for word in shlex.split(command)[1:]:
        argv += sorted(str(p) for p in ROOT.glob(word)) if "*" in word else [word]
    result = runner.invoke(app, argv)
    assert result.exit_code == 0, (command, result.stderr[-2000:])
    assert result.stdout


def test_readme_quick_start_has_the_commands():
    assert len(_readme_commands(("netrepro parse",))) >= 3


def _campaign_of_garbage(folder: Path, good: Path | None = None) -> Path:
    """A campaign whose two files are not tool outputs (plus one real output if given)."""
    (folder / "iperf3/a").mkdir(parents=True)
    for run in (1, 2):
        (folder / f"iperf3/a/run{run}.txt").write_text("not a tool output\n")
    if good is not None:
        (folder / "iperf3/a/run3.txt").write_bytes(good.read_bytes())
    (folder / "manifest.yaml").write_text(
        "campaign: {title: t, synthetic: false}\n"
        "factors:\n  tool: {type: str, levels: [iperf3]}\n  run: {type: int}\n"
        "files:\n  templates: ['{tool}/a/run{run}.txt']\n")
    return folder


def test_ingest_exits_1_when_every_file_is_rejected(tmp_path):
    campaign = _campaign_of_garbage(tmp_path / "c")
    result = runner.invoke(app, ["ingest", str(campaign), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1, result.output
    assert "0 parsed" in result.stdout and "2 rejected" in result.stdout
    assert "every file was rejected" in result.stderr


def test_ingest_with_some_files_rejected_exits_0_unless_strict(tmp_path):
    campaign = _campaign_of_garbage(tmp_path / "c", FIX / "iperf3/tcp_client.txt")
    result = runner.invoke(app, ["ingest", str(campaign), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "1 parsed" in result.stdout and "rejected iperf3/a/run1.txt:1" in result.stdout
    strict = runner.invoke(app, ["ingest", str(campaign), "--out", str(tmp_path / "out2"), "--strict"])
    assert strict.exit_code == 1
    assert "every file was rejected" in runner.invoke(app, ["ingest", "--help"]).stdout


def test_report_names_a_folder_that_is_no_campaign(tmp_path, monkeypatch):
    monkeypatch.setenv("NETREPRO_RAW", str(tmp_path))
    result = runner.invoke(app, ["report", "no-such-campaign", "--out", str(tmp_path / "reports")])
    assert result.exit_code == 2
    assert "no-such-campaign: not a campaign folder (no manifest.yaml there nor in" in result.output
