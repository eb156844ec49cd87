"""Testbeds whose nodes are kernels: two User-mode Linux guests on one link.

The studies compared operating systems; on one machine the closest real
thing is to boot other kernels. A ``kind: uml`` testbed boots Debian's
``user-mode-linux`` of a named suite (fetched into a cache by
scripts/install-uml.sh, never installed) as a sender and a receiver guest.
Each guest is an ordinary process of this host, started inside the
testbed's own network namespace with a tap device there; a bridge in that
namespace joins the two taps, so the guests' addresses stay in
198.18.0.0/15 and 2001:2::/48 and nothing reaches the host's network.

A guest's root is this host's file system through hostfs, read-only: it runs
this host's tools under its own kernel. Its /tmp and /run are tmpfs (the
writable scratch), and it runs sshd with keys made for this testbed; from
there on the guests are lab hosts (:class:`~analysis.collect.hosts.HostsTestbed`)
reached through ``ip netns exec <ns> nc`` as a jump host would: the same
steps, servers, readiness, checked copy-back, facts and teardown. The facts
say what differs: ``os`` is the guest's kernel (Linux) and ``os_version``
its release, so kernels become the OS factor.

A guest never outlives its collector, however the collector ends. UML
forks host processes of its own (helpers, and one ptraced process per guest
address space) that a signal to the kernel's process does not reach, so each
guest runs as init of its own PID namespace (``unshare --pid --fork
--kill-child``): when a PID namespace's init dies, the host kernel SIGKILLs
everything in it. The ``unshare`` holder is our child with SIGKILL as its
parent-death signal, forked from the collector's main thread (the signal
follows the forking thread; a collector killed while it forks is caught too:
:mod:`~analysis.collect.parent_death`), so the collector's death, even by SIGKILL,
kills the holder, the holder's death kills the guest (which starts only once
it knows its holder alive: :data:`STILL_HELD`), and the guest's death kills
its whole tree. Names follow the namespace testbed's scheme
(``nr-<6 hex>-<role>``, owner file in STATE_DIR), so ``--cleanup`` removes
the namespace, taps and scratch a killed collector left.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.collect.hosts import HostsTestbed
from analysis.collect.parent_death import dies_with_this_process
from analysis.collect.plan import HostSpec, TestbedSpec
from analysis.collect.readiness import Endpoint, NamespaceProbe
from analysis.collect.scratch import make_scratch
from analysis.collect.ssh import HostError
from analysis.collect.testbed import (TestbedError, check_signals, owner_path, remove_namespace, sh, stop_orphan_guests,
                                     write_owner)

KERNELS_DIR = Path(os.environ.get("NETREPRO_UML_DIR", "/var/cache/netrepro/uml"))
BOOT_S = 60.0  # a guest's boot until its sshd answers (about 3 s when the host is idle)
STOP_S = 5.0  # for a guest's PID namespace to be gone after SIGKILL
ADDRESSES = {"sender": ("198.18.0.1", "2001:2::1"), "receiver": ("198.18.0.2", "2001:2::2")}
BRIDGE_ADDRESSES = ("198.18.0.254", "2001:2::fe")  # the collector's end of the link (SSH goes through it)
ROLES = {"sender": "snd", "receiver": "rcv"}
NEEDS = ("ip", "nc", "ssh", "ssh-keygen", "/usr/sbin/sshd", "insmod", "unshare")
# The guest as init of a PID namespace of its own, SIGKILLed when its holder (unshare) dies.
PID_NAMESPACE = ("unshare", "--pid", "--fork", "--kill-child=SIGKILL")
# unshare (util-linux 2.38) arms --kill-child in its child after the fork and never looks
# back: a holder killed in between (its collector killed as it boots) leaves a child no
# signal reaches, which booted its guest anyway. So that child first reads its parent
# in the host's /proc (its own getppid() is 0, across the namespace's edge): unshare,
# whose death now kills it, or it ends there, before the kernel starts. Shell builtins only.
STILL_HELD = ('read -r s </proc/self/stat; p=${s##*) }; p=${p#* }; p=${p%% *}; read -r c </proc/$p/comm; '
              '[ "$c" = unshare ] && exec "$@"; echo "netrepro-guest: its holder is gone, not booting" >&2; exit 1')
# sshd blocks in getrandom() until the guest kernel's RNG is initialised. Linux 5.10
# (bullseye) gets there only when its hwrng thread, whose first read of UML's RNG
# device (the host's /dev/random) comes back empty, tries again 10 s later: its
# guests answered after 12 s, 6.1's after 2. So init credits 512 bits read from
# that device (/dev/hwrng) with RNDADDENTROPY (_IOW('R', 3, int[2])) first.
CREDIT_ENTROPY = ('open(my $r, "<", "/dev/hwrng") or die "/dev/hwrng: $!"; read($r, my $d, 64) == 64 or die "/dev/hwrng: short read"; '
                  'open(my $w, ">", "/dev/random") or die "/dev/random: $!"; ioctl($w, 0x40085203, pack("ii", 512, 64) . $d) or die "RNDADDENTROPY: $!"')
ENTROPY_CREDITED = "netrepro-guest: entropy credited"
_VECTOR_RX = re.compile(r"vector_rx: error\((-?\d+)\)")
INSTALL_HINT = "scripts/install-uml.sh fetches the pinned kernels; scripts/install-system.sh installs the rest"


class UmlError(TestbedError):
    """A guest kernel that is missing or did not come up; names the kernel and why."""


@dataclass(frozen=True)
class Kernel:
    """One suite's user-mode-linux as unpacked in the cache."""

    suite: str
    root: Path

    @property
    def binary(self) -> Path:
        return self.root / "usr/bin/linux.uml"

    @property
    def package_version(self) -> str:
        return (self.root / "VERSION").read_text().strip()

    @property
    def modules(self) -> Path:
        """The package's module folder for its one release (ipv6.ko lives there)."""
        found = sorted((self.root / "usr/lib/uml/modules").iterdir())
        if len(found) != 1:
            raise UmlError(f"kernel {self.suite}: expected one module folder in {self.root}/usr/lib/uml/modules, found {len(found)}")
        return found[0]

    @property
    def release(self) -> str:
        return self.modules.name


