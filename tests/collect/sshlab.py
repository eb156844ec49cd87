"""A two-host SSH lab for the live tests: Debian's sshd inside each
namespace of a p2p testbed.

Each host has its own host keys and listens only on its testbed addresses
(198.18.0.x, 2001:2:0:0::x); the test has its own user key and known_hosts.
The collector reaches a host only through SSH; since the namespaces have no
link to the test's own namespace, ssh gets there by a ProxyCommand
(``ip netns exec <ns> nc <address> 22``) -- the transport a bastion or jump
host gives in a real lab. Every sshd is started by PID and stopped by it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.collect.plan import TestbedSpec
from analysis.collect.testbed import Testbed

SSHD = "/usr/sbin/sshd"
NEEDS = (SSHD, "ssh", "ssh-keygen", "nc")


def why_not() -> str | None:
    missing = [x for x in NEEDS if shutil.which(x) is None]
    return f"{', '.join(missing)} not installed (scripts/install-system.sh installs openssh-server, netcat-openbsd)" if missing else None


def keygen(path: Path, comment: str) -> str:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)], check=True)
    return Path(f"{path}.pub").read_text().strip()


@dataclass
class LabHost:
    name: str
    ns: str
    ipv4: str
    ipv6: str
    config: Path
    log: Path
    sshd: subprocess.Popen | None = None


@dataclass
class Lab:
    dir: Path
    bed: Testbed
    key: Path
    known_hosts: Path
    hosts: dict[str, LabHost] = field(default_factory=dict)

    # --- sshd per host -------------------------------------------------------------
    def start_sshd(self, name: str) -> None:
        """sshd in the host's namespace, with an empty tmpfs on /root in the mount
        namespace ``ip netns exec`` makes (as a UML guest's init does): the login
        shell of each session would source this machine's root shell start-up
        files (pyenv init: some 100 processes, 0.2 s per command here)."""
        h = self.hosts[name]
        with open(h.log, "ab") as log:
            h.sshd = subprocess.Popen(["ip", "netns", "exec", h.ns, "sh", "-c", 'mount -t tmpfs -o mode=700 tmpfs /root && exec "$@"',
                                       "sh", SSHD, "-D", "-e", "-f", str(h.config)],
                                      stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            listening = subprocess.run(["ip", "netns", "exec", h.ns, "ss", "-Hltn", "sport", "=", ":22"],
                                       capture_output=True, text=True).stdout
            if h.ipv4 in listening:
                return
            if h.sshd.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError(f"sshd for {name} did not start: {h.log.read_text()}")

    def sshd_pids(self, name: str) -> list[int]:
        """Our sshd and its per-connection processes (descendants that are sshd)."""
        h = self.hosts[name]
        if h.sshd is None:
            return []
        return [p for p in [h.sshd.pid, *_descendants(h.sshd.pid)] if _exe(p) == SSHD]

    def kill_sshd(self, name: str) -> None:
        """Drop every SSH connection to the host: SIGKILL to our sshd and its
        per-connection sshd processes, by PID."""
        for pid in self.sshd_pids(name):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        h = self.hosts[name]
        if h.sshd is not None:
            h.sshd.wait(5)
            h.sshd = None

    def stop_sshd(self, name: str) -> None:
        h = self.hosts[name]
        if h.sshd is not None and h.sshd.poll() is None:
            h.sshd.terminate()
            try:
                h.sshd.wait(5)
            except subprocess.TimeoutExpired:
                h.sshd.kill()
                h.sshd.wait()
        h.sshd = None

    def others(self, name: str) -> list[str]:
        """What runs in the host's namespace besides its sshd: must be nothing once a collector is done."""
        h = self.hosts[name]
        deadline = time.monotonic() + 5
        while True:
            ours = set(self.sshd_pids(name))
            pids = [int(p) for p in subprocess.run(["ip", "netns", "pids", h.ns], capture_output=True, text=True).stdout.split()]
            left = [f"{p} {_cmdline(p)}" for p in pids if p not in ours and _cmdline(p) and _state(p) != "Z"]
            if not left or time.monotonic() > deadline:
                return left
            time.sleep(0.1)

    def stop(self) -> None:
        for name in self.hosts:
            self.stop_sshd(name)
        self.bed.teardown()

    # --- what a plan says ----------------------------------------------------------
    def host_spec(self, name: str, **changes: Any) -> dict[str, Any]:
        h = self.hosts[name]
        work = self.dir / f"{name}-work"
        work.mkdir(exist_ok=True)
        spec = {
            "address": h.ipv4, "user": "root", "workdir": str(work), "identity_file": str(self.key), "known_hosts_file": str(self.known_hosts),
            "proxy_command": ["ip", "netns", "exec", h.ns, "nc", h.ipv4, "22"],
            "roles": ["sender"] if name == "alice" else ["receiver"], "ipv6": h.ipv6,
        }
        return spec | changes


def start_lab(directory: Path) -> Lab:
    directory.mkdir(parents=True, exist_ok=True)
    Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege separation directory
    # The link between the hosts shaped to 100 Mbit/s: the tests check what the collector does, not the
    # traffic, and an unshaped veth let each second of netperf keep a core busy (12 s of CPU in all).
    bed = Testbed("ssh", TestbedSpec(kind="p2p", rate="100mbit"))
    bed.__enter__()
    try:
        key = directory / "user_key"
        user_pub = keygen(key, "netrepro-live-test")
        authorized = directory / "authorized_keys"
        authorized.write_text(user_pub + "\n")
        known: list[str] = []
        lab = Lab(directory, bed, key, directory / "known_hosts")
        for name, node, index in (("alice", bed.sender, 1), ("bob", bed.receiver, 2)):
            hostkey = directory / f"{name}_host_key"
            pub = keygen(hostkey, name)
            ipv4, ipv6 = f"198.18.0.{index}", f"2001:2:0:0::{index}"
            config = directory / f"{name}_sshd_config"
            config.write_text("\n".join([
                f"ListenAddress {ipv4}:22", f"ListenAddress [{ipv6}]:22", f"HostKey {hostkey}",
                f"AuthorizedKeysFile {authorized}", "PermitRootLogin prohibit-password", "PubkeyAuthentication yes",
                "PasswordAuthentication no", "KbdInteractiveAuthentication no", "UsePAM no", "StrictModes no",
                "PidFile none", "PrintMotd no", "MaxSessions 40", "MaxStartups 40", "LogLevel VERBOSE", "",
            ]))
            known.append(f"{ipv4} {' '.join(pub.split()[:2])}")
            lab.hosts[name] = LabHost(name, str(node.ns), ipv4, ipv6, config, directory / f"{name}_sshd.log")
        lab.known_hosts.write_text("\n".join(known) + "\n")
        for name in lab.hosts:
            lab.start_sshd(name)
        return lab
    except BaseException:
        bed.teardown()
        raise


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            kids = [int(c) for t in Path(f"/proc/{p}/task").iterdir() for c in (t / "children").read_text().split()]
        except OSError:
            continue
        out += kids
        todo += kids
    return out


def _exe(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return None


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "?"
