"""Testbeds built from Linux network namespaces and veth pairs.

``loopback`` uses 127.0.0.1 / ::1 of the current namespace. ``p2p`` joins a
sender and a receiver namespace with one veth pair; ``routed`` puts two
forwarding routers between them (sender - r1 - r2 - receiver, the jumbo-frame
thesis's topology). Addresses come only from the benchmarking ranges
198.18.0.0/15 (RFC 2544) and 2001:2::/48 (RFC 5180); IPv6 addresses are
``nodad`` so a link carries traffic at once.

Every name carries a per-testbed prefix ``nr-<6 hex>-`` and an owner file in
:data:`STATE_DIR`, so two campaigns never collide and :func:`cleanup` removes
only what a dead collector left behind. Teardown runs from ``__exit__``, i.e.
also after a failed run, Ctrl-C or SIGTERM (see :func:`signals_raise`).
"""

from __future__ import annotations

from analysis.errors import NetreproError

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from analysis.collect.plan import STACK_SYSCTLS, TestbedSpec, rate_bps
from analysis.collect.scratch import make_scratch, remove_stale_scratch

PREFIX_RE = re.compile(r"^(nr-[0-9a-f]{6})-[a-z0-9]{1,5}$")
STATE_DIR = Path(os.environ.get("NETREPRO_STATE_DIR", "/run/netrepro"))
LOOPBACK = {4: "127.0.0.1", 6: "::1"}
OFFLOAD_FEATURES = {
    "tso": "tcp-segmentation-offload",
    "gso": "generic-segmentation-offload",
    "gro": "generic-receive-offload",
    "tx": "tx-checksumming",
    "rx": "rx-checksumming",
    "sg": "scatter-gather",
}


class TestbedError(NetreproError):
    """A testbed that could not be built or changed; names the command and its error."""


class Interrupted(KeyboardInterrupt):
    """A signal (SIGINT, SIGTERM, SIGHUP) turned into an exception so that
    every ``with`` block unwinds; ``signal`` names it."""

    def __init__(self, signal_name: str):
        super().__init__(signal_name)
        self.signal = signal_name


def signal_name(exc: KeyboardInterrupt) -> str:
    """The signal behind an interruption (Python's own KeyboardInterrupt is SIGINT's)."""
    return exc.signal if isinstance(exc, Interrupted) else "SIGINT"


def sh(argv: list[str], check: bool = True, timeout: float = 30) -> str:
    """Run one administrative command (never through a shell); its stdout."""
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise TestbedError(f"{' '.join(argv)}: exit {p.returncode}: {p.stderr.strip() or p.stdout.strip()}")
    return p.stdout


def in_ns(ns: str | None, argv: list[str]) -> list[str]:
    """``argv`` run inside namespace ``ns`` (or here, for the loopback testbed)."""
    return argv if ns is None else ["ip", "netns", "exec", ns, *argv]


@dataclass
class Node:
    role: str  # snd, rcv, r1, r2; "host" for loopback
    ns: str | None  # None: the host's own namespace (the loopback testbed)

    @property
    def netns(self) -> str:
        """The namespace's name, for the commands that build and change a namespace testbed."""
        if self.ns is None:
            raise TestbedError(f"node {self.role} is the host itself: it has no namespace to build or change")
        return self.ns


@dataclass
class Link:
    index: int
    a: tuple[Node, str]
    b: tuple[Node, str]
    mtu: int


def _v4(link: int, host: int) -> str:
    return f"198.18.{link}.{host}"


def _v6(link: int, host: int) -> str:
    return f"2001:2:0:{link}::{host}"


class BuiltOnEnter:
    """A context manager that builds on entry and always tears down, also when building fails."""

    def build(self) -> None:
        raise NotImplementedError

    def teardown(self) -> None:
        raise NotImplementedError

    def __enter__(self):
        try:
            self.build()
        except BaseException:
            self.teardown()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.teardown()