def find_kernel(suite: str, base: Path | None = None) -> Kernel:
    kernel = Kernel(suite, (base or KERNELS_DIR) / suite)
    if not os.access(kernel.binary, os.X_OK) or not (kernel.root / "VERSION").is_file():
        raise UmlError(f"kernel {suite}: no user-mode-linux in {kernel.root}; {INSTALL_HINT} "
                       f"(`scripts/install-uml.sh {suite}`)")
    return kernel


def uml_unavailable(suites: list[str] | None = None) -> str | None:
    """Why UML testbeds cannot run here (None: they can)."""
    if os.geteuid() != 0:
        return "needs root (a network namespace, a bridge and tap devices)"
    missing = [x for x in NEEDS if shutil.which(x) is None]
    if missing:
        return f"{', '.join(missing)} not found; {INSTALL_HINT}"
    if not Path("/dev/net/tun").exists():
        return "/dev/net/tun is missing (tap devices)"
    for suite in suites or []:
        try:
            find_kernel(suite)
        except UmlError as exc:
            return str(exc)
    return None


@dataclass
class Guest:
    """One booted kernel: its process (our child, in the testbed's namespace), tap and files."""

    role: str  # sender | receiver
    kernel: Kernel
    prefix: str
    ns: str
    scratch: Path  # this guest's folder in the testbed's scratch (keys, config, init, console log)
    mem_mb: int
    mtu: int
    proc: subprocess.Popen | None = None

    @property
    def name(self) -> str:
        return f"{self.prefix}-{ROLES[self.role]}"

    @property
    def tap(self) -> str:
        return f"{self.prefix}-t{ROLES[self.role]}"

    @property
    def ipv4(self) -> str:
        return ADDRESSES[self.role][0]

    @property
    def ipv6(self) -> str:
        return ADDRESSES[self.role][1]

    @property
    def console(self) -> Path:
        return self.scratch / "console.log"

    def argv(self) -> list[str]:
        return ["ip", "netns", "exec", self.ns, *PID_NAMESPACE, "/bin/sh", "-c", STILL_HELD, "guest",
                str(self.kernel.binary), f"mem={self.mem_mb}M",
                "rootfstype=hostfs", "rootflags=/", "ro", f"init={self.scratch / 'init.sh'}",
                f"vec0:transport=tap,ifname={self.tap},gro=1,mtu={self.mtu}", "con=null", "con0=fd:0,fd:1",
                f"umid={self.name}", f"uml_dir={self.scratch}"]

    def prepare(self, authorized_key: str) -> str:
        """Host key, sshd config and init script; returns the known_hosts line for the guest."""
        self.scratch.mkdir(parents=True, exist_ok=True)
        key = self.scratch / "host_ed25519"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", self.name, "-f", str(key)], check=True, timeout=30)
        inside = Path("/run/netrepro-guest")  # the scratch as the guest sees it (bound before /tmp is covered)
        (self.scratch / "authorized_keys").write_text(authorized_key + "\n")
        (self.scratch / "sshd_config").write_text("\n".join([
            f"ListenAddress {self.ipv4}", "Port 22", f"HostKey {inside / 'host_ed25519'}",
            f"AuthorizedKeysFile {inside / 'authorized_keys'}", "PermitRootLogin prohibit-password",
            "PasswordAuthentication no", "KbdInteractiveAuthentication no", "UsePAM no", "StrictModes no",
            "PidFile none", "PrintMotd no", "UseDNS no", "",
        ]))
        init = self.scratch / "init.sh"
        init.write_text(self._init(inside))
        init.chmod(0o755)
        public = Path(f"{key}.pub").read_text().split()
        return f"{self.ipv4} {public[0]} {public[1]}"

    def _init(self, inside: Path) -> str:
        """The guest's PID 1: mounts, IPv6 (a module in Debian's UML builds), the
        link's addresses, entropy from the host (:data:`CREDIT_ENTROPY`), then
        sshd; when sshd ends, the guest halts."""
        mods = self.kernel.modules / "kernel"
        return "\n".join([
            "#!/bin/sh",
            "# netrepro: init of a User-mode Linux guest (analysis.collect.uml)",
            "PATH=/usr/sbin:/usr/bin:/sbin:/bin; export PATH",
            "mount -t proc proc /proc; mount -t sysfs sysfs /sys",
            f"[ -d /proc/sys/net/ipv6 ] || {{ insmod {mods}/lib/crc-ccitt.ko; insmod {mods}/net/ipv6/ipv6.ko; }}",
            "mount -t tmpfs -o mode=755 tmpfs /run",
            f"mkdir -p {inside} /run/sshd && mount --bind {self.scratch} {inside}",
            "mount -t tmpfs -o mode=1777 tmpfs /tmp",
            "mount -t tmpfs -o mode=700 tmpfs /root  # an empty home: the host root's shell start-up files stay out",
            f"hostname {self.name}",
            "ip link set lo up",
            f"ip link set vec0 mtu {self.mtu} up",
            f"ip addr add {self.ipv4}/24 dev vec0",
            f"ip -6 addr add {self.ipv6}/64 dev vec0 nodad",
            "echo netrepro-guest: network up",
            f"timeout 5 perl -e '{CREDIT_ENTROPY}' && echo {ENTROPY_CREDITED}",
            f"/usr/sbin/sshd -D -e -f {inside / 'sshd_config'} &",
            "wait",
            "echo netrepro-guest: sshd ended, halting",
            "halt -f",
            "",
        ])

    def boot(self) -> None:
        """Start the kernel in its PID namespace; its whole tree dies with the collector (see the module doc)."""
        if threading.current_thread() is not threading.main_thread():
            raise UmlError(f"guest {self.name}: boot it from the collector's main thread; the parent-death signal "
                           "that ends it with the collector fires when the thread that started it ends")
        with open(self.console, "ab") as log:  # SIGKILL: unshare blocks SIGTERM while it waits for its child
            self.proc = subprocess.Popen(self.argv(), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True, preexec_fn=dies_with_this_process(signal.SIGKILL))

    def wait_ready(self, deadline: float) -> None:
        """Until its sshd accepts TCP connections on the link (probed from the testbed's namespace)."""
        probe = NamespaceProbe(Path("/run/netns") / self.ns, self.ipv4, timeout_s=0.5)
        while time.monotonic() < deadline:
            check_signals()
            if self.proc is None or self.proc.poll() is not None:
                raise UmlError(f"guest {self.name} (kernel {self.kernel.suite}) ended while booting: {self.console_tail()}")
            if probe([Endpoint("tcp", 22)]):
                return
            time.sleep(0.1)
        raise UmlError(f"guest {self.name} (kernel {self.kernel.suite}): no sshd on {self.ipv4} port 22 after "
                       f"{BOOT_S:g} s: {self.console_tail()}")

    def console_tail(self, chars: int = 600) -> str:
        text = self.console.read_text(errors="replace") if self.console.is_file() else ""
        return text.strip()[-chars:] or "(no console output)"

    def stop(self) -> None:
        """SIGKILL to the guest's kernel (init of its PID namespace, by its PID):
        the host kernel kills the rest of the namespace, and the holder returns
        once all of it is gone. Not SIGTERM: as a namespace's init the kernel
        ignores it, and a guest has nothing to save (read-only root, tmpfs scratch)."""
        if self.proc is None or self.proc.poll() is not None:  # a holder that ended took its namespace with it
            self.proc = None
            return
        kernel = self.kernel_pid()
        for target in (kernel, self.proc.pid):  # the holder itself if the kernel does not answer
            if target is None:
                continue
            with contextlib.suppress(ProcessLookupError):
                os.kill(target, signal.SIGKILL)
            try:
                self.proc.wait(STOP_S)
                break
            except subprocess.TimeoutExpired:
                continue
        self.proc = None

    def kernel_pid(self) -> int | None:
        """The guest kernel's PID on this host: the holder's one child (None before it forked or after it ended)."""
        if self.proc is None:
            return None
        try:
            children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()
        except OSError:
            return None
        return int(children[0]) if children else None

    def console_facts(self) -> dict[str, Any]:
        """What the kernel said on its console: its version line, whether
        init credited the host's entropy, and its virtual NIC's receive
        messages. ``vector_rx: error(N)`` with N > 0 is
        the length of a frame still queued when the receive loop hit its
        iteration budget (it is read on the next poll: not a drop); N < 0 is
        a failed read. The kernel rate-limits both (net_ratelimit: 10 per
        5 s), so the counts are lower bounds."""
        text = self.console.read_text(errors="replace") if self.console.is_file() else ""
        said = [(int(m.group(1)), line.strip()) for line in text.splitlines() if (m := _VECTOR_RX.search(line))]
        busy = [line for n, line in said if n > 0]
        failed = [line for n, line in said if n < 0]
        version = next((l.strip() for l in text.splitlines() if l.startswith("Linux version")), None)
        return {"version_line": version, "rx_budget_messages": len(busy), "rx_errors": len(failed),
                "first_rx_error": failed[0] if failed else None, "entropy_credited": ENTROPY_CREDITED in text}


