"""Per-packet tables at ingest and their DuckDB statistics, on genuine D-ITG logs
(tests/fixtures/ditg/*.recv.bin, recorded with D-ITG 2.8.1 on loopback)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.ingest import packets as packets_module
from analysis.ingest.ingest import fingerprint, ingest_campaign
from analysis.ingest.packets import PacketWriter
from analysis.parsers import parse_file
from analysis.parsers import contents, ditg_log
from analysis.parsers.ditg_log import packets_frame
from analysis.stats import arrival_order, per_packet

from budget import examples

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests/fixtures/ditg"
LOGS = {"udp4": ("UDP", 4), "udp6": ("UDP", 6), "tcp4": ("TCP", 4), "multi": ("mixed", 4),
        "loss2": ("UDP", 4), "derived_loss_dup": ("UDP", 4)}


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    """A campaign of six receiver logs, ingested with its packets."""
    base = tmp_path_factory.mktemp("packets")
    raw = base / "raw"
    raw.mkdir()
    table = []
    for name, (transport, ip) in LOGS.items():
        shutil.copyfile(FIXTURES / f"{name}.recv.bin", raw / f"{name}.recv.bin")
        table.append({"path": f"{name}.recv.bin", "levels": {"log": name, "ip_version": ip}})
    (raw / "manifest.yaml").write_text(yaml.safe_dump({
        "campaign": {"title": "packets of the D-ITG fixtures", "synthetic": False},
        "factors": {"log": {"type": "str"}, "ip_version": {"type": "int"}},
        "files": {"table": table}}))
    out = base / "processed"
    result = ingest_campaign(raw, progress=False, packets_to=out)
    return raw, out, result


def _frame(name: str) -> pd.DataFrame:
    return packets_frame(parse_file(FIXTURES / f"{name}.recv.bin", hints={"ditg": {"meter": "owdm"}}, packets=True).packets)


def test_every_packet_is_stored_exactly_once_per_log(campaign):
    raw, out, result = campaign
    files = sorted((out / "packets").glob("*.parquet"))
    assert len(files) == len(LOGS)
    stored = pq.read_table(out / "packets").to_pandas()
    for name in LOGS:
        mine = stored[stored["source_path"] == f"{name}.recv.bin"].sort_values("arrival")
        parsed = _frame(name)
        assert len(mine) == len(parsed) > 0
        assert (mine["seq"].to_numpy() == parsed["seq"].to_numpy()).all()
        assert (mine["flow"].to_numpy() == parsed["flow"].to_numpy()).all()
        # integer nanoseconds recover the parser's seconds to the microsecond D-ITG stamps
        assert np.array_equal(mine["tx_ns"].to_numpy() // 1000, np.rint(parsed["tx_s"].to_numpy() * 1e6).astype(np.int64))
        assert (mine["tx_ns"] % 1000 == 0).all() and (mine["rx_ns"] % 1000 == 0).all()
        assert set(mine["log"]) == {name}


def test_ingest_without_a_target_writes_nothing(tmp_path, campaign):
    raw, _, _ = campaign
    result = ingest_campaign(raw, progress=False)
    assert len(result.runs) and not any(tmp_path.iterdir())


def test_packets_are_never_written_into_the_raw_folder(campaign):
    from analysis.errors import ManifestError

    raw, _, _ = campaign
    with pytest.raises(ManifestError, match="inside the campaign's raw folder"):
        ingest_campaign(raw, progress=False, packets_to=raw / "tables")
    assert not (raw / "tables").exists()


def test_percentiles_equal_numpy_on_the_same_packets(campaign):
    _, out, _ = campaign
    table = per_packet.delay_percentiles(str(out / "packets" / "*.parquet"), by=["log"])
    for name in LOGS:
        delay = _frame(name)["delay_s"].to_numpy() * 1e3
        mine = table[table["log"] == name].set_index("quantile")["delay_ms"]
        expected = np.percentile(delay, [50, 90, 99, 99.9])
        assert mine.to_numpy() == pytest.approx(expected, rel=1e-9, abs=1e-9)
        assert (table.loc[table["log"] == name, "packets"] == len(delay)).all()


def test_cdf_is_bounded_monotone_and_ends_at_the_extremes(campaign):
    _, out, _ = campaign
    cdf = per_packet.delay_cdf(str(out / "packets" / "*.parquet"), by=["log"], points=51)
    for name, one in cdf.groupby("log"):
        delay = _frame(name)["delay_s"].to_numpy() * 1e3
        assert len(one) == 51 + len(per_packet.TAIL) and one["delay_ms"].is_monotonic_increasing
        assert one.loc[one["p"] == 0.9999, "delay_ms"].item() == pytest.approx(np.quantile(delay, 0.9999))
        assert one["delay_ms"].iloc[0] == pytest.approx(delay.min()) and one["delay_ms"].iloc[-1] == pytest.approx(delay.max())
        assert (one["ccdf"] == 1 - one["p"]).all()


def test_itgdec_jitter_equals_the_runs_table_and_rfc3550_follows_its_recursion(campaign):
    _, out, result = campaign
    jit = per_packet.jitter(str(out / "packets" / "*.parquet")).set_index("source_path")
    total = result.runs[result.runs["flow"] == "TOTAL"].set_index("source_path")
    for name in LOGS:
        path = f"{name}.recv.bin"
        assert jit.loc[path, "itgdec_jitter_ms"] == pytest.approx(total.loc[path, "jitter_ms"], rel=1e-9, abs=1e-9)
        frame = _frame(name)
        estimates = []
        for _, flow in frame.groupby("flow", sort=False):
            d = np.abs(np.diff(flow["delay_s"].to_numpy()))
            j = 0.0
            for step in d:  # RFC 3550, section 6.4.1, literally
                j += (step - j) / 16
            estimates.append(j * 1e3)
        assert jit.loc[path, "rfc3550_jitter_ms"] == pytest.approx(np.mean(estimates), rel=1e-6, abs=1e-9)


def test_loss_and_duplicates_agree_with_itgdec_and_bursts_follow_the_gaps(campaign):
    """Each missing sequence number counts as lost and each repeat as a duplicate.
    ITGDec hides a duplicate behind a loss (derived_loss_dup: it says 3 lost, 0
    duplicates where 4 numbers are missing and one arrives twice); both agree on
    lost − duplicates (= highest − received), which is what is compared."""
    _, out, result = campaign
    lost = per_packet.loss(str(out / "packets" / "*.parquet"))
    flows = result.runs[result.runs["flow"] != "TOTAL"]
    for name in LOGS:
        path = f"{name}.recv.bin"
        mine = lost[lost["source_path"] == path]
        theirs = flows[flows["source_path"] == path]
        assert int((mine["lost"] - mine["duplicates"]).sum()) == int(
            (theirs["packets_lost"] - theirs["packets_duplicate"]).sum())
        frame = _frame(name)
        for flow_id, flow in frame.groupby("flow"):
            seqs = np.unique(flow["seq"].to_numpy())
            gaps = np.diff(seqs) - 1
            row = mine[mine["flow"] == flow_id].iloc[0]
            assert row["loss_bursts"] == int((gaps > 0).sum())
            assert row["longest_burst"] == (int(gaps.max()) if len(gaps) and gaps.max() > 0 else 0)
            assert row["duplicates"] == len(flow) - len(seqs)
            assert row["lost"] == seqs.max() - seqs.min() + 1 - len(seqs)
            highest = np.maximum.accumulate(flow["seq"].to_numpy())
            assert row["reordered"] == int((flow["seq"].to_numpy()[1:] < highest[:-1]).sum())


@pytest.fixture(scope="module")
def sized(tmp_path_factory):
    """Three real runs at each of two payload sizes (tests/fixtures/ditg/pct*_r*.recv.bin)."""
    from analysis.ingest.campaign import load_campaign

    raw = tmp_path_factory.mktemp("sized") / "raw"
    raw.mkdir()
    table = []
    for log in sorted(FIXTURES.glob("pct*_r*.recv.bin")):
        shutil.copyfile(log, raw / log.name)
        table.append({"path": log.name, "levels": {"payload_bytes": int(log.name[3:].split("_")[0])}})
    (raw / "manifest.yaml").write_text(yaml.safe_dump({
        "campaign": {"title": "D-ITG payload sizes on loopback", "synthetic": False},
        "factors": {"payload_bytes": {"type": "int"}}, "files": {"table": table}}))
    return load_campaign(raw, processed=raw.parent / "processed")


def test_a_campaign_with_packets_has_per_run_delay_percentiles(sized):
    assert sized.packets is not None
    total = sized.runs[sized.runs["flow"] == "TOTAL"]
    assert len(total) == 6 and total["delay_p99_ms"].notna().all()
    for row in total.itertuples():
        delay = _frame_of(FIXTURES / row.source_path)["delay_s"].to_numpy() * 1e3
        assert row.delay_p99_ms == pytest.approx(np.percentile(delay, 99), rel=1e-9)
        assert row.delay_p50_ms <= row.delay_p90_ms <= row.delay_p99_ms <= row.delay_p999_ms


def test_a_sender_log_keeps_its_packets_but_gets_no_delay_percentiles(tmp_path):
    """ITGSend's log stamps no receive time (its 'delay' is 0): percentiles of it would be meaningless."""
    from analysis.ingest.campaign import load_campaign

    raw = tmp_path / "raw"
    raw.mkdir()
    for name in ("udp4.send.bin", "udp4.recv.bin"):
        shutil.copyfile(FIXTURES / name, raw / name)
    (raw / "manifest.yaml").write_text(yaml.safe_dump({
        "campaign": {"title": "both sides of one run", "synthetic": False},
        "factors": {"log_end": {"type": "str"}},
        "files": {"table": [{"path": "udp4.send.bin", "levels": {"log_end": "sender"}},
                            {"path": "udp4.recv.bin", "levels": {"log_end": "receiver"}}]}}))
    runs = load_campaign(raw, processed=tmp_path / "processed").runs.set_index(["source_path", "flow"])
    assert len(pq.read_table(tmp_path / "processed" / "packets").to_pandas()) == 2 * 198
    assert runs.loc[("udp4.send.bin", "TOTAL"), ["delay_p50_ms", "delay_p99_ms"]].isna().all()
    assert runs.loc[("udp4.recv.bin", "TOTAL"), "delay_p99_ms"] > 0