@dataclass
class Testbed(BuiltOnEnter):
    """A built testbed; use as a context manager so teardown always runs."""

    __test__ = False  # not a pytest class, despite the name

    name: str
    spec: TestbedSpec
    prefix: str = field(default_factory=lambda: f"nr-{secrets.token_hex(3)}")
    nodes: list[Node] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    stack: dict[str, str] = field(default_factory=dict)

    # --- layout -----------------------------------------------------------
    def __post_init__(self) -> None:
        if self.spec.kind == "loopback":
            self.nodes = [Node("host", None)]
            return
        roles = ["snd", "rcv"] if self.spec.kind == "p2p" else ["snd", "r1", "r2", "rcv"]
        self.nodes = [Node(r, f"{self.prefix}-{r}") for r in roles]
        mtus = self.spec.link_mtus()
        self.links = [
            Link(i, (self.nodes[i], f"{self.prefix}-{i}a"), (self.nodes[i + 1], f"{self.prefix}-{i}b"), mtus[i])
            for i in range(len(self.nodes) - 1)
        ]

    @property
    def sender(self) -> Node:
        return self.nodes[0]

    @property
    def receiver(self) -> Node:
        return self.nodes[-1]

    @property
    def namespaces(self) -> list[str]:
        return [n.ns for n in self.nodes if n.ns is not None]

    def target(self, ip_version: int) -> str:
        """The receiver's address, as the sender dials it."""
        if self.spec.kind == "loopback":
            return LOOPBACK[ip_version]
        last = len(self.links) - 1
        return _v4(last, 2) if ip_version == 4 else _v6(last, 2)

    # --- life cycle -------------------------------------------------------
    def build(self) -> None:
        if self.spec.kind == "loopback":
            return
        write_owner(self.prefix)
        for node in self.nodes:
            sh(["ip", "netns", "add", node.netns])
            self.created.append(node.netns)
            sh(["ip", "-n", node.netns, "link", "set", "lo", "up"])
        for link in self.links:
            self._build_link(link)
        self._route()
        for link in self.links:
            self._shape(link)
            self._offloads(link)

    def _build_link(self, link: Link) -> None:
        (na, ia), (nb, ib) = link.a, link.b
        sh(["ip", "link", "add", ia, "type", "veth", "peer", "name", ib])
        for node, ifname, host in ((na, ia, 1), (nb, ib, 2)):
            sh(["ip", "link", "set", ifname, "netns", node.netns])
            sh(["ip", "-n", node.netns, "link", "set", ifname, "mtu", str(link.mtu)])
            sh(["ip", "-n", node.netns, "addr", "add", f"{_v4(link.index, host)}/24", "dev", ifname])
            sh(["ip", "-n", node.netns, "-6", "addr", "add", f"{_v6(link.index, host)}/64", "dev", ifname, "nodad"])
            sh(["ip", "-n", node.netns, "link", "set", ifname, "up"])

    def _route(self) -> None:
        """Static routes: ends default to their neighbour; routers forward
        and know the far end's subnet through the middle link."""
        last = len(self.links) - 1
        self._default(self.sender, 0, 2)
        self._default(self.receiver, last, 1)
        if self.spec.kind != "routed":
            return
        r1, r2 = self.nodes[1], self.nodes[2]
        for router in (r1, r2):
            sh(in_ns(router.netns, ["sysctl", "-q", "-w", "net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1"]))
        for router, far, via in ((r1, 2, 2), (r2, 0, 1)):
            sh(["ip", "-n", router.netns, "route", "add", f"198.18.{far}.0/24", "via", _v4(1, via)])
            sh(["ip", "-n", router.netns, "-6", "route", "add", f"2001:2:0:{far}::/64", "via", _v6(1, via)])

    def _default(self, node: Node, link: int, host: int) -> None:
        sh(["ip", "-n", node.netns, "route", "add", "default", "via", _v4(link, host)])
        sh(["ip", "-n", node.netns, "-6", "route", "add", "default", "via", _v6(link, host)])

    def _shape(self, link: Link) -> None:
        """Egress rate limit on both ends of the link."""
        if self.spec.rate is None:
            return
        rate = self.spec.rate
        for node, ifname in (link.a, link.b):
            if self.spec.shaper == "tbf":
                burst = max(int(rate_bps(rate) / 8 / 1000), 2 * link.mtu + 1600)  # >= 1 ms at rate
                sh(["tc", "-n", node.netns, "qdisc", "replace", "dev", ifname, "root", "tbf",
                    "rate", rate, "burst", str(burst), "latency", "50ms"])
            else:
                sh(["tc", "-n", node.netns, "qdisc", "replace", "dev", ifname, "root", "handle", "1:", "htb", "default", "1"])
                sh(["tc", "-n", node.netns, "class", "add", "dev", ifname, "parent", "1:", "classid", "1:1",
                    "htb", "rate", rate, "ceil", rate])

    def _offloads(self, link: Link) -> None:
        if not self.spec.offloads:
            return
        if shutil.which("ethtool") is None:
            raise TestbedError("offloads were asked for but ethtool is not installed")
        args = [x for k, on in self.spec.offloads.items() for x in (k, "on" if on else "off")]
        for node, ifname in (link.a, link.b):
            sh(in_ns(node.netns, ["ethtool", "-K", ifname, *args]))

    def set_mtu(self, mtu: int) -> None:
        """Same MTU on every link end (the mtu_bytes factor)."""
        for link in self.links:
            for node, ifname in (link.a, link.b):
                sh(["ip", "-n", node.netns, "link", "set", ifname, "mtu", str(mtu)])
            link.mtu = mtu

    def apply_stack(self, sysctls: dict[str, str]) -> dict[str, str]:
        """Set a stack profile in every namespace of the testbed; returns
        the effective values as the sender's kernel reports them."""
        if sysctls and self.spec.kind == "loopback":
            raise TestbedError("a stack profile on the loopback testbed would change the host's own stack")
        if sysctls and sysctls != self.stack:
            for ns in self.namespaces:
                sh(in_ns(ns, ["sysctl", "-q", "-w", *[f"{k}={v}" for k, v in sysctls.items()]]))
            self.stack = dict(sysctls)
        return self.read_sysctls(self.sender.ns)

    def read_sysctls(self, ns: str | None) -> dict[str, str]:
        out = sh(in_ns(ns, ["sysctl", *STACK_SYSCTLS, "net.ipv4.tcp_available_congestion_control"]), check=False)
        return dict(_split_sysctl(line) for line in out.splitlines() if " = " in line)

    def teardown(self) -> None:
        """Stop what runs in our namespaces, delete them (their veths go
        with them) and any veth end still in this namespace."""
        for ns in reversed(self.created):
            remove_namespace(ns)
        self.created.clear()
        for link in self.links:
            _remove_link(link.a[1])
        if self.spec.kind != "loopback":
            owner_path(self.prefix).unlink(missing_ok=True)

    # --- facts ------------------------------------------------------------
    def facts(self) -> dict[str, Any]:
        """MTUs, qdiscs, offloads and stack sysctls as the kernel reports them."""
        out: dict[str, Any] = {"kind": self.spec.kind, "prefix": self.prefix if self.links else None, "nodes": {}}
        for node in self.nodes:
            ifaces = [ifname for link in self.links for n, ifname in (link.a, link.b) if n is node] or ["lo"]
            out["nodes"][node.role] = {
                "namespace": node.ns,
                "links": {i: _link_facts(node.ns, i) for i in ifaces},
                "sysctls": self.read_sysctls(node.ns),
            }
        out["addresses"] = {"ipv4": self.target(4), "ipv6": self.target(6)}
        return out


