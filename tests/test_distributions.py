"""The distributions figure: every run a point over its cell's box, as seaborn drew it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
import pytest
import seaborn as sns
from matplotlib.collections import PathCollection
from matplotlib.patches import PathPatch

from analysis.figures import plots as F


@pytest.fixture
def runs() -> pd.DataFrame:
    """Sizes × IP versions × transports, IPv6 never at 1408 bytes, one run without a value."""
    rng = np.random.default_rng(7)
    rows = [{"packet_size_bytes": size, "ip_version": ip, "transport": transport, "throughput_mbps": value}
            for size in (1408, 128, 512) for ip in (6, 4) for transport in ("TCP", "UDP")
            if (size, ip) != (1408, 6) for value in rng.normal(size, 20, 4)]
    rows[0]["throughput_mbps"] = np.nan
    return pd.DataFrame(rows)


def draw(runs, hue="ip_version"):
    F.apply_style()
    return F.distributions(runs, "throughput_mbps", "packet_size_bytes", hue, campaign="t", synthetic=True,
                           factors=["packet_size_bytes", "ip_version", "transport"])


def points(fig) -> np.ndarray:
    return np.concatenate([c.get_offsets() for c in fig.axes[0].collections if isinstance(c, PathCollection)])


def test_every_run_with_a_value_is_a_point_over_its_cell(runs):
    fig = draw(runs)
    xy = points(fig)
    assert len(xy) == runs["throughput_mbps"].notna().sum() == 39
    assert sorted(xy[:, 1]) == sorted(runs["throughput_mbps"].dropna())
    # IPv4 left of its size's tick, IPv6 right of it, jittered within its box's width
    ipv6 = dict(zip(runs["throughput_mbps"], runs["ip_version"] == 6))
    offset = xy[:, 0] - np.round(xy[:, 0])
    side = np.array([ipv6[y] for y in xy[:, 1]])
    assert (offset[side] > 0.1).all() and (offset[side] < 0.3).all()
    assert (offset[~side] < -0.1).all() and (offset[~side] > -0.3).all()
    plt.close(fig)


def test_sizes_read_in_order_and_hue_levels_in_the_legend_in_order(runs):
    fig = draw(runs)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["128", "512", "1408"]
    legend = ax.get_legend()
    assert legend.get_title().get_text() == "IP version"
    assert [t.get_text() for t in legend.get_texts()] == ["IPv4", "IPv6"]
    # the boxes' colours, seaborn's: its palette at 75 % saturation, IPv4 in the first
    boxes = [p for p in ax.patches if isinstance(p, PathPatch)]
    assert len(boxes) == 5  # no IPv6 box at 1408 bytes
    palette = sns.color_palette(F.PALETTE, 2, desat=0.75)
    assert [tuple(b.get_facecolor()[:3]) for b in boxes] == [tuple(palette[0])] * 3 + [tuple(palette[1])] * 2
    assert [tuple(h.get_facecolor()[:3]) for h in legend.legend_handles] == [tuple(c) for c in palette]
    assert "Pooled over all levels of Transport" in " ".join(fig.texts[-1].get_text().split())
    plt.close(fig)


def test_without_a_hue_one_grey_box_per_level_and_no_legend(runs):
    fig = draw(runs, hue=None)
    ax = fig.axes[0]
    assert ax.get_legend() is None
    assert len([p for p in ax.patches if isinstance(p, PathPatch)]) == 3
    assert np.allclose(np.round(points(fig)[:, 0]), np.round(points(fig)[:, 0]).astype(int))
    assert np.abs(points(fig)[:, 0] - np.round(points(fig)[:, 0])).max() <= 0.1
    plt.close(fig)


def test_the_same_runs_give_the_same_file(runs, tmp_path):
    first = F.save(draw(runs), tmp_path / "a", "d")[0].read_bytes()
    again = F.save(draw(runs), tmp_path / "b", "d")[0].read_bytes()
    assert first == again
