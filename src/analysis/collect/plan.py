"""Run plans: what a campaign varies, how often, and in which order.

A plan is YAML validated here before anything runs, so that a typo is a
clear error naming its key rather than a half-built testbed running as root.
Blocks cross their factors' levels into cells; every cell is repeated
``runs_per_cell`` times; the whole list is shuffled with the plan's seed so the
run order is random but reproducible (same seed, same order).
"""

from __future__ import annotations

import ipaddress
import itertools
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from analysis.parsers.records import RunRecord
from analysis.errors import PlanError
from analysis.yamlfiles import load_model

SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$")
_RATE = re.compile(r"^[1-9][0-9]*(?:\.[0-9]+)?(?:bit|kbit|mbit|gbit)$")
# ssh's tokens in a ProxyCommand (ssh_config(5), TOKENS); any other % makes ssh refuse the command.
_PROXY_TOKEN = re.compile(r"%[%hprn]")
_RATE_FACTOR = {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9}

TOOLS = ("netperf", "iperf3", "iperf2", "ditg")
MODES = {"netperf": ("stream", "rr"), "iperf3": ("stream",), "iperf2": ("stream",), "ditg": ("owdm", "rttm")}
APPLICATIONS = (
    "DNS", "Telnet", "CSa", "CSi", "Quake3",
    "VoIP-G.711.1", "VoIP-G.711.2", "VoIP-G.723.1", "VoIP-G.729.2", "VoIP-G.729.3",
)
# Sysctls a stack profile may set: per network namespace on Linux, so setting
# them inside a testbed namespace never touches the host's own stack.
STACK_SYSCTLS = (
    "net.ipv4.tcp_congestion_control",
    "net.ipv4.tcp_rmem",
    "net.ipv4.tcp_wmem",
    "net.ipv4.tcp_window_scaling",
    "net.ipv4.tcp_timestamps",
    "net.ipv4.tcp_sack",
    "net.ipv4.tcp_ecn",
    "net.ipv4.tcp_mtu_probing",
    "net.ipv4.tcp_no_metrics_save",
)
OFFLOADS = ("tso", "gso", "gro", "tx", "rx", "sg")
# Factors the collector knows how to vary, with the bounds it accepts.
FACTOR_TYPES: dict[str, type] = {
    "ip_version": int,
    "transport": str,
    "packet_size_bytes": int,
    "frame_size_bytes": int,
    "mtu_bytes": int,
    "mode": str,
    "application": str,
    "stack": str,
    "topology": str,
}
RESERVED = {"tool", "run", "os", "os_version", "receiver_os", "receiver_os_version"}
# The executables each tool needs on the sending and on the receiving host
# (ITGDec decodes a D-ITG log where it was written: the sender's in rttm, the receiver's always).
EXECUTABLES: dict[str, dict[str, tuple[str, ...]]] = {
    "netperf": {"sender": ("netperf",), "receiver": ("netserver",)},
    "iperf3": {"sender": ("iperf3",), "receiver": ("iperf3",)},
    "iperf2": {"sender": ("iperf",), "receiver": ("iperf",)},
    "ditg": {"sender": ("ITGSend", "ITGDec"), "receiver": ("ITGRecv", "ITGDec")},
}
EXECUTABLE_NAMES = tuple(sorted({x for sides in EXECUTABLES.values() for names in sides.values() for x in names}))
_HOSTNAME = re.compile(r"^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$")
_USER = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.@\\-]{0,63}$")
# Each User-mode Linux guest sets its wall clock from the host's at boot and then
# keeps its own: two guests of one testbed differed by 44-55 ms (a D-ITG owdm
# run's delays were negative), so one-way delays between guests are refused.
UML_NO_SHARED_CLOCK = ("User-mode Linux guests keep clocks of their own (each set from the host's at boot; two guests "
                       "differed by tens of ms), so one-way delays between them are not meaningful: use mode rttm "
                       "(round trips, timed on the sender's one clock)")
