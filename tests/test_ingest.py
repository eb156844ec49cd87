"""Ingest accounts for every file: parsed, failed run, rejected, ignored."""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from analysis.ingest.campaign import load_campaign, processed_dir_for
from analysis.ingest.ingest import ingest_campaign, write_outputs

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data/raw/demo-loopback"


@pytest.fixture(scope="module")
def demo():
    return ingest_campaign(DEMO, progress=False)


def test_demo_campaign_accounts_for_every_file(demo):
    files = [p for p in DEMO.rglob("*") if p.is_file() and p.name != "manifest.yaml"]
    assert demo.counts["files"] == len(files) == 180
    assert demo.counts["rejected"] == 0, demo.rejected.to_string()
    assert demo.counts["parsed"] + demo.counts["failed"] == 180


def test_rows_packed_in_chunks_give_the_same_tables(demo, monkeypatch):
    """Ingest packs rows into frames every CHUNK rows to save memory; packing
    after every 7 rows (chunks with differing columns) must change nothing."""
    from analysis.ingest import ingest

    monkeypatch.setattr(ingest._RowBuffer, "CHUNK", 7)
    chunked = ingest_campaign(DEMO, progress=False)
    pd.testing.assert_frame_equal(chunked.runs, demo.runs)
    pd.testing.assert_frame_equal(chunked.intervals, demo.intervals)


def test_demo_rows_carry_factors_and_provenance(demo):
    runs = demo.runs
    assert set(runs["tool"]) == {"netperf", "iperf3", "ditg"}
    assert set(runs["ip_version"].dropna()) == {4, 6}
    assert set(runs["packet_size_bytes"]) == {128, 512, 1408}
    assert runs["source_sha256"].str.len().eq(64).all()
    assert runs["meta_command"].notna().all()
    # every cell of the design has its 5 runs from every tool
    per_cell = runs.groupby(["tool", "ip_version", "transport", "packet_size_bytes"])["run"].nunique()
    assert len(per_cell) == 3 * 2 * 2 * 3 and (per_cell == 5).all()


def test_demo_values_match_the_raw_output(demo):
    rows = demo.runs[demo.runs["source_path"] == "netperf/ipv6/UDP/512/run2.txt"].set_index("side")
    # "212992     512   1.00       227540      0      931.9 ..." / "212992   1.00  226577   928.0"
    assert rows.loc["sender", "throughput_mbps"] == pytest.approx(931.9)
    assert rows.loc["receiver", "throughput_mbps"] == pytest.approx(928.0)
    assert rows.loc["receiver", "packets_received"] == 226577


