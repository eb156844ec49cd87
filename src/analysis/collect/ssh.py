"""One lab host reached with the OpenSSH client.

One master connection per host (ControlMaster, started as the collector's
own child and stopped by its PID); every command after it is a multiplexed
session over that connection, so a run pays no new handshake. BatchMode:
no password or passphrase prompt ever waits for a person; a refused key is
an error naming the host. Host keys are checked strictly unless the plan
says ``known_hosts: accept-new``.

Commands come from :mod:`analysis.collect.dialects` (quoted per dialect) and
go to ssh as one argument after ``--`` and the destination, so nothing a
plan says can become an ssh option.
"""

from __future__ import annotations

import hashlib
import os
import selectors
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from analysis.collect.dialects import EXIT_MARK, PID_MARK, Dialect, dialect, markers, parse_sha256
from analysis.collect.parent_death import dies_with_this_process
from analysis.collect.pipes import Pipes
from analysis.collect.plan import HostSpec
from analysis.collect.scratch import make_scratch
from analysis.collect.testbed import TestbedError, check_signals

SSH = "ssh"


def _dies_with_collector() -> Callable[[], None]:
    """An ssh child's ``preexec_fn``: SIGTERM when the collector dies, even by SIGKILL,
    so no session -- and so no remote wrapper -- outlives it (not Linux: none)."""
    return dies_with_this_process(signal.SIGTERM, required=False)


class HostError(TestbedError):
    """A lab host that cannot be used: the message names it and says why."""


class HostLost(HostError):
    """The SSH connection to a host broke during a run (not the tool failing)."""


def _option_value(value: str) -> str:
    """A path as the value of ``ssh -o Key=value``: double-quoted for ssh's own
    argument splitting, ``%`` doubled against its token expansion."""
    escaped = value.replace("%", "%%").replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def why_refused(stderr: str) -> str:
    """The reason an ssh connection failed, in words a lab user can act on."""
    text = stderr.strip()
    last = text.splitlines()[-1] if text else "no message from ssh"
    if "Permission denied" in text:
        return f"the host refused the key (publickey authentication failed): {last}"
    if "Host key verification failed" in text or "host key is not known" in text.lower() or "No matching host key" in text:
        return f"its host key is not in known_hosts and the policy is strict (add it, e.g. with ssh-keyscan, after checking it): {last}"
    if "REMOTE HOST IDENTIFICATION HAS CHANGED" in text:
        return f"its host key changed since it was recorded in known_hosts: {last}"
    if "Connection refused" in text or "timed out" in text or "No route to host" in text or "Could not resolve" in text:
        return f"cannot connect: {last}"
    return last


FETCH_BASE_S = 30.0  # a copy's timeout: this much ...
FETCH_MIN_BYTES_PER_S = 1_000_000  # ... plus its size at this rate (8 Mbit/s: a slow management link)


def fetch_timeout(size: int) -> float:
    """How long copying ``size`` bytes from a host may take."""
    return FETCH_BASE_S + size / FETCH_MIN_BYTES_PER_S


def _size(text: str) -> int:
    """A byte count as a host printed it (``wc -c``: maybe padded); -1 when it is none."""
    return int(text.strip()) if text.strip().isdigit() else -1


class _HashingSink:
    """A copy's output: its header lines kept, every later byte written and hashed."""

    HEADER_MAX = 1 << 16

    def __init__(self, out: BinaryIO, header_lines: int):
        self.out, self.lines, self.pending = out, header_lines, bytearray()
        self.header: list[str] = []
        self.hash = hashlib.sha256()
        self.written = 0

    def feed(self, chunk: bytes) -> None:
        if len(self.header) < self.lines:
            self.pending += chunk
            while len(self.header) < self.lines and b"\n" in self.pending:
                line, _, rest = self.pending.partition(b"\n")
                self.header.append(line.decode(errors="replace"))
                self.pending = bytearray(rest)
            if len(self.header) < self.lines:
                if len(self.pending) > self.HEADER_MAX:
                    raise HostError(f"no checksum and size line in the first {self.HEADER_MAX} bytes of a copy")
                return
            chunk, self.pending = bytes(self.pending), bytearray()
        self.out.write(chunk)
        self.hash.update(chunk)
        self.written += len(chunk)


