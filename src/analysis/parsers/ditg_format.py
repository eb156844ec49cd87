"""ITGDec's summary text, rebuilt from a :class:`.ditg_stats.Summary`.

Not used to parse anything: the tests compare it with ITGDec's own output
line by line (proving :mod:`.ditg_stats` does ITGDec's arithmetic), and the
benchmarks time the binary reader against ITGDec with it.
"""

from __future__ import annotations

import math

from analysis.parsers.ditg_stats import Stats, Summary

_RULE = "-" * 58


def format_summary(summary: Summary) -> str:
    """The summary as ``ITGDec LOG`` prints it on stdout after its two
    version lines (same labels, widths and rounding)."""
    out: list[str] = []
    for s in summary.flows:
        if s.endpoints is None:
            raise ValueError("a flow block without its endpoints")
        fid, src, sport, dst, dport = s.endpoints
        out += [_RULE, f"Flow number: {fid}", f"From {src}:{sport}", f"To    {dst}:{dport}", _RULE]
        out += _metric_lines(s, s.packets)
        out += _flow_loss_lines(s) + [_RULE]
    t = summary.total
    out += ["", "_" * 58, "****************  TOTAL RESULTS   ******************", "_" * 58,
            f"Number of flows          = {len(summary.flows):13d}"]
    out += _metric_lines(t, t.packets) + _total_loss_lines(t)
    out += [f"Error lines              = {summary.error_lines:13d}", _RULE]
    return "\n".join(out) + "\n"


def _metric_lines(s: Stats, packets: int) -> list[str]:
    return [
        f"Total time               = {s.duration_s:13.6f} s",
        f"Total packets            = {packets:13d}",
        f"Minimum delay            = {s.min_delay_s:13.6f} s",
        f"Maximum delay            = {s.max_delay_s:13.6f} s",
        f"Average delay            = {s.mean_delay_s:13.6f} s",
        f"Average jitter           = {s.jitter_s:13.6f} s",
        f"Delay standard deviation = {s.sd_delay_s:13.6f} s",
        f"Bytes received           = {s.bytes:13.0f}",
        f"Average bitrate          = {s.bitrate_kbps:13.6f} Kbit/s",
        f"Average packet rate      = {s.packet_rate:13.6f} pkt/s",
    ]


def _burst(lost: int, events: int) -> float:
    return lost / events if events else math.inf


def _flow_loss_lines(s: Stats) -> list[str]:
    if s.lost > 0:
        pct = 100.0 * s.lost / (s.packets + s.lost)
        return [f"Packets dropped          = {s.lost:13d} ({pct:3.2f} %)",
                f"Average loss-burst size  = {_burst(s.lost, s.loss_events):13f} pkt"]
    return [f"Packets dropped          = {0:13d} ({0.0:3.2f} %)", f"Average loss-burst size  = {0.0:13f} pkt"]


def _total_loss_lines(t: Stats) -> list[str]:
    if t.lost > 0:
        pct = float((100 * t.lost) % 2**32) / (t.packets + t.lost)  # ITGDec multiplies in 32 bits
        return [f"Packets dropped          = {t.lost:13d} ({pct:3.2f} %)",
                f"Average loss-burst size  = {_burst(t.lost, t.loss_events):13f} pkt"]
    return [f"Packets dropped          = {0.0:13.0f} ({0.0:3.2f} %)", f"Average loss-burst size  = {0.0:13.0f} pkt"]
