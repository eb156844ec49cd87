"""Waiting until a testbed's servers are ready: each one's port probed,
with a deadline, by one loop shared by local and lab-host server sets.

A sleep after starting a server either wastes time or is too short on a
loaded machine, and a client that starts before its server fails the run.
A TCP server is ready when its port accepts a TCP connection. A UDP server
(``iperf -s -u``) has nothing to connect to, so it is ready once the kernel
shows a UDP socket bound to its port. How to look is the probe's business:
inside a namespace testbed a connect and /proc/net/udp from a thread that
joined the receiver's network namespace (:class:`NamespaceProbe`); on a lab
host its listening sockets as the host lists them over SSH (hosts.py).
"""

from __future__ import annotations

import ctypes
import os
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Literal, Protocol, Sequence

from analysis.collect.dialects import proc_net_sockets
from analysis.collect.testbed import TestbedError

READY_S = 10.0  # how long a started server may take to be ready
CLONE_NEWNET = 0x40000000


@dataclass(frozen=True)
class Endpoint:
    """Where a server listens: transport and port."""

    transport: Literal["tcp", "udp"]
    port: int

    def absent(self, address: str | None) -> str:
        """What not being ready means, in words (``address``: where a TCP probe connected, if it did)."""
        if self.transport == "tcp" and address:
            return f"nothing accepts TCP connections on {address} port {self.port}"
        return f"no {'listening TCP' if self.transport == 'tcp' else 'bound UDP'} socket on port {self.port}"


class ServerNotReady(TestbedError):
    """A started server that exited, or whose port did not answer in time (``server``: which)."""

    def __init__(self, message: str, server: "Started"):
        super().__init__(message)
        self.server = server

    def with_log(self, log: Path) -> "ServerNotReady":
        """This error with the end of the server's log, when there is one."""
        said = log.read_text(errors="replace").strip()[-300:] if log.is_file() else ""
        return ServerNotReady(f"{self}: {said}" if said else f"{self} (log: {log})", self.server)


class Started(Protocol):
    """A server as readiness sees it."""

    @property
    def alive(self) -> bool: ...
    @property
    def command(self) -> str: ...
    @property
    def endpoint(self) -> Endpoint: ...


Probe = Callable[[Sequence[Endpoint]], set[Endpoint]]  # the endpoints that answer now


@dataclass
class Readiness:
    """Poll ``probe`` until every server's endpoint answers; an exited server
    or the deadline is a :class:`ServerNotReady` naming where and which port."""

    where: str  # who is probed, as the error names it: "host bob (lab@192.0.2.20:22)"
    address: str | None  # the address a TCP probe connects to (None: the probe reads socket tables)
    probe: Probe
    deadline_s: float = READY_S
    interval_s: float = 0.05

    def wait(self, servers: Sequence[Started]) -> None:
        end = time.monotonic() + self.deadline_s
        pending = list(servers)
        while True:
            dead = [s for s in pending if not s.alive]
            if dead:
                raise ServerNotReady(f"{self.where}: server exited before it was ready: {dead[0].command}", dead[0])
            answering = self.probe([s.endpoint for s in pending]) if pending else set()
            pending = [s for s in pending if s.endpoint not in answering]
            if not pending:
                return
            if time.monotonic() >= end:
                s = pending[0]
                raise ServerNotReady(f"{self.where}: server not ready after {self.deadline_s:g} s: "
                                     f"{s.endpoint.absent(self.address)} ({s.command})", s)
            time.sleep(self.interval_s)


@dataclass
class NamespaceProbe:
    """Probes run from a thread that joined the network namespace at
    ``netns`` (a file like /run/netns/NAME; None: this process's own), so
    they see the receiver's addresses and sockets as its servers do."""

    netns: Path | None
    address: str
    timeout_s: float = 1.0

    def __call__(self, endpoints: Sequence[Endpoint]) -> set[Endpoint]:
        return _in_netns(self.netns, lambda: {e for e in endpoints if self._answers(e)})

    def _answers(self, e: Endpoint) -> bool:
        if e.transport == "tcp":
            try:
                socket.create_connection((self.address, e.port), self.timeout_s).close()
                return True
            except OSError:
                return False
        tables = {t: Path(f"/proc/thread-self/net/{t}").read_text() for t in ("udp", "udp6")}
        return ("udp", e.port) in proc_net_sockets(tables)


def _in_netns(netns: Path | None, work: Callable[[], set[Endpoint]]) -> set[Endpoint]:
    """``work()`` in a fresh thread inside ``netns`` (setns(2) changes only
    the calling thread, and that thread ends with the work)."""
    if netns is None:
        return work()
    result: list[set[Endpoint] | BaseException] = []

    def run() -> None:
        try:
            with open(netns, "rb") as f:
                if ctypes.CDLL(None, use_errno=True).setns(f.fileno(), CLONE_NEWNET) != 0:
                    err = ctypes.get_errno()
                    raise TestbedError(f"cannot join the network namespace {netns}: {os.strerror(err)}")
            result.append(work())
        except BaseException as exc:  # handed to the caller's thread
            result.append(exc)

    thread = threading.Thread(target=run, name="netns-probe")
    thread.start()
    thread.join()
    if isinstance(result[0], BaseException):
        raise result[0]
    return result[0]
