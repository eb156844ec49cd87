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
    summarizer = Summarizer()
    summarizer.add(packets)
    return summarizer.summary()


@dataclass(slots=True)
class _Running:
    """What one block (a flow, or all packets for the TOTAL) carries from
    one part of a log to the next."""

    packets: int = 0
    bytes: int = 0
    first_rx: float = math.inf
    last_rx: float = -math.inf
    min_delay: float = math.inf
    max_delay: float = -math.inf
    delay_sum: float = 0.0
    delay_squares: float = 0.0
    jitter_sum: float = 0.0
    last_delay: float = 0.0

    def add(self, size: np.ndarray | None, rx: np.ndarray, delay: np.ndarray) -> None:
        if self.packets:
            self.jitter_sum += abs(float(delay[0]) - self.last_delay)
        self.jitter_sum += float(np.abs(np.diff(delay)).sum())
        self.packets += len(delay)
        if size is not None:
            self.bytes += int(np.sum(size, dtype=np.int64))
        self.first_rx, self.last_rx = min(self.first_rx, float(rx.min())), max(self.last_rx, float(rx.max()))
        self.min_delay, self.max_delay = min(self.min_delay, float(delay.min())), max(self.max_delay, float(delay.max()))
        self.delay_sum += float(delay.sum())
        self.delay_squares += float(np.dot(delay, delay))
        self.last_delay = float(delay[-1])

    def mean_sd(self) -> tuple[float, float]:
        """ITGDec's mean and population sd: sqrt(E[d^2] - E[d]^2), 0 if negative."""
        mean = self.delay_sum / self.packets
        var = self.delay_squares / self.packets - mean * mean
        return mean, (math.sqrt(var) if var > 0 else 0.0)

    def jitter(self) -> float:
        """Mean |D_i - D_(i-1)| over consecutive packets in file order."""
        return self.jitter_sum / (self.packets - 1) if self.packets > 1 else 0.0


_MANY_FLOWS = 64  # a part whose flow numbers span this many is summarised with others
_MANY_FLOWS_BATCH = 1 << 20  # packets