ETHERNET_OVERHEAD_BYTES = 18  # header 14 + FCS 4: a frame size counts both
IP_HEADER_BYTES = {4: 20, 6: 40}
L4_HEADER_BYTES = {"UDP": 8, "TCP": 32}  # TCP: 20 + 12 of timestamp option (Linux default)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _safe(value: str, what: str) -> str:
    if not SAFE_NAME.match(value):
        raise ValueError(f"{what} {value!r}: use 1-40 of A-Z a-z 0-9 . _ - (starting with a letter or digit)")
    return value


def rate_bps(rate: str) -> float:
    """``1gbit`` -> 1e9 (tc's decimal units)."""
    m = re.match(r"^([0-9.]+)([a-z]+)$", rate)
    assert m is not None
    return float(m.group(1)) * _RATE_FACTOR[m.group(2)]


class Ports(_Strict):
    """Server ports. Defaults are off the tools' defaults so a loopback
    campaign does not meet other users of the well-known ports."""

    netperf: int = Field(15865, ge=1024, le=65535)
    iperf3: int = Field(15201, ge=1024, le=65535)
    iperf2: int = Field(15001, ge=1024, le=65535)
    ditg: int = Field(15900, ge=1024, le=65535, description="ITGRecv signalling port")
    ditg_data: int = Field(15998, ge=1024, le=65535, description="ITGSend -rp data port")

    @model_validator(mode="after")
    def _distinct(self) -> "Ports":
        values = list(self.model_dump().values())
        if len(set(values)) != len(values):
            raise ValueError(f"ports must be distinct, got {self.model_dump()}")
        return self


def _no_control(value: str, what: str) -> str:
    """Paths and commands may hold any printable character (they are quoted
    per dialect), but no control character: a newline would split a line
    the host prints back (a checksum, a path)."""
    if not value or any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise ValueError(f"{what} {value!r}: give a non-empty value without control characters (newline, tab, NUL)")
    return value


