"""What the collector says to a lab host's shell, per dialect: POSIX sh or
PowerShell (Windows hosts running OpenSSH).

Every command a host runs is built here from argument lists, each argument
quoted for the dialect -- never by pasting untrusted text into a string. The
builders are pure (no I/O), so the exact text a host receives is unit-tested
(tests/collect/test_dialects.py), hostile file names included.

A run's command is wrapped in a short script that

- reports the PID of the process group it runs in (``netrepro-pid N``), so the
  collector can stop it by that PID -- never by name;
- writes the tool's output to a file on the host, which the collector then
  copies back and checks against the host's own SHA-256 of it;
- reports the tool's exit status (``netrepro-exit N``), which tells a tool
  that failed from an SSH connection that broke (no marker at all);
- (POSIX) watches its standard input: when the SSH channel closes -- the
  collector stopped, or the connection dropped -- it kills its own process
  group, so nothing it started outlives the connection.
"""

from __future__ import annotations

import base64
import re
import shlex
from dataclasses import dataclass
from pathlib import PurePath, PurePosixPath, PureWindowsPath
from typing import Any, Protocol

PID_MARK, EXIT_MARK, CPU_MARK, MISSING_MARK = "netrepro-pid", "netrepro-exit", "netrepro-cpu", "netrepro-missing"
SECTION = "@@netrepro "
PROC_SYS = "/proc/sys/"


def _proc_sys(key: str) -> str:
    """A sysctl's file: net.ipv4.tcp_rmem -> /proc/sys/net/ipv4/tcp_rmem."""
    return PROC_SYS + key.replace(".", "/")


# Version commands per executable (argument, pattern), as hostfacts.VERSION_COMMANDS for the local host.
VERSION_ARGS = {
    "netperf": ("-V", r"Netperf version (\S+)"),
    "netserver": ("-V", r"Netperf version (\S+)"),
    "iperf3": ("-v", r"iperf (\S+)"),
    "iperf": ("-v", r"iperf version (\S+)"),
    "ITGSend": ("-h", r"ITGSend version (\S+(?: \(r\d+\))?)"),
    "ITGRecv": ("-h", r"ITGRecv version (\S+(?: \(r\d+\))?)"),
    "ITGDec": ("-h", r"ITGDec version (\S+(?: \(r\d+\))?)"),
}
# Which executable names which tool in tool_versions (as the local host's facts do).
VERSION_KEYS = {"netperf": "netperf", "netserver": "netperf", "iperf3": "iperf3", "iperf": "iperf2",
                "ITGSend": "ditg", "ITGRecv": "ditg", "ITGDec": "ditg"}
SYSCTLS = ("net.ipv4.tcp_congestion_control", "net.ipv4.tcp_available_congestion_control", "net.ipv4.tcp_rmem",
           "net.ipv4.tcp_wmem", "net.core.rmem_max", "net.core.wmem_max", "net.core.rmem_default", "net.core.wmem_default")


class Dialect(Protocol):
    @property
    def name(self) -> str: ...

    def quote(self, arg: str) -> str: ...
    def command_line(self, argv: list[str]) -> str: ...
    def path(self, directory: str, name: str) -> str: ...
    def pure(self, directory: str) -> PurePath: ...
    def step(self, cwd: str, argv: list[str], out: str, err: str | None) -> str: ...
    def kill(self, pids: list[int]) -> str: ...
    def cat(self, path: str) -> str: ...
    def sha256(self, path: str) -> str: ...
    def take(self, path: str) -> str | None: ...
    def size(self, path: str) -> str: ...
    def remove(self, paths: list[str]) -> str: ...
    def make_workdir(self, base: str | None) -> str: ...
    def remove_workdir(self, path: str) -> str: ...
    def which(self, executables: list[str]) -> str: ...
    def facts(self, executables: dict[str, str], own_address: str | None, peer: str | None) -> str: ...
    def parse_facts(self, text: str) -> dict[str, Any]: ...
    def clock_echo(self) -> str: ...
    def listening(self) -> str: ...
    def parse_listening(self, text: str) -> set[tuple[str, int]]: ...
    def remote_command(self, script: str) -> str: ...


def _no_nul(arg: str) -> str:
    if "\0" in arg:
        raise ValueError(f"{arg!r}: an argument cannot hold a NUL character")
    return arg


