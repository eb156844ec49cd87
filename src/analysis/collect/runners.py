"""Tool command lines, servers and bounded execution.

Commands are argument lists, never shell strings: the collector runs as
root. Servers start inside the receiving namespace and are stopped by their
PID. Every client step runs in its own process group with a deadline; on
expiry only that group is killed, so a hung run cannot take other work with it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any, BinaryIO, Callable, NamedTuple

from analysis.collect.pipes import Pipes
from analysis.collect.plan import Ports, ToolOptions, payload_bytes
from analysis.collect.readiness import READY_S, Endpoint, NamespaceProbe, Readiness, ServerNotReady
from analysis.collect.testbed import in_ns

@dataclass(frozen=True)
class Step:
    """One client-side command of a run. ``output`` says where its output
    goes: None = a side log, "" = the run's file, ".recv" = a second
    measurement file next to it; ``log`` names the D-ITG log it decodes."""

    argv: list[str]
    timeout_s: float
    output: str | None = None
    label: str = ""
    log: str | None = None
    merge_stderr: bool = True  # ITGDec: no, its stderr is a progress spinner (one char per packets)
    where: str = "sender"  # the host that runs it (lab hosts; a namespace testbed runs ITGDec on this host)


@dataclass
class StepResult:
    step: Step
    exit_status: int | None  # None: killed at the deadline
    output: bytes
    stderr: bytes  # empty when merged into output
    started: float
    ended: float
    command: str | None = None  # a lab host's step: the command line exactly as its shell received it
    host: str | None = None  # ... that host's name
    sha256: str | None = None  # ... the output's SHA-256 as the host computed it (the copy matched it)
    cpu_pct: float | None = None  # ... that host's CPU utilisation over the step (/proc/stat), when it has one
    file: Path | None = None  # ... the output, streamed into this local file instead of ``output`` (it may be large)
    saved_at: Path | None = None  # where :meth:`save` moved that file

    def save(self, target: Path) -> None:
        """The output as the file ``target``, written whole or not at all; a
        spooled output is moved there (and copied from there if saved again)."""
        if self.file is None:
            save_output(self.output, target)
        elif self.saved_at is None:
            save_output(self.file, target)
            self.saved_at = target
        else:
            save_output(self.saved_at, target, move=False)

    def tool_error(self) -> str | None:
        """The error an iperf3 JSON output reports: iperf3 3.12 can exit with status 0
        after the server reset its control connection, leaving only ``"error"`` in the JSON."""
        if "--json" not in self.step.argv and "-J" not in self.step.argv:
            return None
        text = self.output if self.file is None else (self.saved_at or self.file).read_bytes()
        try:
            doc = json.loads(text)
        except ValueError:
            return None
        return f"iperf3 reported: {doc['error']}" if isinstance(doc, dict) and doc.get("error") else None

    def write_into(self, out: BinaryIO) -> None:
        """Append the output to an open file, streamed."""
        if self.file is None:
            out.write(self.output)
            return
        with open(self.saved_at or self.file, "rb") as src:
            shutil.copyfileobj(src, out)

    def discard(self) -> None:
        """Remove a spooled output that was never saved."""
        if self.file is not None and self.saved_at is None:
            self.file.unlink(missing_ok=True)


def save_output(data: bytes | Path, target: Path, move: bool = True) -> None:
    """``data`` (bytes, or a local file: moved unless ``move`` is false) as the
    file ``target``, through a name beside it, so a reader never sees half of it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_name(target.name + ".part")
    if isinstance(data, Path):
        if move:
            try:
                os.replace(data, target)
                return
            except OSError:  # another file system: copy, streamed
                pass
        shutil.copyfile(data, part)
        if move:
            data.unlink()
    else:
        part.write_bytes(data)
    os.replace(part, target)


def _netperf(levels: dict[str, Any], target: str, ports: Ports, duration: float, opts: ToolOptions) -> list[str]:
    transport, mode, size = levels.get("transport", "TCP"), levels["mode"], payload_bytes(levels)
    test = f"{transport}_{'STREAM' if mode == 'stream' else 'RR'}"
    argv = ["netperf", f"-{levels.get('ip_version', 4)}", "-H", target, "-p", str(ports.netperf),
            "-t", test, "-l", _secs(duration)]
    if opts.netperf_cpu:
        argv += ["-c", "-C"]
    extra = []
    if size is not None:
        extra += ["-m", str(size)] if mode == "stream" else ["-r", f"{size},{size}"]
    if test == "UDP_STREAM":
        extra += ["-R", "1"]  # netperf sets SO_DONTROUTE on UDP_STREAM unless told: no IPv4 path via routers
    return argv + (["--", *extra] if extra else [])


def _iperf_shared(levels: dict[str, Any], opts: ToolOptions) -> list[str]:
    """What iperf 2 and iperf3 spell alike: message size and the UDP offered rate."""
    size = payload_bytes(levels)
    argv = ["-l", str(size)] if size is not None else []
    if levels.get("transport", "TCP") == "UDP":
        argv += ["-u", "-b", opts.iperf3_udp_bitrate]
    return argv


