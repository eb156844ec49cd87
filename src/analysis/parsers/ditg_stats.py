"""ITGDec's arithmetic: the summary of a D-ITG packet log, computed as ITGDec
computes it, so that :func:`.ditg_format.format_summary` prints what
``ITGDec LOG`` prints, to the last digit, for any log that does not cross
midnight. ITGDec keeps times as seconds of the day and so turns a flow that
crosses midnight into delays of about -86400 s; :func:`summarize` adds the
day back and says so (``Summary.crosses_midnight``).

The packets come from :mod:`.ditg_log` (binary logs) or from the text packet
log (``ITGDec -l``) in :mod:`.ditg`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from analysis.parsers.ditg_log import Endpoint, Packets

_DAY_S = 86400.0
_HALF_DAY_S = 43200.0


@dataclass(slots=True)
class Stats:
    """One block of ITGDec's summary (a flow, or the TOTAL)."""

    packets: int
    bytes: float
    first_rx_s: float
    last_rx_s: float
    min_delay_s: float
    max_delay_s: float
    mean_delay_s: float
    sd_delay_s: float
    jitter_s: float
    lost: int
    duplicates: int
    loss_events: int
    endpoints: Endpoint | None = None

    @property
    def duration_s(self) -> float:
        return self.last_rx_s - self.first_rx_s

    @property
    def bitrate_kbps(self) -> float:
        return self.bytes * 8 / 1000 / self.duration_s if self.duration_s > 0 else 0.0

    @property
    def packet_rate(self) -> float:
        return self.packets / self.duration_s if self.duration_s > 0 else 0.0


@dataclass(slots=True)
class Summary:
    flows: list[Stats]
    total: Stats
    error_lines: int
    sender_log: bool
    crosses_midnight: bool = False



def summarize(packets: Packets) -> Summary:
    """ITGDec's summary of ``packets``, with a day added across midnight."""
    if not len(packets.seq):
        raise ValueError("no valid packet")
    rx, delay, crossed = _unwrap_midnight(packets.tx_s, packets.rx_s)
    order = _stable_order(packets.flow, len(packets.endpoints)) if len(packets.endpoints) > 1 else None
    bounds = np.concatenate(([0], np.cumsum(np.bincount(packets.flow, minlength=len(packets.endpoints)))))
    flows = []
    for i, endpoint in enumerate(packets.endpoints):
        sel = order[bounds[i]:bounds[i + 1]] if order is not None else slice(None)
        flows.append(_block(packets.seq[sel], packets.size[sel], rx[sel], delay[sel], endpoint))
    total = _total(flows, rx, delay)
    sender = bool(packets.tx_s[0] == packets.rx_s[0] and np.array_equal(packets.tx_s, packets.rx_s))
    return Summary(flows, total, packets.error_lines, sender, crossed)


def _stable_order(flow: np.ndarray, n_flows: int) -> np.ndarray:
    """Packets grouped by flow, file order kept within each: numpy's stable
    sort is a radix sort for 16-bit keys, several times faster than for int64."""
    return np.argsort(flow.astype(np.uint16) if n_flows <= 2**16 else flow, kind="stable")


