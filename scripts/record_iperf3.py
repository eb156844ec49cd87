"""Record genuine iperf3 outputs on loopback, each with its NAME.cmd sidecar.

Two sets:

* ``fixtures``: the iperf3 3.9 and 3.18 outputs of tests/fixtures/iperf3/
  (3.9: ``--bidir`` without a bidir flag, the error a refused 3.9 client
  prints after an empty JSON; 3.18: ``--json-stream`` error events), plus the
  installed iperf3's usage error and a ``-J`` run interrupted with Ctrl-C in
  a terminal (the terminal's ``^C`` echo starts the JSON). Older and newer
  iperf3 come from Debian's bullseye and trixie, downloaded with
  ``apt-get download`` through a sources list used only for that and unpacked
  with ``dpkg -x`` into ``--cache`` (nothing is installed); 3.18 needs
  trixie's C library, so it runs under trixie's dynamic loader.
* ``bench``: about 20 short runs of the installed iperf3 with varied options
  (TCP, UDP, -R, -P 4, --bidir), the genuine seeds that
  benchmarks/bench_ingest_iperf3.py replicates into a 2,000-file campaign.

Every run is on 127.0.0.1, one server (``-1``: one test, then exit) per run,
each process bounded by ``timeout``.

    python scripts/record_iperf3.py fixtures [--cache /tmp/iperf3-debian]
    python scripts/record_iperf3.py bench [--out benchmarks/iperf3_outputs]
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import pty
import select
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests/fixtures/iperf3"
BENCH = ROOT / "benchmarks/iperf3_outputs"
HOST = "127.0.0.1"
ARCH_LIB = "usr/lib/x86_64-linux-gnu"
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"


@dataclass
class Iperf3:
    """How to start one iperf3 build: the argv before its options, its environment."""

    label: str  # as the sidecar names it
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)

    def version(self) -> str:
        out = subprocess.run([*self.argv, "--version"], capture_output=True, text=True, timeout=10, env=self.environ())
        return out.stdout.splitlines()[0]

    def environ(self) -> dict[str, str]:
        return os.environ | self.env


def debian_iperf3(suite: str, version: str, extra: list[str], cache: Path) -> Path:
    """iperf3 and libiperf0 of ``version`` (with ``extra`` packages it needs
    that this system lacks) from Debian ``suite``, unpacked under cache/suite."""
    root = cache / suite
    if (root / "usr/bin/iperf3").exists():
        return root
    state = cache / f"apt-{suite}"
    (state / "lists/partial").mkdir(parents=True, exist_ok=True)
    (state / "sources.list").write_text(f"deb [signed-by={KEYRING}] http://deb.debian.org/debian {suite} main\n")
    apt = ["apt-get", "-o", f"Dir::Etc::sourcelist={state / 'sources.list'}", "-o", "Dir::Etc::sourceparts=-",
           "-o", f"Dir::State::Lists={state / 'lists'}", "-o", f"Dir::Cache={state / 'cache'}"]
    subprocess.run([*apt, "update"], check=True, timeout=300)
    debs = state / "debs"
    debs.mkdir(exist_ok=True)
    subprocess.run([*apt, "download", f"iperf3={version}", f"libiperf0={version}", *extra],
                   check=True, timeout=300, cwd=debs)
    for deb in sorted(debs.glob("*.deb")):
        subprocess.run(["dpkg", "-x", str(deb), str(root)], check=True, timeout=60)
    return root


def iperf3_39(cache: Path) -> Iperf3:
    root = debian_iperf3("bullseye", "3.9-1+deb11u1", ["libssl1.1"], cache)
    return Iperf3("Debian 11 package (bullseye), unpacked with dpkg -x, run with LD_LIBRARY_PATH",
                  [str(root / "usr/bin/iperf3")], {"LD_LIBRARY_PATH": str(root / ARCH_LIB)})


def iperf3_318(cache: Path) -> Iperf3:
    root = debian_iperf3("trixie", "3.18-2+deb13u2", ["libc6", "libssl3t64", "libsctp1"], cache)
    lib = root / ARCH_LIB
    return Iperf3("Debian 13 package (trixie), unpacked with dpkg -x, run under trixie's ld.so",
                  [str(lib / "ld-linux-x86-64.so.2"), "--library-path", str(lib), str(root / "usr/bin/iperf3")])


INSTALLED = Iperf3("Debian 12 package (installed)", ["iperf3"])


@dataclass
class Run:
    name: str  # file name, with its suffix
    client: list[str]  # the client's options after -c HOST -p PORT
    server: list[str] | None = field(default_factory=list)  # None: no server (a refused connection)
    keep: str = "client stdout"  # or "client stdout+stderr", "server stdout", "terminal"
    note: str = ""
    alone: bool = False  # the client options are the whole command line (no -c HOST -p PORT)


def _wait_listening(port: int, timeout: float = 5.0) -> None:
    """Until a TCP socket listens on ``port`` (ss), so the client never races the server."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        out = subprocess.run(["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True, timeout=5).stdout
        if out.strip():
            return
        time.sleep(0.05)
    raise RuntimeError(f"no iperf3 server listening on port {port} after {timeout} s")