def test_a_percentile_hypothesis_gets_a_verdict_on_the_runs_percentiles(sized, tmp_path):
    """p99 compared across runs (the run is the unit, one row each, as the CLI
    counts them): Welch's t, its p and difference checked against scipy."""
    from scipy import stats

    from analysis.ingest.per_run import one_row_per_run
    from analysis.verdicts.engine import evaluate

    spec = tmp_path / "h.yaml"
    spec.write_text(yaml.safe_dump({"hypotheses": [{
        "id": "P1", "statement": "p99 one-way delay differs between 64-byte and 1024-byte payloads",
        "source": "test", "metric": "delay_p99_ms",
        "compare": {"factor": "payload_bytes", "levels": [64, 1024]}, "direction": "different"}]}))
    row = evaluate(sized.runs, spec).table.iloc[0]
    runs = one_row_per_run(sized.runs)
    a = runs.loc[runs["payload_bytes"] == 64, "delay_p99_ms"].dropna()
    b = runs.loc[runs["payload_bytes"] == 1024, "delay_p99_ms"].dropna()
    assert row["test"] == "Welch t" and row["n"] == f"{a.size}+{b.size}" and a.size >= 2
    assert row["p"] == pytest.approx(stats.ttest_ind(a, b, equal_var=False).pvalue)
    assert row["diff"] == pytest.approx(a.mean() - b.mean())
    assert row["verdict"] == ("supported" if row["p_adj"] < 0.05 else "inconclusive")


