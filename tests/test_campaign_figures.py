"""Campaign figures for a design whose tool varies a single factor and no size."""

from __future__ import annotations

import pandas as pd

from analysis.figures.campaign_figures import draw_campaign


def test_one_varying_factor_without_sizes_draws_bars_without_a_hue(tmp_path):
    # iperf3 UDP over IPv4 and IPv6 only (plans/first.yaml's iperf3 block): x and hue used to be the same column
    runs = pd.DataFrame({
        "tool": ["iperf3"] * 6, "ip_version": [4, 4, 4, 6, 6, 6], "transport": ["UDP"] * 6,
        "status": ["ok"] * 6, "throughput_mbps": [99.0, 100.0, 101.0, 97.0, 98.0, 99.5],
        "source_path": [f"r{i}.json" for i in range(6)],
    })
    drawn = draw_campaign(runs, ["tool", "ip_version", "transport"], tmp_path, campaign="t", synthetic=True)
    assert "bars_by_ip_version" in {d.kind for d in drawn}
    assert all(d.png.is_file() for d in drawn)


def iperf3_runs(shift: float = 0.0) -> pd.DataFrame:
    return pd.DataFrame({
        "tool": ["iperf3"] * 8, "ip_version": [4, 4, 4, 4, 6, 6, 6, 6], "transport": ["UDP", "TCP"] * 4,
        "status": ["ok"] * 8, "throughput_mbps": [99.0, 100.0, 101.0, 102.5, 97.0, 98.0, 99.5, 96.0 + shift],
        "source_path": [f"r{i}.json" for i in range(8)],
    })


FACTORS = ["tool", "ip_version", "transport"]


def drawn_files(folder) -> dict[str, int]:
    """Each figure file and the time it was last written."""
    return {p.name: p.stat().st_mtime_ns for p in folder.glob("*.png")}


def test_figures_drawn_again_from_the_same_inputs_are_kept(tmp_path):
    first = draw_campaign(iperf3_runs(), FACTORS, tmp_path, campaign="t", synthetic=True)
    written = drawn_files(tmp_path)
    assert len(written) == len(first) > 1
    again = draw_campaign(iperf3_runs(), FACTORS, tmp_path, campaign="t", synthetic=True)
    assert again == first and drawn_files(tmp_path) == written  # the same list, no file written again


def test_figures_are_drawn_again_when_a_run_the_caption_or_a_file_changed(tmp_path):
    first = draw_campaign(iperf3_runs(), FACTORS, tmp_path, campaign="t", synthetic=True)
    written = drawn_files(tmp_path)
    draw_campaign(iperf3_runs(shift=0.5), FACTORS, tmp_path, campaign="t", synthetic=True)
    assert all(drawn_files(tmp_path)[name] > when for name, when in written.items())
    written = drawn_files(tmp_path)
    draw_campaign(iperf3_runs(shift=0.5), FACTORS, tmp_path, campaign="t", synthetic=False)
    assert all(drawn_files(tmp_path)[name] > when for name, when in written.items())
    first[0].png.unlink()
    again = draw_campaign(iperf3_runs(shift=0.5), FACTORS, tmp_path, campaign="t", synthetic=False)
    assert again == first and first[0].png.is_file()