def markers(text: str) -> dict[str, list[str]]:
    """``netrepro-*`` lines a wrapper printed, by marker (values in order)."""
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        for mark in (PID_MARK, EXIT_MARK, CPU_MARK, MISSING_MARK):
            if line.startswith(mark + " "):
                out.setdefault(mark, []).append(line[len(mark) + 1:].strip())
    return out


# Socket states in /proc/net/{tcp,udp}[6]: TCP_LISTEN; TCP_CLOSE, which an unconnected (bound) UDP socket shows.
_PROC_NET_STATE = {"tcp": "0A", "udp": "07"}


def proc_net_sockets(tables: dict[str, str]) -> set[tuple[str, int]]:
    """(transport, port) of the listening TCP and bound UDP sockets in Linux's
    /proc/net tables, given by name (tcp, tcp6, udp, udp6)."""
    out = set()
    for name, text in tables.items():
        transport = name.rstrip("6")
        for line in text.splitlines()[1:]:
            fields = line.split()
            if len(fields) > 3 and fields[3] == _PROC_NET_STATE.get(transport) and ":" in fields[1]:
                out.add((transport, int(fields[1].rsplit(":", 1)[1], 16)))
    return out


def parse_sha256(text: str) -> str | None:
    """The first 64-hex-digit word of a checksum tool's answer (sha256sum, shasum, Get-FileHash)."""
    m = re.search(r"\b([0-9A-Fa-f]{64})\b", text)
    return m.group(1).lower() if m else None