class HostSpec(_Strict):
    """A machine of a real lab, reached with the OpenSSH client (key only,
    no prompts). ``address`` is where SSH connects; ``ipv4``/``ipv6`` are
    where the sender sends measurement traffic to it (default: ``address``
    when that is an IP literal of the family)."""

    address: str = Field(description="SSH destination: host name or IP address")
    user: str | None = Field(None, description="login name (default: the SSH client's)")
    port: int = Field(22, ge=1, le=65535)
    identity_file: str | None = Field(None, description="private key; only this key is offered (IdentitiesOnly)")
    known_hosts: Literal["strict", "accept-new"] = Field("strict", description="host key policy: strict refuses unknown keys")
    known_hosts_file: str | None = Field(None, description="known_hosts to check the host key against (default: the client's)")
    proxy_command: list[str] | None = Field(None, description="argv of a ProxyCommand (e.g. a jump through a bastion)")
    connect_timeout_s: float = Field(10, ge=1, le=120)
    roles: list[Literal["sender", "receiver", "router"]] = Field(min_length=1)
    dialect: Literal["posix", "powershell"] = Field("posix", description="the login shell: POSIX sh, or PowerShell (Windows OpenSSH)")
    tools: dict[str, str] = Field(default_factory=dict, description="executable -> path on this host, e.g. {netperf: /opt/bin/netperf}")
    workdir: str | None = Field(None, description="where scratch folders go (default /tmp, or %TEMP% on Windows)")
    ipv4: str | None = None
    ipv6: str | None = None

    @field_validator("address")
    @classmethod
    def _address(cls, v: str) -> str:
        try:
            ipaddress.ip_address(v)
            return v
        except ValueError:
            pass
        if not _HOSTNAME.match(v):
            raise ValueError(f"address {v!r}: give a host name or an IP address")
        return v

    @field_validator("user")
    @classmethod
    def _user(cls, v: str | None) -> str | None:
        if v is not None and not _USER.match(v):
            raise ValueError(f"user {v!r}: use letters, digits and _ . @ \\ - (not starting with -)")
        return v

    @field_validator("identity_file", "known_hosts_file", "workdir")
    @classmethod
    def _paths(cls, v: str | None) -> str | None:
        return None if v is None else _no_control(v, "path")

    @field_validator("proxy_command")
    @classmethod
    def _proxy(cls, v: list[str] | None) -> list[str] | None:
        if v is not None:
            if not v:
                raise ValueError("proxy_command: give the command as a list of arguments")
            for arg in v:
                _no_control(arg, "proxy_command argument")
                if "%" in _PROXY_TOKEN.sub("", arg):
                    raise ValueError(f"proxy_command argument {arg!r}: ssh expands % tokens in a ProxyCommand and "
                                     "knows only %h %p %r %n there; write %% for a literal %")
        return v

    @field_validator("tools")
    @classmethod
    def _tools(cls, v: dict[str, str]) -> dict[str, str]:
        for name, path in v.items():
            if name not in EXECUTABLE_NAMES:
                raise ValueError(f"tools: {name!r} is not an executable the collector runs; use {', '.join(EXECUTABLE_NAMES)}")
            _no_control(path, f"tools.{name}")
        return v

    @field_validator("ipv4", "ipv6")
    @classmethod
    def _ip(cls, v: str | None, info: ValidationInfo) -> str | None:
        if v is not None:
            want = 4 if info.field_name == "ipv4" else 6
            try:
                if ipaddress.ip_address(v).version != want:
                    raise ValueError
            except ValueError:
                raise ValueError(f"{info.field_name} {v!r}: give an IPv{want} address") from None
        return v

    @model_validator(mode="after")
    def _check(self) -> "HostSpec":
        if len(set(self.roles)) != len(self.roles):
            raise ValueError(f"roles repeat: {self.roles}")
        if self.workdir is not None and self.dialect == "posix" and not self.workdir.startswith("/"):
            raise ValueError(f"workdir {self.workdir!r}: give an absolute path")
        return self

    def test_address(self, version: int) -> str | None:
        """Where measurement traffic to this host goes, for IPv4 or IPv6."""
        given = self.ipv4 if version == 4 else self.ipv6
        if given is not None:
            return given
        try:
            literal = ipaddress.ip_address(self.address)
        except ValueError:
            return None
        return self.address if literal.version == version else None

    def executable(self, name: str) -> str:
        return self.tools.get(name, name)


