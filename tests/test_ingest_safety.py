"""Nothing of a user's is ever lost by ``netrepro ingest``: the tables are
replaced whole or not at all (full disk, read-only disk, Ctrl-C, a bad
manifest), a folder holding anything netrepro did not write is refused by
name, and a second ingest of the same tables at once is refused.

Every case works on copies in a temporary folder and checks, by hash, that
every raw byte and every previous table survives."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from analysis.cli import app
from analysis.ingest.ingest import ingest_into
from analysis.ingest.transaction import MARKER
from interruptible import sigint_default

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data/raw/demo-loopback"
DITG = ROOT / "tests/fixtures/ditg"
NETPERF = ["netperf/ipv4/TCP/128/run1.txt", "netperf/ipv4/TCP/128/run2.txt", "netperf/ipv6/UDP/512/run2.txt"]
LOGS = ["udp4", "tcp4"]  # D-ITG receiver logs: their packets go to packets/*.parquet
runner = CliRunner()


def make_campaign(folder: Path, title: str = "safety") -> Path:
    """Three genuine netperf outputs and two genuine D-ITG receiver logs."""
    table = []
    for rel in NETPERF:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(DEMO / rel, folder / rel)
        table.append({"path": rel, "levels": {"log": rel}})
    for name in LOGS:
        shutil.copyfile(DITG / f"{name}.recv.bin", folder / f"{name}.recv.bin")
        table.append({"path": f"{name}.recv.bin", "levels": {"log": name}})
    (folder / "manifest.yaml").write_text(yaml.safe_dump({
        "campaign": {"title": title, "synthetic": False},
        "factors": {"log": {"type": "str"}}, "files": {"table": table}}))
    return folder


def hashes(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (hidden ones too) -> its sha256."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def ingest(campaign: Path, out: Path):
    return runner.invoke(app, ["ingest", str(campaign), "--out", str(out)])


def refused(result, message: str) -> None:
    """Exit 2 and exactly one line on stderr: ``error: <message>...``."""
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith(f"error: {message}"), result.stderr


@pytest.fixture
def campaign(tmp_path):
    return make_campaign(tmp_path / "raw" / "safety")


@pytest.fixture
def ingested(tmp_path, campaign):
    """The campaign ingested once: its tables, their hashes and the raw files' hashes."""
    out = tmp_path / "processed" / "safety"
    assert ingest(campaign, out).exit_code == 0
    assert len(list((out / "packets").glob("*.parquet"))) == len(LOGS)
    return campaign, out, hashes(out), hashes(campaign)


def unchanged(ingested) -> None:
    campaign, out, tables, raw = ingested
    assert hashes(out) == tables and hashes(campaign) == raw
    assert not [p.name for p in out.parent.iterdir() if ".staging-" in p.name]


# --- what --out may hold -----------------------------------------------------------


def test_a_raw_campaign_at_out_packets_is_refused_and_kept(tmp_path, campaign):
    """Reported: the manifest and every raw output of a campaign at DIR/packets were wiped."""
    out = tmp_path / "dir"
    make_campaign(out / "packets", title="another campaign")
    before, raw = hashes(out), hashes(campaign)
    refused(ingest(campaign, out), f"{out}/packets: is a raw campaign (it has manifest.yaml)")
    assert hashes(out) == before and hashes(campaign) == raw


def test_a_users_own_packets_folder_is_refused_and_kept(tmp_path, campaign):
    """Reported: a user's packets/ notes folder was deleted with exit code 0."""
    out = tmp_path / "dir"
    (out / "packets").mkdir(parents=True)
    (out / "packets" / "notes.md").write_text("which switch port each run used\n")
    before = hashes(out)
    refused(ingest(campaign, out), f"{out}: not empty and holds no tables netrepro wrote (packets/notes.md)")
    assert hashes(out) == before


