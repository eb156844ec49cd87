"""Facts about the host that ran a campaign, and host-wide CPU use per run.

The studies name their hardware and OS because results depend on them; a
campaign records the same once (kernel, distribution, CPU, tool versions).
CPU utilisation comes from /proc/stat and is host-wide: on one host every
namespace shares the CPUs, so it covers sender, routers and receiver together.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

VERSION_COMMANDS = {
    "netperf": (["netperf", "-V"], r"Netperf version (\S+)"),
    "iperf3": (["iperf3", "-v"], r"iperf (\S+)"),
    "iperf2": (["iperf", "-v"], r"iperf version (\S+)"),
    "ditg": (["ITGSend", "-h"], r"ITGSend version (\S+(?: \(r\d+\))?)"),
    "iproute2": (["ip", "-V"], r"iproute2-(\S+?),?\s"),
    "ethtool": (["ethtool", "--version"], r"ethtool version (\S+)"),
}


def tool_versions() -> dict[str, str]:
    """Each installed tool's version as it prints it; absent tools are left out."""
    out = {}
    for name, (argv, pattern) in VERSION_COMMANDS.items():
        try:
            p = subprocess.run(argv, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            continue
        m = re.search(pattern, p.stdout + p.stderr + " ")
        if m:
            out[name] = m.group(1)
    return out


def _os_release() -> dict[str, str]:
    try:
        return dict(platform.freedesktop_os_release())
    except OSError:
        return {}


def distribution() -> str:
    info = _os_release()
    if not info:
        return platform.system()
    return info.get("PRETTY_NAME") or " ".join(info.get(k, "") for k in ("NAME", "VERSION")).strip()


def cpu_model() -> str | None:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return None


def host_facts() -> dict[str, Any]:
    uname = platform.uname()
    return {
        "hostname": uname.node,
        "kernel": uname.release,
        "kernel_build": uname.version,
        "machine": uname.machine,
        "distribution": distribution(),
        "os": _os_release().get("NAME") or platform.system(),
        "os_version": _os_release().get("VERSION_ID") or platform.release(),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "tool_versions": tool_versions(),
        "netem_available": _netem_available(),
    }


def _netem_available() -> bool:
    """Whether the kernel offers netem (delay/jitter emulation); it is not
    loaded on the machine these campaigns were recorded on."""
    if Path("/sys/module/sch_netem").exists():
        return True
    modules = Path(f"/lib/modules/{platform.release()}/modules.builtin")
    return modules.is_file() and "sch_netem" in modules.read_text()


@dataclass(frozen=True)
class CpuSample:
    busy: int
    total: int


def cpu_sample() -> CpuSample:
    """The aggregate ``cpu`` line of /proc/stat: busy and total jiffies."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    total = sum(fields[:8])  # guest time is already counted in user/nice
    return CpuSample(total - idle, total)


def cpu_percent(before: CpuSample, after: CpuSample) -> float | None:
    """Host-wide CPU utilisation between two samples, 0..100 (all CPUs)."""
    total = after.total - before.total
    return None if total <= 0 else round(100.0 * (after.busy - before.busy) / total, 2)