def _unwrap_midnight(tx: np.ndarray, rx: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Receive times made monotonic across midnight (file order is arrival
    order) and delays with the day put back; unchanged when nothing wraps."""
    delay = rx - tx
    # a step back of half a day needs times half a day apart: two reductions
    # rule it out without the array of steps
    back = rx.max() - rx.min() > _HALF_DAY_S and np.diff(rx).min() < -_HALF_DAY_S
    wrapped = max(delay.max(), -delay.min()) > _HALF_DAY_S
    if back:
        rx = rx + _DAY_S * np.concatenate(([0], np.cumsum(np.diff(rx) < -_HALF_DAY_S)))
    if wrapped:
        delay = delay + _DAY_S * ((delay < -_HALF_DAY_S).astype(np.float64) - (delay > _HALF_DAY_S))
    return rx, delay, bool(back or wrapped)


# ITGDec adds left to right; numpy's sums are pairwise (more accurate). The two
# differ by ~1e-16 relative, some ten orders of magnitude below the printed
# microseconds: the tests compare every printed digit on every fixture.

def _mean_sd(delay: np.ndarray) -> tuple[float, float]:
    """ITGDec's mean and population sd: sqrt(E[d^2] - E[d]^2), 0 if negative."""
    n = len(delay)
    mean = float(delay.sum()) / n
    var = float(np.dot(delay, delay)) / n - mean * mean
    return mean, (math.sqrt(var) if var > 0 else 0.0)


def _jitter(delay: np.ndarray) -> float:
    """Mean |D_i - D_(i-1)| over consecutive packets in file order."""
    return float(np.abs(np.diff(delay)).sum()) / (len(delay) - 1) if len(delay) > 1 else 0.0


def _block(seq, size, rx, delay, endpoint) -> Stats:
    mean, sd = _mean_sd(delay)
    lost, dup, events = loss_counters(seq)
    return Stats(
        packets=len(seq), bytes=float(np.sum(size, dtype=np.int64)), first_rx_s=float(rx.min()),
        last_rx_s=float(rx.max()), min_delay_s=float(delay.min()), max_delay_s=float(delay.max()),
        mean_delay_s=mean, sd_delay_s=sd, jitter_s=_jitter(delay), lost=lost, duplicates=dup,
        loss_events=events, endpoints=endpoint,
    )


def _total(flows: list[Stats], rx: np.ndarray, delay: np.ndarray) -> Stats:
    """The TOTAL block: delay and jitter over all packets in file order (so its
    jitter mixes flows, as ITGDec's does), counts summed over the flows."""
    mean, sd = _mean_sd(delay)
    return Stats(
        packets=sum(f.packets for f in flows), bytes=sum(f.bytes for f in flows),
        first_rx_s=float(rx.min()), last_rx_s=max(f.last_rx_s for f in flows),
        min_delay_s=min(f.min_delay_s for f in flows), max_delay_s=max(f.max_delay_s for f in flows),
        mean_delay_s=mean, sd_delay_s=sd, jitter_s=_jitter(delay),
        lost=sum(f.lost for f in flows) % 2**32, duplicates=sum(f.duplicates for f in flows),
        loss_events=sum(f.loss_events for f in flows) % 2**32,
    )


def loss_counters(seq: np.ndarray) -> tuple[int, int, int]:
    """ITGDec's (lost, duplicated, loss events) of one flow, vectorised.

    ITGDec numbers from 1 and, after each packet k >= 2, keeps the highest
    sequence number M_k, the duplicates D_k = max(D_{k-1}, k - M_k) and the
    loss L_k = M_k - k + D_k (max seq - received + duplicates). A loss event
    starts when seq_k > L_{k-1} + k and is taken back when the loss shrinks
    outside a duplicate step. A duplicate is only seen once the count of
    packets overtakes M_k, so losses hide earlier duplicates (as in ITGDec).
    """
    n = len(seq)
    if n < 2:
        return 0, 0, 0
    seq = seq.astype(np.int64)
    k = np.arange(1, n + 1, dtype=np.int64)
    high = np.maximum.accumulate(seq)
    ahead = k - high
    ahead[0] = 0
    dup = np.maximum.accumulate(np.maximum(ahead, 0))
    loss = high - k + dup
    loss[0] = 0
    prev_loss, prev_dup = loss[:-1], dup[:-1]
    dup_step = ahead[1:] > prev_dup
    starts = np.count_nonzero(seq[1:] > prev_loss + k[1:])
    undone = np.count_nonzero(~dup_step & (loss[1:] < prev_loss))
    return int(loss[-1]), int(dup[-1]), int(starts - undone) % 2**32