def _frame_of(path: Path) -> pd.DataFrame:
    return packets_frame(parse_file(path, hints={"ditg": {"meter": "owdm"}}, packets=True).packets)


def test_the_packet_figures_draw_one_line_per_cell(sized):
    from analysis.figures.packet_figures import packet_figures

    figures = packet_figures(sized, size="payload_bytes")
    assert set(figures) == {"delay_distribution", "tail_percentiles"}
    cdf, ccdf = figures["delay_distribution"].axes[:2]
    assert len(cdf.get_lines()) == 2 and ccdf.get_yscale() == "log"
    panels = figures["tail_percentiles"].axes
    assert [ax.get_title() for ax in panels] == ["p50", "p90", "p99", "p99.9"]
    p99 = panels[2].get_lines()[0].get_ydata()
    expected = per_packet.delay_percentiles(sized.packets, ["payload_bytes"], [0.99])["delay_ms"].to_numpy()
    assert p99 == pytest.approx(expected)
    import matplotlib.pyplot as plt
    for fig in figures.values():
        plt.close(fig)


@pytest.mark.slow  # seconds of CPU: out of `make test-fast`, in `make test`
def test_the_report_draws_packet_figures_only_for_a_campaign_with_packets(sized, campaign, tmp_path):
    from analysis.figures.packet_figures import draw_packet_figures
    from analysis.ingest.campaign import load_campaign

    written = draw_packet_figures(sized, ["payload_bytes"], tmp_path / "a")
    assert sorted(p.name for p in written) == ["packets_delay_distribution.png", "packets_tail_percentiles.png"]
    assert all(p.stat().st_size > 10_000 for p in written)
    demo = load_campaign(ROOT / "data/raw/demo-loopback", processed=tmp_path / "demo")
    assert demo.packets is None and draw_packet_figures(demo, ["packet_size_bytes"], tmp_path / "b") == []


