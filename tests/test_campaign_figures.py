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