def test_a_raw_campaign_as_out_is_refused(tmp_path, campaign):
    other = make_campaign(tmp_path / "other")
    before = hashes(other)
    beside = set(other.parent.iterdir())
    refused(ingest(campaign, other), f"{other}: is a raw campaign (it has manifest.yaml)")
    assert hashes(other) == before
    assert set(other.parent.iterdir()) == beside  # not even a lock file is left beside a raw campaign


def test_another_campaigns_tables_are_refused_by_name(tmp_path, ingested):
    """Reported: two campaigns ingested into one --out, the last silently won."""
    _, out, _, _ = ingested
    second = make_campaign(tmp_path / "raw" / "second", title="second")
    refused(ingest(second, out), f"{out}: holds the tables of another campaign ({tmp_path / 'raw' / 'safety'})")
    namesake = make_campaign(tmp_path / "lab" / "safety", title="another campaign of the same name")
    refused(ingest(namesake, out), f"{out}: holds the tables of another campaign ({tmp_path / 'raw' / 'safety'})")
    unchanged(ingested)


def test_a_file_added_beside_the_tables_is_refused_and_kept(ingested):
    campaign, out, tables, raw = ingested
    (out / "packets" / "my-plot.png").write_bytes(b"\x89PNG not netrepro's")
    refused(ingest(campaign, out), f"{out}: holds files netrepro did not write (packets/my-plot.png)")
    assert (out / "packets" / "my-plot.png").read_bytes() == b"\x89PNG not netrepro's"
    (out / "packets" / "my-plot.png").unlink()
    unchanged(ingested)


def test_a_reingest_replaces_only_what_netrepro_wrote(ingested):
    """A log removed from the campaign takes its packets with it; the tables are the new ones."""
    campaign, out, _, _ = ingested
    manifest = yaml.safe_load((campaign / "manifest.yaml").read_text())
    manifest["files"]["table"] = [e for e in manifest["files"]["table"] if e["path"] != "tcp4.recv.bin"]
    (campaign / "manifest.yaml").write_text(yaml.safe_dump(manifest))
    (campaign / "tcp4.recv.bin").unlink()
    raw = hashes(campaign)
    assert ingest(campaign, out).exit_code == 0
    assert len(list((out / "packets").glob("*.parquet"))) == 1
    assert set(pd.read_parquet(out / "runs.parquet")["source_path"]) == {*NETPERF, "udp4.recv.bin"}
    marker = json.loads((out / MARKER).read_text())
    assert sorted(marker["files"]) == sorted(rel for rel in hashes(out) if rel != MARKER)
    assert hashes(campaign) == raw
    assert sorted(p.name for p in out.parent.iterdir()) == [".safety.lock", "safety"]


def test_tables_written_before_the_marker_are_adopted_but_nothing_else(ingested):
    """A folder an earlier netrepro wrote (no marker) is replaced when it holds only its tables."""
    campaign, out, _, _ = ingested
    (out / MARKER).unlink()
    assert ingest(campaign, out).exit_code == 0 and (out / MARKER).is_file()
    (out / MARKER).unlink()
    (out / "README").write_text("mine\n")
    before = hashes(out)
    refused(ingest(campaign, out), f"{out}: holds files netrepro did not write (README)")
    assert hashes(out) == before


def test_ingest_campaign_never_empties_a_packets_folder(tmp_path, campaign):
    """The library call too: packets go to a new folder, never over one that holds something."""
    from analysis.ingest.ingest import ingest_campaign
    from analysis.ingest.transaction import OutputError

    (tmp_path / "dir" / "packets").mkdir(parents=True)
    (tmp_path / "dir" / "packets" / "notes.md").write_text("mine\n")
    with pytest.raises(OutputError, match=r"packets: already exists and is not empty"):
        ingest_campaign(campaign, progress=False, packets_to=tmp_path / "dir")
    assert hashes(tmp_path / "dir") == {"packets/notes.md": hashlib.sha256(b"mine\n").hexdigest()}