class TestbedSpec(_Strict):
    __test__ = False  # not a pytest class, despite the name
    kind: Literal["loopback", "p2p", "routed", "hosts", "uml"]
    mtu: int | list[int] = Field(1500, description="one MTU for every link, or one per link (routed: 3)")
    rate: str | None = Field(None, description="egress rate limit per link end, tc units: 100mbit, 1gbit")
    shaper: Literal["tbf", "htb"] = "tbf"
    offloads: dict[str, bool] = Field(default_factory=dict, description="ethtool -K features, e.g. {tso: false}")
    ports: Ports = Field(default_factory=Ports)
    # kind: hosts -- machines of a real lab named under the plan's hosts:
    sender: str | None = Field(None, description="hosts: the host that runs the clients")
    receiver: str | None = Field(None, description="hosts: the host that runs the servers")
    routers: list[str] = Field(default_factory=list, description="hosts: routers in between (facts only; nothing runs there)")
    clock_sync: str | None = Field(None, description="hosts: how sender and receiver clocks are synchronised, if the hosts cannot tell")
    owd_without_clock_sync: bool = Field(False, description="hosts: collect one-way delays although no clock sync is recorded")
    # kind: uml -- two User-mode Linux guests (sender, receiver) on one link; the kernel is the OS factor
    kernel: str | None = Field(None, description="uml: the sender's kernel, a Debian suite whose user-mode-linux "
                               "scripts/install-uml.sh fetched (bookworm, bullseye)")
    receiver_kernel: str | None = Field(None, description="uml: the receiver's kernel (default: the sender's)")
    guest_mem_mb: int = Field(256, ge=64, le=4096, description="uml: memory given to each guest")

    @property
    def links(self) -> int:
        return {"loopback": 0, "p2p": 1, "routed": 3, "hosts": 0, "uml": 1}[self.kind]

    def link_mtus(self) -> list[int]:
        return list(self.mtu) if isinstance(self.mtu, list) else [self.mtu] * self.links

    @model_validator(mode="after")
    def _check(self) -> "TestbedSpec":
        mtus = self.mtu if isinstance(self.mtu, list) else [self.mtu]
        for m in mtus:
            if not 1280 <= m <= 9000:
                raise ValueError(f"mtu {m}: use 1280..9000 (IPv6 needs at least 1280)")
        if isinstance(self.mtu, list) and len(self.mtu) != self.links:
            raise ValueError(f"mtu: a {self.kind} testbed has {self.links} links, got {len(self.mtu)} MTUs")
        # Judged by value, not by presence: a plan dumped with its defaults validates again.
        lab = ("sender", "receiver", "routers", "clock_sync", "owd_without_clock_sync")
        if self.kind == "hosts":
            if self.sender is None or self.receiver is None:
                raise ValueError("hosts: name the sender and the receiver (names under the plan's hosts:)")
            changes = [k for k in ("rate", "offloads", "mtu", "shaper") if getattr(self, k) != _DEFAULTS[k]]
            if changes:
                raise ValueError(f"hosts: {', '.join(changes)} would change a lab host's own settings; "
                                 "the collector records them as host facts instead")
        elif lab_keys := [k for k in lab if getattr(self, k) != _DEFAULTS[k]]:
            raise ValueError(f"{', '.join(lab_keys)}: only for kind hosts")
        self._check_uml()
        if self.kind == "loopback" and (self.rate or self.offloads or self.mtu != 1500):
            raise ValueError("loopback: rate, offloads and mtu would change the host's own lo; use p2p or routed")
        if self.rate is not None:
            if not _RATE.match(self.rate):
                raise ValueError(f"rate {self.rate!r}: write a tc rate such as 100mbit or 1gbit")
            if not 1e5 <= rate_bps(self.rate) <= 1e11:
                raise ValueError(f"rate {self.rate}: use 100kbit..100gbit")
        bad = [k for k in self.offloads if k not in OFFLOADS]
        if bad:
            raise ValueError(f"offloads: unknown feature {bad[0]!r}; known: {', '.join(OFFLOADS)}")
        return self

    def _check_uml(self) -> None:
        guest = ("kernel", "receiver_kernel", "guest_mem_mb")
        if self.kind != "uml":
            if keys := [k for k in guest if getattr(self, k) != _DEFAULTS[k]]:
                raise ValueError(f"{', '.join(keys)}: only for kind uml")
            return
        if self.kernel is None:
            raise ValueError("uml: name the guests' kernel (kernel: bookworm), a suite scripts/install-uml.sh fetches")
        for k in (self.kernel, self.receiver_kernel):
            if k is not None:
                _safe(k, "kernel")
        if changes := [k for k in ("rate", "offloads", "shaper") if getattr(self, k) != _DEFAULTS[k]]:
            raise ValueError(f"uml: {', '.join(changes)} is not supported on User-mode Linux guests "
                             "(the guests run their kernels' defaults); use p2p for shaping")

    def kernels(self) -> dict[str, str]:
        """uml: the kernel of each guest, by role."""
        assert self.kernel is not None
        return {"sender": self.kernel, "receiver": self.receiver_kernel or self.kernel}


_DEFAULTS = {name: f.get_default(call_default_factory=True) for name, f in TestbedSpec.model_fields.items()}


