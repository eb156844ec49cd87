"""Figures of a campaign's per-packet delays: CDF/CCDF per cell and tail
percentiles against size — what the studies' mean-delay line charts hide.

The numbers come from DuckDB over the packets Parquet (analysis.stats.per_packet),
so a campaign of 10^8 packets draws from a few hundred points per cell.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import seaborn as sns

from analysis.figures.plots import PALETTE, apply_style, caption, label, save
from analysis.stats.per_packet import delay_cdf, delay_percentiles


def _cell_name(row: dict, by: Sequence[str]) -> str:
    names = [f"IPv{row[k]}" if k == "ip_version" else f"{label(k)} {row[k]}" for k in by]
    return ", ".join(names) or "all packets"


def delay_distribution(packets: str, by: Sequence[str], *, campaign: str, synthetic: bool,
                       points: int = 201) -> plt.Figure:
    """Empirical CDF (left) and CCDF (right, log-log, down to one packet in
    10^5 where the cell has that many), one line per cell. Delays span orders
    of magnitude (a median of microseconds, a tail of milliseconds), so the
    delay axis is logarithmic when every delay is positive."""
    apply_style()
    table = delay_cdf(packets, list(by), points)
    table["cell"] = [_cell_name(r, by) for r in table.to_dict("records")]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    body = table[table["p"].isin([i / (points - 1) for i in range(points)])]
    # errorbar=None: the quantiles of a cell share a delay where delays tie (microsecond
    # resolution), seaborn joins their mean, and by default it also bootstrapped a 95% band of
    # those probabilities (1,000 resamples per point: 13 s of CPU for a band that means nothing)
    sns.lineplot(data=body, x="delay_ms", y="p", hue="cell", palette=PALETTE, ax=left, legend=False, errorbar=None)
    tail = table[table["ccdf"] > 0]
    sns.lineplot(data=tail, x="delay_ms", y="ccdf", hue="cell", palette=PALETTE, ax=right, errorbar=None)
    right.set_yscale("log")
    if (table["delay_ms"] > 0).all():
        left.set_xscale("log")
        right.set_xscale("log")
    left.set(xlabel="Delay (ms)", ylabel="P(delay ≤ x)", title="CDF")
    right.set(xlabel="Delay (ms)", ylabel="P(delay > x)", title="CCDF (tail)")
    right.legend(title=None, fontsize="small")
    caption(fig, campaign, synthetic, f"every packet of every run; {points} quantiles per cell and the tail to p99.999")
    return fig


def tail_percentiles(packets: str, size: str, hue: Sequence[str] = (), *, campaign: str, synthetic: bool,
                     quantiles: Sequence[float] = (0.5, 0.9, 0.99, 0.999)) -> plt.Figure:
    """p50 / p90 / p99 / p99.9 of the delay against ``size``, one panel per percentile."""
    apply_style()
    table = delay_percentiles(packets, [size, *hue], quantiles)
    table["series"] = [_cell_name(r, hue) for r in table.to_dict("records")]
    fig, axes = plt.subplots(1, len(quantiles), figsize=(3.2 * len(quantiles), 3.6), sharex=True)
    for ax, (q, one) in zip(axes, table.groupby("quantile", sort=True)):
        sns.lineplot(data=one, x=size, y="delay_ms", hue="series", marker="o", palette=PALETTE, ax=ax,
                     legend=ax is axes[-1])
        ax.set(title=f"p{100 * q:g}", xlabel=label(size), ylabel="Delay (ms)" if ax is axes[0] else "")
    if len(hue):
        axes[-1].legend(title=None, fontsize="small")
    caption(fig, campaign, synthetic, "percentiles over all packets of the cell's runs")
    return fig


def _varying(campaign, names: Sequence[str]) -> list[str]:
    """The factors among ``names`` whose level changes between the packet logs' runs."""
    runs = campaign.runs[campaign.runs["tool"] == "ditg"]
    return [n for n in names if n in runs and runs[n].nunique(dropna=True) > 1]


def packet_figures(campaign, size: str | None = None, hue: Sequence[str] = (),
                   factors: Sequence[str] | None = None) -> dict[str, plt.Figure]:
    """The per-packet figures of a loaded campaign (none when it kept no
    packet logs). A cell is a combination of the design ``factors`` (default:
    the manifest's) that vary, at most three; ``hue`` splits the
    tail-percentile lines, by default the first varying factor but the size."""
    if campaign.packets is None:
        return {}
    names = list(campaign.manifest.factors) if factors is None else list(factors)
    others = _varying(campaign, [f for f in names if f != size])
    by = [*([size] if size else []), *others][:3]
    figures = {"delay_distribution": delay_distribution(campaign.packets, by, campaign=campaign.name,
                                                        synthetic=campaign.synthetic)}
    if size:
        series = _varying(campaign, hue) if hue else others[:1]
        figures["tail_percentiles"] = tail_percentiles(campaign.packets, size, series, campaign=campaign.name,
                                                       synthetic=campaign.synthetic)
    return figures


def draw_packet_figures(campaign, factors: Sequence[str], directory: str | Path) -> list[Path]:
    """Draw and save the per-packet figures of a campaign that kept its packet
    logs (the campaign report's 04_figures calls this with the design's
    factors, replicate counters left out); nothing otherwise. The size axis
    is the design's size factor (a factor in bytes), when it has one."""
    size = next((f for f in factors if str(f).endswith("_bytes")), None)
    written: list[Path] = []
    for name, fig in packet_figures(campaign, size=size, factors=factors).items():
        written += save(fig, directory, f"packets_{name}")  # save() closes the figure
    return written


__all__ = ["delay_distribution", "tail_percentiles", "packet_figures", "draw_packet_figures"]
