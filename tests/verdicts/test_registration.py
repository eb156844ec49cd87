"""Pre-registration: the record `netrepro collect --hypotheses` writes before the
first run, and the registered / post hoc mark read back from it.

The record and its reading are tested on hand-made campaign folders with
exact times; one real loopback campaign (netperf, one run) checks that the
collector writes the record before its first run and that --resume keeps it.
"""

from __future__ import annotations

import hashlib
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from analysis.cli import app
from analysis.errors import HypothesisError, RegistrationError
from analysis.verdicts.registration import (POST_HOC, RECORD, Registration, read_record, register,
                                            registration_of)

CLAIMS = """\
hypotheses:
  - id: H1
    statement: "IPv4 outperforms IPv6 in TCP throughput"
    metric: throughput_mbps
    compare: {factor: ip_version, levels: [4, 6]}
    direction: greater
"""
BEFORE = datetime(2026, 12, 1, 22, 3, 59, 250000, tzinfo=timezone.utc)
FIRST_RUN = "2026-12-01T22:04:10.000+00:00"
AFTER = datetime(2026, 12, 1, 22, 5, 0, tzinfo=timezone.utc)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture()
def hyp(tmp_path) -> Path:
    path = tmp_path / "claims.yaml"
    path.write_text(CLAIMS)
    return path


@pytest.fixture()
def campaign(tmp_path) -> Path:
    """A campaign folder as the collector leaves it: runs in the manifest table with their start times."""
    folder = tmp_path / "camp"
    folder.mkdir()
    table = [{"path": f"run{i}.txt", "levels": {"ip_version": v}, "meta": {"started": t}}
             for i, (v, t) in enumerate([(4, "2026-12-01T22:04:12.500+00:00"), (6, FIRST_RUN)])]
    (folder / "manifest.yaml").write_text(yaml.safe_dump(
        {"campaign": {"title": "t", "synthetic": False}, "files": {"table": table, "ignore": ["collect/*"]}}))
    return folder


def test_registered_before_the_first_run(campaign, hyp):
    said = register(campaign, hyp, now=BEFORE)
    assert said == f"{hyp} registered 2026-12-01T22:03:59Z (sha256 {sha(hyp)[:8]}…) in {campaign / RECORD}"
    assert registration_of(campaign, hyp) == Registration(
        True, f"registered 2026-12-01T22:03:59Z (sha256 {sha(hyp)[:8]}…) before the first run")
    assert registration_of(campaign, hyp).label == "registered"
    stored = yaml.safe_load((campaign / RECORD).read_text())
    assert stored == {"hypotheses": {"path": hyp.as_posix(), "sha256": sha(hyp),
                                     "registered_at": "2026-12-01T22:03:59.250+00:00"}}
    assert not (campaign / RECORD).with_suffix(".tmp").exists()


def test_a_file_changed_after_registration_is_post_hoc(campaign, hyp):
    register(campaign, hyp, now=BEFORE)
    then = sha(hyp)
    hyp.write_text(CLAIMS.replace("greater", "less"))  # the direction turned after a look at the data
    assert registration_of(campaign, hyp) == Registration(
        False, f"post hoc: the file changed since it was registered (sha256 {then[:8]}… then, {sha(hyp)[:8]}… now)")


def test_registered_after_the_first_run_started_is_post_hoc(campaign, hyp):
    register(campaign, hyp, now=AFTER)
    assert registration_of(campaign, hyp) == Registration(
        False, "post hoc: registered after the first run started "
               "(registered 2026-12-01T22:05:00Z, first run 2026-12-01T22:04:10Z)")


def test_registered_at_the_very_time_of_the_first_run_is_post_hoc(campaign, hyp):
    register(campaign, hyp, now=datetime.fromisoformat(FIRST_RUN))
    assert not registration_of(campaign, hyp).registered


