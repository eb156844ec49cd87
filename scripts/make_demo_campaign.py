"""Record the bundled demo campaign with the real tools on loopback.

2 IP versions x TCP/UDP x 3 packet sizes x 5 runs with netperf, iperf3 and
D-ITG, 1 s runs, in a seeded random order. Servers are started here, on
their own ports, and stopped by PID. Writes data/raw/demo-loopback/ with the
untouched outputs and a manifest that records each run's command, exit
status, times and order. (The collector issue replaces this with
`netrepro collect`; until then this is how the demo data was made.)
"""

from __future__ import annotations

import itertools
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import yaml

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "data/raw/demo-loopback")
SEED = 20261122
SIZES = (128, 512, 1408)
RUNS = 5
ADDR = {4: "127.0.0.1", 6: "::1"}
NETPERF_PORT, IPERF3_PORT, ITG_SIGNAL_PORT = 12866, 5301, 9301


def run(cmd: list[str], timeout: float, cwd: Path | None = None) -> tuple[int, str]:
    """Run one tool, its stderr merged into stdout as a terminal shows it (2>&1)."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout, cwd=cwd)
    return p.returncode, p.stdout


def command(tool: str, ipv: int, transport: str, size: int, recv_log: str) -> list[list[str]]:
    host = ADDR[ipv]
    if tool == "netperf":
        test = "TCP_STREAM" if transport == "TCP" else "UDP_STREAM"
        return [["netperf", f"-{ipv}", "-H", host, "-p", str(NETPERF_PORT), "-t", test, "-l", "1", "-c", "-C", "--", "-m", str(size)]]
    if tool == "iperf3":
        cmd = ["iperf3", "-c", host, "-p", str(IPERF3_PORT), "-t", "1", "-l", str(size), "--json"]
        if ipv == 6:
            cmd.insert(1, "-6")
        return [cmd + (["-u", "-b", "100M"] if transport == "UDP" else [])]
    send = ["ITGSend", "-a", host, "-Sdp", str(ITG_SIGNAL_PORT), "-T", transport, "-C", "200", "-c", str(size), "-t", "1000", "-x", recv_log]
    return [send, ["ITGDec", recv_log]]


def start_servers(workdir: Path) -> list[subprocess.Popen]:
    servers = [
        subprocess.Popen(["netserver", "-D", "-p", str(NETPERF_PORT)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
        subprocess.Popen(["iperf3", "-s", "-p", str(IPERF3_PORT)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
        subprocess.Popen(["ITGRecv", "-Sp", str(ITG_SIGNAL_PORT)], cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
    ]
    time.sleep(1.0)
    return servers


def main() -> None:
    if OUT.exists():
        sys.exit(f"{OUT} exists; remove it first to record the demo again")
    cells = list(itertools.product(("netperf", "iperf3", "ditg"), (4, 6), ("TCP", "UDP"), SIZES, range(1, RUNS + 1)))
    order = random.Random(SEED).sample(cells, len(cells))
    workdir = Path(tempfile.mkdtemp(prefix="netrepro-demo-"))
    servers = start_servers(workdir)
    table = []
    try:
        for index, (tool, ipv, transport, size, rep) in enumerate(order):
            rel = f"{tool}/ipv{ipv}/{transport}/{size}/run{rep}.{'json' if tool == 'iperf3' else 'txt'}"
            recv_log = str(workdir / f"recv-{index}.log")
            started = datetime.now(timezone.utc).isoformat(timespec="seconds")
            outputs, statuses, commands = [], [], []
            for cmd in command(tool, ipv, transport, size, recv_log):
                status, text = run(cmd, timeout=30, cwd=workdir)
                commands.append(" ".join(cmd))
                statuses.append(status)
                outputs.append(text)
            # For D-ITG the measurement is ITGDec's summary of the receiver log.
            path = OUT / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(outputs[-1])
            table.append({"path": rel, "meta": {"command": " && ".join(commands), "exit_status": max(statuses),
                                                "order": index, "started": started}})
            print(f"[{index + 1}/{len(order)}] {rel} exit={statuses}", flush=True)
            time.sleep(0.2)
    finally:
        for s in servers:
            s.terminate()
            s.wait(timeout=10)
        shutil.rmtree(workdir, ignore_errors=True)
    versions = {
        "netperf": run(["netperf", "-V"], 10)[1].split()[-1],
        "iperf3": run(["iperf3", "-v"], 10)[1].split()[1],
        "ditg": run(["ITGRecv", "-h"], 10)[1].split()[2],
    }
    manifest = {
        "campaign": {
            "title": "Demo: netperf, iperf3 and D-ITG on loopback",
            "description": "Real runs of the real tools on this machine's loopback interface (127.0.0.1 and ::1): "
            "2 IP versions x TCP/UDP x 3 packet sizes x 5 runs per tool, 1 s each, in a seeded random order "
            f"(seed {SEED}). Loopback has no wire: numbers show the stacks, not a network.",
            "synthetic": False,
            "testbed": "loopback",
            "hosts": ["localhost (sender and receiver on one host)"],
            "os": " ".join(platform.freedesktop_os_release().get(k, "") for k in ("NAME", "VERSION")).strip(),
            "kernel": platform.release(),
            "tool_versions": versions,
            "dates": [datetime.now(timezone.utc).date().isoformat()],
            "notes": "Recorded with scripts/make_demo_campaign.py; D-ITG files are ITGDec summaries of the receiver log. "
            "netperf -c -C; iperf3 --json, UDP at -b 100M; D-ITG 200 packets/s.",
        },
        "factors": {
            "tool": {"type": "str", "levels": ["netperf", "iperf3", "ditg"]},
            "ip_version": {"type": "int", "levels": [4, 6]},
            "transport": {"type": "str", "levels": ["TCP", "UDP"]},
            "packet_size_bytes": {"type": "int", "levels": list(SIZES)},
            "run": {"type": "int"},
        },
        "files": {
            "templates": [f"{{tool}}/ipv{{ip_version}}/{{transport}}/{{packet_size_bytes}}/run{{run}}.{ext}" for ext in ("txt", "json")],
            "table": sorted(table, key=lambda e: e["path"]),
        },
    }
    (OUT / "manifest.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False, width=120))


if __name__ == "__main__":
    main()
