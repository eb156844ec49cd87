"""Every YAML example of docs/statistics.md loads as a hypothesis file and
evaluates on the demo campaign (a percentile example on the six real D-ITG
runs of tests/fixtures/ditg/pct*_r*.recv.bin, which keep their packets), so the documentation cannot drift into
claims the engine refuses (it once showed `side` in a `scope`)."""

import re
from pathlib import Path

import pytest
import shutil
import yaml

from analysis.ingest.campaign import load_campaign
from analysis.ingest.per_run import one_row_per_run
from analysis.verdicts import evaluate_hypotheses, load_hypotheses

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs/statistics.md"
EXAMPLES = re.findall(r"```yaml\n(.*?)```", DOC.read_text(), re.S)


def test_the_doc_has_examples():
    assert EXAMPLES


@pytest.fixture(scope="module")
def demo_runs(tmp_path_factory):
    processed = tmp_path_factory.mktemp("processed")
    return one_row_per_run(load_campaign(ROOT / "data/raw/demo-loopback", processed=processed).runs)


@pytest.fixture(scope="module")
def packet_runs(tmp_path_factory):
    raw = tmp_path_factory.mktemp("packets") / "raw"
    raw.mkdir()
    table = []
    for log in sorted((ROOT / "tests/fixtures/ditg").glob("pct*_r*.recv.bin")):
        shutil.copyfile(log, raw / log.name)
        table.append({"path": log.name, "levels": {"payload_bytes": int(log.name[3:].split("_")[0])}})
    (raw / "manifest.yaml").write_text(yaml.safe_dump({
        "campaign": {"title": "D-ITG payload sizes on loopback", "synthetic": False},
        "factors": {"payload_bytes": {"type": "int"}}, "files": {"table": table}}))
    return one_row_per_run(load_campaign(raw, processed=raw.parent / "processed").runs)


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_every_yaml_example_loads_and_evaluates(index, tmp_path, demo_runs, packet_runs):
    path = tmp_path / "example.yaml"
    path.write_text(EXAMPLES[index])
    hyps = load_hypotheses(path)
    runs = packet_runs if any(h.metric.startswith("delay_p") for h in hyps) else demo_runs
    table = evaluate_hypotheses(runs, path)
    assert list(table["id"]) == [h.id for h in hyps]
    assert (table["verdict"] != "untestable").all(), table[["id", "reason"]].to_string()
    directional = table[table["claim"].str.contains(" > | < ")]
    # nothing here was registered before its data: directions are tested two-sided
    assert (table["registration"] == "post hoc").all()
    assert not directional["test"].str.contains("one-sided").any()