def _in_terminal(argv: list[str], env: dict[str, str], interrupt_after: float) -> bytes:
    """What a terminal shows of ``argv`` when Ctrl-C is typed after
    ``interrupt_after`` seconds: the line discipline echoes ``^C`` and sends SIGINT."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: exec at once
        os.execvpe(argv[0], argv, env)
    shown, started, typed = b"", time.monotonic(), False
    while time.monotonic() - started < 20:
        if not typed and time.monotonic() - started > interrupt_after:
            os.write(fd, b"\x03")
            typed = True
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            shown += chunk
    os.waitpid(pid, 0)
    os.close(fd)
    return shown


def record(tool: Iperf3, run: Run, port: int, out: Path, set_name: str) -> None:
    host = "::1" if "-6" in run.client else HOST
    options = run.client if run.alone else ["-c", host, "-p", str(port), *run.client]
    client = ["timeout", "15", *tool.argv, *options]
    server_cmd = ["timeout", "15", *tool.argv, "-s", "-p", str(port), "-1", *(run.server or [])]
    server = None
    if run.server is not None:
        server = subprocess.Popen(server_cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=tool.environ())
        _wait_listening(port)
    if run.keep == "terminal":
        data = _in_terminal(client, tool.environ(), interrupt_after=1.5)
        status = None
    else:
        stderr = subprocess.STDOUT if "stderr" in run.keep else subprocess.DEVNULL
        done = subprocess.run(client, stdout=subprocess.PIPE, stderr=stderr, timeout=30, env=tool.environ())
        data, status = done.stdout, done.returncode
    if server is not None:
        server_out, _ = server.communicate(timeout=30)
        if run.keep == "server stdout":
            data = server_out
    (out / run.name).write_bytes(data)
    typed = lambda argv: " ".join(["iperf3", *argv])  # noqa: E731 - as typed: 'iperf3', not the cache path
    lines = [f"# genuine output, produced here on loopback ({datetime.date.today().isoformat()})",
             f"# tool: {tool.version()}, {tool.label}, Linux {platform.release().split('-')[0]} {platform.machine()}",
             f"# kept: {run.keep}" + (f"; {run.note}" if run.note else ""),
             f"# recorded by: python scripts/record_iperf3.py {set_name}"]
    if run.server is not None:
        lines.append(f"server: timeout 15 {typed(['-s', '-p', str(port), '-1', *run.server])}")
    lines.append(f"client: timeout 15 {typed(options)}")
    if status is not None:
        lines.append(f"# exit status: {status}")
    (out / run.name).with_suffix(".cmd").write_text("\n".join(lines) + "\n")
    print(f"{out / run.name}: {len(data)} bytes", flush=True)


FIXTURES_39 = [
    Run("v3.9_tcp_bidir_json.json", ["-t", "1", "--bidir", "-J"],
        note="3.9 prints no bidir flag and its sums hold only the server-to-client stream"),
    Run("v3.9_tcp_bidir_parallel2_json.json", ["-t", "1", "-P", "2", "--bidir", "-J"]),
    Run("v3.9_udp_bidir_json.json", ["-t", "1", "-u", "-b", "10M", "--bidir", "-J"]),
    Run("v3.9_tcp_client_json.json", ["-t", "1", "-J"]),
    Run("v3.9_error_refused_json.json", ["-t", "1", "-J"], server=None, keep="client stdout+stderr",
        note="no server was listening on the port: 3.9 prints an empty JSON run, then its error as text"),
]
FIXTURES_318 = [
    Run("v3.18_error_refused_json_stream.json", ["-t", "1", "--json-stream"], server=None,
        keep="client stdout+stderr", note="no server was listening on the port"),
    Run("v3.18_tcp_json_stream.json", ["-t", "1", "--json-stream"]),
]
FIXTURES_INSTALLED = [
    Run("error_usage_json.txt", ["-t", "1", "-J", "--no-such-option"], server=None, keep="client stdout+stderr",
        note="an option iperf3 does not know: its usage text"),
    Run("error_parameter_json.txt", ["-t", "1", "-J"], server=None, keep="client stdout+stderr", alone=True,
        note="neither -c nor -s: a parameter error, then the usage text"),
    Run("error_interrupted_json.json", ["-t", "5", "-J"], keep="terminal",
        note="run in a terminal (a pty), Ctrl-C typed after 1.5 s: the terminal echoes ^C before the JSON"),
]

BENCH_RUNS = [
    Run(f"{name}.json", ["-t", "1", *opts, *([] if server else ["-J"])], server=server or [],
        keep="server stdout" if server else "client stdout")
    for name, opts, server in [
        ("tcp", [], None), ("tcp_i0.1", ["-i", "0.1"], None), ("tcp_reverse", ["-R"], None),
        ("tcp_reverse_i0.2", ["-R", "-i", "0.2"], None), ("tcp_parallel4", ["-P", "4"], None),
        ("tcp_parallel4_i0.1", ["-P", "4", "-i", "0.1"], None), ("tcp_parallel4_reverse", ["-P", "4", "-R"], None),
        ("tcp_bidir", ["--bidir"], None), ("tcp_bidir_parallel4", ["--bidir", "-P", "4"], None),
        ("tcp_l1400", ["-l", "1400"], None), ("tcp_omit", ["-O", "1", "-i", "0.5"], None),
        ("tcp_server_output", ["--get-server-output"], None), ("tcp6", ["-6"], None),
        ("udp", ["-u", "-b", "100M"], None), ("udp_i0.1", ["-u", "-b", "50M", "-i", "0.1"], None),
        ("udp_reverse", ["-u", "-b", "100M", "-R"], None), ("udp_parallel4_i0.2", ["-u", "-b", "20M", "-P", "4", "-i", "0.2"], None),
        ("udp_bidir", ["-u", "-b", "50M", "--bidir"], None), ("udp_l512", ["-u", "-b", "10M", "-l", "512"], None),
        ("tcp_server_side", ["-i", "0.2"], ["-J"]),
    ]
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("set", choices=("fixtures", "bench"))
    parser.add_argument("--cache", type=Path, default=Path("/tmp/iperf3-debian"),
                        help="where other Debian releases' iperf3 are unpacked (fixtures)")
    parser.add_argument("--out", type=Path, help="output folder (default: tests/fixtures/iperf3 or benchmarks/iperf3_outputs)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="record only these files of the set")
    args = parser.parse_args()
    port = 35900
    if args.set == "bench":
        out = args.out or BENCH
        plan = [(INSTALLED, r) for r in BENCH_RUNS]
    else:
        out = args.out or FIXTURES
        wanted = lambda runs: not args.only or any(r.name in args.only for r in runs)  # noqa: E731
        plan = ([(iperf3_39(args.cache), r) for r in FIXTURES_39 if wanted(FIXTURES_39)]
                + [(iperf3_318(args.cache), r) for r in FIXTURES_318 if wanted(FIXTURES_318)]
                + [(INSTALLED, r) for r in FIXTURES_INSTALLED])
    out.mkdir(parents=True, exist_ok=True)
    for tool, run in plan:
        if not args.only or run.name in args.only:
            record(tool, run, port, out, args.set)
        port += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