def test_a_symbolic_link_to_the_tables_stays_a_link(tmp_path, ingested):
    campaign, out, _, raw = ingested
    link = tmp_path / "link"
    link.symlink_to(out)
    assert ingest(campaign, link).exit_code == 0
    assert link.is_symlink() and link.resolve() == out and (out / MARKER).is_file()
    assert hashes(campaign) == raw


def test_a_killed_ingests_leftovers_are_cleared_but_not_what_else_is_there(ingested):
    """A staging folder left by an ingest killed outright (SIGKILL, power cut) goes
    at the next ingest, except a file netrepro did not write."""
    campaign, out, _, _ = ingested
    left = out.with_name(f".{out.name}.staging-0123456789ab")
    shutil.copytree(out, left)
    (left / "stray.txt").write_text("not netrepro's\n")
    assert ingest(campaign, out).exit_code == 0
    assert hashes(left) == {"stray.txt": hashlib.sha256(b"not netrepro's\n").hexdigest()}


# --- failures leave the previous tables ---------------------------------------------


def test_a_bad_manifest_leaves_the_previous_tables(ingested):
    """A duplicate key (issue 24): refused with its line, and nothing of the last ingest changes."""
    campaign, out, _, _ = ingested
    text = (campaign / "manifest.yaml").read_text()
    (campaign / "manifest.yaml").write_text(text.replace("synthetic: false", "synthetic: false\n  synthetic: true"))
    raw = hashes(campaign)
    refused(ingest(campaign, out), f"{campaign / 'manifest.yaml'}:")
    assert "key 'synthetic' is written twice" in ingest(campaign, out).stderr
    assert hashes(campaign) == raw
    ingested[3].update(raw)
    unchanged(ingested)


def test_a_damaged_byte_rejects_its_file_with_the_line(ingested):
    campaign, out, _, _ = ingested
    path = campaign / NETPERF[0]
    lines = path.read_bytes().split(b"\n")
    last = max(i for i, line in enumerate(lines) if line.strip())
    lines[last] = lines[last][:-3] + b"\x00" + lines[last][-2:]  # over a digit of the throughput
    path.write_bytes(b"\n".join(lines))
    raw = hashes(campaign)
    result = ingest(campaign, out)
    assert result.exit_code == 0 and f"rejected {NETPERF[0]}:{last + 1}: control byte 0x00" in result.stdout
    rejected = pd.read_csv(out / "rejected.csv")
    assert rejected.to_dict("records") == [{"source_path": NETPERF[0], "line": last + 1,
                                            "reason": rejected["reason"][0]}]
    assert NETPERF[0] not in set(pd.read_parquet(out / "runs.parquet")["source_path"])
    assert hashes(campaign) == raw


def test_a_second_ingest_at_once_is_refused(ingested):
    """Reported: two ingests of one campaign at once raced."""
    campaign, out, _, _ = ingested
    with open(out.with_name(f".{out.name}.lock")) as held:  # as the first ingest holds it
        fcntl.flock(held, fcntl.LOCK_EX)
        refused(ingest(campaign, out), f"{out}: another ingest is writing these tables now")
    unchanged(ingested)


def test_a_notebooks_reingest_waits_for_the_one_under_way(ingested):
    campaign, out, _, _ = ingested
    held = open(out.with_name(f".{out.name}.lock"))
    fcntl.flock(held, fcntl.LOCK_EX)
    release = threading.Timer(0.5, held.close)
    release.start()
    started = time.monotonic()
    result = ingest_into(campaign, out, progress=False, wait=True)
    assert time.monotonic() - started >= 0.5 and len(result.runs)
    release.join()


