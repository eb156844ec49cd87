"""Per-packet tables at ingest and their DuckDB statistics, on genuine D-ITG logs
(tests/fixtures/ditg/*.recv.bin, recorded with D-ITG 2.8.1 on loopback)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml

from analysis.ingest.ingest import ingest_campaign
from analysis.parsers import parse_file
from analysis.stats import per_packet

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
    return parse_file(FIXTURES / f"{name}.recv.bin", hints={"ditg": {"meter": "owdm"}}, packets=True).packets


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
        assert len(one) == 51 and one["delay_ms"].is_monotonic_increasing
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