@dataclass
class UmlTestbed(HostsTestbed):
    """A ``kind: uml`` testbed: a namespace with a bridge, two taps, two guests
    booted on them, then a lab of two hosts over SSH (see the module doc)."""

    workdirs_outlive_hosts = False  # each guest's /tmp is its own tmpfs: stopping the guest removes it
    uml: TestbedSpec | None = None  # the plan's kind: uml testbed
    guests: dict[str, Guest] = field(default_factory=dict)
    scratch_dir: Path | None = None
    created_ns: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, name: str, spec: TestbedSpec, tools: set[str]) -> "UmlTestbed":
        hosts = TestbedSpec(kind="hosts", sender=f"{name}-snd", receiver=f"{name}-rcv", ports=spec.ports)
        return cls(name, hosts, {}, tools, uml=spec, prefix=f"nr-{secrets.token_hex(3)}")

    @property
    def ns(self) -> str:
        return f"{self.prefix}-lan"

    def build(self) -> None:
        assert self.uml is not None and self.prefix is not None
        kernels = {role: find_kernel(suite) for role, suite in self.uml.kernels().items()}
        write_owner(self.prefix)
        self.scratch_dir = make_scratch(f"netrepro-{self.prefix}-")
        self._link()
        user_key = self.scratch_dir / "user_ed25519"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", self.prefix, "-f", str(user_key)],
                       check=True, timeout=30)
        known = []
        mtu = self.uml.link_mtus()[0]
        for role, kernel in kernels.items():
            guest = Guest(role, kernel, self.prefix, self.ns, self.scratch_dir / ROLES[role], self.uml.guest_mem_mb, mtu)
            self.guests[role] = guest
            known.append(guest.prepare(Path(str(user_key) + ".pub").read_text().strip()))
        (self.scratch_dir / "known_hosts").write_text("\n".join(known) + "\n")
        for guest in self.guests.values():
            guest.boot()
        deadline = time.monotonic() + BOOT_S
        for guest in self.guests.values():
            guest.wait_ready(deadline)
        self.plan_hosts = {str(getattr(self.spec, role)): self._host_spec(g, user_key) for role, g in self.guests.items()}
        super().build()
        for role, guest in self.guests.items():
            name = str(getattr(self.spec, role))
            self._guest_facts(self.host_facts[name], guest)

    def _link(self) -> None:
        """The namespace, its bridge (the collector's end of the link) and one tap per guest."""
        ns, bridge = self.ns, f"{self.prefix}-br"
        assert self.uml is not None
        mtu = str(self.uml.link_mtus()[0])
        sh(["ip", "netns", "add", ns])
        self.created_ns.append(ns)
        self.namespaces = (ns,)
        sh(["ip", "-n", ns, "link", "set", "lo", "up"])
        sh(["ip", "-n", ns, "link", "add", bridge, "type", "bridge"])
        sh(["ip", "-n", ns, "link", "set", bridge, "mtu", mtu, "up"])
        sh(["ip", "-n", ns, "addr", "add", f"{BRIDGE_ADDRESSES[0]}/24", "dev", bridge])
        sh(["ip", "-n", ns, "-6", "addr", "add", f"{BRIDGE_ADDRESSES[1]}/64", "dev", bridge, "nodad"])
        for role in ROLES.values():
            tap = f"{self.prefix}-t{role}"
            sh(["ip", "-n", ns, "tuntap", "add", "dev", tap, "mode", "tap"])
            sh(["ip", "-n", ns, "link", "set", tap, "mtu", mtu, "master", bridge, "up"])

    def _host_spec(self, guest: Guest, user_key: Path) -> HostSpec:
        assert self.scratch_dir is not None
        return HostSpec(address=guest.ipv4, user="root", identity_file=str(user_key),
                        known_hosts_file=str(self.scratch_dir / "known_hosts"),
                        proxy_command=["ip", "netns", "exec", self.ns, "nc", "%h", "%p"],
                        roles=[guest.role], ipv4=guest.ipv4, ipv6=guest.ipv6, connect_timeout_s=20)

    def _guest_facts(self, facts: dict[str, Any], guest: Guest) -> None:
        """The kernel is what this testbed varies: it becomes the OS (the
        userland, seen through hostfs, is this host's and says so)."""
        userland = facts.get("distribution")
        facts["userland"] = f"{userland} (this host's, through hostfs, read-only)"
        facts["os"] = "Linux"
        facts["os_version"] = facts.get("kernel") or guest.kernel.release
        facts["distribution"] = f"User-mode Linux {facts['os_version']} (Debian {guest.kernel.suite} user-mode-linux {guest.kernel.package_version})"
        facts["uml"] = {"suite": guest.kernel.suite, "package_version": guest.kernel.package_version,
                        "binary": str(guest.kernel.binary), "mem_mb": guest.mem_mb,
                        "mem_total_kib": facts.get("mem_total_kib"),  # less than mem_mb by what the kernel keeps
                        "console": guest.console_facts()}

    def remove_stale(self, earlier: dict[str, Any]) -> list[str]:
        return []  # guests boot afresh each session: an earlier session's scratch went with its guest

    def teardown(self) -> None:
        try:
            super().teardown()
        finally:
            for guest in self.guests.values():
                guest.stop()
            if self.prefix is not None:  # a guest forked just as its holder was killed (while booting) is in no
                stop_orphan_guests(self.prefix)  # namespace the kill reached: found by its umid, SIGKILLed by PID
            for ns in self.created_ns:
                remove_namespace(ns)  # kills whatever of ours still runs there, and its taps and bridge go with it
            self.created_ns.clear()
            if self.prefix is not None:
                owner_path(self.prefix).unlink(missing_ok=True)
            if self.scratch_dir is not None:
                shutil.rmtree(self.scratch_dir, ignore_errors=True)

    def console_counts(self) -> dict[str, int]:
        """Receive messages both guests' kernels have logged so far (from their console logs, read here)."""
        facts = [g.console_facts() for g in self.guests.values()]
        return {k: sum(int(f[k]) for f in facts) for k in ("rx_errors", "rx_budget_messages")}

    def guest_report(self) -> dict[str, Any]:
        """Per guest at the campaign's end: what its console said (see
        :meth:`Guest.console_facts`) and its link counters (errors, drops)."""
        out = {}
        for role, guest in self.guests.items():
            host = self.hosts.get(str(getattr(self.spec, role)))
            counters: Any = None
            if host is not None and host.connected:
                try:
                    answer = host.run("ip -s -j link show dev vec0", timeout=15, check=False).out.decode(errors="replace")
                    counters = (json.loads(answer or "[{}]")[0].get("stats64") or None)
                except (HostError, ValueError):
                    counters = None
            out[guest.name] = {"console": guest.console_facts(), "link_counters": counters}
        return out

    def facts(self) -> dict[str, Any]:
        assert self.uml is not None
        return super().facts() | {"kind": "uml", "prefix": self.prefix, "namespace": self.ns,
                                  "kernels": dict(self.uml.kernels()), "guest_mem_mb": self.uml.guest_mem_mb}
