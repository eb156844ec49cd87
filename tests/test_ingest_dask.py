"""Ingest on a Dask cluster (analysis.ingest.distributed) gives exactly the
single-process ingest: the same tables, account and packet tables, on a
campaign of genuine D-ITG binary logs, iperf, iperf3 and netperf outputs.

One LocalCluster (2 worker processes, 1 thread each, on 127.0.0.1) serves the
whole module and is closed by its fixture; the campaign is small, so the
module takes seconds, most of it starting the workers."""

from __future__ import annotations

import hashlib
import json
import shutil
import socket
from pathlib import Path

import dask
import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml
from typer.testing import CliRunner

from analysis.cli import app
from analysis.errors import ManifestError, NetreproError
from analysis.ingest import distributed
from analysis.ingest.distributed import check_workers_see, dask_client, map_in_order
from analysis.ingest.ingest import _FileIngest, ingest_campaign, write_outputs
from analysis.ingest.manifest import load_manifest
from analysis.stats import per_packet

pytestmark = pytest.mark.slow  # starts two Dask worker processes (a few seconds)

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# campaign path -> (fixture, levels): genuine outputs of every kind ingest meets
FILES = {
    "ditg/udp4.recv.bin": ("ditg/udp4.recv.bin", {"case": "udp4", "ip_version": 4}),
    "ditg/udp6.recv.bin": ("ditg/udp6.recv.bin", {"case": "udp6", "ip_version": 6}),
    "ditg/multi.recv.bin": ("ditg/multi.recv.bin", {"case": "multi", "ip_version": 4}),
    "ditg/loss2.recv.bin": ("ditg/loss2.recv.bin", {"case": "loss2", "ip_version": 4}),
    "ditg/udp4.send.bin": ("ditg/udp4.send.bin", {"case": "udp4-sender", "ip_version": 4}),
    "ditg/udp4_summary.txt": ("ditg/udp4_recv_summary.txt", {"case": "udp4-itgdec", "ip_version": 4}),
    "iperf3/udp_client.json": ("iperf3/udp_client_json.json", {"case": "iperf3-udp"}),
    "iperf3/tcp_parallel2.txt": ("iperf3/tcp_parallel2.txt", {"case": "iperf3-tcp-P2"}),
    "iperf2/client_udp.txt": ("iperf2/client_udp.txt", {"case": "iperf2-udp"}),
    "netperf/tcp_stream.txt": ("netperf/tcp_stream_demo.txt", {"case": "netperf-stream"}),
    "netperf/udp_rr_cpu.txt": ("netperf/udp_rr_cpu.txt", {"case": "netperf-rr"}),
    "netperf/no_netserver.txt": ("netperf/error_no_netserver.txt", {"case": "netperf-failed"}),
    "damaged.txt": (None, {"case": "damaged"}),
}


@pytest.fixture(scope="module")
def raw(tmp_path_factory) -> Path:
    """Every outcome: parsed (with packets and without), failed, rejected, ignored."""
    raw = tmp_path_factory.mktemp("dask") / "raw"
    table = []
    for rel, (fixture, levels) in FILES.items():
        (raw / rel).parent.mkdir(parents=True, exist_ok=True)
        if fixture is None:
            (raw / rel).write_text("garbage that no tool printed\n")
        else:
            shutil.copyfile(FIXTURES / fixture, raw / rel)
        table.append({"path": rel, "levels": levels})
    (raw / "notes.md").write_text("how we ran it\n")
    (raw / "manifest.yaml").write_text(yaml.safe_dump({
        "campaign": {"title": "every tool's outputs, for the Dask ingest", "synthetic": False},
        "factors": {"case": {"type": "str"}, "ip_version": {"type": "int"}},
        "files": {"table": table, "ignore": ["*.md"]}}))
    return raw


@pytest.fixture(scope="module")
def client():
    with dask_client(workers=2) as client:
        assert sorted(client.nthreads().values()) == [1, 1]
        yield client


@pytest.fixture(scope="module")
def single(raw):
    out = raw.parent / "single"
    return ingest_campaign(raw, progress=False, packets_to=out), out


def _packets(out: Path) -> dict[str, pd.DataFrame]:
    return {p.name: pq.read_table(p).to_pandas() for p in sorted((out / "packets").glob("*.parquet"))}