def test_ctrl_c_during_ingest_leaves_the_previous_tables(tmp_path):
    """A real SIGINT to ``netrepro ingest`` once its staging folder exists:
    one line, exit 130, the previous tables and the raw files as they were."""
    campaign = tmp_path / "raw" / "demo"
    shutil.copytree(DEMO, campaign)
    out = tmp_path / "processed" / "demo"
    assert ingest(campaign, out).exit_code == 0
    tables, raw = hashes(out), hashes(campaign)
    # The ingest is held inside its transaction (after parsing, before the swap) so that the signal
    # always lands there: a fast ingest would otherwise finish first on a quick machine.
    hold = tmp_path / "hold"
    hold.mkdir()
    (hold / "sitecustomize.py").write_text(
        "import pathlib, time\nimport analysis.ingest.ingest as ingest\n_write = ingest.write_outputs\n"
        "def write_outputs(*args, **kwargs):\n"
        f"    pathlib.Path({str(hold / 'reached')!r}).touch()\n    time.sleep(60)\n"
        "    return _write(*args, **kwargs)\n"
        "ingest.write_outputs = write_outputs\n")
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(hold), str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen([sys.executable, "-m", "analysis.cli", "ingest", str(campaign), "--out", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                               preexec_fn=sigint_default)
    try:
        deadline = time.monotonic() + 60
        while not (hold / "reached").exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert process.poll() is None, "the ingest ended before it could be interrupted"
        assert list(out.parent.glob(".demo.staging-*")), "the staging folder exists while the ingest is held"
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, stderr
    assert stderr.splitlines() == [f"interrupted: {out} is as it was before this ingest"]
    assert hashes(out) == tables and hashes(campaign) == raw
    assert not list(out.parent.glob(".demo.staging-*"))


# --- full and read-only disks --------------------------------------------------------


def _used_bytes(folder: Path) -> int:
    return sum(p.stat().st_blocks * 512 for p in folder.rglob("*")) + 4096


@pytest.fixture
def small_disk(tmp_path):
    """A tmpfs of a given size mounted on a folder of this test (root only); unmounted after."""
    mounted = []

    def mount(size: int, folder: Path = tmp_path / "disk") -> Path:
        folder.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                              capture_output=True, text=True)
        if done.returncode:
            pytest.skip(f"cannot mount a tmpfs here (needs root in a namespace that may mount): {done.stderr.strip()}")
        mounted.append(folder)
        return folder

    yield mount
    for folder in mounted:
        subprocess.run(["umount", str(folder)], check=True)


def test_a_full_disk_leaves_the_previous_tables_and_says_so_in_one_line(tmp_path, campaign, small_disk):
    """Reported: a full disk left a truncated runs.parquet beside the previous
    ingest's tables, and a traceback. The disk holds one copy of the tables
    and a half, so the second ingest runs out of space while staging."""
    probe = tmp_path / "probe"
    assert ingest(campaign, probe).exit_code == 0
    one_copy = _used_bytes(probe)
    disk = small_disk(-(-one_copy * 3 // 2 // 4096) * 4096)
    out = disk / "safety"
    assert ingest(campaign, out).exit_code == 0
    ingested = (campaign, out, hashes(out), hashes(campaign))
    refused(ingest(campaign, out), f"{out}: no space left on device")
    unchanged(ingested)
    assert pd.read_parquet(out / "runs.parquet").shape[0] > 0  # still readable


def test_a_read_only_disk_leaves_the_previous_tables_and_says_so_in_one_line(campaign, small_disk):
    disk = small_disk(16 * 2**20)
    out = disk / "safety"
    assert ingest(campaign, out).exit_code == 0
    ingested = (campaign, out, hashes(out), hashes(campaign))
    subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
    refused(ingest(campaign, out), f"{out}: read-only file system")
    unchanged(ingested)


def test_a_copy_of_the_same_campaign_may_replace_its_tables(tmp_path, ingested):
    """Same folder name and the same manifest: the same campaign, e.g. a copy
    a test or a second checkout ingests where ``NETREPRO_PROCESSED`` points."""
    campaign, out, _, _ = ingested
    copy = tmp_path / "elsewhere" / campaign.name
    shutil.copytree(campaign, copy)
    assert ingest(copy, out).exit_code == 0
    assert json.loads((out / MARKER).read_text())["raw"] == str(copy.resolve())
