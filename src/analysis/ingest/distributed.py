"""Ingest on a Dask cluster: each raw file is one task on a worker, and the
driver takes the answers back in the campaign's file order.

A task gets a campaign-relative path; the worker reads and parses the file
where it is and writes a packet log's packets to ``<out>/packets/`` itself,
so only the small per-file answer (outcome, hash, tidy rows) travels back.
The driver adds the answers to the tables in file order whatever order they
finish in, so the tables are the same as a single-process ingest's.

Every worker must therefore see the raw campaign and the output folder at the
same absolute paths (a shared filesystem), and import the same netrepro
(docs/architecture.md, "Ingest on a Dask cluster").
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import os
import uuid
from collections.abc import Callable, Hashable, Iterator, Sequence
from concurrent.futures import CancelledError
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from distributed import Client, Future, LocalCluster, as_completed, get_worker
from distributed.comm.addressing import parse_address
from distributed.comm.registry import get_backend

import analysis
from analysis.errors import NetreproError
from analysis.ingest.manifest import MANIFEST_NAME

T = TypeVar("T")

SHARED = "the raw campaign and the output folder must be on a shared filesystem, at the same path on every worker"


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


@contextmanager
def dask_client(scheduler: str | None = None, workers: int | None = None) -> Iterator[Client]:
    """A client of the running scheduler at ``scheduler`` (e.g. tcp://host:8786),
    or of a new local cluster of ``workers`` processes of one thread each on
    127.0.0.1; closed on leaving (the local cluster too). The connect timeout
    is Dask's ``distributed.comm.timeouts.connect`` (30 s unless configured)."""
    if (scheduler is None) == (workers is None):
        raise ValueError("give a scheduler address or a number of workers")
    if scheduler is not None:
        try:  # a malformed address is refused before a Client exists: a failed one can hang on closing
            scheme, location = parse_address(scheduler)
            get_backend(scheme).get_address_host_port(location)
        except (ValueError, TypeError) as exc:
            raise NetreproError(f"{scheduler}: not a Dask scheduler address (e.g. tcp://host:8786): {_one_line(exc)}") from None
        try:
            client = Client(scheduler, set_as_default=False)
        except Exception as exc:  # refused, timed out, not a scheduler, a malformed address
            raise NetreproError(f"{scheduler}: cannot connect to the Dask scheduler: {_one_line(exc)}") from None
        with client:
            yield client
        return
    assert workers is not None
    if workers < 1:
        raise NetreproError(f"-j {workers}: the number of worker processes must be at least 1")
    try:
        # only on the loopback; no dashboard, and the scheduler's HTTP endpoint
        # (health, metrics) on a free port rather than 8787, which another cluster may hold
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None, scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                               silence_logs=logging.ERROR)
    except Exception as exc:
        raise NetreproError(f"-j {workers}: cannot start a local Dask cluster: {_one_line(exc)}") from None
    with cluster, Client(cluster, set_as_default=False) as client:
        yield client


@functools.cache
def loaded_code() -> str:
    """:func:`analysis.source_fingerprint` as this process first saw it
    (cached, so a long-lived worker keeps the hash of the code it imported
    even after the files change)."""
    return analysis.source_fingerprint()


def _sees(code: str, manifest: str, manifest_sha256: str, probe: str | None) -> str | None:
    """On a worker: why it cannot do the ingest's file tasks, or None."""
    if loaded_code() != code:
        return ("runs another netrepro than the driver (a different version or commit, or a worker "
                "started before the code changed): install the driver's and restart the worker")
    try:
        with open(manifest, "rb") as f:
            seen = hashlib.sha256(f.read()).hexdigest()
    except OSError as exc:
        return f"cannot read the campaign's manifest {manifest} ({exc.strerror}): {SHARED}"
    if seen != manifest_sha256:
        return f"reads another {manifest} than the driver (a copy of the campaign, not the same folder?): {SHARED}"
    if probe is not None:
        folder = os.path.dirname(probe)
        if not os.path.isfile(probe):
            return f"does not see the output folder {folder} that the driver made: {SHARED}"
        if not os.access(folder, os.W_OK | os.X_OK):
            return f"cannot write to the output folder {folder}"
    return None