def _split_sysctl(line: str) -> tuple[str, str]:
    k, v = line.split(" = ", 1)
    return k.strip(), " ".join(v.split())


def _link_facts(ns: str | None, ifname: str) -> dict[str, Any]:
    link = json.loads(sh(in_ns(ns, ["ip", "-j", "link", "show", "dev", ifname])) or "[{}]")[0]
    qdiscs = json.loads(sh(in_ns(ns, ["tc", "-j", "qdisc", "show", "dev", ifname])) or "[]")
    facts: dict[str, Any] = {
        "mtu": link.get("mtu"),
        "qdiscs": [{k: q[k] for k in ("kind", "handle", "options") if k in q} for q in qdiscs],
    }
    if shutil.which("ethtool"):
        text = sh(in_ns(ns, ["ethtool", "-k", ifname]), check=False)
        state = dict(l.strip().split(": ", 1) for l in text.splitlines() if ": " in l and not l.startswith("Features"))
        facts["offloads"] = {k: state.get(v) for k, v in OFFLOAD_FEATURES.items()}
    return facts


# --- owner files and leftovers ---------------------------------------------
def owner_path(prefix: str) -> Path:
    return STATE_DIR / f"{prefix}.json"


def write_owner(prefix: str) -> None:
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    owner_path(prefix).write_text(json.dumps({"pid": os.getpid(), "prefix": prefix}))


def _owner_alive(prefix: str) -> bool:
    try:
        pid = json.loads(owner_path(prefix).read_text())["pid"]
    except (OSError, ValueError, KeyError):
        return False
    return Path(f"/proc/{pid}").exists()


def remove_namespace(ns: str) -> None:
    """Kill the processes we started in ``ns`` (servers), then delete it."""
    pids = sh(["ip", "netns", "pids", ns], check=False).split()
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid), signal.SIGKILL)
    sh(["ip", "netns", "del", ns], check=False)


def _remove_link(ifname: str) -> None:
    if Path(f"/sys/class/net/{ifname}").exists():
        sh(["ip", "link", "del", ifname], check=False)


def _prefix(name: str) -> str:
    """The ``nr-<6 hex>`` testbed prefix of a name that follows the scheme."""
    m = PREFIX_RE.match(name)
    if m is None:
        raise TestbedError(f"{name} does not follow netrepro's naming scheme")
    return m.group(1)