def test_the_cluster_ingest_is_the_single_process_ingest(raw, single, client):
    expected, single_out = single
    out = raw.parent / "cluster"
    result = ingest_campaign(raw, progress=False, packets_to=out, client=client)
    pd.testing.assert_frame_equal(result.runs, expected.runs)
    pd.testing.assert_frame_equal(result.intervals, expected.intervals)
    pd.testing.assert_frame_equal(result.rejected, expected.rejected)
    assert result.report() == expected.report()
    assert result.warnings == expected.warnings and result.fingerprint == expected.fingerprint
    # the campaign really has every outcome, packets and intervals
    assert result.counts == {"files": 14, "parsed": 11, "failed": 1, "rejected": 1, "ignored": 1}
    assert len(result.intervals) and set(result.runs["tool"]) == {"ditg", "iperf2", "iperf3", "netperf"}
    # the packets: one file per packet log, written by the workers, equal to the single ingest's
    theirs, mine = _packets(single_out), _packets(out)
    assert len(mine) == 5 and list(mine) == list(theirs)
    for name in theirs:
        pd.testing.assert_frame_equal(mine[name], theirs[name])
        # the same Parquet too: schema, encodings, row groups (not the bytes:
        # pyarrow's zstd output varies between writes of the same table)
        a, b = pq.ParquetFile(out / "packets" / name), pq.ParquetFile(single_out / "packets" / name)
        assert a.schema_arrow == b.schema_arrow and a.metadata.num_row_groups == b.metadata.num_row_groups
        assert [a.metadata.row_group(0).column(i).encodings for i in range(a.metadata.num_columns)] == \
               [b.metadata.row_group(0).column(i).encodings for i in range(b.metadata.num_columns)]
    # and so the files written at the end
    write_outputs(expected, single_out)
    write_outputs(result, out)
    for name in ("runs.parquet", "intervals.parquet"):
        pd.testing.assert_frame_equal(pd.read_parquet(out / name), pd.read_parquet(single_out / name))
    for name in ("rejected.csv", "ingest.json"):
        assert (out / name).read_text() == (single_out / name).read_text()


def test_answers_come_back_in_file_order_whatever_order_they_finish(client, raw):
    """One file a task, two tasks at a time on two workers: the small text
    files overtake the D-ITG logs, and still come back in order."""
    paths = sorted(FILES)
    worker = _FileIngest(raw.resolve(), load_manifest(raw), False)
    finished: list[int] = []
    sizes = [10**9] * len(paths)  # each file alone in its task
    answers = list(map_in_order(client, worker, paths, sizes, on_done=finished.append, window=2))
    assert [a.outcome.path for a in answers] == paths and finished == [1] * len(paths)


def test_small_files_travel_together_and_large_ones_alone():
    assert distributed.batches([1] * 10, threads=1) == [range(0, 2), range(2, 4), range(4, 6), range(6, 8), range(8, 10)]
    assert distributed.batches([1] * 10, threads=1, max_items=1) == [range(i, i + 1) for i in range(10)]
    # a large packet log alone; the small outputs around it grouped
    assert distributed.batches([1, 1, 1, 100, 1, 1], threads=1) == [range(0, 3), range(3, 4), range(4, 6)]
    assert distributed.batches([5] * 4, threads=8, max_bytes=10) == [range(i, i + 1) for i in range(4)]
    assert distributed.batches([], threads=2) == []


def test_a_failed_task_names_its_file(client, raw):
    worker = _FileIngest(raw.resolve(), load_manifest(raw), False)
    paths = ["iperf2/client_udp.txt", "netperf/gone.txt", "netperf/tcp_stream.txt"]
    for sizes in ([1, 1, 1], [10**9] * 3):  # in a task with others, and alone
        with pytest.raises(NetreproError, match=r"^netperf/gone\.txt: failed on Dask worker tcp://127\.0\.0\.1:\d+: FileNotFoundError: "):
            list(map_in_order(client, worker, paths, sizes))