def check_workers_see(client: Client, campaign_dir: Path, packets_root: Path | None, timeout: float = 60) -> None:
    """Fail early, naming the worker, when a worker runs other netrepro code
    than the driver (the tables would differ), does not see the driver's
    campaign (its manifest, byte for byte) or the packets folder the driver
    made (a file the driver leaves there for the check), or cannot write there."""
    try:
        client.wait_for_workers(1, timeout=timeout)
    except (TimeoutError, asyncio.TimeoutError):  # distinct before Python 3.11
        raise NetreproError(f"{client.scheduler.address if client.scheduler else 'the scheduler'}: "
                            f"no Dask worker connected within {timeout:g} s") from None
    manifest = campaign_dir / MANIFEST_NAME
    probe = packets_root / f".netrepro-probe-{uuid.uuid4().hex}" if packets_root is not None else None
    try:
        if probe is not None:
            probe.touch()
        answers = client.run(_sees, loaded_code(), str(manifest), hashlib.sha256(manifest.read_bytes()).hexdigest(),
                             str(probe) if probe is not None else None, on_error="return")
    finally:
        if probe is not None:
            probe.unlink(missing_ok=True)
    for worker, why in sorted(answers.items()):
        if isinstance(why, BaseException):  # an older netrepro's check, or none at all
            raise NetreproError(f"Dask worker {worker}: cannot run this netrepro's check ({_one_line(why)}): "
                                "install the driver's netrepro there and restart the worker")
        if why:
            raise NetreproError(f"Dask worker {worker}: {why}")


class _ItemFailed(Exception):
    """Raised on a worker when ``task(item)`` raised: which item, which worker, and the error in one line."""


def _call_batch(task: Callable[[str], T], items: list[str]) -> list[T]:
    out = []
    for item in items:
        try:
            out.append(task(item))
        except Exception as exc:
            raise _ItemFailed(item, get_worker().address, _one_line(exc)) from None
    return out


def batches(sizes: Sequence[int], threads: int, max_bytes: int = 32 << 20, max_items: int = 256) -> list[range]:
    """Consecutive items grouped into tasks of about ``sum(sizes) / (4 * threads)``
    bytes (at most ``max_bytes`` and ``max_items``; a larger item alone).

    A task costs the cluster a few milliseconds whatever it does, more than
    parsing a small text output, while a large packet log takes seconds: so
    small files travel together and large ones alone, and there are still
    about four tasks per worker thread to balance the load."""
    target = max(1, min(max_bytes, sum(sizes) // (4 * max(threads, 1))))
    out, start, weight = [], 0, 0
    for i, size in enumerate(sizes):
        if i > start and (weight + size > target or i - start >= max_items):
            out.append(range(start, i))
            start, weight = i, 0
        weight += size
    if start < len(sizes):
        out.append(range(start, len(sizes)))
    return out


def map_in_order(client: Client, task: Callable[[str], T], items: Sequence[str], sizes: Sequence[int] | None = None,
                 on_done: Callable[[int], None] | None = None, window: int | None = None) -> Iterator[T]:
    """``task(item)`` for every item on the cluster's workers, yielded in the
    order of ``items``; ``on_done(n)`` is called as each task's n items finish,
    in any order.

    Items go to the workers in tasks of consecutive items grouped by ``sizes``
    (bytes; see :func:`batches`). ``task`` must pickle; it is sent to every
    worker once. At most ``window`` tasks are on the cluster at once (default:
    four per worker thread, at least 16), which bounds what waits on the
    driver for an earlier item. A task that raises stops everything: the
    error names its item."""
    if not items:
        return
    threads = sum(client.nthreads().values())
    groups = batches(sizes if sizes is not None else [1] * len(items), threads)
    (remote,) = client.scatter([task], broadcast=True, hash=False)
    window = window or max(16, 4 * threads)
    prefix = f"netrepro-ingest-{uuid.uuid4().hex[:12]}"
    running: dict[Hashable, tuple[int, Future]] = {}
    finishing = as_completed(loop=client.loop)
    submitted = 0

    def submit() -> None:
        nonlocal submitted
        group = groups[submitted]
        future = client.submit(_call_batch, remote, [items[i] for i in group], key=f"{prefix}-{group.start}")
        running[future.key] = (submitted, future)
        finishing.add(future)
        submitted += 1

    while submitted < min(window, len(groups)):
        submit()
    finished: dict[int, list[T]] = {}
    next_out = 0
    try:
        for future in finishing:
            g, _ = running.pop(future.key)
            try:
                finished[g] = future.result()
            except _ItemFailed as exc:
                item, worker, why = exc.args
                raise NetreproError(f"{item}: failed on Dask worker {worker}: {why}") from None
            except (Exception, CancelledError) as exc:  # the worker died, the scheduler went away
                group = groups[g]
                where = items[group.start] if len(group) == 1 else f"one of {items[group.start]} … {items[group[-1]]}"
                raise NetreproError(f"{where}: failed on a Dask worker: {_one_line(exc)}") from None
            future.release()
            if submitted < len(groups):
                submit()
            if on_done is not None:
                on_done(len(groups[g]))
            while next_out in finished:
                yield from finished.pop(next_out)
                next_out += 1
    finally:
        if running:
            client.cancel([f for _, f in running.values()])
        remote.release()
