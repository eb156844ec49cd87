"""A testbed of real lab hosts (plan ``kind: hosts``), driven over SSH.

The sender runs the clients, the receiver the servers; routers in between
only give their facts. Each host gets a scratch folder the collector makes
and removes; every output a step writes there is copied back and checked
against the SHA-256 the host computes, then deleted on the host. Servers
and steps are stopped by the PID their host reported. The collector changes
nothing else on a lab host: MTU, offloads and TCP stack are recorded (host
facts), not set.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any, ClassVar, Sequence

from analysis.collect.dialects import CPU_MARK
from analysis.collect.hostfacts import CpuSample, cpu_percent
from analysis.collect.plan import EXECUTABLES, HostSpec, Ports, TestbedSpec
from analysis.collect.readiness import READY_S, Endpoint, Readiness, ServerNotReady
from analysis.collect.scratch import make_scratch
from analysis.collect.runners import Step, StepResult, server_commands
from analysis.collect.ssh import HostError, HostLost, Remote, SshHost, exit_status, pump
from analysis.collect.testbed import BuiltOnEnter, TestbedError

SAME_HOST_CLOCK = "one host: sender and receiver share its clock"


def needed_executables(tools: set[str], side: str) -> list[str]:
    return sorted({x for t in tools for x in EXECUTABLES[t][side]})


@dataclass
class HostsTestbed(BuiltOnEnter):
    """A ``kind: hosts`` testbed; a context manager like :class:`~analysis.collect.testbed.Testbed`."""

    __test__ = False

    name: str
    spec: TestbedSpec
    plan_hosts: dict[str, HostSpec]
    tools: set[str]  # the tools the plan runs on this testbed
    hosts: dict[str, SshHost] = field(default_factory=dict)
    host_facts: dict[str, dict[str, Any]] = field(default_factory=dict)
    clock: dict[str, Any] = field(default_factory=dict)
    ctl_dir: Path | None = None
    prefix: str | None = None  # a namespace testbed's; none here
    namespaces: tuple[str, ...] = ()
    #: a lab host keeps its scratch folder until teardown removes it (a UML guest's is in its tmpfs, gone when it stops)
    workdirs_outlive_hosts: ClassVar[bool] = True

    @property
    def sender(self) -> SshHost:
        return self.hosts[str(self.spec.sender)]

    @property
    def receiver(self) -> SshHost:
        return self.hosts[str(self.spec.receiver)]

    def target(self, ip_version: int) -> str:
        address = self.plan_hosts[str(self.spec.receiver)].test_address(ip_version)
        if address is None:
            raise TestbedError(f"testbed {self.name}: no IPv{ip_version} address for {self.spec.receiver}")
        return address

    @property
    def owd_allowed(self) -> bool:
        """One-way delays are kept only when a clock sync is recorded (or the plan waives it)."""
        return bool(self.clock.get("sync")) or self.spec.owd_without_clock_sync

    # --- life cycle -----------------------------------------------------------------
    def build(self) -> None:
        self.ctl_dir = make_scratch("nr-ssh-")
        sides = {str(self.spec.sender): "sender", str(self.spec.receiver): "receiver"}
        names = list(dict.fromkeys([str(self.spec.sender), str(self.spec.receiver), *self.spec.routers]))
        for name in names:
            host = SshHost(name, self.plan_hosts[name], self.ctl_dir)
            self.hosts[name] = host
            host.connect()
        for name, side in sides.items():
            self._check_tools(self.hosts[name])
        for name in names:
            host = self.hosts[name]
            if name in sides:
                host.make_workdir()
            self.host_facts[name] = self._facts(host)
            if name not in sides:
                host.close()  # a router only gives its facts
        self.clock = self._clock()

    def _executables(self, host: SshHost) -> list[str]:
        wanted: set[str] = set()
        if host.name == self.spec.sender:
            wanted |= set(needed_executables(self.tools, "sender"))
        if host.name == self.spec.receiver:
            wanted |= set(needed_executables(self.tools, "receiver"))
        return sorted(wanted)

    def _check_tools(self, host: SshHost) -> None:
        wanted = self._executables(host)
        missing = host.missing([host.spec.executable(x) for x in wanted])
        if missing:
            which = [x for x in wanted if host.spec.executable(x) in missing]
            raise HostError(f"{host.label}: {', '.join(missing)} not found; install "
                            f"{'it' if len(missing) == 1 else 'them'} or give the path under hosts.{host.name}.tools "
                            f"({', '.join(f'{x}: /path/to/{x}' for x in which)})")

    def _facts(self, host: SshHost) -> dict[str, Any]:
        spec = host.spec
        own = spec.test_address(4) or spec.test_address(6)
        peer = None
        if host.name == self.spec.sender and host.name != self.spec.receiver:
            receiver = self.plan_hosts[str(self.spec.receiver)]
            peer = receiver.test_address(4) or receiver.test_address(6)
        exes = {x: spec.executable(x) for x in self._executables(host)}
        text = host.run(host.dialect.facts(exes, None if peer else own, peer), timeout=60).out.decode(errors="replace")
        facts = host.dialect.parse_facts(text)
        facts["clock"] = host.clock_offset()
        roles = [r for r, h in (("sender", self.spec.sender), ("receiver", self.spec.receiver)) if h == host.name]
        facts["ssh"] = {"address": spec.address, "port": spec.port, "user": spec.user, "dialect": spec.dialect,
                        "roles": roles or ["router"], "tools": exes}
        facts["workdir"] = host.workdir
        return facts

    def remove_stale(self, earlier: dict[str, Any]) -> list[str]:
        """Remove the scratch folders an interrupted session left on hosts
        it could no longer reach (``earlier``: that session's host facts)."""
        removed = []
        for name, facts in earlier.items():
            host, old = self.hosts.get(name), (facts or {}).get("workdir")
            if host is None or not host.connected or not old or old == host.workdir:
                continue
            try:
                host.run(host.dialect.remove_workdir(old), check=False)
                removed.append(f"{name}:{old}")
            except (HostError, ValueError):
                continue
        return removed

    def _clock(self) -> dict[str, Any]:
        """The clock sync one-way delays rely on, as recorded: declared in
        the plan, one host for both ends, or both hosts reporting a
        synchronised clock discipline (chrony, ntpd, timesyncd, w32time)."""
        snd, rcv = str(self.spec.sender), str(self.spec.receiver)
        reports = {h: self.host_facts[h].get("clock_sync") for h in (snd, rcv)}
        offsets = {h: self.host_facts[h]["clock"] for h in (snd, rcv)}
        sync: dict[str, Any] | None = None
        if self.spec.clock_sync:
            sync = {"source": self.spec.clock_sync, "recorded_by": "the plan (clock_sync)"}
        elif snd == rcv:
            sync = {"source": SAME_HOST_CLOCK, "recorded_by": "the collector"}
        elif all(r and r.get("synchronised") for r in reports.values()):
            sync = {"source": " / ".join(f"{h}: {r['source']}" for h, r in reports.items() if r),
                    "recorded_by": "the hosts"}
        return {"sync": sync, "hosts": reports, "offsets_from_collector": offsets,
                "owd_without_clock_sync": self.spec.owd_without_clock_sync}

    def teardown(self) -> None:
        for host in self.hosts.values():
            try:
                if host.connected and self.workdirs_outlive_hosts:
                    host.remove_workdir()
            except HostError:
                pass  # the host is gone; its wrappers ended with the connection
            host.close()
        if self.ctl_dir is not None:
            shutil.rmtree(self.ctl_dir, ignore_errors=True)

    # --- what a namespace testbed also offers ---------------------------------------------
    def apply_stack(self, sysctls: dict[str, str]) -> dict[str, str]:
        if sysctls:
            raise TestbedError(f"testbed {self.name}: the collector does not change a lab host's TCP stack")
        return dict(self.host_facts.get(str(self.spec.sender), {}).get("sysctls", {}))

    def set_mtu(self, mtu: int) -> None:
        raise TestbedError(f"testbed {self.name}: the collector does not change a lab host's MTU")

    def facts(self) -> dict[str, Any]:
        return {"kind": "hosts", "prefix": None, "sender": self.spec.sender, "receiver": self.spec.receiver,
                "routers": list(self.spec.routers), "hosts": self.host_facts, "clock": self.clock,
                "addresses": {"ipv4": self.plan_hosts[str(self.spec.receiver)].test_address(4),
                              "ipv6": self.plan_hosts[str(self.spec.receiver)].test_address(6)}}

    def scratch(self, side: str) -> PurePath:
        host = self.sender if side == "sender" else self.receiver
        assert host.workdir is not None
        return host.dialect.pure(host.workdir)

    # --- running --------------------------------------------------------------------
    def execute(self, step: Step, tag: str, index: int) -> StepResult:
        """Run one step on its host: start the wrapper, wait to the step's
        deadline (then stop it by its PID), copy its output back (checksum
        verified) and delete it there. A connection that breaks is HostLost."""
        host = self.sender if step.where == "sender" else self.receiver
        d, workdir = host.dialect, host.workdir
        assert workdir is not None
        out = d.path(workdir, f"{tag}.{index}.{step.label}.out")
        err = None if step.merge_stderr else d.path(workdir, f"{tag}.{index}.{step.label}.err")
        argv = [host.spec.executable(step.argv[0]), *step.argv[1:]]  # the host's own path to the tool
        started = time.time()
        remote = host.start(d.step(workdir, argv, out, err))
        try:
            finished = pump(remote, time.monotonic() + step.timeout_s)
        except BaseException:
            host.stop(remote)
            raise
        if not finished:
            host.stop(remote)
            status: int | None = None
        else:
            status = exit_status(remote)
            if status is None:
                raise HostLost(f"{host.label}: the SSH connection broke during {step.label}: "
                               f"{remote.err.decode(errors='replace').strip()[-300:] or 'no exit status came back'}")
        ended = time.time()
        extra = [] if err is not None or d.name == "posix" else [out + ".err"]  # PowerShell: stderr in its own file
        output, digest = host.fetch(out, remove=True)
        for path in extra:
            _append(host.fetch(path, remove=True)[0], output)
        stderr = b""
        if err is not None:
            if status != 0:
                spooled = host.fetch(err, remove=True)[0]
                stderr = spooled.read_bytes()  # a failing step's reason: short
                spooled.unlink()
            else:
                host.run(d.remove([err]), check=False)
        return StepResult(step, status, b"", stderr, started, ended, d.command_line(argv), host.name, digest,
                          _cpu(remote), file=output)

    def fetch_logs(self, files: dict[str, str]) -> dict[str, tuple[Path, str]]:
        """D-ITG binary logs by side ({"sender": path, ...}): a local copy and its SHA-256, removed on the host after."""
        out = {}
        for side, path in files.items():
            host = self.sender if side == "sender" else self.receiver
            try:
                out[side] = host.fetch(path, remove=True)
            except HostLost:
                raise
            except HostError:
                host.run(host.dialect.remove([path]), check=False)  # a failed run may not have written its log
        return out


def _cpu(remote: Remote) -> float | None:
    lines = remote.marks().get(CPU_MARK, [])
    if len(lines) < 2:
        return None
    samples = []
    for line in lines[:2]:
        fields = [int(x) for x in line.split()[1:]]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
        total = sum(fields[:8])
        samples.append(CpuSample(total - idle, total))
    return cpu_percent(samples[0], samples[1])


@dataclass
class RemoteServer:
    argv: list[str]
    endpoint: Endpoint
    command: str  # as the host's shell runs it
    log: str  # on the host
    remote: Remote | None = None

    @property
    def alive(self) -> bool:
        return self.remote is not None and self.remote.alive


@dataclass
class RemoteServerSet:
    """The receiving host's servers, per tool: started over SSH, ready once
    the host lists their sockets (:mod:`readiness`), stopped by the PID the
    host reported; their logs copied back when they stop."""

    host: SshHost
    ports: Ports
    logdir: Path
    servers: dict[str, list[RemoteServer]] = field(default_factory=dict)
    ready_s: float = READY_S

    def start(self, tool: str) -> None:
        d, workdir = self.host.dialect, self.host.workdir
        assert workdir is not None
        group = [RemoteServer(c.argv, c.endpoint, d.command_line(c.argv), d.path(workdir, f"server.{tool}.{i}.log"))
                 for i, c in enumerate(server_commands(tool, self.ports, self.host.spec.executable))]
        self.servers[tool] = group
        for s in group:
            s.remote = self.host.start(d.step(workdir, s.argv, s.log, None))
        try:
            Readiness(self.host.label, None, self.probe, self.ready_s).wait(group)
        except ServerNotReady as exc:
            self.stop(tool)
            which = next(i for i, s in enumerate(group) if s is exc.server)
            raise exc.with_log(self.logdir / f"{self.host.name}.{tool}.{which}.log") from None

    def probe(self, endpoints: Sequence[Endpoint]) -> set[Endpoint]:
        """The endpoints the host lists a listening (TCP) or bound (UDP) socket for: one SSH round trip."""
        listed = self.host.dialect.parse_listening(self.host.run(self.host.dialect.listening()).out.decode(errors="replace"))
        return {e for e in endpoints if (e.transport, e.port) in listed}

    def ensure(self, tool: str) -> None:
        group = self.servers.get(tool)
        if group and all(s.alive for s in group):
            return
        self.stop(tool)
        self.start(tool)

    def restart(self, tool: str) -> None:
        self.stop(tool)
        self.start(tool)

    def stop(self, tool: str | None = None) -> None:
        """Stop the servers (of every tool at once), then copy their logs back."""
        stopping = {name: self.servers.pop(name, []) for name in ([tool] if tool else list(self.servers))}
        self.host.stop(*[s.remote for group in stopping.values() for s in group if s.remote is not None])
        for name, group in stopping.items():
            for i, s in enumerate(group):
                self._keep_log(name, i, s)

    def _keep_log(self, tool: str, index: int, server: RemoteServer) -> None:
        if not self.host.connected:
            return
        try:
            copy, _ = self.host.fetch(server.log, remove=True)
        except HostError:
            return
        self.logdir.mkdir(parents=True, exist_ok=True)
        _append(copy, self.logdir / f"{self.host.name}.{tool}.{index}.log")


def _append(copy: Path, target: Path) -> None:
    """Add a fetched copy to the end of ``target`` (streamed), then remove the copy."""
    with open(copy, "rb") as src, open(target, "ab") as dst:
        shutil.copyfileobj(src, dst)
    copy.unlink()
