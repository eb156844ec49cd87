"""ITGDec's summary of a log read in parts equals the summary of the log read
whole: sums, extremes, jitter, loss counters and the midnight fix carry over
from part to part (ditg_stats.Summarizer), whatever the parts' lengths."""

from __future__ import annotations

import dataclasses
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from analysis.parsers import ditg_stats
from analysis.parsers.ditg_log import Packets
from analysis.parsers.ditg_stats import Summarizer, summarize

INTEGERS = ("packets", "lost", "duplicates", "loss_events")


@st.composite
def logs(draw):
    """Packets of 1-3 flows, interleaved, with lost, repeated and reordered
    sequence numbers, and receive times that may cross midnight."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(1, 400))
    flows = draw(st.integers(1, 3))
    flow = np.sort(rng.integers(0, flows, n)) if draw(st.booleans()) else rng.integers(0, flows, n)
    seq = np.ones(n, dtype=np.int64)
    for f in range(flows):
        mine = flow == f
        steps = rng.choice([0, 1, 1, 1, 2, 3, -1], size=mine.sum())
        seq[mine] = np.maximum(1, 1 + np.cumsum(steps))
    start = draw(st.sampled_from([3600.0, 86_399.9]))  # an hour after midnight, or 0.1 s before it
    rx = start + np.cumsum(rng.uniform(1e-4, 2e-3, n))
    rx = np.where(rx >= 86_400, rx - 86_400, rx)
    tx = rx - rng.uniform(1e-5, 1e-3, n)
    tx = np.where(tx < 0, tx + 86_400, tx)
    flow = _renumbered_by_first_appearance(flow)  # as a reader numbers flows
    flow_ids = [int(i) for i in rng.integers(1, 3, flows)]
    endpoints = [(flow_ids[f], "198.18.0.1", 9000 + f, "198.18.0.2", 8999) for f in range(int(flow.max()) + 1)]
    packets = Packets(flow, endpoints, seq, rng.integers(64, 1500, n), tx, rx)
    cuts = sorted(set(draw(st.lists(st.integers(1, max(1, n - 1)), max_size=6))))
    return packets, [0, *cuts, n]


def _in_parts(packets: Packets, bounds: list[int]):
    summarizer = Summarizer()
    for a, b in zip(bounds, bounds[1:]):
        part = packets.slice(a, b)
        seen = int(packets.flow[:b].max()) + 1  # flows appear as the log is read
        summarizer.add(dataclasses.replace(part, endpoints=packets.endpoints[:seen]))
    return summarizer.summary()


@given(logs())
def test_a_log_read_in_parts_has_the_summary_of_the_whole_log(case):
    packets, bounds = case
    _check_same(_in_parts(packets, bounds), summarize(packets))


@given(logs())
def test_parts_of_many_flows_summarised_together_give_the_same_summary(case):
    """Parts whose flows interleave wait and are summarised together: here
    every part with two flows or more, in batches of some 50 packets."""
    packets, bounds = case
    whole = summarize(packets)
    with mock.patch.object(ditg_stats, "_MANY_FLOWS", 1), mock.patch.object(ditg_stats, "_MANY_FLOWS_BATCH", 50):
        parts = _in_parts(packets, bounds)
    _check_same(parts, whole)


def _check_same(parts, whole) -> None:
    assert parts.crosses_midnight == whole.crosses_midnight and parts.sender_log == whole.sender_log
    for ours, theirs in zip([*parts.flows, parts.total], [*whole.flows, whole.total], strict=True):
        for field in dataclasses.fields(theirs):
            mine, reference = getattr(ours, field.name), getattr(theirs, field.name)
            if field.name in INTEGERS or field.name == "endpoints":
                assert mine == reference, field.name
            else:
                assert mine == pytest.approx(reference, rel=1e-12, abs=1e-12), field.name


def _renumbered_by_first_appearance(flow: np.ndarray) -> np.ndarray:
    """Flow numbers as a reader gives them: 0, 1, ... in order of first appearance."""
    order = list(dict.fromkeys(flow.tolist()))
    return np.array([order.index(f) for f in flow.tolist()], dtype=np.int64)