# --- POSIX sh ------------------------------------------------------------------
@dataclass(frozen=True)
class Posix:
    """POSIX sh (dash, bash, ksh, zsh as login shell). Arguments quoted with
    :func:`shlex.quote`: single quotes, a single quote spelled ``'"'"'``."""

    name: str = "posix"

    def quote(self, arg: str) -> str:
        return shlex.quote(_no_nul(arg))

    def command_line(self, argv: list[str]) -> str:
        return " ".join(self.quote(a) for a in argv)

    def path(self, directory: str, name: str) -> str:
        return str(PurePosixPath(directory) / name)

    def pure(self, directory: str) -> PurePath:
        return PurePosixPath(directory)

    def step(self, cwd: str, argv: list[str], out: str, err: str | None) -> str:
        """The wrapper (see the module doc); stderr goes to ``err``, or with stdout when None."""
        q = self.quote
        redirect = f">{q(out)} 2>&1" if err is None else f">{q(out)} 2>{q(err)}"
        return "\n".join([
            f"cd -- {q(cwd)} || exit 97",
            "exec 3<&0 </dev/null",
            f'echo "{PID_MARK} $$"',
            "{ read -r _ <&3; kill -s KILL -- -$$ 2>/dev/null; } &",
            "w=$!",
            f"head -n 1 /proc/stat 2>/dev/null | sed 's/^/{CPU_MARK} /'",
            f"{self.command_line(argv)} {redirect}",
            "rc=$?",
            f"head -n 1 /proc/stat 2>/dev/null | sed 's/^/{CPU_MARK} /'",
            'kill -s TERM "$w" 2>/dev/null',
            f'echo "{EXIT_MARK} $rc"',
            'exit "$rc"',
        ])

    def kill(self, pids: list[int]) -> str:
        """Stop the process groups the wrappers reported: TERM, and KILL if
        any of them is still there half a second later. Polled (most end at
        once: no stop waits the half second for nothing), and by group (a
        group already gone made dash's ``kill`` fail and spared the rest)."""
        groups = " ".join(f"-{int(p)}" for p in pids)
        return (f"kill -s TERM -- {groups} 2>/dev/null; for _ in 1 2 3 4 5 6 7 8 9 10; do left=; "
                f'for g in {groups}; do kill -s 0 -- "$g" 2>/dev/null && left=1; done; [ -n "$left" ] || exit 0; sleep 0.05; done; '
                f"kill -s KILL -- {groups} 2>/dev/null; exit 0")

    def cat(self, path: str) -> str:
        return f"cat -- {self.quote(path)}"

    def sha256(self, path: str) -> str:
        q = self.quote(path)
        return f"if command -v sha256sum >/dev/null 2>&1; then sha256sum -- {q}; else shasum -a 256 -- {q}; fi"

    def take(self, path: str) -> str | None:
        """One round trip for a copy: the size line (at once, so the copy's
        deadline can grow with it), the checksum line, the bytes; then the file is removed."""
        q = self.quote(path)
        return f"{self.size(path)} || exit 1; {{ {self.sha256(path)}; }} || exit 1; cat -- {q} || exit 1; rm -f -- {q}"

    def size(self, path: str) -> str:
        return f"wc -c < {self.quote(path)}"

    def remove(self, paths: list[str]) -> str:
        return "rm -f -- " + self.command_line(paths)

    def make_workdir(self, base: str | None) -> str:
        template = self.path(base or "/tmp", "netrepro.XXXXXXXX")
        return f"mkdir -p -- {self.quote(base or '/tmp')} && mktemp -d {self.quote(template)}"

    def remove_workdir(self, path: str) -> str:
        if not PurePosixPath(path).name.startswith("netrepro."):
            raise ValueError(f"{path!r} is not a folder the collector made")
        return f"rm -rf -- {self.quote(path)}"

    def which(self, executables: list[str]) -> str:
        return (f"for t in {self.command_line(executables)}; do "
                f'command -v -- "$t" >/dev/null 2>&1 || echo "{MISSING_MARK} $t"; done; exit 0')

    def facts(self, executables: dict[str, str], own_address: str | None, peer: str | None) -> str:
        """One script printing sections (``@@netrepro NAME``) that :meth:`parse_facts` reads.
        ``own_address``: the host's measurement address (its interface); ``peer``:
        the address it sends to (its route), used when it has no own address given."""
        q = self.quote
        # a fork is dear on a UML guest (tens of ms): the script splits words with the shell's
        # own `set --` (no globbing) rather than awk, sed and head, and asks uname once for
        # the four fields without spaces (printed in uname's own order: s n r m)
        lines = [
            "set -f",
            f"echo '{SECTION}os-release'; cat /etc/os-release 2>/dev/null",
            f"echo '{SECTION}uname'; set -- $(uname -snrm); "
            'echo "$1"; echo "$3"; uname -v; echo "$4"; echo "$2"',
            f"echo '{SECTION}cpu'; grep -m 1 '^model name' /proc/cpuinfo 2>/dev/null; "
            "nproc 2>/dev/null || getconf _NPROCESSORS_ONLN",
            f"echo '{SECTION}memory'; grep -m 1 '^MemTotal:' /proc/meminfo 2>/dev/null",
            # one grep for every key, each line "path:value" (grep -H): a fork is dear on a UML guest, and
            # dash's read builtin gets one byte of a /proc/sys file (it reads bytewise; past offset 0 is EOF)
            f"echo '{SECTION}sysctl'; grep -s -H . {' '.join(_proc_sys(k) for k in SYSCTLS)}",
            "dev=",
        ]
        if own_address:  # "2: eth1    inet 198.18.0.1/24 ...": the second word of the first line
            lines.append(f"set -- $(ip -o addr show to {q(own_address)} 2>/dev/null); dev=${{2:-}}")
        if peer:  # "198.18.0.2 dev eth1 src ...": the word after "dev"
            lines.append(f'[ -n "$dev" ] || {{ set -- $(ip -o route get {q(peer)} 2>/dev/null); '
                         'while [ $# -gt 1 ]; do [ "$1" = dev ] && { dev=$2; break; }; shift; done; }')
        lines += [
            f"echo '{SECTION}interface'; echo \"$dev\"",
            f'if [ -n "$dev" ]; then echo \'{SECTION}link\'; ip -o link show dev "$dev" 2>/dev/null; '
            f"echo '{SECTION}driver'; ethtool -i \"$dev\" 2>/dev/null; "
            f"echo '{SECTION}offloads'; ethtool -k \"$dev\" 2>/dev/null; fi",
            f"echo '{SECTION}chrony'; chronyc -n tracking 2>/dev/null",
            # timedatectl asks systemd, which answers only where it is PID 1 (sd_booted's test)
            f"echo '{SECTION}timedatectl'; [ -d /run/systemd/system ] && timedatectl show -p NTPSynchronized -p NTP "
            "2>/dev/null",
            f"echo '{SECTION}ntpq'; ntpq -pn 2>/dev/null",
        ]
        for exe, path in executables.items():
            arg = VERSION_ARGS[exe][0]
            lines.append(f"echo '{SECTION}version {exe}'; {q(path)} {arg} </dev/null 2>&1 | head -n 20")
        return "\n".join(lines) + "\nexit 0"

    def parse_facts(self, text: str) -> dict[str, Any]:
        sec = _sections(text)
        osr = dict(_kv(line, "=") for line in sec.get("os-release", []) if "=" in line)
        uname = sec.get("uname", []) + [""] * 5
        cpu = sec.get("cpu", [])
        model = next((l.split(":", 1)[1].strip() for l in cpu if l.startswith("model name")), None)
        count = next((int(l) for l in cpu if l.strip().isdigit()), None)
        memory = " ".join(sec.get("memory", [])).split()  # "MemTotal: 16318104 kB"
        read = dict(_kv(l, ":") for l in sec.get("sysctl", []) if l.startswith(PROC_SYS) and ":" in l)
        sysctls = {k: read.get(_proc_sys(k), "") for k in SYSCTLS}
        iface = (sec.get("interface") or [""])[0].strip() or None
        link = " ".join(sec.get("link", []))
        mtu = re.search(r"\bmtu (\d+)", link)
        driver = dict(_kv(l, ": ") for l in sec.get("driver", []) if ": " in l)
        offloads = {k: v.split()[0] for k, v in (_kv(l, ": ") for l in sec.get("offloads", []) if ": " in l and not l.startswith("Features"))
                    if v}
        return {
            "dialect": self.name,
            "os": osr.get("NAME") or uname[0] or None,
            "os_version": osr.get("VERSION_ID") or None,
            "distribution": osr.get("PRETTY_NAME") or None,
            "kernel": uname[1] or None,
            "kernel_build": uname[2] or None,
            "machine": uname[3] or None,
            "hostname": uname[4] or None,
            "cpu_model": model,
            "cpu_count": count,
            "mem_total_kib": _int_or_none(memory[1]) if len(memory) >= 2 else None,
            "sysctls": sysctls,
            "congestion_control": sysctls.get("net.ipv4.tcp_congestion_control") or None,
            "interface": iface,
            "mtu": int(mtu.group(1)) if mtu else None,
            "nic_driver": driver.get("driver") or ("veth" if iface and "link/ether" in link and "@" in link else None),
            "nic": driver or None,
            "offloads": offloads or None,
            "tool_versions": _versions(sec),
            "clock_sync": _posix_sync(sec),
        }

    def clock_echo(self) -> str:
        """The host's clock once when the session is up, then once per line it reads."""
        return "date +%s.%N; while read -r _; do date +%s.%N; done"

    def listening(self) -> str:
        """The host's socket tables (Linux /proc/net), in sections for :meth:`parse_listening`."""
        return f"for t in tcp tcp6 udp udp6; do echo \"{SECTION}$t\"; cat \"/proc/net/$t\" 2>/dev/null; done; exit 0"

    def parse_listening(self, text: str) -> set[tuple[str, int]]:
        return proc_net_sockets({name: "\n".join(lines) for name, lines in _sections(text).items()})

    def remote_command(self, script: str) -> str:
        return script


