"""Wall and CPU time of a command, as the working-loop and report benchmarks print them.

The CPU time is user + system of the command and every process it waited for
(kernels, pytest workers): on a machine other work shares, it says what the
command cost where its wall time says how long it waited as well."""

from __future__ import annotations

import os
import resource
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORES = os.cpu_count()


@dataclass(frozen=True)
class Timing:
    wall: float
    cpu: float

    def line(self, name: str, target: float) -> tuple[str, bool]:
        """One line of the benchmark's output, and whether the wall time met ``target``."""
        ok = self.wall < target
        return (f"{name}: {self.wall:.2f} s wall, {self.cpu:.2f} s CPU (user+sys) on {CORES} cores, "
                f"load {os.getloadavg()[0]:.1f} (target < {target:g} s wall) {'ok' if ok else 'MISSED'}"), ok


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(*commands: list[str], env: dict | None = None, repeat: int = 1) -> Timing:
    """The fastest of ``repeat`` runs of ``commands``, one after the other, from
    the project folder (a failed command stops the benchmark)."""
    best = Timing(float("inf"), float("inf"))
    for _ in range(repeat):
        cpu, started = _children_cpu(), time.perf_counter()
        for command in commands:
            subprocess.run(command, check=True, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        run = Timing(time.perf_counter() - started, _children_cpu() - cpu)
        best = min(best, run, key=lambda t: t.wall)
    return best