@dataclass
class Answer:
    status: int | None
    out: bytes
    err: bytes


@dataclass
class Remote:
    """A wrapper script running on a host (a run's step or a server)."""

    command: str  # the script as the host's shell received it
    proc: subprocess.Popen
    pid: int | None = None  # the process group the host reported
    out: bytearray = field(default_factory=bytearray)
    err: bytearray = field(default_factory=bytearray)
    ended: set[int] = field(default_factory=set)  # pipes that reached end of file

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def marks(self) -> dict[str, list[str]]:
        return markers(self.out.decode(errors="replace"))


class SshHost:
    def __init__(self, name: str, spec: HostSpec, ctl_dir: Path | None = None):
        self.name = name
        self.spec = spec
        self.dialect: Dialect = dialect(spec.dialect)
        self.ctl_dir = ctl_dir or make_scratch("nr-ssh-")
        self.socket = self.ctl_dir / f"{name}.sock"
        self.master: subprocess.Popen | None = None
        self.workdir: str | None = None
        self._fetched = 0  # copies made so far: each gets its own file, named by host and number

    @property
    def label(self) -> str:
        user = f"{self.spec.user}@" if self.spec.user else ""
        return f"host {self.name} ({user}{self.spec.address}:{self.spec.port})"

    # --- the ssh command line ---------------------------------------------------
    def options(self) -> list[str]:
        s = self.spec
        opts = ["-T", "-o", "BatchMode=yes", "-o", "PasswordAuthentication=no", "-o", "KbdInteractiveAuthentication=no",
                "-o", f"StrictHostKeyChecking={'yes' if s.known_hosts == 'strict' else 'accept-new'}",
                "-o", f"ConnectTimeout={int(s.connect_timeout_s)}",
                "-o", "ServerAliveInterval=2", "-o", "ServerAliveCountMax=3",
                "-o", f"ControlPath={_option_value(str(self.socket))}", "-o", "LogLevel=ERROR",
                "-p", str(s.port)]
        if s.user:
            opts += ["-l", s.user]
        if s.identity_file:
            opts += ["-o", f"IdentityFile={_option_value(os.path.expanduser(s.identity_file))}", "-o", "IdentitiesOnly=yes"]
        if s.known_hosts_file:
            opts += ["-o", f"UserKnownHostsFile={_option_value(os.path.expanduser(s.known_hosts_file))}"]
        if s.proxy_command:
            # ssh runs a ProxyCommand with /bin/sh: POSIX quoting; its tokens (%h, %p, ...) pass through for ssh to expand
            opts += ["-o", "ProxyCommand=" + shlex.join(s.proxy_command)]
        return opts

    def argv(self, script: str) -> list[str]:
        """ssh running ``script`` over the master connection."""
        return [SSH, *self.options(), "-o", "ControlMaster=no", "--", self.spec.address, self.dialect.remote_command(script)]

    # --- the connection ---------------------------------------------------------
    def connect(self) -> None:
        """Open the master connection (our child; stopped by its PID in :meth:`close`)."""
        if shutil.which(SSH) is None:
            raise HostError(f"{self.label}: the OpenSSH client (ssh) is not installed here")
        log = self.ctl_dir / f"{self.name}.master.log"
        with open(log, "wb") as err:
            self.master = subprocess.Popen(
                [SSH, *self.options(), "-M", "-N", "-o", "ControlMaster=yes", "-o", "ControlPersist=no", "--", self.spec.address],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True,
                preexec_fn=_dies_with_collector())
        deadline = time.monotonic() + self.spec.connect_timeout_s + 10
        while time.monotonic() < deadline:
            check_signals()
            if self.master.poll() is not None:
                self.master = None
                raise HostError(f"{self.label}: {why_refused(log.read_text(errors='replace'))}")
            check = subprocess.run([SSH, *self.options(), "-O", "check", "--", self.spec.address],
                                   capture_output=True, timeout=10, stdin=subprocess.DEVNULL)
            if check.returncode == 0:
                return
            time.sleep(0.1)
        self.close()
        raise HostError(f"{self.label}: no SSH connection after {self.spec.connect_timeout_s:g} s")

    def close(self) -> None:
        """Stop the master connection by its PID (our own child)."""
        if self.master is not None:
            if self.master.poll() is None:
                self.master.terminate()
                try:
                    self.master.wait(5)
                except subprocess.TimeoutExpired:
                    self.master.kill()
                    self.master.wait()
            self.master = None
        shutil.rmtree(self.ctl_dir, ignore_errors=True)

    @property
    def connected(self) -> bool:
        return self.master is not None and self.master.poll() is None

    # --- commands ---------------------------------------------------------------
    def run(self, script: str, timeout: float = 30, check: bool = True) -> Answer:
        """A short command; a broken connection (ssh's own status 255) is a HostError."""
        try:
            p = subprocess.run(self.argv(script), capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL,
                               start_new_session=True)
        except subprocess.TimeoutExpired:
            raise HostError(f"{self.label}: no answer within {timeout:g} s to: {script.splitlines()[0][:120]}") from None
        if p.returncode == 255:
            raise HostLost(f"{self.label}: SSH failed: {why_refused(p.stderr.decode(errors='replace'))}")
        if check and p.returncode != 0:
            raise HostError(f"{self.label}: exit {p.returncode} from: {script.splitlines()[0][:120]}: "
                            f"{(p.stderr or p.stdout).decode(errors='replace').strip()[-300:]}")
        return Answer(p.returncode, p.stdout, p.stderr)

    def start(self, script: str, timeout: float = 15) -> Remote:
        """Start a wrapper script (dialects) and wait for the PID it reports.
        Its standard input stays open: closing it (or losing the connection)
        makes a POSIX wrapper kill its own process group."""
        proc = subprocess.Popen(self.argv(script), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                bufsize=0, start_new_session=True, preexec_fn=_dies_with_collector())
        remote = Remote(script, proc)
        try:
            pump(remote, time.monotonic() + timeout, until_pid=True)
        except BaseException:
            self.stop(remote)
            raise
        if remote.pid is None:
            self.stop(remote)
            why = why_refused(remote.err.decode(errors="replace")) if remote.err else "it reported no PID"
            raise HostLost(f"{self.label}: could not start a command: {why}")
        return remote

    def stop(self, *remotes: Remote, grace: float = 5) -> None:
        """Stop wrappers by the PIDs their host reported (each one's whole
        process group), then end our ssh sessions for them."""
        pids = [r.pid for r in remotes if r.pid is not None and r.alive]
        if pids:
            try:
                self.run(self.dialect.kill(pids), timeout=15, check=False)
            except HostError:
                pass  # connection gone: a POSIX wrapper's watchdog ends it with the channel
        deadline = time.monotonic() + grace
        for r in remotes:
            _close_stdin(r.proc)
            try:
                r.proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _kill_local(r.proc)

    def fetch(self, path: str, remove: bool = False) -> tuple[Path, str]:
        """Copy a file from the host into a new file of our control folder:
        streamed and hashed while written (never whole in memory), checked
        against the SHA-256 and size the host computes (and, with ``remove``,
        deleted there). The copy may take :func:`fetch_timeout` of its size.
        POSIX hosts answer in one round trip; a mismatch is an error, never a
        silently kept copy. Returns the local file and the digest."""
        self._fetched += 1
        dest = self.ctl_dir / f"fetch-{self.name}-{self._fetched}"  # the folder may be shared with the testbed's other hosts
        take = self.dialect.take(path) if remove else None
        try:
            if take is not None:
                header, copied, digest = self._stream(take, path, dest, header_lines=2)
                size_said, expected = header[0], parse_sha256(header[1])
            else:
                expected = parse_sha256(self.run(self.dialect.sha256(path)).out.decode(errors="replace"))
                size_said = self.run(self.dialect.size(path)).out.decode(errors="replace")
                _, copied, digest = self._stream(self.dialect.cat(path), path, dest, header_lines=0, size=_size(size_said))
                if remove:
                    self.run(self.dialect.remove([path]), check=False)
            if expected is None:
                raise HostError(f"{self.label}: no SHA-256 of {path} (is sha256sum installed?)")
            if _size(size_said) != copied:
                raise HostError(f"{self.label}: {path}: {copied} bytes came back, the host counted {size_said.strip()!r}")
            if digest != expected:
                raise HostError(f"{self.label}: {path}: the copy's SHA-256 differs from the one the host computed ({expected})")
        except BaseException:
            dest.unlink(missing_ok=True)
            raise
        return dest, digest

    def _stream(self, script: str, path: str, dest: Path, header_lines: int, size: int | None = None) -> tuple[list[str], int, str]:
        """Run ``script``; its first ``header_lines`` lines, then the rest of its
        output written to ``dest`` while hashed: (header, bytes written, SHA-256).
        The deadline grows once the header says the size (its first line)."""
        proc = subprocess.Popen(self.argv(script), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True, preexec_fn=_dies_with_collector())
        assert proc.stdout is not None and proc.stderr is not None
        err = bytearray()
        with open(dest, "wb") as out:
            sink = _HashingSink(out, header_lines)
            pipes = Pipes({proc.stdout: sink.feed, proc.stderr: err.extend})
            started = time.monotonic()

            def deadline() -> float:
                said = size if size is not None else _size(sink.header[0]) if sink.header else 0
                return started + fetch_timeout(said)

            try:
                finished = pipes.read(deadline)
                if finished:
                    proc.wait(max(0.1, deadline() - time.monotonic()))
            except subprocess.TimeoutExpired:
                finished = False
            finally:
                pipes.close()
                if proc.poll() is None:
                    _kill_local(proc)
        if not finished:
            raise HostError(f"{self.label}: copying {path} took longer than {deadline() - started:.0f} s "
                            f"({sink.written} bytes came back)")
        if proc.returncode == 255:
            raise HostLost(f"{self.label}: SSH failed while copying {path}: {why_refused(err.decode(errors='replace'))}")
        if proc.returncode != 0 or len(sink.header) < header_lines:
            raise HostError(f"{self.label}: cannot copy {path}: exit {proc.returncode}: {err.decode(errors='replace').strip()[-300:]}")
        return sink.header, sink.written, sink.hash.hexdigest()

    def make_workdir(self) -> str:
        self.workdir = self.run(self.dialect.make_workdir(self.spec.workdir)).out.decode().strip().splitlines()[-1]
        return self.workdir

    def remove_workdir(self) -> None:
        if self.workdir is not None:
            self.run(self.dialect.remove_workdir(self.workdir), check=False)
            self.workdir = None

    def missing(self, executables: list[str]) -> list[str]:
        """Those of ``executables`` (names or paths) the host cannot run."""
        answer = self.run(self.dialect.which(executables)).out.decode(errors="replace")
        return markers(answer).get("netrepro-missing", [])

    def clock_offset(self, samples: int = 3, timeout: float = 30) -> dict[str, float | str]:
        """The host clock minus ours, from the fastest of a few round trips in one
        session: a line sent, the host's clock read back (its uncertainty is half
        that round trip). Not a session per reading: a session's start, most of
        such a round trip, comes before the host reads its clock, so it skewed the
        midpoint, and each one costs a guest (uml.py) a fork of sshd and a shell."""
        proc = subprocess.Popen(self.argv(self.dialect.clock_echo()), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, bufsize=0, start_new_session=True,
                                preexec_fn=_dies_with_collector())
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        said, err = bytearray(), bytearray()
        pipes = Pipes({proc.stdout: said.extend, proc.stderr: err.extend})
        deadline = time.monotonic() + timeout
        best: tuple[float, float] | None = None
        try:
            self._clock_reading(proc, pipes, said, err, deadline)  # the first, once the session is up: not timed
            for _ in range(samples):
                t0 = time.time()
                try:
                    proc.stdin.write(b"\n")
                except OSError:
                    pass  # the session ended: the reading below says why
                remote = self._clock_reading(proc, pipes, said, err, deadline)
                t1 = time.time()
                if best is None or t1 - t0 < best[1]:
                    best = (remote - (t0 + t1) / 2, t1 - t0)
        except BaseException:
            _kill_local(proc)  # our ssh client, by its PID: what it ran on the host ends with the channel
            raise
        finally:
            _close_stdin(proc)
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                _kill_local(proc)
            pipes.close()
        assert best is not None
        return {"offset_s": round(best[0], 6), "uncertainty_s": round(best[1] / 2, 6),
                "method": f"round trip of a line in one SSH session from the collector, fastest of {samples}"}

    def _clock_reading(self, proc: subprocess.Popen, pipes: Pipes, said: bytearray, err: bytearray,
                       deadline: float) -> float:
        """The next clock reading the session prints (``said``: what it printed past the last reading taken)."""
        def a_line() -> bool:
            check_signals()
            return b"\n" in said

        if not a_line() and pipes.read(deadline, stop=a_line):  # both pipes ended: so did the session
            try:
                status: int | None = proc.wait(5)
            except subprocess.TimeoutExpired:
                status = None
            if status == 255:
                raise HostLost(f"{self.label}: SSH failed: {why_refused(err.decode(errors='replace'))}")
            why = (bytes(said) or bytes(err)).decode(errors="replace").strip()[-200:]
            raise HostError(f"{self.label}: cannot read its clock (exit {status}): {why!r}")
        if b"\n" not in said:
            raise HostError(f"{self.label}: its clock did not answer in time: {bytes(said)[:100]!r}")
        line, _, rest = bytes(said).partition(b"\n")
        said[:] = rest
        try:
            return float(line.decode(errors="replace").split()[-1])
        except (ValueError, IndexError):
            raise HostError(f"{self.label}: cannot read its clock: {line[:100]!r}") from None