def our_namespaces() -> list[str]:
    """Namespaces that follow netrepro's naming scheme (any campaign's)."""
    out = sh(["ip", "netns", "list"], check=False)
    names = [line.split()[0] for line in out.splitlines() if line.strip()]
    return [n for n in names if PREFIX_RE.match(n)]


def our_links() -> list[str]:
    """veth ends in this namespace that follow the naming scheme."""
    return [p.name for p in Path("/sys/class/net").iterdir() if PREFIX_RE.match(p.name)]


def cleanup(include_live: bool = False) -> list[str]:
    """Remove namespaces, links and local scratch folders of collectors that
    are no longer running (namespaces and links of all of netrepro's with
    ``include_live``); what was removed, one line each ("namespace nr-..."). Names
    outside the ``nr-<6 hex>-<role>`` scheme, and folders without the
    collector's owner file, are never touched."""
    removed: list[tuple[str, str]] = []
    for ns in our_namespaces():
        prefix = _prefix(ns)
        if include_live or not _owner_alive(prefix):
            remove_namespace(ns)
            removed.append(("namespace", ns))
    for ifname in our_links():
        prefix = _prefix(ifname)
        if include_live or not _owner_alive(prefix):
            _remove_link(ifname)
            removed.append(("link", ifname))
    for prefix in {_prefix(name) for _, name in removed}:
        removed += [("guest process", str(pid)) for pid in stop_orphan_guests(prefix)]
        owner_path(prefix).unlink(missing_ok=True)
    removed += [("scratch folder", str(folder)) for folder in remove_stale_scratch()]
    return [f"{kind} {name}" for kind, name in removed]


def stop_orphan_guests(prefix: str, wait_s: float = 5.0) -> list[int]:
    """User-mode Linux guests a stopped collector left running (their command line
    carries ``umid=<prefix>-<role>``, a name only that collector gave): SIGKILL by
    PID. A guest gets SIGTERM when its collector dies, but one still booting, or
    slow to shut down on a loaded host, may not act on it."""
    import time

    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv and argv[0].endswith(b"linux.uml") and any(a.startswith(f"umid={prefix}-".encode()) for a in argv):
            found.append(int(entry.name))
    for pid in found:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + wait_s
    while any(_running(pid) for pid in found) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def _running(pid: int) -> bool:
    """The process exists and has not exited: a killed process its parent has not
    reaped yet (a zombie, state Z) holds nothing any more, so it is not waited for."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] != ["Z"]


class CaughtSignals:
    """The signals :func:`signals_raise` has raised for. Python drops an exception
    raised where it cannot propagate (a signal landing in a fork handler prints
    "Exception ignored" and the work goes on), so loops :meth:`check` between steps."""

    def __init__(self) -> None:
        self.caught: str | None = None

    def check(self) -> None:
        if self.caught is not None:
            raise Interrupted(self.caught)


_SESSIONS: list[CaughtSignals] = []  # those of the signals_raise blocks now open, innermost last


def check_signals() -> None:
    """For the loops that wait on a child (a guest's boot, an SSH connection, a
    remote step), each just after a fork that may have dropped a signal's
    exception: raise it now rather than when the wait is over (a guest's boot
    and the bring-up after it went on for 10-15 s after a SIGTERM)."""
    if _SESSIONS:
        _SESSIONS[-1].check()


@contextlib.contextmanager
def signals_raise() -> Iterator[CaughtSignals]:
    """While inside, SIGTERM, SIGHUP and SIGINT raise :class:`Interrupted`
    naming the signal, so teardown code in ``finally`` and ``__exit__`` runs
    before the process ends. SIGINT only where Python would raise
    KeyboardInterrupt for it (a shell may have set it to be ignored)."""
    signals = CaughtSignals()

    def handler(signum: int, frame: object) -> None:
        signals.caught = signals.caught or signal.Signals(signum).name
        raise Interrupted(signal.Signals(signum).name)

    wanted = [signal.SIGTERM, signal.SIGHUP]
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        wanted.append(signal.SIGINT)
    previous = {s: signal.signal(s, handler) for s in wanted}
    _SESSIONS.append(signals)
    try:
        yield signals
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        _SESSIONS.remove(signals)


def netns_available() -> str | None:
    """Why namespace testbeds cannot be built here, or None if they can."""
    if os.geteuid() != 0:
        return "needs root (network namespaces and veth pairs)"
    if shutil.which("ip") is None:
        return "iproute2 (ip) is not installed"
    probe = f"nr-{secrets.token_hex(3)}-probe"
    p = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if p.returncode != 0:
        return f"ip netns add failed: {p.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def workdir(prefix: str) -> Path:
    """Scratch space for D-ITG logs (not part of the campaign)."""
    return make_scratch(f"netrepro-{prefix}-")