class Block(_Strict):
    """One tool and the factors it crosses."""

    name: str
    tool: Literal["netperf", "iperf3", "iperf2", "ditg"]
    factors: dict[str, list[int | str]] = Field(default_factory=dict)
    runs_per_cell: int | None = Field(None, ge=1, le=1000)
    duration_s: float | None = Field(None, ge=0.5, le=600, description="e.g. longer for sparse D-ITG presets such as DNS")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return _safe(v, "block name")

    @model_validator(mode="after")
    def _factors(self) -> "Block":
        for name, levels in self.factors.items():
            _check_factor(name, levels, self.tool)
        if self.tool == "ditg" and "application" in self.factors and (
            "transport" in self.factors or "packet_size_bytes" in self.factors or "frame_size_bytes" in self.factors
        ):
            raise ValueError(f"block {self.name}: an application preset fixes transport and sizes; drop those factors")
        if "packet_size_bytes" in self.factors and "frame_size_bytes" in self.factors:
            raise ValueError(f"block {self.name}: give packet_size_bytes or frame_size_bytes, not both")
        return self


def _check_factor(name: str, levels: list[int | str], tool: str) -> None:
    if name in RESERVED:
        raise ValueError(f"factor {name!r} is set by the collector; remove it")
    if name not in FACTOR_TYPES:
        hint = " (it would overwrite a tool-reported column)" if name in RunRecord.__dataclass_fields__ else ""
        raise ValueError(f"factor {name!r}{hint}: the collector can vary {', '.join(FACTOR_TYPES)}")
    if not levels:
        raise ValueError(f"factor {name}: give at least one level")
    if len(set(map(str, levels))) != len(levels):
        raise ValueError(f"factor {name}: levels repeat: {levels}")
    kind = FACTOR_TYPES[name]
    for v in levels:
        if not isinstance(v, kind) or isinstance(v, bool):
            raise ValueError(f"factor {name}: level {v!r} is not {'an integer' if kind is int else 'a name'}")
        if isinstance(v, str):
            _safe(v, f"factor {name} level")
    _check_levels(name, levels, tool)


def _check_levels(name: str, levels: list[Any], tool: str) -> None:
    allowed: dict[str, tuple[Any, ...]] = {
        "ip_version": (4, 6),
        "transport": ("TCP", "UDP"),
        "mode": MODES[tool],
        "application": APPLICATIONS if tool == "ditg" else (),
    }
    bounds = {"packet_size_bytes": (16, 65000), "frame_size_bytes": (128, 9216), "mtu_bytes": (1280, 9000)}
    for v in levels:
        if name in allowed and v not in allowed[name]:
            raise ValueError(f"factor {name}: {v!r} is not possible for {tool}; use one of {list(allowed[name])}")
        if name in bounds and not bounds[name][0] <= v <= bounds[name][1]:
            raise ValueError(f"factor {name}: {v} is outside {bounds[name][0]}..{bounds[name][1]}")


class ToolOptions(_Strict):
    iperf3_udp_bitrate: str = Field("100M", pattern=r"^[0-9]+[KMG]?$", description="iperf3/iperf2 -b for UDP")
    ditg_rate_pps: int = Field(1000, ge=1, le=200000, description="D-ITG -C constant packet rate")
    ditg_packet_log: bool = Field(False, description="keep D-ITG's binary packet log as the run's file "
                                  "(ingest reads ITGDec's summary from it and keeps every packet) instead of ITGDec's summary")
    netperf_cpu: bool = Field(True, description="netperf -c -C (local and remote CPU)")