def pump(remote: Remote, deadline: float, until_pid: bool = False) -> bool:
    """Read a wrapper's stdout and stderr until both end (True) or the
    deadline passes (False); with ``until_pid``, until it reported its PID."""
    proc = remote.proc
    assert proc.stdout is not None and proc.stderr is not None
    sel = selectors.DefaultSelector()
    sinks = {proc.stdout.fileno(): remote.out, proc.stderr.fileno(): remote.err}
    for fd in sinks:
        if fd not in remote.ended:
            sel.register(fd, selectors.EVENT_READ)
    try:
        while sel.get_map():
            check_signals()
            if until_pid and remote.pid is not None:
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            for key, _ in sel.select(min(left, 0.5)):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fd)
                    remote.ended.add(key.fd)
                    continue
                sinks[key.fd] += chunk
                if remote.pid is None:
                    complete = bytes(remote.out[: remote.out.rfind(b"\n") + 1])
                    pids = markers(complete.decode(errors="replace")).get(PID_MARK)
                    if pids:
                        remote.pid = int(pids[0])
    finally:
        sel.close()
    if until_pid and remote.pid is not None:
        return True
    try:
        proc.wait(max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return False
    return True


def _close_stdin(proc: subprocess.Popen) -> None:
    if proc.stdin is not None and not proc.stdin.closed:
        try:
            proc.stdin.close()
        except OSError:
            pass


def _kill_local(proc: subprocess.Popen) -> None:
    """Our own ssh client process (its process group), by PID."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def exit_status(remote: Remote) -> int | None:
    """The tool's exit status as the wrapper reported it (None: no report)."""
    said = remote.marks().get(EXIT_MARK)
    return int(said[-1]) if said else None