def test_a_long_log_is_written_in_row_groups_that_keep_its_order(tmp_path, monkeypatch):
    monkeypatch.setattr(packets_module, "ROW_GROUP", 100)
    parsed = parse_file(FIXTURES / "pct64_r1.recv.bin", hints={"ditg": {"meter": "owdm"}}, packets=True).packets
    n = len(parsed.seq)
    assert n > 300 and n % 100  # several row groups, the last one partial
    with PacketWriter(tmp_path) as writer:
        run = writer.open("pct64_r1.recv.bin", {"ip_version": 4, "transport": "UDP"})
        for start in range(0, n, 37):  # parts that straddle row groups
            run.add(parsed.slice(start, start + 37))
        run.close()
    path = run.path
    assert pq.ParquetFile(path).metadata.num_row_groups == -(-n // 100)
    stored = pq.read_table(path).to_pandas()
    assert (stored["arrival"].to_numpy() == np.arange(n)).all()
    assert (stored["seq"].to_numpy() == parsed.seq).all()
    assert (stored["delay_ns"].to_numpy() == stored["rx_ns"].to_numpy() - stored["tx_ns"].to_numpy()).all()
    assert set(stored["ip_version"]) == {4} and set(stored["transport"]) == {"UDP"}


def test_a_failed_write_in_the_writer_thread_reaches_the_caller(tmp_path):
    parsed = parse_file(FIXTURES / "pct64_r1.recv.bin", hints={"ditg": {"meter": "owdm"}}, packets=True).packets
    with pytest.raises(FileNotFoundError):
        with PacketWriter(tmp_path) as writer:
            shutil.rmtree(writer.root)
            run = writer.open("pct64_r1.recv.bin", {})
            run.add(parsed)
            run.close()


def test_a_log_is_read_and_its_packets_written_part_by_part(tmp_path, monkeypatch):
    """Memory is bounded by the part, not the log: the parser hands on parts
    of CHUNK records, and the stored table equals the log read whole."""
    monkeypatch.setattr(ditg_log, "CHUNK", 64)
    monkeypatch.setattr(packets_module, "ROW_GROUP", 128)
    parts = []
    whole = parse_file(FIXTURES / "multi.recv.bin", packets=True)
    streamed = parse_file(FIXTURES / "multi.recv.bin", on_packets=parts.append)
    assert streamed.packets is None and [r.to_dict() for r in streamed.records] == [r.to_dict() for r in whole.records]
    assert len(parts) > 2 and max(len(p.seq) for p in parts) <= 64
    with PacketWriter(tmp_path) as writer:
        run = writer.open("multi.recv.bin", {"log": "multi"})
        for part in parts:
            run.add(part)
        run.close()
    stored = pq.read_table(run.path).to_pandas()
    expected = packets_frame(whole.packets)
    assert pq.ParquetFile(run.path).metadata.num_row_groups == -(-len(expected) // 128)
    for column in ("flow", "seq", "src", "src_port", "dst", "dst_port", "size_bytes"):
        assert stored[column].astype(expected[column].dtype).tolist() == expected[column].tolist(), column
    assert (stored["delay_ns"].to_numpy() == np.rint(expected["delay_s"].to_numpy() * 1e9)).all()


def test_a_log_damaged_after_its_first_part_is_rejected_by_record_and_leaves_no_packets(tmp_path, monkeypatch):
    monkeypatch.setattr(ditg_log, "CHUNK", 64)
    records = np.frombuffer((FIXTURES / "udp4.recv.bin").read_bytes(), ditg_log.RECORD).copy()
    records["src"][150] = b"\xff\xfe"  # not printable: no D-ITG address
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "good.recv.bin").write_bytes((FIXTURES / "udp6.recv.bin").read_bytes())
    (raw / "bad.recv.bin").write_bytes(records.tobytes())
    (raw / "manifest.yaml").write_text(yaml.safe_dump({
        "campaign": {"title": "one damaged log", "synthetic": False}, "factors": {"log": {"type": "str"}},
        "files": {"table": [{"path": "good.recv.bin", "levels": {"log": "good"}},
                            {"path": "bad.recv.bin", "levels": {"log": "bad"}}]}}))
    result = ingest_campaign(raw, progress=False, packets_to=tmp_path / "out")
    bad = next(f for f in result.files if f.path == "bad.recv.bin")
    assert bad.outcome == "rejected" and "record 151 (byte 21600)" in bad.reason
    stored = pq.read_table(tmp_path / "out" / "packets").to_pandas()
    assert set(stored["source_path"]) == {"good.recv.bin"}


def test_a_campaign_without_packets_gets_a_clear_error():
    with pytest.raises(ValueError, match="kept no D-ITG packet logs"):
        per_packet.delay_percentiles(None, ["ip_version"])


@settings(max_examples=examples(200))
@given(st.lists(st.integers(-5, 40), min_size=1, max_size=300),
       st.lists(st.floats(0, 1), min_size=1, max_size=8))
def test_quantiles_from_value_counts_equal_numpy_on_the_sample(sample, quantiles):
    values, counts = np.unique(np.array(sample, dtype=np.int64), return_counts=True)
    expected = np.quantile(np.array(sample, dtype=np.float64), quantiles)
    assert per_packet.quantiles_from_counts(values, counts, quantiles) == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_jitter_and_loss_read_in_small_batches_equal_the_whole(campaign, monkeypatch):
    """Each flow's state carries from batch to batch: batches of 37 packets
    give the answers of batches holding a whole run."""
    _, out, _ = campaign
    glob = str(out / "packets" / "*.parquet")
    whole_jitter, whole_loss = per_packet.jitter(glob, by=["log"]), per_packet.loss(glob)
    monkeypatch.setattr(arrival_order, "BATCH", 37)
    pd.testing.assert_frame_equal(per_packet.jitter(glob, by=["log"]), whole_jitter, rtol=1e-12)
    pd.testing.assert_frame_equal(per_packet.loss(glob), whole_loss)
    assert len(whole_jitter) == len(LOGS) and (whole_jitter["flows"] >= 1).all()


def test_jitter_refuses_packets_out_of_arrival_order_and_groups_that_split_a_run(campaign, tmp_path):
    _, out, _ = campaign
    source = sorted((out / "packets").glob("*.parquet"))[0]
    table = pq.read_table(source)
    pq.write_table(table.take(np.r_[1, 0, 2:table.num_rows]), tmp_path / "shuffled.parquet")
    with pytest.raises(ValueError, match="not stored in arrival order"):
        per_packet.jitter(str(tmp_path / "shuffled.parquet"))
    with pytest.raises(ValueError, match="'seq' is not constant in the run"):
        per_packet.loss(str(source), by=["seq"])


def test_reordering_across_a_batch_boundary_is_counted(campaign, tmp_path, monkeypatch):
    """Derived from a genuine run: two sequence numbers swapped where one
    batch of 37 packets ends and the next begins."""
    _, out, _ = campaign
    table = pq.read_table(sorted((out / "packets").glob("*.parquet"))[0]).to_pandas()
    seq = table["seq"].to_numpy().copy()
    seq[[36, 37]] = seq[[37, 36]]
    table["seq"] = seq
    table.to_parquet(tmp_path / "swapped.parquet")
    monkeypatch.setattr(arrival_order, "BATCH", 37)
    lost = per_packet.loss(str(tmp_path / "swapped.parquet"))
    flow_seq = seq[table["flow"].to_numpy() == table["flow"].iloc[36]]
    expected = int((flow_seq[1:] < np.maximum.accumulate(flow_seq)[:-1]).sum())
    assert expected >= 1 and lost["reordered"].sum() == expected


def test_each_files_digest_is_its_sha256_however_it_was_read(tmp_path, monkeypatch):
    """Logs mapped and hashed as they are parsed (MAP_FROM 0: every file
    mapped), one rejected after its first part, one with NUL padding, text:
    each source_sha256 is hashlib's of the whole file, and the fingerprint
    taken at ingest is the one taken from the files afterwards."""
    monkeypatch.setattr(contents, "MAP_FROM", 0)
    monkeypatch.setattr(ditg_log, "CHUNK", 64)
    raw = tmp_path / "raw"
    raw.mkdir()
    damaged = np.frombuffer((FIXTURES / "udp4.recv.bin").read_bytes(), ditg_log.RECORD).copy()
    damaged["src"][150] = b"\xff\xfe"
    files = {"plain.recv.bin": (FIXTURES / "multi.recv.bin").read_bytes(),
             "padded.recv.bin": (FIXTURES / "udp6.recv.bin").read_bytes() + bytes(1000),
             "damaged.recv.bin": damaged.tobytes(),
             "packets.txt": (FIXTURES / "shared_recv_packets.txt").read_bytes()}
    for name, data in files.items():
        (raw / name).write_bytes(data)
    (raw / "manifest.yaml").write_text(yaml.safe_dump({
        "campaign": {"title": "digests", "synthetic": False}, "factors": {"log": {"type": "str"}},
        "files": {"table": [{"path": name, "levels": {"log": name}} for name in files]}}))
    result = ingest_campaign(raw, progress=False, packets_to=tmp_path / "out")
    assert {f.path: f.outcome for f in result.files}["damaged.recv.bin"] == "rejected"
    for row in result.runs.drop_duplicates("source_path").itertuples():
        assert row.source_sha256 == hashlib.sha256(files[row.source_path]).hexdigest(), row.source_path
    assert set(result.runs["source_path"]) == set(files) - {"damaged.recv.bin"}
    assert result.fingerprint == fingerprint(raw)