class Plan(_Strict):
    name: str
    title: str
    description: str = ""
    hosts: dict[str, HostSpec] = Field(default_factory=dict, description="machines reached over SSH (testbeds of kind hosts)")
    testbeds: dict[str, TestbedSpec]
    stack_profiles: dict[str, dict[str, str]] = Field(default_factory=dict)
    blocks: list[Block]
    seed: int
    runs_per_cell: int = Field(ge=1, le=1000)
    duration_s: float = Field(ge=0.5, le=600)
    warmup_s: float = Field(0, ge=0, le=60, description="one discarded run per tool and testbed before the campaign")
    pause_s: float = Field(0.2, ge=0, le=60)
    timeout_s: float = Field(20, ge=2, le=600, description="added to the duration before a run is killed")
    retries: int = Field(0, ge=0, le=5)
    options: ToolOptions = Field(default_factory=ToolOptions)
    notes: str = ""

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return _safe(v, "plan name")

    @field_validator("testbeds")
    @classmethod
    def _testbed_names(cls, v: dict[str, TestbedSpec]) -> dict[str, TestbedSpec]:
        if not v:
            raise ValueError("name at least one testbed")
        for name in v:
            _safe(name, "testbed name")
        return v

    @field_validator("hosts")
    @classmethod
    def _host_names(cls, v: dict[str, HostSpec]) -> dict[str, HostSpec]:
        for name in v:
            _safe(name, "host name")
        return v

    @field_validator("stack_profiles")
    @classmethod
    def _profiles(cls, v: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
        for name, sysctls in v.items():
            _safe(name, "stack profile name")
            for key, value in sysctls.items():
                if key not in STACK_SYSCTLS:
                    raise ValueError(f"stack profile {name}: {key} is not a per-namespace stack sysctl; use {', '.join(STACK_SYSCTLS)}")
                if not re.fullmatch(r"[a-z0-9 ]{1,64}", str(value)):
                    raise ValueError(f"stack profile {name}: {key}={value!r} is not a plain sysctl value")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> "Plan":
        names = [b.name for b in self.blocks]
        if not names:
            raise ValueError("blocks: give at least one block")
        if len(set(names)) != len(names):
            raise ValueError(f"blocks: names repeat: {names}")
        for name, bed in self.testbeds.items():
            if bed.kind == "hosts":
                self._check_hosts(name, bed)
        used = {h for bed in self.testbeds.values() for h in (bed.sender, bed.receiver, *bed.routers) if h}
        unused = [h for h in self.hosts if h not in used]
        if unused:
            raise ValueError(f"hosts: {', '.join(unused)} is in no testbed (name it as a sender, receiver or router of a kind: hosts testbed)")
        for b in self.blocks:
            self._check_block_refs(b)
            self._check_whole_seconds(b)
        windows = [h for h, spec in self.hosts.items() if spec.dialect == "powershell"]
        if self.options.ditg_packet_log and windows:
            raise ValueError(f"options.ditg_packet_log: the log is copied out with cat, which {', '.join(windows)} "
                             "(dialect powershell) does not have; keep ITGDec's summary there")
        return self

    def _check_hosts(self, name: str, bed: TestbedSpec) -> None:
        for role, host in [("sender", bed.sender), ("receiver", bed.receiver)] + [("router", r) for r in bed.routers]:
            if host not in self.hosts:
                raise ValueError(f"testbed {name}: {role} {host!r} is not among hosts {list(self.hosts)}")
            if role not in self.hosts[str(host)].roles:
                raise ValueError(f"testbed {name}: host {host} is the {role} but its roles are {self.hosts[str(host)].roles}")

    def _check_whole_seconds(self, b: Block) -> None:
        """netperf's -l and iperf3's -t take whole seconds: 0.5 became a test
        without end, killed at its timeout (a warm-up of 0.5 s took 10.5 s), 1.5 became 1."""
        if b.tool not in ("netperf", "iperf3"):
            return
        for what, seconds in (("duration_s", b.duration_s or self.duration_s), ("warmup_s", self.warmup_s)):
            if not float(seconds).is_integer():
                raise ValueError(f"block {b.name}: {b.tool} runs whole seconds, so {what} {seconds:g} cannot be kept; give 1, 2, ...")

    def _check_block_refs(self, b: Block) -> None:
        # Both factors are names (their levels were checked to be str by the block).
        named = b.factors.get("topology")
        if named is None and len(self.testbeds) != 1:
            raise ValueError(f"block {b.name}: several testbeds are named, so give a topology factor choosing among {list(self.testbeds)}")
        topologies = [str(t) for t in named] if named is not None else list(self.testbeds)
        for t in topologies:
            if t not in self.testbeds:
                raise ValueError(f"block {b.name}: topology {t!r} is not among testbeds {list(self.testbeds)}")
        stacks = [str(s) for s in b.factors.get("stack", [])]
        for s in stacks:
            if s not in self.stack_profiles:
                raise ValueError(f"block {b.name}: stack {s!r} is not among stack_profiles {list(self.stack_profiles)}")
        kinds = {self.testbeds[t].kind for t in topologies}
        if "hosts" in kinds:
            touching = [s for s in stacks if self.stack_profiles[s]]
            if touching or "mtu_bytes" in b.factors:
                raise ValueError(f"block {b.name}: a stack profile or MTU would change a lab host's own settings; "
                                 "the collector records them as host facts (vary them with a topology factor over testbeds instead)")
            for t in topologies:
                bed = self.testbeds[t]
                receiver = self.hosts[str(bed.receiver)]
                for version in [int(v) for v in b.factors.get("ip_version", [4])]:
                    if receiver.test_address(version) is None:
                        raise ValueError(f"block {b.name}: testbed {t} needs an IPv{version} address for {bed.receiver}: "
                                         f"set hosts.{bed.receiver}.ipv{version}")
        if "uml" in kinds:
            if b.tool == "ditg" and "owdm" in b.factors.get("mode", [MODES["ditg"][0]]):
                raise ValueError(f"block {b.name}: D-ITG owdm (one-way delay) on kind uml: {UML_NO_SHARED_CLOCK}")
            touching = [s for s in stacks if self.stack_profiles[s]]
            if touching or "mtu_bytes" in b.factors:
                raise ValueError(f"block {b.name}: User-mode Linux guests run their kernel's own defaults here; "
                                 "a stack profile or an MTU factor is not supported on kind uml")
        if "loopback" in kinds:
            touching = [s for s in stacks if self.stack_profiles[s]]
            if touching or "mtu_bytes" in b.factors:
                raise ValueError(f"block {b.name}: on the loopback testbed a stack profile or MTU would change the host itself")

    def testbed_of(self, levels: dict[str, Any]) -> str:
        return str(levels.get("topology", next(iter(self.testbeds))))

    def duration_of(self, run: "Run") -> float:
        block = next(b for b in self.blocks if b.name == run.block)
        return block.duration_s or self.duration_s


@dataclass(frozen=True)
class Run:
    """One measurement: a block's cell and repetition, at a place in the order."""

    order: int
    block: str
    tool: str
    levels: dict[str, Any]  # factor levels incl. tool, mode and run
    path: str  # campaign-relative output file


def load_plan(path: str | Path) -> Plan:
    return load_model(path, Plan, PlanError, "keys name, title, testbeds, blocks, seed, ...")


def _extension(tool: str, options: ToolOptions) -> str:
    if tool == "ditg" and options.ditg_packet_log:
        return "bin"
    return "json" if tool == "iperf3" else "txt"


def cells(plan: Plan, block: Block) -> list[dict[str, Any]]:
    """The block's factor-level combinations, fixed levels (tool, mode) included."""
    fixed: dict[str, Any] = {"tool": block.tool}
    if "mode" not in block.factors:
        fixed["mode"] = MODES[block.tool][0]
    names = list(block.factors)
    return [fixed | dict(zip(names, combo)) for combo in itertools.product(*(block.factors[n] for n in names))]


def run_path(block: Block, levels: dict[str, Any], options: ToolOptions) -> str:
    parts = [block.name] + [f"{k}-{levels[k]}" for k in block.factors]
    return "/".join(parts) + f"/run{levels['run']:03d}.{_extension(block.tool, options)}"


def schedule(plan: Plan) -> list[Run]:
    """Every run of the plan in its seeded random order."""
    runs: list[tuple[Block, dict[str, Any]]] = []
    for block in plan.blocks:
        reps = block.runs_per_cell or plan.runs_per_cell
        for cell in cells(plan, block):
            runs.extend((block, cell | {"run": r}) for r in range(1, reps + 1))
    random.Random(plan.seed).shuffle(runs)
    return [Run(i, b.name, b.tool, lv, run_path(b, lv, plan.options)) for i, (b, lv) in enumerate(runs)]


# Measured wall time beyond the tool's own duration (start-up, control
# connections, D-ITG's signalling and ITGDec), for the dry-run estimate.
OVERHEAD_S = {"netperf": 0.3, "iperf3": 0.5, "iperf2": 0.3, "ditg": 1.2}


# Over SSH each run also starts its wrapper and copies its output back (a few
# round trips; measured on the namespace lab of a loaded 2-core host), and each
# testbed connects, checks tools and gathers facts first.
SSH_OVERHEAD_S = {"netperf": 0.8, "iperf3": 0.8, "iperf2": 0.8, "ditg": 2.0}
SSH_BRING_UP_S = 5
UML_BRING_UP_S = 30  # two guests booted, their sshd reached, their facts read (measured on the loaded 2-core host)


def expected_seconds(plan: Plan, runs: list[Run]) -> float:
    def overhead(r: Run) -> float:
        remote = plan.testbeds[plan.testbed_of(r.levels)].kind in ("hosts", "uml")
        return OVERHEAD_S[r.tool] + (SSH_OVERHEAD_S[r.tool] if remote else 0)

    per_run = sum(plan.duration_of(r) + overhead(r) + plan.pause_s for r in runs)
    warmups = len({(b.tool) for b in plan.blocks}) * len(plan.testbeds) * (plan.warmup_s + 1) if plan.warmup_s else 0
    bring_up = sum({"hosts": SSH_BRING_UP_S, "uml": UML_BRING_UP_S}.get(t.kind, 3) for t in plan.testbeds.values())
    return per_run + warmups + bring_up


def payload_bytes(levels: dict[str, Any]) -> int | None:
    """The tool's message size: the packet size as given, or what fills a
    frame of ``frame_size_bytes`` after Ethernet, IP and transport headers."""
    if "packet_size_bytes" in levels:
        return int(levels["packet_size_bytes"])
    if "frame_size_bytes" in levels:
        ipv = int(levels.get("ip_version", 4))
        transport = str(levels.get("transport", "UDP"))
        return int(levels["frame_size_bytes"]) - ETHERNET_OVERHEAD_BYTES - IP_HEADER_BYTES[ipv] - L4_HEADER_BYTES[transport]
    return None


def factor_table(plan: Plan) -> dict[str, dict[str, Any]]:
    """Every factor the campaign's files carry, with type and levels (for the manifest)."""
    out: dict[str, dict[str, Any]] = {"tool": {"type": "str", "levels": []}, "mode": {"type": "str", "levels": []}}
    for block in plan.blocks:
        for cell in cells(plan, block):
            for name, value in cell.items():
                entry = out.setdefault(name, {"type": "int" if isinstance(value, int) else "str", "levels": []})
                if value not in entry["levels"]:
                    entry["levels"].append(value)
    if any(b.tool == "ditg" for b in plan.blocks):
        rttm = any("rttm" in b.factors.get("mode", []) for b in plan.blocks if b.tool == "ditg")
        out["log"] = {"type": "str", "levels": ["sender", "receiver"] if rttm else ["receiver"],
                      "description": "the D-ITG log ITGDec summarised: receiver = one-way, sender (rttm) = round trip"}
    out["run"] = {"type": "int", "levels": None}
    return out
