"""What a lab host's shell receives, exactly: POSIX sh and PowerShell.

POSIX scripts are also run here through dash and bash with hostile names
(quotes, $(...), backticks, globs, a leading dash), so "quoted" means "the
shell gives the argument back unchanged and runs nothing else". The
PowerShell side cannot run here: its tests pin the exact text, and decode
the quoting rules by hand (doubling quotes; CommandLineToArgvW)."""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from analysis.collect.dialects import (PowerShell, Posix, SYSCTLS, markers, parse_sha256, proc_net_sockets, powershell_quote, windows_arg,
                                       windows_command_line)
from analysis.collect.plan import HostSpec
from analysis.collect.ssh import HostError, HostLost, SshHost, _option_value, why_refused

HOSTILE = [
    "it's", 'say "hi"', "$(touch PWNED)", "`touch PWNED`", "a;b&c|d", "*", "~", "-rf", "--", "", " lead and trail ",
    "back\\slash", "tab\there", "100%", "%h:%p", "naïve ünïcödé", "‘typographic’", "new\nline", "$HOME", "!x", "\\\"",
]
SHELLS = [s for s in ("dash", "bash") if shutil.which(s)]
POSIX = Posix()
PS = PowerShell()


# --- POSIX ----------------------------------------------------------------------------
@pytest.mark.parametrize("shell", SHELLS)
def test_posix_quoting_gives_every_hostile_argument_back_and_runs_nothing(shell, tmp_path):
    line = POSIX.command_line(["printf", "%s\\0", *HOSTILE])
    p = subprocess.run([shell, "-c", line], capture_output=True, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.decode().split("\0")[:-1] == HOSTILE
    assert not list(tmp_path.iterdir())  # no PWNED


def test_posix_quote_is_shlex_and_refuses_nul():
    assert POSIX.quote("it's") == "'it'\"'\"'s'"
    assert POSIX.quote("plain-1.0") == "plain-1.0"
    with pytest.raises(ValueError, match="NUL"):
        POSIX.quote("a\0b")


def test_posix_step_script_exact_text():
    script = POSIX.step("/tmp/netrepro.ab12", ["/opt/my tools/netperf", "-H", "198.18.0.2"], "/tmp/netrepro.ab12/run1.0.netperf.out", None)
    assert script.splitlines() == [
        "cd -- /tmp/netrepro.ab12 || exit 97",
        "exec 3<&0 </dev/null",
        'echo "netrepro-pid $$"',
        "{ read -r _ <&3; kill -s KILL -- -$$ 2>/dev/null; } &",
        "w=$!",
        "head -n 1 /proc/stat 2>/dev/null | sed 's/^/netrepro-cpu /'",
        "'/opt/my tools/netperf' -H 198.18.0.2 >/tmp/netrepro.ab12/run1.0.netperf.out 2>&1",
        "rc=$?",
        "head -n 1 /proc/stat 2>/dev/null | sed 's/^/netrepro-cpu /'",
        'kill -s TERM "$w" 2>/dev/null',
        'echo "netrepro-exit $rc"',
        'exit "$rc"',
    ]
    separate = POSIX.step("/w", ["ITGDec", "x.log"], "/w/o", "/w/e")
    assert "ITGDec x.log >/w/o 2>/w/e" in separate.splitlines()


@pytest.mark.parametrize("shell", SHELLS)
def test_posix_step_in_a_hostile_folder_reports_pid_and_status(shell, tmp_path):
    base = tmp_path / "it's $(touch PWNED) `x` ;&| *"
    made = subprocess.run([shell, "-c", POSIX.make_workdir(str(base))], capture_output=True, text=True, check=True)
    work = made.stdout.strip()
    assert Path(work).parent == base and Path(work).name.startswith("netrepro.")
    out = POSIX.path(work, "o'ut $x.txt")
    script = POSIX.step(work, ["sh", "-c", 'printf "%s|" "$@"; exit 3', "sh", *HOSTILE[:6]], out, None)
    p = subprocess.Popen([shell, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True)
    assert p.stdout is not None
    stdout = p.stdout.read()  # stdin stays open, as an ssh channel's does
    p.wait(10)
    marks = markers(stdout.decode())
    assert p.returncode == 3 and marks["netrepro-exit"] == ["3"] and int(marks["netrepro-pid"][0]) == p.pid
    assert Path(out).read_text() == "|".join(HOSTILE[:6]) + "|"
    digest = subprocess.run([shell, "-c", POSIX.sha256(out)], capture_output=True, text=True, check=True).stdout
    assert parse_sha256(digest) == __import__("hashlib").sha256(Path(out).read_bytes()).hexdigest()
    assert subprocess.run([shell, "-c", POSIX.cat(out)], capture_output=True, check=True).stdout == Path(out).read_bytes()
    data = Path(out).read_bytes()
    taken = subprocess.run([shell, "-c", str(POSIX.take(out))], capture_output=True, check=True).stdout
    size, checksum, rest = taken.split(b"\n", 2)  # the size first: a copy's deadline grows with it
    assert (int(size), parse_sha256(checksum.decode()), rest) == (len(data), __import__("hashlib").sha256(data).hexdigest(), data)
    assert not Path(out).exists()
    missing = subprocess.run([shell, "-c", POSIX.which(["sh", "no such tool", str(Path(work) / "nope")])],
                             capture_output=True, text=True, check=True).stdout
    assert markers(missing)["netrepro-missing"] == ["no such tool", str(Path(work) / "nope")]
    subprocess.run([shell, "-c", POSIX.remove_workdir(work)], check=True)
    assert not Path(work).exists() and base.is_dir()
    assert not (tmp_path / "PWNED").exists() and not Path("PWNED").exists()


@pytest.mark.parametrize("shell", SHELLS)
def test_posix_wrapper_kills_its_group_when_its_input_closes(shell):
    """The channel closing (collector gone, connection dropped) ends the tool and its children."""
    script = POSIX.step("/", ["sh", "-c", "sleep 30 & sleep 30"], "/dev/null", None)
    p = subprocess.Popen([shell, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True)
    assert p.stdout is not None
    assert p.stdout.readline().startswith(b"netrepro-pid ")
    assert p.stdin is not None
    p.stdin.close()
    p.wait(timeout=10)
    assert _running_in_group(p.pid) == []


def _running_in_group(pgid: int, within_s: float = 5.0) -> list[str]:
    """Processes of the group that still run ``within_s`` after asking (a killed child may stay a
    zombie until init reaps it, and on a loaded host it runs a moment before the kill takes it)."""
    deadline = time.monotonic() + within_s
    while True:
        ps = subprocess.run(["ps", "-e", "-o", "pid=,pgid=,stat="], capture_output=True, text=True).stdout
        running = [line for line in ps.splitlines() if line.split()[1] == str(pgid) and not line.split()[2].startswith("Z")]
        if not running or time.monotonic() > deadline:
            return running
        time.sleep(0.05)


def test_posix_kill_is_by_process_group_id_only():
    assert POSIX.kill([4242, 17]) == (
        "kill -s TERM -- -4242 -17 2>/dev/null; for _ in 1 2 3 4 5 6 7 8 9 10; do left=; "
        'for g in -4242 -17; do kill -s 0 -- "$g" 2>/dev/null && left=1; done; [ -n "$left" ] || exit 0; sleep 0.05; done; '
        "kill -s KILL -- -4242 -17 2>/dev/null; exit 0")
    with pytest.raises((TypeError, ValueError)):
        POSIX.kill(["1; reboot"])  # type: ignore[list-item]


@pytest.mark.parametrize("shell", SHELLS)
def test_posix_kill_ends_a_group_that_ignores_term_and_one_already_gone(shell):
    """TERM, then KILL to what ignored it; a group that ended before is no reason to stop early."""
    gone = subprocess.Popen(["true"], start_new_session=True)
    gone.wait()
    stubborn = subprocess.Popen([shell, "-c", "trap '' TERM; sleep 30 & wait"], start_new_session=True)
    time.sleep(0.2)  # its trap set
    subprocess.run([shell, "-c", POSIX.kill([gone.pid, stubborn.pid])], check=True, timeout=10)
    stubborn.wait(timeout=10)
    assert _running_in_group(stubborn.pid) == []


def test_posix_refuses_to_remove_a_folder_it_did_not_make():
    with pytest.raises(ValueError, match="not a folder the collector made"):
        POSIX.remove_workdir("/")
    assert POSIX.remove_workdir("/tmp/x y/netrepro.AbC") == "rm -rf -- '/tmp/x y/netrepro.AbC'"


def test_posix_facts_parse():
    text = "\n".join([
        "@@netrepro os-release", 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"', 'NAME="Debian GNU/Linux"', 'VERSION_ID="12"',
        "@@netrepro uname", "Linux", "6.1.0-18-amd64", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1", "x86_64", "alice",
        "@@netrepro cpu", "model name\t: AMD EPYC 7B13", "2",
        "@@netrepro memory", "MemTotal:       16318104 kB",
        "@@netrepro sysctl", "/proc/sys/net/ipv4/tcp_congestion_control:cubic", "/proc/sys/net/ipv4/tcp_rmem:4096\t131072\t6291456",
        "@@netrepro interface", "eth1",
        "@@netrepro link", "3: eth1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT",
        "@@netrepro driver", "driver: ixgbe", "version: 6.1.0", "firmware-version: 0x800003e7",
        "@@netrepro offloads", "Features for eth1:", "rx-checksumming: on", "tcp-segmentation-offload: off [fixed]",
        "@@netrepro chrony", "Reference ID    : C0A80001 (ntp.lab)", "System time     : 0.000012345 seconds slow of NTP time",
        "Leap status     : Normal",
        "@@netrepro timedatectl", "@@netrepro ntpq",
        "@@netrepro version netperf", "Netperf version 2.7.0",
        "@@netrepro version ITGSend", "ITGSend version 2.8.1 (r1023)", "Compile-time options: bursty multiport",
    ])
    f = POSIX.parse_facts(text)
    assert (f["os"], f["os_version"], f["distribution"]) == ("Debian GNU/Linux", "12", "Debian GNU/Linux 12 (bookworm)")
    assert (f["kernel"], f["machine"], f["hostname"], f["cpu_model"], f["cpu_count"]) == ("6.1.0-18-amd64", "x86_64", "alice", "AMD EPYC 7B13", 2)
    assert f["mem_total_kib"] == 16318104 and POSIX.parse_facts("@@netrepro memory")["mem_total_kib"] is None
    assert f["congestion_control"] == "cubic" and f["sysctls"]["net.ipv4.tcp_rmem"] == "4096\t131072\t6291456"
    assert (f["interface"], f["mtu"], f["nic_driver"]) == ("eth1", 9000, "ixgbe")
    assert f["offloads"] == {"rx-checksumming": "on", "tcp-segmentation-offload": "off"}
    assert f["clock_sync"] == {"source": "chrony", "synchronised": True, "offset_s": -0.000012345, "reference": "C0A80001 (ntp.lab)"}
    assert f["tool_versions"] == {"netperf": "2.7.0", "ditg": "2.8.1 (r1023)"}


@pytest.mark.parametrize("shell", SHELLS)
def test_posix_facts_read_every_sysctl_with_one_grep(shell, tmp_path):
    """Every sysctl read by one grep, not a process per key (a fork is dear on a UML
    guest): run with grep alone on the PATH, the values are /proc/sys's whole (dash's
    read builtin got one byte of each), a tab inside one (tcp_rmem) kept."""
    only_grep, calls = tmp_path / "bin", tmp_path / "calls"
    only_grep.mkdir()
    (only_grep / "grep").write_text(f'#!/bin/sh\necho "$*" >>{calls}\nexec {shutil.which("grep")} "$@"\n')
    (only_grep / "grep").chmod(0o755)
    done = subprocess.run([shutil.which(shell), "-c", POSIX.facts({}, None, None)], env={"PATH": str(only_grep)},
                          capture_output=True, text=True, timeout=30)
    assert len([c for c in calls.read_text().splitlines() if "/proc/sys/" in c]) == 1
    sysctls = POSIX.parse_facts(done.stdout)["sysctls"]
    assert list(sysctls) == list(SYSCTLS)
    for key, value in sysctls.items():
        path = Path("/proc/sys") / key.replace(".", "/")
        assert value == (path.read_text().strip() if path.exists() else ""), key
    assert "\t" in sysctls["net.ipv4.tcp_rmem"]


@pytest.mark.parametrize("shell", SHELLS)
def test_posix_facts_start_few_programs_and_read_the_same(shell, tmp_path):
    """A fork is dear on a UML guest (tens of ms): the facts script asks uname once for
    its four one-word fields and once for the build, and finds the interface (by the
    host's own address, else by the route to its peer) with the shell's own word
    splitting, not awk, sed or head; what it reads is what each program says."""
    shims, calls = tmp_path / "bin", tmp_path / "calls"
    shims.mkdir()
    programs = ("cat", "uname", "grep", "nproc", "getconf", "ip", "ethtool", "chronyc", "timedatectl", "ntpq",
                "head", "awk", "sed")
    for name in programs:
        if shutil.which(name):
            (shims / name).write_text(f'#!/bin/sh\necho {name} >>{calls}\nexec {shutil.which(name)} "$@"\n')
            (shims / name).chmod(0o755)
    for own, peer in (("127.0.0.1", None), (None, "127.0.0.1")):
        calls.write_text("")
        done = subprocess.run([shutil.which(shell), "-c", POSIX.facts({}, own, peer)], env={"PATH": str(shims)},
                              capture_output=True, text=True, timeout=30)
        started = calls.read_text().split()
        assert started.count("uname") == 2 and not {"awk", "sed", "head"} & set(started), started
        facts = POSIX.parse_facts(done.stdout)
        assert facts["interface"] == "lo", (own, peer, done.stdout)
        uname = os.uname()
        assert (facts["kernel"], facts["kernel_build"], facts["machine"], facts["hostname"]) == \
            (uname.release, uname.version, uname.machine, uname.nodename)
        meminfo = Path("/proc/meminfo").read_text().split()
        assert facts["mem_total_kib"] == int(meminfo[meminfo.index("MemTotal:") + 1])


@pytest.mark.parametrize("shell", SHELLS)
def test_posix_clock_echo_reads_the_clock_once_up_and_once_per_line(shell):
    """One session gives every clock reading (ssh.SshHost.clock_offset): one as it
    starts, then one per line it reads, each printed as soon as it is read."""
    proc = subprocess.Popen([shutil.which(shell), "-c", POSIX.clock_echo()], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1)
    try:
        readings = [float(proc.stdout.readline())]
        for _ in range(2):
            before = time.time()
            proc.stdin.write("\n")
            proc.stdin.flush()
            readings.append(float(proc.stdout.readline()))
            assert before - 0.01 <= readings[-1] <= time.time() + 0.01  # read after the line was sent
        proc.stdin.close()
        assert proc.wait(10) == 0 and proc.stdout.read() == ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert readings == sorted(readings)


def test_posix_facts_script_quotes_paths_and_addresses():
    script = POSIX.facts({"netperf": "/opt/it's/netperf"}, "198.18.0.1", None)
    assert "ip -o addr show to 198.18.0.1 2>/dev/null" in script
    assert "'/opt/it'\"'\"'s/netperf' -V </dev/null 2>&1 | head -n 20" in script


# --- PowerShell -----------------------------------------------------------------------
def _ps_unquote(literal: str) -> str:
    """PowerShell's reading of a verbatim string (for the test only)."""
    assert literal[0] == "'" and literal[-1] == "'"
    body, out, i = literal[1:-1], [], 0
    quotes = "'\u2018\u2019\u201a\u201b"
    while i < len(body):
        c = body[i]
        if c in quotes:
            assert body[i + 1] == c, f"lone quote in {literal!r}"
            i += 1
        out.append(c)
        i += 1
    return "".join(out)


def _argv_from_windows(line: str) -> list[str]:
    """CommandLineToArgvW's rules (the MS C runtime's), for the test only."""
    args, i, n = [], 0, len(line)
    while i < n:
        while i < n and line[i] in " \t":
            i += 1
        if i >= n:
            break
        arg, quoted = [], False
        while i < n and (quoted or line[i] not in " \t"):
            if line[i] == "\\":
                j = i
                while j < n and line[j] == "\\":
                    j += 1
                if j < n and line[j] == '"':
                    arg.append("\\" * ((j - i) // 2))
                    if (j - i) % 2:
                        arg.append('"')
                        i = j + 1
                    else:
                        i = j
                    continue
                arg.append("\\" * (j - i))
                i = j
                continue
            if line[i] == '"':
                quoted = not quoted
                i += 1
                continue
            arg.append(line[i])
            i += 1
        args.append("".join(arg))
    return args


@pytest.mark.parametrize("arg", HOSTILE)
def test_powershell_quote_round_trips(arg):
    q = powershell_quote(arg)
    assert _ps_unquote(q) == arg
    assert "$" not in q or q.startswith("'")  # a verbatim string: nothing expands


def test_powershell_quote_doubles_typographic_quotes_too():
    assert powershell_quote("it's") == "'it''s'"
    assert powershell_quote("‘x’") == "'‘‘x’’'"


@pytest.mark.parametrize("args", [HOSTILE, ["C:\\Program Files\\iperf3\\", 'a\\"b', "trail\\\\", 'in "quotes" \\']])
def test_windows_command_line_round_trips(args):
    assert _argv_from_windows(windows_command_line(args)) == args


def test_windows_arg_exact():
    assert windows_arg("plain") == "plain"
    assert windows_arg("") == '""'
    assert windows_arg("a b") == '"a b"'
    assert windows_arg('say "hi"') == '"say \\"hi\\""'
    assert windows_arg("C:\\dir with space\\") == '"C:\\dir with space\\\\"'


def test_powershell_step_exact_text():
    script = PS.step("C:\\Users\\lab user\\netrepro.ab12", ["C:\\iperf3\\iperf3.exe", "-c", "198.18.0.2", "-t", "1"],
                     "C:\\Users\\lab user\\netrepro.ab12\\run1.0.iperf3.out", None)
    assert script.splitlines() == [
        "$ErrorActionPreference = 'Stop'",
        "Set-Location -LiteralPath 'C:\\Users\\lab user\\netrepro.ab12'",
        "$p = Start-Process -FilePath 'C:\\iperf3\\iperf3.exe' -ArgumentList '-c 198.18.0.2 -t 1' "
        "-WorkingDirectory 'C:\\Users\\lab user\\netrepro.ab12' -NoNewWindow -PassThru "
        "-RedirectStandardOutput 'C:\\Users\\lab user\\netrepro.ab12\\run1.0.iperf3.out' "
        "-RedirectStandardError 'C:\\Users\\lab user\\netrepro.ab12\\run1.0.iperf3.out.err'",
        "$null = $p.Handle",
        "'netrepro-pid ' + $p.Id",
        "$p.WaitForExit()",
        "'netrepro-exit ' + $p.ExitCode",
        "exit $p.ExitCode",
    ]


def test_powershell_step_hostile_arguments_pass_both_quotings():
    argv = ["C:\\it's\\tool.exe", *[a for a in HOSTILE if "\n" not in a]]
    script = PS.step("C:\\w", argv, "C:\\w\\o", "C:\\w\\e")
    line = next(l for l in script.splitlines() if l.startswith("$p = Start-Process"))
    file_path = line.split("-FilePath ", 1)[1].split(" -ArgumentList ", 1)[0]
    assert _ps_unquote(file_path) == argv[0]
    arglist = line.split(" -ArgumentList ", 1)[1].split(" -WorkingDirectory ", 1)[0]
    assert _argv_from_windows(_ps_unquote(arglist)) == argv[1:]


def test_powershell_commands_exact_text():
    assert PS.kill([4242, 17]) == "& taskkill.exe /PID 4242 /PID 17 /T /F 2>&1 | Out-Null; exit 0"
    assert PS.sha256("C:\\w\\it's.out") == "(Get-FileHash -Algorithm SHA256 -LiteralPath 'C:\\w\\it''s.out').Hash"
    assert PS.cat("C:\\w\\o") == ("$f = [System.IO.File]::OpenRead('C:\\w\\o'); $o = [Console]::OpenStandardOutput(); "
                                  "$f.CopyTo($o); $o.Flush(); $f.Close()")
    assert PS.remove(["C:\\w\\a", "C:\\w\\b'"]) == "Remove-Item -LiteralPath 'C:\\w\\a', 'C:\\w\\b''' -Force -ErrorAction SilentlyContinue; exit 0"
    assert PS.make_workdir(None) == ("$d = Join-Path $env:TEMP ('netrepro.' + [guid]::NewGuid().ToString('N').Substring(0, 8)); "
                                     "[System.IO.Directory]::CreateDirectory($d).FullName")
    assert PS.make_workdir("D:\\lab runs").startswith("$d = Join-Path 'D:\\lab runs' (")
    assert PS.remove_workdir("C:\\T\\netrepro.ab") == "Remove-Item -LiteralPath 'C:\\T\\netrepro.ab' -Recurse -Force"
    with pytest.raises(ValueError):
        PS.remove_workdir("C:\\Windows")
    assert PS.which(["iperf3", "C:\\x y\\ITGSend.exe"]) == (
        "foreach ($t in @('iperf3', 'C:\\x y\\ITGSend.exe')) { if (-not (Get-Command -Name $t -CommandType Application "
        "-ErrorAction SilentlyContinue)) { 'netrepro-missing ' + $t } }; exit 0")
    assert PS.path("C:\\w", "run1.out") == "C:\\w\\run1.out"


def test_listening_sockets_from_linux_socket_tables_and_from_powershell():
    """On this host the script's answer holds this test's own listening TCP and UDP sockets, as the
    host's tables do (other tests open and close servers meanwhile, even on fixed ports, so nothing
    more of a live host's answer is fixed); the parser's exact answer is checked on fixed tables."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        tcp.bind(("127.0.0.1", 0))
        tcp.listen()
        udp.bind(("127.0.0.1", 0))
        ours = {("tcp", tcp.getsockname()[1]), ("udp", udp.getsockname()[1])}
        script = subprocess.run(["sh", "-c", POSIX.listening()], capture_output=True, text=True, check=True).stdout
        answer = POSIX.parse_listening(script)
        this_host = {t: Path(f"/proc/net/{t}").read_text() for t in ("tcp", "tcp6", "udp", "udp6")}
        assert ours <= answer and ours <= proc_net_sockets(this_host)
        assert all(kind in ("tcp", "udp") and 0 < port < 65536 for kind, port in answer)
    tables = {
        "tcp": "  sl  local_address rem_address   st\n   0: 00000000:3DF1 00000000:0000 0A 0\n   1: 0100007F:9C40 0100007F:3DF1 01 0",
        "udp6": "  sl  local_address rem_address   st\n  7: 00000000000000000000000000000000:3E81 00000000000000000000000000000000:0000 07 0",
    }
    assert proc_net_sockets(tables) == {("tcp", 15857), ("udp", 16001)}  # the connected socket (01) is not listening
    assert PS.parse_listening("tcp 15865\r\nudp 15001\r\nWARNING: x\r\n") == {("tcp", 15865), ("udp", 15001)}


def test_powershell_is_sent_encoded_so_cmd_or_powershell_can_take_it():
    script = "'netrepro-pid ' + $PID; Write-Output \"it's\""
    line = PS.remote_command(script)
    head, encoded = line.rsplit(" ", 1)
    assert head == "powershell.exe -NoLogo -NoProfile -NonInteractive -ExecutionPolicy Bypass -EncodedCommand"
    assert set(encoded) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
    assert base64.b64decode(encoded).decode("utf-16-le") == script


def test_powershell_facts_script_and_parse():
    script = PS.facts({"iperf3": "C:\\iperf3\\iperf3.exe"}, "198.18.0.2", None)
    assert "Get-CimInstance Win32_OperatingSystem" in script
    assert "Get-NetIPAddress -IPAddress '198.18.0.2'" in script
    assert "$v['iperf3'] = (& 'C:\\iperf3\\iperf3.exe' -v 2>&1 | Out-String)" in script
    # A hand-written answer in the shape ConvertTo-Json gives (not captured from a Windows host).
    answer = {
        "os": {"Caption": "Microsoft Windows 10 Pro", "Version": "10.0.19045", "BuildNumber": "19045",
               "OSArchitecture": "64-bit", "CSName": "LAB-W10", "TotalVisibleMemorySize": 16650432},
        "cpu": {"Name": "Intel(R) Core(TM) i5-8500 CPU @ 3.00GHz", "NumberOfLogicalProcessors": 6},
        "adapter": {"Name": "Ethernet", "InterfaceDescription": "Intel(R) Ethernet Connection (7) I219-V",
                    "DriverVersion": "12.18.9.7", "LinkSpeed": "1 Gbps"},
        "mtu": 1500,
        "offloads": [{"Large Send Offload V2 (IPv4)": "Enabled"}, {"TCP Checksum Offload (IPv4)": "Rx & Tx Enabled"}],
        "tcp": [{"SettingName": "Internet", "CongestionProvider": "CUBIC", "AutoTuningLevelLocal": "Normal"}],
        "w32tm": "Leap Indicator: 0(no warning)\nSource: time.windows.com,0x9\nLast Successful Sync Time: 1/1/2025",
        "versions": {"iperf3": "iperf 3.1.3\nLinux?"},
    }
    f = PS.parse_facts(json.dumps(answer))
    assert (f["os"], f["os_version"], f["kernel_build"]) == ("Microsoft Windows 10 Pro", "10.0.19045", "19045")
    assert (f["congestion_control"], f["mtu"], f["interface"], f["mem_total_kib"]) == ("CUBIC", 1500, "Ethernet", 16650432)
    assert "TotalVisibleMemorySize" in script and "[Console]::In.ReadLine()" in PS.clock_echo()
    assert f["offloads"]["Large Send Offload V2 (IPv4)"] == "Enabled"
    assert f["tool_versions"] == {"iperf3": "3.1.3"}
    assert f["clock_sync"]["synchronised"] and f["clock_sync"]["reference"] == "time.windows.com,0x9"
    cmos = PS.parse_facts(json.dumps(answer | {"w32tm": "Source: Local CMOS Clock"}))
    assert cmos["clock_sync"]["synchronised"] is False


# --- the ssh command line ---------------------------------------------------------------
def host(**kw) -> SshHost:
    spec = HostSpec.model_validate({"address": "198.18.0.2", "roles": ["receiver"]} | kw)
    return SshHost("bob", spec, Path("/tmp/nr-ssh-test"))


def test_ssh_argv_is_strict_batch_multiplexed_and_ends_options_before_the_destination():
    h = host(user="lab", port=2222, identity_file="/keys/it's %u.key", known_hosts_file="/k h/known",
             proxy_command=["ip", "netns", "exec", "nr-x", "nc", "198.18.0.2", "22"])
    argv = h.argv("echo hi")
    assert argv[0] == "ssh" and argv[-3:] == ["--", "198.18.0.2", "echo hi"]
    opts = argv[1:-3]
    for o in ("BatchMode=yes", "StrictHostKeyChecking=yes", "ControlMaster=no", "IdentitiesOnly=yes", "PasswordAuthentication=no"):
        assert o in opts
    assert opts[opts.index("-p") + 1] == "2222" and opts[opts.index("-l") + 1] == "lab"
    assert 'IdentityFile="/keys/it\'s %%u.key"' in opts
    assert 'UserKnownHostsFile="/k h/known"' in opts
    assert "ProxyCommand=ip netns exec nr-x nc 198.18.0.2 22" in opts
    assert "StrictHostKeyChecking=accept-new" in host(known_hosts="accept-new").argv("x")
    powershell = host(dialect="powershell").argv("x")
    assert powershell[-1].startswith("powershell.exe -NoLogo")


def test_proxy_command_tokens_reach_ssh_unchanged():
    """docs/collecting.md's example: ssh, not the collector, expands %h and %p (%% stays a literal %)."""
    opts = host(proxy_command=["ssh", "-W", "%h:%p", "bastion", "-o", "SetEnv=RATE=100%%"]).options()
    assert "ProxyCommand=ssh -W %h:%p bastion -o SetEnv=RATE=100%%" in opts


@pytest.mark.parametrize("arg", ["100%", "%d", "%", "%%%x"])
def test_a_percent_ssh_would_refuse_in_a_proxy_command_is_refused_in_the_plan(arg):
    with pytest.raises(ValueError, match=r"proxy_command argument .*knows only %h %p %r %n there; write %% for a literal %"):
        host(proxy_command=["nc", arg])


def test_option_values_are_quoted_for_ssh():
    assert _option_value('/a b/"c"\\%d') == '"/a b/\\"c\\"\\\\%%d"'


def test_refusals_are_explained():
    assert "refused the key" in why_refused("root@198.18.0.2: Permission denied (publickey).")
    assert "not in known_hosts" in why_refused("No ED25519 host key is known for 198.18.0.2 and you have requested strict checking.\nHost key verification failed.")
    assert "cannot connect" in why_refused("ssh: connect to host 198.18.0.2 port 22: Connection refused")


# --- the clock offset: one session, its readings over stdin and stdout --------------------
def clock_host(monkeypatch, shell_script: str) -> SshHost:
    """A host whose 'session' is a local shell running ``shell_script`` instead of ssh (what
    clock_offset sends the host is the dialect's clock_echo; here the script stands in for it)."""
    h = host()
    monkeypatch.setattr(h, "argv", lambda script: ["sh", "-c", shell_script])
    return h


def test_clock_offset_is_the_fastest_line_round_trip_of_one_session(monkeypatch):
    h = clock_host(monkeypatch, POSIX.clock_echo())
    clock = h.clock_offset()
    assert abs(clock["offset_s"]) <= clock["uncertainty_s"] + 2e-6  # one clock: read inside the round trip
    assert 0 <= clock["uncertainty_s"] < 1 and "fastest of 3" in clock["method"]


@pytest.mark.parametrize(("script", "said"), [
    ("echo 1.5; echo not-a-clock; cat >/dev/null", "cannot read its clock: b'not-a-clock'"),
    ("echo 1.5; echo gone >&2; exit 3", r"cannot read its clock \(exit 3\): 'gone'"),
])
def test_a_clock_that_cannot_be_read_is_one_error_naming_the_host(monkeypatch, script, said):
    with pytest.raises(HostError, match=rf"host bob \(198\.18\.0\.2:22\): {said}"):
        clock_host(monkeypatch, script).clock_offset()


def test_a_dropped_session_while_reading_the_clock_is_a_lost_host(monkeypatch):
    with pytest.raises(HostLost, match=r"host bob .*SSH failed: .*cannot connect"):
        clock_host(monkeypatch, "echo 'ssh: connect to host 198.18.0.2 port 22: Connection refused' >&2; exit 255").clock_offset()


def test_a_clock_that_never_answers_is_an_error_within_the_timeout(monkeypatch):
    started = time.monotonic()
    with pytest.raises(HostError, match="its clock did not answer in time"):
        clock_host(monkeypatch, "echo 1.5; exec sleep 30").clock_offset(timeout=1)
    assert time.monotonic() - started < 4  # the session (sleep) was stopped at once, not waited for