class Summarizer:
    """ITGDec's summary of a log fed part by part (:meth:`add`, in file
    order), so a log of any length is summarised in the memory of one part:
    every sum, extreme, jitter and loss counter carries over from one part
    to the next, and the result is the one of the whole log at once."""

    def __init__(self) -> None:
        self._waiting: list[Packets] = []
        self._flows: list[_Running] = []
        self._losses: list[LossCounter] = []
        self._total = _Running()
        self._endpoints: list[Endpoint] = []
        self.error_lines = 0
        self._sender = True
        self._crossed = False
        self._last_raw_rx: float | None = None
        self._days = 0

    def add(self, packets: Packets) -> None:
        """The next packets of the log (flow numbers shared with the parts
        before). Each flow of a part costs a few numpy calls, so parts where
        many flows interleave wait to be summarised together, up to
        :data:`_MANY_FLOWS_BATCH` packets (a log of 2,000 flows sent side by
        side: five times faster)."""
        if len(packets.seq) and int(packets.flow.max()) - int(packets.flow.min()) >= _MANY_FLOWS:
            self._waiting.append(packets)
            if sum(len(p.seq) for p in self._waiting) >= _MANY_FLOWS_BATCH:
                self._flush()
            return
        self._flush()
        self._add(packets)

    def _flush(self) -> None:
        if self._waiting:
            waiting, self._waiting = self._waiting, []
            self._add(Packets.join(waiting))

    def _add(self, packets: Packets) -> None:
        self.error_lines += packets.error_lines
        self._endpoints = packets.endpoints
        while len(self._flows) < len(packets.endpoints):
            self._flows.append(_Running())
            self._losses.append(LossCounter())
        if not len(packets.seq):
            return
        self._sender &= bool(packets.tx_s[0] == packets.rx_s[0] and np.array_equal(packets.tx_s, packets.rx_s))
        rx, delay = self._unwrap_midnight(packets.tx_s, packets.rx_s)
        self._total.add(None, rx, delay)
        first, last = int(packets.flow.min()), int(packets.flow.max())
        if first == last:
            self._add_flow(first, packets.seq, packets.size, rx, delay)
            return
        order = _stable_order(packets.flow, last + 1)
        bounds = np.concatenate(([0], np.cumsum(np.bincount(packets.flow, minlength=last + 1))))
        for i in np.flatnonzero(np.diff(bounds)):
            sel = order[bounds[i]:bounds[i + 1]]
            self._add_flow(int(i), packets.seq[sel], packets.size[sel], rx[sel], delay[sel])

    def _add_flow(self, i: int, seq: np.ndarray, size: np.ndarray, rx: np.ndarray, delay: np.ndarray) -> None:
        self._flows[i].add(size, rx, delay)
        self._losses[i].add(seq)

    def _unwrap_midnight(self, tx: np.ndarray, rx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Receive times made monotonic across midnight (file order is arrival
        order) and delays with the day put back; unchanged when nothing wraps."""
        delay = rx - tx
        last = rx[-1]
        low, high = float(rx.min()), float(rx.max())
        if self._last_raw_rx is not None:
            low, high = min(low, self._last_raw_rx), max(high, self._last_raw_rx)
        # a step back of half a day needs times half a day apart: two reductions
        # rule it out without the array of steps
        days: int | np.ndarray = self._days  # days to add to each receive time
        if high - low > _HALF_DAY_S:
            before = rx[0] if self._last_raw_rx is None else self._last_raw_rx
            steps = np.diff(rx, prepend=before) < -_HALF_DAY_S
            if steps.any():
                self._crossed = True
                days = self._days + np.cumsum(steps)
                self._days = int(days[-1])
        if np.any(days):
            rx = rx + _DAY_S * days
        if max(delay.max(), -delay.min()) > _HALF_DAY_S:
            self._crossed = True
            delay = delay + _DAY_S * ((delay < -_HALF_DAY_S).astype(np.float64) - (delay > _HALF_DAY_S))
        self._last_raw_rx = float(last)
        return rx, delay

    def summary(self) -> Summary:
        self._flush()
        if not self._total.packets:
            raise ValueError("no valid packet")
        flows = [_block(running, loss, endpoint)
                 for running, loss, endpoint in zip(self._flows, self._losses, self._endpoints)]
        return Summary(flows, _total(flows, self._total), self.error_lines, self._sender, self._crossed)


def _stable_order(flow: np.ndarray, n_flows: int) -> np.ndarray:
    """Packets grouped by flow, file order kept within each: numpy's stable
    sort is a radix sort for 16-bit keys, several times faster than for int64."""
    return np.argsort(flow.astype(np.uint16) if n_flows <= 2**16 else flow, kind="stable")


# ITGDec adds left to right; numpy's sums are pairwise (more accurate) and here
# they are also added part by part. The two differ by ~1e-16 relative, some ten
# orders of magnitude below the printed microseconds: the tests compare every
# printed digit on every fixture, read whole and in parts.

def _block(running: _Running, loss: LossCounter, endpoint: Endpoint) -> Stats:
    mean, sd = running.mean_sd()
    lost, dup, events = loss.result()
    return Stats(
        packets=running.packets, bytes=float(running.bytes), first_rx_s=running.first_rx,
        last_rx_s=running.last_rx, min_delay_s=running.min_delay, max_delay_s=running.max_delay,
        mean_delay_s=mean, sd_delay_s=sd, jitter_s=running.jitter(), lost=lost, duplicates=dup,
        loss_events=events, endpoints=endpoint,
    )


def _total(flows: list[Stats], running: _Running) -> Stats:
    """The TOTAL block: delay and jitter over all packets in file order (so its
    jitter mixes flows, as ITGDec's does), counts summed over the flows."""
    mean, sd = running.mean_sd()
    return Stats(
        packets=sum(f.packets for f in flows), bytes=sum(f.bytes for f in flows),
        first_rx_s=running.first_rx, last_rx_s=max(f.last_rx_s for f in flows),
        min_delay_s=min(f.min_delay_s for f in flows), max_delay_s=max(f.max_delay_s for f in flows),
        mean_delay_s=mean, sd_delay_s=sd, jitter_s=running.jitter(),
        lost=sum(f.lost for f in flows) % 2**32, duplicates=sum(f.duplicates for f in flows),
        loss_events=sum(f.loss_events for f in flows) % 2**32,
    )


def loss_counters(seq: np.ndarray) -> tuple[int, int, int]:
    """ITGDec's (lost, duplicated, loss events) of one flow's sequence numbers."""
    counter = LossCounter()
    counter.add(seq)
    return counter.result()


class LossCounter:
    """ITGDec's loss counters of one flow, vectorised, fed part by part.

    ITGDec numbers from 1 and, after each packet k >= 2, keeps the highest
    sequence number M_k, the duplicates D_k = max(D_{k-1}, k - M_k) and the
    loss L_k = M_k - k + D_k (max seq - received + duplicates). A loss event
    starts when seq_k > L_{k-1} + k and is taken back when the loss shrinks
    outside a duplicate step. A duplicate is only seen once the count of
    packets overtakes M_k, so losses hide earlier duplicates (as in ITGDec).
    What carries from one part to the next is k, M, D, L and the events.
    """

    def __init__(self) -> None:
        self.count = 0
        self.high = 0
        self.dup = 0
        self.loss = 0
        self.events = 0

    def add(self, seq: np.ndarray) -> None:
        n = len(seq)
        if not n:
            return
        seq = seq.astype(np.int64)
        k = np.arange(self.count + 1, self.count + n + 1, dtype=np.int64)
        high = np.maximum.accumulate(seq)
        if self.count:
            np.maximum(high, self.high, out=high)
        ahead = k - high
        if not self.count:
            ahead[0] = 0
        dup = np.maximum.accumulate(np.maximum(ahead, 0))
        np.maximum(dup, self.dup, out=dup)
        loss = high - k + dup
        if not self.count:
            loss[0] = 0
        prev_loss = np.concatenate(([self.loss], loss[:-1]))
        prev_dup = np.concatenate(([self.dup], dup[:-1]))
        dup_step = ahead > prev_dup
        starts = seq > prev_loss + k
        undone = ~dup_step & (loss < prev_loss)
        if not self.count:  # the comparisons begin with the second packet
            starts[0] = undone[0] = False
        self.events += int(np.count_nonzero(starts)) - int(np.count_nonzero(undone))
        self.count += n
        self.high, self.dup, self.loss = int(high[-1]), int(dup[-1]), int(loss[-1])

    def result(self) -> tuple[int, int, int]:
        """(lost, duplicated, loss events); ITGDec's counters are uint32."""
        if self.count < 2:
            return 0, 0, 0
        return self.loss, self.dup, self.events % 2**32