def _iperf3(levels: dict[str, Any], target: str, ports: Ports, duration: float, opts: ToolOptions) -> list[str]:
    argv = ["iperf3", "-c", target, "-p", str(ports.iperf3), "-t", _secs(duration), "--json"]
    return argv + (["-6"] if levels.get("ip_version", 4) == 6 else []) + _iperf_shared(levels, opts)


def _iperf2(levels: dict[str, Any], target: str, ports: Ports, duration: float, opts: ToolOptions) -> list[str]:
    argv = ["iperf", "-c", target, "-p", str(ports.iperf2), "-t", _secs(duration)]
    return argv + (["-V"] if levels.get("ip_version", 4) == 6 else []) + _iperf_shared(levels, opts)


def ditg_send(levels: dict[str, Any], target: str, ports: Ports, duration: float, opts: ToolOptions,
              send_log: str, recv_log: str) -> list[str]:
    """ITGSend for one flow: constant rate and size, or an application preset
    (which sets its own transport, sizes and inter-departure times)."""
    argv = ["ITGSend", "-a", target, "-Sdp", str(ports.ditg), "-rp", str(ports.ditg_data),
            "-t", str(int(duration * 1000))]
    # Always ask for the receiver log: ITGRecv 2.8.1 aborts a round-trip flow
    # without one once it has logged an earlier flow ("Cannot send back payload").
    argv += ["-x", recv_log]
    if levels["mode"] == "rttm":
        argv += ["-m", "rttm", "-l", send_log]
    app = levels.get("application")
    if app is None:
        argv += ["-T", levels.get("transport", "UDP"), "-C", str(opts.ditg_rate_pps)]
        if opts.ditg_rate_pps > 1000:  # gaps under 1 ms: ITGSend's sleep is too coarse to hold the rate
            argv.append("-poll")
        size = payload_bytes(levels)
        if size is not None:
            argv += ["-c", str(size)]
    elif app.startswith("VoIP-"):
        argv += ["VoIP", "-x", app.removeprefix("VoIP-"), "-h", "RTP"]
    else:
        argv.append(app)
    return argv


def _secs(duration: float) -> str:
    return str(int(duration)) if float(duration).is_integer() else f"{duration:g}"


BUILDERS = {"netperf": _netperf, "iperf3": _iperf3, "iperf2": _iperf2}


def ditg_logs(scratch: PurePath, tag: str, recv_scratch: PurePath | None = None) -> tuple[str, str]:
    """The D-ITG sender log (on the sender) and receiver log (where ITGRecv writes it)."""
    return str(scratch / f"{tag}.send.log"), str((recv_scratch or scratch) / f"{tag}.recv.log")


def client_steps(levels: dict[str, Any], target: str, ns: str | None, ports: Ports, duration: float,
                 opts: ToolOptions, scratch: PurePath, tag: str, timeout_s: float,
                 recv_scratch: PurePath | None = None, owd: bool = True) -> list[Step]:
    """The commands of one run, in the sender's namespace (or on the sending
    host). D-ITG's measurement is ITGDec's summary of the receiver log
    (one-way: delay, jitter, loss, bitrate); in round-trip mode the run's
    file is the summary of the sender log (round-trip delay) and the receiver
    log's summary is kept next to it -- as a measurement when one-way delay
    is valid (``owd``: the clocks are synchronised), else as a side log.
    With ``opts.ditg_packet_log`` the logs themselves are the files (copied
    out with ``cat``, which works on a lab host over SSH as well): ingest
    reads ITGDec's summary from them and keeps every packet.
    ``recv_scratch``: the receiving host's folder, when it is another
    machine."""
    tool = levels["tool"]
    bound = duration + timeout_s

    if tool in BUILDERS:
        return [Step(in_ns(ns, BUILDERS[tool](levels, target, ports, duration, opts)), bound, "", tool)]
    send_log, recv_log = ditg_logs(scratch, tag, recv_scratch)
    steps = [Step(in_ns(ns, ditg_send(levels, target, ports, duration, opts, send_log, recv_log)), bound, None, "ITGSend")]
    decode, label = (["cat"], "log") if opts.ditg_packet_log else (["ITGDec"], "ITGDec")
    if levels["mode"] == "rttm":
        steps.append(Step(decode + [send_log], timeout_s, "", label, "sender", False))
        return steps + [Step(decode + [recv_log], timeout_s, ".recv" if owd else None, label, "receiver", False, "receiver")]
    return steps + [Step(decode + [recv_log], timeout_s, "", label, "receiver", False, "receiver")]


class ServerCommand(NamedTuple):
    argv: list[str]
    endpoint: Endpoint  # where it listens: what readiness probes


