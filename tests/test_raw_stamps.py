"""load_campaign and the report's up-to-date check hash only the raw files
whose size or time changed since ingest (analysis.ingest.raw_stamps)."""

import os
import shutil
import time
from pathlib import Path

import pytest
import yaml

from analysis.ingest.campaign import current_fingerprint, load_campaign
from analysis.ingest.ingest import fingerprint, fingerprint_reusing
from analysis.ingest.raw_stamps import STAMPS, Stamps

DEMO = Path(__file__).resolve().parents[1] / "data/raw/demo-loopback"
HOUR_AGO_NS = time.time_ns() - 3600 * 10**9


@pytest.fixture()
def campaign(tmp_path):
    """The demo's netperf runs (60 real files) as a campaign, written an hour ago, and its tables folder."""
    camp = tmp_path / "raw" / "small"
    shutil.copytree(DEMO / "netperf", camp / "netperf")
    manifest = yaml.safe_load((DEMO / "manifest.yaml").read_text())
    manifest["files"]["table"] = [e for e in manifest["files"]["table"] if e["path"].startswith("netperf/")]
    (camp / "manifest.yaml").write_text(yaml.safe_dump(manifest))
    for path in (camp / "netperf").rglob("*"):
        os.utime(path, ns=(HOUR_AGO_NS, HOUR_AGO_NS))
    return camp, tmp_path / "processed" / "small"


def a_run(camp: Path) -> Path:
    return next(p for p in sorted((camp / "netperf").rglob("*")) if p.is_file())


def test_after_ingest_no_file_is_hashed_again(campaign):
    camp, out = campaign
    loaded = load_campaign(camp, out)
    assert (out / STAMPS).is_file()
    current, _, hashed = fingerprint_reusing(camp, Stamps.read(out))
    assert hashed == 0
    assert current == fingerprint(camp) == loaded.report["fingerprint"]


def test_a_changed_file_is_hashed_and_the_campaign_ingested_again(campaign):
    camp, out = campaign
    before = load_campaign(camp, out)
    run = a_run(camp)
    run.write_text(run.read_text() + "\n")  # one more byte: a new size and a new time
    assert current_fingerprint(camp, out) == fingerprint(camp) != before.report["fingerprint"]
    assert load_campaign(camp, out).report["fingerprint"] == fingerprint(camp)


def test_a_file_changed_in_the_tick_it_was_stamped_is_hashed_again(campaign):
    """Same size, same time: only a time that was too close to the stamp shows it;
    such a time is never trusted."""
    camp, out = campaign
    run = a_run(camp)
    os.utime(run)  # written just now ...
    load_campaign(camp, out)  # ... and stamped at once
    st = run.stat()
    text = run.read_text()
    changed = text.replace("0", "1", 1) if "0" in text else text.replace("1", "0", 1)
    assert len(changed) == len(text) and changed != text
    run.write_text(changed)
    os.utime(run, ns=(st.st_atime_ns, st.st_mtime_ns))  # the same time as when stamped
    assert current_fingerprint(camp, out) == fingerprint(camp)
    assert load_campaign(camp, out).report["fingerprint"] == fingerprint(camp)


def test_a_touched_file_is_hashed_once_then_its_new_stamp_is_kept(campaign):
    camp, out = campaign
    stored = load_campaign(camp, out).report["fingerprint"]
    os.utime(a_run(camp), ns=(HOUR_AGO_NS + 10**9, HOUR_AGO_NS + 10**9))  # same bytes, another time
    assert fingerprint_reusing(camp, Stamps.read(out))[2] == 1
    assert current_fingerprint(camp, out) == stored  # hashed, found unchanged, its stamp recorded
    assert fingerprint_reusing(camp, Stamps.read(out))[2] == 0


def test_unreadable_stamps_hash_every_file(campaign):
    camp, out = campaign
    stored = load_campaign(camp, out).report["fingerprint"]
    (out / STAMPS).write_text("{not json")
    current, _, hashed = fingerprint_reusing(camp, Stamps.read(out))
    assert current == stored and hashed == 60