def test_no_record_is_post_hoc_not_an_error(campaign, hyp):
    assert registration_of(campaign, hyp) == Registration(False, "post hoc: no registration in the collect record")
    assert POST_HOC == Registration(False, "post hoc: not registered") and POST_HOC.label == "post hoc"


def test_a_run_matched_only_by_a_template_has_no_start_so_is_post_hoc(campaign, hyp):
    register(campaign, hyp, now=BEFORE)
    manifest = yaml.safe_load((campaign / "manifest.yaml").read_text())
    manifest["files"]["templates"] = ["ipv{ip_version}.txt"]
    (campaign / "manifest.yaml").write_text(yaml.safe_dump(manifest))
    (campaign / "ipv4.txt").write_text("a run the manifest gives no start\n")
    assert not registration_of(campaign, hyp).registered
    (campaign / "ipv4.txt").unlink()  # the collector's own files under collect/ are not runs
    assert registration_of(campaign, hyp).registered


def test_runs_without_start_times_cannot_be_shown_later(campaign, hyp):
    register(campaign, hyp, now=BEFORE)
    manifest = yaml.safe_load((campaign / "manifest.yaml").read_text())
    del manifest["files"]["table"][0]["meta"]["started"]
    (campaign / "manifest.yaml").write_text(yaml.safe_dump(manifest))
    assert registration_of(campaign, hyp) == Registration(
        False, "post hoc: the manifest does not say when every run started, so the registration cannot be shown to precede them")


@pytest.mark.parametrize("text, reason", [
    ("hypotheses: [unclosed\n", r":\d+: not valid YAML"),
    ("- a list\n", r": expected a mapping with a 'hypotheses' mapping"),
    ("hypotheses:\n  path: claims.yaml\n  sha256: abc\n  registered_at: '2026-12-01T22:03:59+00:00'\n",
     r":3: key 'hypotheses.sha256': String should match pattern"),
    ("hypotheses:\n  path: claims.yaml\n  sha256: '" + "0" * 64 + "'\n  registered_at: '2026-12-01T22:03:59'\n",
     r":4: key 'hypotheses.registered_at': Input should have timezone info"),
])
def test_a_corrupt_record_is_an_error_naming_the_file(campaign, hyp, text, reason):
    (campaign / RECORD).parent.mkdir()
    (campaign / RECORD).write_text(text)
    with pytest.raises(RegistrationError, match=rf"^{campaign / RECORD}{reason}"):
        registration_of(campaign, hyp)