def server_commands(tool: str, ports: Ports, exe: Callable[[str], str] = str) -> list[ServerCommand]:
    """Servers for ``tool``: dual-stack where the tool allows, else one per need.
    D-ITG's signalling channel (``-Sp``) is TCP; its data ports open per flow."""
    if tool == "netperf":
        return [ServerCommand([exe("netserver"), "-D", "-p", str(ports.netperf)], Endpoint("tcp", ports.netperf))]
    if tool == "iperf3":
        return [ServerCommand([exe("iperf3"), "-s", "-p", str(ports.iperf3)], Endpoint("tcp", ports.iperf3))]
    if tool == "iperf2":
        return [ServerCommand([exe("iperf"), "-s", "-V", "-p", str(ports.iperf2)], Endpoint("tcp", ports.iperf2)),
                ServerCommand([exe("iperf"), "-s", "-u", "-V", "-p", str(ports.iperf2)], Endpoint("udp", ports.iperf2))]
    return [ServerCommand([exe("ITGRecv"), "-Sp", str(ports.ditg)], Endpoint("tcp", ports.ditg))]


DRAIN_S = 2.0  # after the tool ended or was killed: how long its pipes may stay open (a daemonised grandchild's)


def run_step(step: Step, cwd: Path | None = None) -> StepResult:
    """Run one step, stderr merged into stdout as a terminal shows it (unless
    the step says otherwise). Every wait is bounded: at the deadline its
    process group (only this run's processes) is killed; after the tool ends
    its pipes get :data:`DRAIN_S` to reach end of file, then the group is
    killed and the pipes closed, so a grandchild that left the group and
    holds them open cannot hang the collector."""
    started = time.time()
    err = subprocess.STDOUT if step.merge_stderr else subprocess.PIPE
    proc = subprocess.Popen(step.argv, stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL,
                            cwd=cwd, start_new_session=True)
    out, errout = bytearray(), bytearray()
    assert proc.stdout is not None
    pipes = Pipes({proc.stdout: out.extend} | ({proc.stderr: errout.extend} if proc.stderr else {}))
    try:
        end = time.monotonic() + step.timeout_s
        pipes.read(end, stop=lambda: _exited(proc))
        while not _exited(proc) and time.monotonic() < end:  # pipes closed a moment before the exit
            time.sleep(0.005)
        timed_out = not _exited(proc)
        if timed_out:
            _kill_group(proc)
        pipes.read(time.monotonic() + DRAIN_S)
        _kill_group(proc)  # what is left of the group; the leader is not reaped yet, so its PID is still the group's
    finally:
        pipes.close()
        _kill_group(proc)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(DRAIN_S)
    return StepResult(step, None if timed_out else proc.returncode, bytes(out), bytes(errout), started, time.time())


def _exited(proc: subprocess.Popen) -> bool:
    """Whether the child ended, without reaping it (its PID keeps naming its group)."""
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


@dataclass
class Server:
    argv: list[str]
    endpoint: Endpoint
    ns: str | None
    log: Path
    proc: subprocess.Popen | None = None

    @property
    def command(self) -> str:
        return shlex.join(self.argv)

    def start(self, cwd: Path) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(in_ns(self.ns, self.argv), stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, cwd=cwd, start_new_session=True)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        """Stop by PID (the server's own process group, which holds its children)."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            for sig, wait in ((signal.SIGTERM, 3), (signal.SIGKILL, 5)):
                try:
                    os.killpg(self.proc.pid, sig)
                    self.proc.wait(timeout=wait)
                    break
                except ProcessLookupError:
                    break
                except subprocess.TimeoutExpired:
                    continue
        self.proc = None


@dataclass
class ServerSet:
    """The servers of one testbed, per tool, restartable after a failed run;
    a start returns once every server's port answers (:mod:`readiness`)."""

    ns: str | None
    ports: Ports
    cwd: Path
    logdir: Path
    address: str  # the receiver's address, where a TCP readiness probe connects
    servers: dict[str, list[Server]] = field(default_factory=dict)
    ready_s: float = READY_S

    def start(self, tool: str) -> None:
        self.logdir.mkdir(parents=True, exist_ok=True)
        name = self.ns or "host"
        group = [Server(c.argv, c.endpoint, self.ns, self.logdir / f"{name}.{tool}.{i}.log")
                 for i, c in enumerate(server_commands(tool, self.ports))]
        for s in group:
            s.start(self.cwd)
        self.servers[tool] = group
        where = f"namespace {self.ns}" if self.ns else "this host"
        netns = Path("/run/netns") / self.ns if self.ns else None
        try:
            Readiness(where, self.address, NamespaceProbe(netns, self.address), self.ready_s).wait(group)
        except ServerNotReady as exc:
            self.stop(tool)
            raise exc.with_log(next(s.log for s in group if s is exc.server)) from None

    def ensure(self, tool: str) -> None:
        """Start the tool's servers unless all of them are running."""
        group = self.servers.get(tool)
        if group and all(s.alive for s in group):
            return
        self.stop(tool)
        self.start(tool)

    def restart(self, tool: str) -> None:
        self.stop(tool)
        self.start(tool)

    def stop(self, tool: str | None = None) -> None:
        for name in [tool] if tool else list(self.servers):
            for s in self.servers.pop(name, []):
                s.stop()