def _int_or_none(value: Any) -> int | None:
    """A count a host reported (a number, or digits in a string), or None."""
    return int(value) if str(value).isdigit() else None


def _kv(line: str, sep: str) -> tuple[str, str]:
    k, v = line.split(sep, 1)
    return k.strip(), v.strip().strip('"')


def _sections(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith(SECTION):
            current = line[len(SECTION):].strip()
            out[current] = []
        elif current is not None:
            out[current].append(line.rstrip("\r"))
    return out


def _versions(sec: dict[str, list[str]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, lines in sec.items():
        if not name.startswith("version "):
            continue
        exe = name.split(" ", 1)[1]
        m = re.search(VERSION_ARGS[exe][1], "\n".join(lines) + " ")
        if m:
            out.setdefault(VERSION_KEYS[exe], m.group(1))
    return out


def _posix_sync(sec: dict[str, list[str]]) -> dict[str, Any] | None:
    """The clock discipline a Linux host reports: chrony, else systemd-timesyncd, else ntpd."""
    chrony = dict(_kv(l, ":") for l in sec.get("chrony", []) if ":" in l)
    if chrony.get("Leap status"):
        offset = re.match(r"([0-9.]+) seconds (fast|slow)", chrony.get("System time", ""))
        value = None if offset is None else float(offset.group(1)) * (1 if offset.group(2) == "fast" else -1)
        return {"source": "chrony", "synchronised": chrony["Leap status"] == "Normal", "offset_s": value,
                "reference": chrony.get("Reference ID")}
    ntpq = [l for l in sec.get("ntpq", []) if l.startswith("*")]
    if ntpq:
        fields = ntpq[0][1:].split()
        offset_ms = float(fields[8]) if len(fields) > 8 else None
        return {"source": "ntpd", "synchronised": True, "offset_s": None if offset_ms is None else offset_ms / 1000,
                "reference": fields[0] if fields else None}
    td = dict(_kv(l, "=") for l in sec.get("timedatectl", []) if "=" in l)
    if td.get("NTPSynchronized") == "yes":
        return {"source": "systemd-timesyncd", "synchronised": True, "offset_s": None, "reference": None}
    return None


# --- PowerShell (Windows) ----------------------------------------------------------
# PowerShell takes the typographic single quotes as quote characters too.
_PS_QUOTES = "'\u2018\u2019\u201a\u201b"


def powershell_quote(arg: str) -> str:
    """A PowerShell verbatim string: inside single quotes nothing expands;
    each single quote (ASCII or typographic) is doubled."""
    return "'" + "".join(c * 2 if c in _PS_QUOTES else c for c in _no_nul(arg)) + "'"


def windows_arg(arg: str) -> str:
    """One argument of a Windows command line, quoted so that
    CommandLineToArgvW / the MS C runtime gives it back unchanged."""
    _no_nul(arg)
    if arg and not any(c in arg for c in ' \t\n\v"'):
        return arg
    out, slashes = ['"'], 0
    for c in arg:
        if c == "\\":
            slashes += 1
            continue
        if c == '"':
            out.append("\\" * (2 * slashes + 1) + '"')
        else:
            out.append("\\" * slashes + c)
        slashes = 0
    out.append("\\" * (2 * slashes) + '"')
    return "".join(out)


def windows_command_line(args: list[str]) -> str:
    return " ".join(windows_arg(a) for a in args)


@dataclass(frozen=True)
class PowerShell:
    """Windows hosts running OpenSSH: the host's default shell may be cmd.exe
    or PowerShell, so every script is sent as ``powershell -EncodedCommand``
    (base64 of UTF-16LE: only letters, digits, + / = cross either shell).
    Strings are PowerShell verbatim strings; a tool's arguments become one
    Windows command line (:func:`windows_command_line`) passed as is to
    Start-Process, whose process ID is the one reported and stopped.

    Not exercised against a Windows host here: what is tested is the exact
    text produced (tests/collect/test_dialects.py)."""

    name: str = "powershell"

    def quote(self, arg: str) -> str:
        return powershell_quote(arg)

    def command_line(self, argv: list[str]) -> str:
        """How the host's process sees the command: the program, then its Windows command line."""
        return windows_command_line(argv)

    def path(self, directory: str, name: str) -> str:
        return str(PureWindowsPath(directory) / name)

    def pure(self, directory: str) -> PurePath:
        return PureWindowsPath(directory)

    def step(self, cwd: str, argv: list[str], out: str, err: str | None) -> str:
        """Start-Process cannot send stdout and stderr to one file: with
        ``err`` None the error stream goes to ``out + '.err'`` and the
        collector appends it after the output (not interleaved)."""
        q = self.quote
        err = err if err is not None else out + ".err"
        start = [f"$p = Start-Process -FilePath {q(argv[0])}"]
        if argv[1:]:
            start.append(f"-ArgumentList {q(windows_command_line(argv[1:]))}")
        start.append(f"-WorkingDirectory {q(cwd)} -NoNewWindow -PassThru "
                     f"-RedirectStandardOutput {q(out)} -RedirectStandardError {q(err)}")
        return "\n".join([
            "$ErrorActionPreference = 'Stop'",
            f"Set-Location -LiteralPath {q(cwd)}",
            " ".join(start),
            "$null = $p.Handle",
            f"'{PID_MARK} ' + $p.Id",
            "$p.WaitForExit()",
            f"'{EXIT_MARK} ' + $p.ExitCode",
            "exit $p.ExitCode",
        ])

    def kill(self, pids: list[int]) -> str:
        """taskkill /T: each process and every process it started, by PID."""
        return f"& taskkill.exe {' '.join(f'/PID {int(p)}' for p in pids)} /T /F 2>&1 | Out-Null; exit 0"

    def cat(self, path: str) -> str:
        return (f"$f = [System.IO.File]::OpenRead({self.quote(path)}); $o = [Console]::OpenStandardOutput(); "
                "$f.CopyTo($o); $o.Flush(); $f.Close()")

    def sha256(self, path: str) -> str:
        return f"(Get-FileHash -Algorithm SHA256 -LiteralPath {self.quote(path)}).Hash"

    def size(self, path: str) -> str:
        return f"(Get-Item -LiteralPath {self.quote(path)}).Length"

    def take(self, path: str) -> str | None:
        """None: PowerShell's text pipeline and a raw byte stream do not mix in
        one script, so the checksum and the bytes come in two round trips."""
        return None

    def remove(self, paths: list[str]) -> str:
        return f"Remove-Item -LiteralPath {', '.join(self.quote(p) for p in paths)} -Force -ErrorAction SilentlyContinue; exit 0"

    def make_workdir(self, base: str | None) -> str:
        root = self.quote(base) if base else "$env:TEMP"
        return (f"$d = Join-Path {root} ('netrepro.' + [guid]::NewGuid().ToString('N').Substring(0, 8)); "
                "[System.IO.Directory]::CreateDirectory($d).FullName")

    def remove_workdir(self, path: str) -> str:
        if not PureWindowsPath(path).name.startswith("netrepro."):
            raise ValueError(f"{path!r} is not a folder the collector made")
        return f"Remove-Item -LiteralPath {self.quote(path)} -Recurse -Force"

    def which(self, executables: list[str]) -> str:
        names = ", ".join(self.quote(e) for e in executables)
        return (f"foreach ($t in @({names})) {{ if (-not (Get-Command -Name $t -CommandType Application "
                f"-ErrorAction SilentlyContinue)) {{ '{MISSING_MARK} ' + $t }} }}; exit 0")

    def facts(self, executables: dict[str, str], own_address: str | None, peer: str | None) -> str:
        q = self.quote
        versions = "; ".join(
            f"$v[{q(exe)}] = (& {q(path)} {VERSION_ARGS[exe][0]} 2>&1 | Out-String)" for exe, path in executables.items())
        address = q(own_address) if own_address else "$null"
        return "\n".join([
            "$ErrorActionPreference = 'SilentlyContinue'",
            "$os = Get-CimInstance Win32_OperatingSystem",
            "$cpu = Get-CimInstance Win32_Processor | Select-Object -First 1",
            f"$ip = if ({address}) {{ Get-NetIPAddress -IPAddress {address} | Select-Object -First 1 }}",
            "$ad = if ($ip) { Get-NetAdapter -InterfaceIndex $ip.InterfaceIndex }",
            "$if = if ($ip) { Get-NetIPInterface -InterfaceIndex $ip.InterfaceIndex -AddressFamily $ip.AddressFamily }",
            "$off = if ($ad) { Get-NetAdapterAdvancedProperty -Name $ad.Name | ForEach-Object { @{ $_.DisplayName = $_.DisplayValue } } }",
            "$tcp = Get-NetTCPSetting | Select-Object SettingName, CongestionProvider, AutoTuningLevelLocal",
            "$v = @{}",
            versions,
            "[pscustomobject]@{",
            "  os = @{ Caption = $os.Caption; Version = $os.Version; BuildNumber = $os.BuildNumber; "
            "OSArchitecture = $os.OSArchitecture; CSName = $os.CSName; TotalVisibleMemorySize = $os.TotalVisibleMemorySize }",
            "  cpu = @{ Name = $cpu.Name; NumberOfLogicalProcessors = $cpu.NumberOfLogicalProcessors }",
            "  adapter = if ($ad) { @{ Name = $ad.Name; InterfaceDescription = $ad.InterfaceDescription; "
            "DriverVersion = $ad.DriverVersion; LinkSpeed = $ad.LinkSpeed } }",
            "  mtu = $if.NlMtu",
            "  offloads = $off",
            "  tcp = $tcp",
            "  w32tm = ((w32tm /query /status) -join \"`n\")",
            "  versions = $v",
            "} | ConvertTo-Json -Depth 4 -Compress",
        ])

    def parse_facts(self, text: str) -> dict[str, Any]:
        import json

        data = json.loads(text.strip().splitlines()[-1]) if text.strip() else {}
        os_ = data.get("os") or {}
        cpu = data.get("cpu") or {}
        adapter = data.get("adapter") or {}
        tcp = data.get("tcp") or []
        tcp = tcp if isinstance(tcp, list) else [tcp]
        internet = next((t for t in tcp if t.get("SettingName") == "Internet"), tcp[0] if tcp else {})
        offloads: dict[str, str] = {}
        raw_off = data.get("offloads") or []
        for item in raw_off if isinstance(raw_off, list) else [raw_off]:
            offloads.update({str(k): str(v) for k, v in item.items()})
        versions: dict[str, str] = {}
        for exe, out in (data.get("versions") or {}).items():
            m = re.search(VERSION_ARGS[exe][1], (out or "") + " ") if exe in VERSION_ARGS else None
            if m:
                versions.setdefault(VERSION_KEYS[exe], m.group(1))
        w32tm = data.get("w32tm") or ""
        source = re.search(r"^Source:\s*(.+)$", w32tm, re.M)
        synced = source is not None and "Local CMOS Clock" not in source.group(1) and "Free-running" not in source.group(1)
        return {
            "dialect": self.name,
            "os": os_.get("Caption"),
            "os_version": os_.get("Version"),
            "distribution": os_.get("Caption"),
            "kernel": os_.get("Version"),
            "kernel_build": os_.get("BuildNumber"),
            "machine": os_.get("OSArchitecture"),
            "hostname": os_.get("CSName"),
            "cpu_model": cpu.get("Name"),
            "cpu_count": cpu.get("NumberOfLogicalProcessors"),
            "mem_total_kib": _int_or_none(os_.get("TotalVisibleMemorySize")),  # Win32_OperatingSystem counts KiB
            "sysctls": {f"tcp.{internet.get('SettingName', '')}.{k}": str(v) for k, v in internet.items() if k != "SettingName"},
            "congestion_control": internet.get("CongestionProvider"),
            "interface": adapter.get("Name"),
            "mtu": data.get("mtu"),
            "nic_driver": adapter.get("InterfaceDescription"),
            "nic": adapter or None,
            "offloads": offloads or None,
            "tool_versions": versions,
            "clock_sync": {"source": "w32time", "synchronised": synced, "offset_s": None,
                           "reference": source.group(1).strip() if source else None} if w32tm else None,
        }

    def clock_echo(self) -> str:
        """As :meth:`Posix.clock_echo`; each reading written and flushed at once, in the invariant culture."""
        return ("function now { [Console]::Out.WriteLine(([DateTimeOffset]::UtcNow.ToUnixTimeMilliseconds() / 1000)"
                ".ToString([Globalization.CultureInfo]::InvariantCulture)); [Console]::Out.Flush() }\n"
                "now; while ($null -ne [Console]::In.ReadLine()) { now }")

    def listening(self) -> str:
        return ("Get-NetTCPConnection -State Listen -ErrorAction SilentlyContinue | ForEach-Object { 'tcp ' + $_.LocalPort }; "
                "Get-NetUDPEndpoint -ErrorAction SilentlyContinue | ForEach-Object { 'udp ' + $_.LocalPort }; exit 0")

    def parse_listening(self, text: str) -> set[tuple[str, int]]:
        pairs = (line.split() for line in text.splitlines())
        return {(p[0], int(p[1])) for p in pairs if len(p) == 2 and p[0] in ("tcp", "udp") and p[1].isdigit()}

    def remote_command(self, script: str) -> str:
        encoded = base64.b64encode(script.encode("utf-16-le")).decode("ascii")
        return f"powershell.exe -NoLogo -NoProfile -NonInteractive -ExecutionPolicy Bypass -EncodedCommand {encoded}"


def dialect(name: str) -> Dialect:
    return PowerShell() if name == "powershell" else Posix()