def test_only_a_valid_hypothesis_file_is_registered(campaign, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(CLAIMS.replace("direction: greater", "direction: bigger"))
    with pytest.raises(HypothesisError, match=rf"^{bad}:\d+: "):
        register(campaign, bad, now=BEFORE)
    assert not (campaign / RECORD).exists()


def test_a_second_registration_keeps_the_first(campaign, hyp):
    """What --resume does: an unchanged file is kept as registered; a changed
    one is said to have changed, and the record stays as it was."""
    register(campaign, hyp, now=BEFORE)
    record = (campaign / RECORD).read_bytes()
    then = sha(hyp)
    assert register(campaign, hyp, now=AFTER) == \
        f"{hyp}: registration of 2026-12-01T22:03:59Z kept (sha256 {then[:8]}…, unchanged)"
    hyp.write_text(CLAIMS + "# edited after the first runs\n")
    assert register(campaign, hyp, now=AFTER) == (
        f"{hyp} changed since it was registered 2026-12-01T22:03:59Z (sha256 {then[:8]}… then, {sha(hyp)[:8]}… now): "
        "the registration is kept as it was, so claims read from the file now are post hoc")
    assert (campaign / RECORD).read_bytes() == record
    assert not registration_of(campaign, hyp).registered


def test_a_first_registration_after_runs_says_it_will_be_post_hoc(campaign, hyp):
    said = register(campaign, hyp, now=AFTER)
    assert said.endswith(": runs were already recorded, so its claims will be post hoc")
    assert read_record(campaign).registered_at == AFTER


def test_collect_refuses_an_invalid_hypothesis_file_before_anything(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(CLAIMS.replace("    metric: throughput_mbps\n", ""))
    out = tmp_path / "never"
    result = CliRunner().invoke(app, ["collect", "plans/first.yaml", "--out", str(out), "--hypotheses", str(bad)])
    assert result.exit_code == 2 and result.stderr.startswith(f"error: {bad}:2: ")
    assert not out.exists()


def test_collect_dry_run_checks_the_file_and_writes_nothing(tmp_path, hyp):
    out = tmp_path / "never"
    result = CliRunner().invoke(app, ["collect", "plans/first.yaml", "--dry-run", "--show", "1",
                                      "--out", str(out), "--hypotheses", str(hyp)])
    assert result.exit_code == 0, result.output
    assert f"{hyp}: valid; a collection would register it (sha256 {sha(hyp)}) before the first run" in result.stdout
    assert not out.exists()


# --- one real collection ------------------------------------------------------
WHY_NOT = next((f"{t} is not installed" for t in ("netperf", "netserver") if shutil.which(t) is None), None)


@pytest.mark.tools
@pytest.mark.skipif(WHY_NOT is not None, reason=f"a real loopback run: {WHY_NOT}")
def test_collect_registers_before_the_first_run_and_resume_keeps_it(tmp_path, hyp):
    from analysis.collect.campaign import Collector
    from analysis.collect.plan import Plan
    from analysis.ingest.manifest import load_manifest

    plan = Plan.model_validate({
        "name": "registered", "title": "registration smoke", "seed": 3, "runs_per_cell": 1, "duration_s": 1,
        "warmup_s": 0, "pause_s": 0, "timeout_s": 10,
        "testbeds": {"loopback": {"kind": "loopback", "ports": {"netperf": 16875}}},
        "blocks": [{"name": "np", "tool": "netperf", "factors": {"transport": ["TCP"]}}],
    })
    out = tmp_path / "registered"
    Collector(plan, out, hypotheses=hyp).run()
    record = read_record(out)
    assert record is not None and record.sha256 == sha(hyp) and record.path == hyp.as_posix()
    (entry,) = load_manifest(out).files.table
    assert record.registered_at < datetime.fromisoformat(entry.meta["started"])
    assert registration_of(out, hyp).registered
    stored = (out / RECORD).read_bytes()

    hyp.write_text(CLAIMS + "# edited after the data came in\n")
    Collector(plan, out, resume=True, hypotheses=hyp).run()
    assert (out / RECORD).read_bytes() == stored  # never re-registered on resume
    assert registration_of(out, hyp) == Registration(
        False, f"post hoc: the file changed since it was registered (sha256 {record.sha256[:8]}… then, {sha(hyp)[:8]}… now)")


def test_the_quick_starts_registered_claims_fit_the_plan_they_are_registered_with():
    """README: `netrepro collect plans/first.yaml --hypotheses data/hypotheses/first.yaml`.
    Checked on real runs once (verdicts F1-F4 testable); here, that every
    factor and level the claims name is one the plan varies."""
    from analysis.collect.plan import factor_table, load_plan
    from analysis.verdicts.spec import canon, load_hypotheses

    root = Path(__file__).resolve().parents[2]
    design = {name: {canon(v) for v in f["levels"] or []} for name, f in factor_table(load_plan(root / "plans/first.yaml")).items()}
    for claim in load_hypotheses(root / "data/hypotheses/first.yaml"):
        named = dict(claim.scope) | {claim.compare.factor: claim.compare.levels} | ({claim.per: []} if claim.per else {})
        for factor, levels in named.items():
            levels = levels if isinstance(levels, list) else [levels]
            assert factor in design and {canon(v) for v in levels} <= design[factor], (claim.id, factor, levels)