def test_outcomes_reasons_and_strict(tmp_path):
    camp = tmp_path / "camp"
    for rel in ["netperf/ipv4/TCP/128/run1.txt", "iperf3/ipv6/UDP/512/run2.json"]:
        (camp / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(DEMO / rel, camp / rel)
    # The manifest says IPv6 but the output connected over IPv4.
    (camp / "netperf/ipv6/TCP/128").mkdir(parents=True)
    shutil.copyfile(DEMO / "netperf/ipv4/TCP/128/run1.txt", camp / "netperf/ipv6/TCP/128/run9.txt")
    (camp / "netperf/ipv4/TCP/128/run2.txt").write_text("garbage that no tool printed\n")
    (camp / "netperf/ipv4/TCP/128/run3.txt").write_text("")
    (camp / "notes.md").write_text("how we ran it\n")
    (camp / "stray.txt").write_text("x\n")
    (camp / "netperf/ipv4/TCP/128/run4.txt").symlink_to("/etc/hostname")
    manifest = yaml.safe_load((DEMO / "manifest.yaml").read_text())
    manifest["files"]["table"] = []
    manifest["files"]["ignore"] = ["*.md"]
    manifest["factors"]["run"] = {"type": "int"}
    (camp / "manifest.yaml").write_text(yaml.safe_dump(manifest))
    before = {p: p.read_bytes() for p in camp.rglob("*") if p.is_file() and not p.is_symlink()}

    result = ingest_campaign(camp, progress=False)
    outcome = {f.path: (f.outcome, f.line, f.reason) for f in result.files}
    assert outcome["notes.md"][0] == "ignored"
    assert outcome["stray.txt"][0] == "rejected" and "not described by the manifest" in outcome["stray.txt"][2]
    assert outcome["netperf/ipv4/TCP/128/run2.txt"][:2] == ("rejected", 1)
    # an empty output is a failed run of its cell (the manifest says netperf ran), not a rejected file
    assert outcome["netperf/ipv4/TCP/128/run3.txt"][0] == "failed" and "empty" in outcome["netperf/ipv4/TCP/128/run3.txt"][2]
    empty = result.runs[result.runs["source_path"] == "netperf/ipv4/TCP/128/run3.txt"]
    assert empty[["tool", "status", "run"]].values.tolist() == [["netperf", "failed", 3]]
    assert outcome["netperf/ipv4/TCP/128/run4.txt"][0] == "rejected" and "symbolic link" in outcome["netperf/ipv4/TCP/128/run4.txt"][2]
    assert outcome["netperf/ipv6/TCP/128/run9.txt"][0] == "parsed"
    contradicted = result.runs[result.runs["source_path"] == "netperf/ipv6/TCP/128/run9.txt"]
    assert contradicted["warnings"].str.contains("manifest says ip_version=6 but the output shows ip_version=4").all()
    assert (contradicted["ip_version"] == 6).all()  # the factor column keeps the design's level
    assert result.counts == {"files": 8, "parsed": 3, "failed": 1, "rejected": 3, "ignored": 1}

    strict = ingest_campaign(camp, strict=True, progress=False)
    assert dict((f.path, f.outcome) for f in strict.files)["netperf/ipv6/TCP/128/run9.txt"] == "rejected"

    out = write_outputs(result, tmp_path / "out")
    report = json.loads((out / "ingest.json").read_text())
    assert report["counts"]["rejected"] == 3 and report["metadata"]["synthetic"] is False
    rejected = pd.read_csv(out / "rejected.csv")
    assert set(rejected["source_path"]) == {"stray.txt", "netperf/ipv4/TCP/128/run2.txt", "netperf/ipv4/TCP/128/run4.txt"}
    assert pd.read_parquet(out / "runs.parquet").shape[0] == len(result.runs)
    after = {p: p.read_bytes() for p in camp.rglob("*") if p.is_file() and not p.is_symlink()}
    assert before == after  # raw files are never modified


def test_processed_folder_follows_the_raw_one_unless_moved(tmp_path, monkeypatch):
    monkeypatch.delenv("NETREPRO_PROCESSED", raising=False)
    assert processed_dir_for(tmp_path / "raw" / "c") == tmp_path / "processed" / "c"
    assert processed_dir_for(tmp_path / "elsewhere" / "c") == tmp_path / "elsewhere" / "c.processed"
    monkeypatch.setenv("NETREPRO_PROCESSED", str(tmp_path / "moved"))
    assert processed_dir_for(tmp_path / "raw" / "c") == tmp_path / "moved" / "c"


def test_load_campaign_reingests_only_when_raw_files_change(tmp_path, monkeypatch):
    monkeypatch.setenv("NETREPRO_PROCESSED", str(tmp_path / "processed"))  # this test's own cache
    camp = tmp_path / "raw" / "c"
    shutil.copytree(DEMO, camp)
    first = load_campaign(camp)
    assert first.processed_dir == tmp_path / "processed" / "c"
    stamp = (first.processed_dir / "runs.parquet").stat().st_mtime_ns
    again = load_campaign(camp)
    assert (again.processed_dir / "runs.parquet").stat().st_mtime_ns == stamp
    pd.testing.assert_frame_equal(first.runs, again.runs)
    (camp / "netperf/ipv4/TCP/128/run1.txt").unlink()
    changed = load_campaign(camp)
    assert len(changed.runs) < len(first.runs)
    assert changed.report["counts"]["files"] == 179


def test_manifest_parser_hints_reach_the_parser(tmp_path):
    """Round-trip mode cannot be seen in an ITGDec summary: the manifest says it."""
    camp = tmp_path / "rtt"
    camp.mkdir()
    fixture = ROOT / "tests/fixtures/ditg/rttm4_send_summary.txt"
    shutil.copyfile(fixture, camp / "a.txt")
    shutil.copyfile(fixture, camp / "b.txt")
    (camp / "manifest.yaml").write_text(yaml.safe_dump({
        "campaign": {"title": "rttm", "synthetic": False},
        "files": {"table": [{"path": "a.txt", "levels": {"run": 1}, "parser_hints": {"ditg": {"meter": "rttm"}}},
                            {"path": "b.txt", "levels": {"run": 2}}]},
    }))
    runs = ingest_campaign(camp, progress=False).runs.set_index(["source_path", "flow"])
    assert runs.loc[("a.txt", "TOTAL"), "rtt_ms"] == pytest.approx(0.139)
    assert pd.isna(runs.loc[("a.txt", "TOTAL"), "owd_ms"])
    assert pd.isna(runs.loc[("b.txt", "TOTAL"), "rtt_ms"])  # without the hint it reads as one-way


def test_schema_has_the_new_record_columns_with_their_types(demo):
    """rtt_last_sample_ms, offered_mbps and direction come from the record
    into the schema; started_at is one timezone-aware type for every tool."""
    from analysis.ingest.schema import RUN_DTYPES, RUNS_SCHEMA, SchemaViolation, validate

    assert RUN_DTYPES["rtt_last_sample_ms"] == RUN_DTYPES["offered_mbps"] == "float64"
    assert RUN_DTYPES["direction"] == "string" and RUN_DTYPES["started_at"] == "datetime64[ns, UTC]"
    runs = demo.runs
    assert str(runs["started_at"].dtype) == "datetime64[ns, UTC]"
    iperf3 = runs[runs["tool"] == "iperf3"]
    assert iperf3["started_at"].notna().all() and set(iperf3["direction"]) == {"client-to-server"}
    bad = runs.head(1).copy()
    bad["direction"] = "sideways"
    with pytest.raises(SchemaViolation, match="direction"):
        validate(bad, RUNS_SCHEMA)
