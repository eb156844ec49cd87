"""``netrepro collect PLAN.yaml --out data/raw/<campaign> [--hypotheses FILE] [--dry-run] [--resume] [--cleanup]``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer



def collect_command(
    plan: Annotated[Optional[Path], typer.Argument(help="run plan (YAML); see docs/collecting.md and plans/")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="campaign folder to write (default data/raw/<plan name>)")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="print the schedule and its expected duration; run nothing")] = False,
    resume: Annotated[bool, typer.Option("--resume", help="continue an interrupted campaign in --out, skipping complete runs")] = False,
    do_cleanup: Annotated[bool, typer.Option("--cleanup", help="remove namespaces and links left by a killed collector, then exit")] = False,
    limit: Annotated[Optional[int], typer.Option("--show", help="with --dry-run: print only the first N runs")] = None,
    hypotheses: Annotated[Optional[Path], typer.Option("--hypotheses", metavar="FILE", help=(
        "register this hypothesis file before the first run (its sha256 and the time go into collect/registration.yaml): "
        "its directional claims are then tested one-sided; see docs/statistics.md, Pre-registration"))] = None,
) -> None:
    """Run a campaign of real tool runs on a loopback, p2p or routed testbed, or on lab hosts over SSH."""
    # imported here, not at the top: `netrepro --help` and the other commands
    # load this module to list it, and the collector's imports take a second
    from analysis.collect.ssh import HostError
    from analysis.collect.testbed import TestbedError, cleanup, netns_available, signal_name
    from analysis.config import raw_dir

    if do_cleanup:
        removed = cleanup()
        for what in removed:
            print(f"removed {what}")
        print(f"{len(removed)} left behind by stopped collectors removed" if removed
              else "nothing left behind by a stopped collector")
        return
    if plan is None:
        raise typer.BadParameter("give a plan file", param_hint="PLAN")
    from analysis.collect.campaign import Collector, dry_run_lines
    from analysis.collect.plan import load_plan
    from analysis.verdicts.registration import file_sha256
    from analysis.verdicts.spec import load_hypotheses
    from analysis.collect.uml import uml_unavailable

    parsed = load_plan(plan)

    if hypotheses is not None:
        load_hypotheses(hypotheses)  # a claim the engine refuses fails before any testbed or run
    if dry_run:
        for line in dry_run_lines(parsed, limit):
            print(line)
        if hypotheses is not None:
            print(f"{hypotheses}: valid; a collection would register it (sha256 {file_sha256(hypotheses)}) before the first run")
        return
    out = out or raw_dir() / parsed.name
    needs_netns = any(t.kind in ("p2p", "routed", "uml") for t in parsed.testbeds.values())
    why = netns_available() if needs_netns else None
    if why:
        raise TestbedError(f"this plan needs network namespaces: {why}")
    suites = sorted({k for t in parsed.testbeds.values() if t.kind == "uml" for k in t.kernels().values()})
    why = uml_unavailable(suites) if suites else None
    if why:
        raise TestbedError(f"this plan boots User-mode Linux guests: {why}")
    try:
        progress = Collector(parsed, out, resume=resume, hypotheses=hypotheses).run()
    except KeyboardInterrupt as exc:
        print(f"interrupted by {signal_name(exc)}; testbeds torn down; continue with --resume", file=sys.stderr)
        raise typer.Exit(130)
    except HostError as exc:
        raise HostError(f"{exc}; the runs done so far are kept: continue with --resume once the host is reachable") from None
    print(f"{out}: {progress['runs_done']}/{progress['runs_total']} runs done, {progress['runs_failed']} failed, "
          f"{progress['collection_seconds'] / 60:.1f} min of collection")