def test_what_a_worker_that_does_not_share_the_driver_s_folders_or_code_answers(client, raw, tmp_path):
    """Each worker's answer to check_workers_see (on one machine the workers
    share every folder and the code, so the answers are asked for directly)."""
    code = distributed.loaded_code()
    manifest = raw / "manifest.yaml"
    sha = hashlib.sha256(manifest.read_bytes()).hexdigest()
    shared = ": the raw campaign and the output folder must be on a shared filesystem, at the same path on every worker"

    def answers(*args):
        found = client.run(distributed._sees, *args)
        assert len(found) == 2 and len(set(found.values())) == 1
        return next(iter(found.values()))

    assert answers(code, str(manifest), sha, None) is None
    assert answers("0" * 64, str(manifest), sha, None).startswith("runs another netrepro than the driver")
    assert answers(code, str(tmp_path / "not-here" / "manifest.yaml"), sha, None) == (
        f"cannot read the campaign's manifest {tmp_path / 'not-here' / 'manifest.yaml'} (No such file or directory)" + shared)
    copy = tmp_path / "copy"  # a folder holding other files at the path: not the driver's campaign
    copy.mkdir()
    (copy / "manifest.yaml").write_text("campaign: {title: another, synthetic: false}\n")
    assert answers(code, str(copy / "manifest.yaml"), sha, None).startswith(f"reads another {copy / 'manifest.yaml'} than the driver")
    assert answers(code, str(manifest), sha, str(tmp_path / "elsewhere" / ".probe")) == (
        f"does not see the output folder {tmp_path / 'elsewhere'} that the driver made" + shared)
    packets = tmp_path / "packets"
    packets.mkdir()
    check_workers_see(client, raw, packets)  # they do: no error, and the driver's probe file is gone
    assert not any(packets.iterdir())


def test_packets_are_never_written_into_the_raw_folder(client, raw):
    with pytest.raises(ManifestError, match="inside the campaign's raw folder"):
        ingest_campaign(raw, progress=False, packets_to=raw / "tables", client=client)
    assert not (raw / "tables").exists()


def test_the_command_line_on_a_running_scheduler(client, raw, single):
    expected, _ = single
    out = raw.parent / "cli"
    result = CliRunner().invoke(app, ["ingest", str(raw), "--out", str(out), "--scheduler", client.scheduler.address])
    assert result.exit_code == 0, result.output
    pd.testing.assert_frame_equal(pd.read_parquet(out / "runs.parquet"), expected.runs)
    assert json.loads((out / "ingest.json").read_text()) == json.loads(json.dumps(expected.report(), default=str))
    assert len(list((out / "packets").glob("*.parquet"))) == 5


def test_the_command_line_starts_and_closes_a_local_cluster(raw, single):
    expected, _ = single
    out = raw.parent / "cli-j"
    result = CliRunner().invoke(app, ["ingest", str(raw), "--out", str(out), "-j", "1"])
    assert result.exit_code == 0, result.output
    pd.testing.assert_frame_equal(pd.read_parquet(out / "runs.parquet"), expected.runs)


def test_an_unreachable_scheduler_is_one_line_naming_it(raw, tmp_path):
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{s.getsockname()[1]}"
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        result = CliRunner().invoke(app, ["ingest", str(raw), "--out", str(tmp_path / "out"), "--scheduler", address])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {address}: cannot connect to the Dask scheduler"), result.stderr


def test_scheduler_and_jobs_together_are_refused(raw, tmp_path):
    result = CliRunner().invoke(app, ["ingest", str(raw), "--out", str(tmp_path), "--scheduler", "tcp://127.0.0.1:1", "-j", "2"])
    assert result.exit_code == 2 and "give one of --scheduler and -j" in result.stderr


@pytest.mark.parametrize("address", ["tcp://127.0.0.1", "foo://127.0.0.1:8786"])
def test_a_malformed_address_is_refused_before_connecting(address):
    with pytest.raises(NetreproError, match=rf"^{address}: not a Dask scheduler address \(e\.g\. tcp://host:8786\)"):
        with dask_client(scheduler=address):
            pass


def test_percentiles_counted_on_the_cluster_equal_duckdbs(single, client):
    """The exact percentiles from counts per distinct delay, counted by the
    workers from the Parquet, are DuckDB's to the last bit."""
    _, out = single
    glob = str(out / "packets" / "*.parquet")
    for by in (["case"], ["case", "ip_version", "flow"], []):
        on_cluster = per_packet.delay_percentiles(glob, by, client=client)
        pd.testing.assert_frame_equal(on_cluster, per_packet.delay_percentiles(glob, by))
        assert len(on_cluster) == 4 * max(1, on_cluster.groupby(by).ngroups if by else 1)

