"""Run a plan: testbeds up, servers up, runs in their seeded order, outputs
and manifest written as each run finishes, everything torn down at the end.

The manifest is rewritten (atomically) after every run, so an interrupted
campaign is a valid, ingestible campaign with fewer runs, and ``resume``
continues it: a run whose entry and output exist is complete and skipped.
Failed runs are complete too; they keep their output and the reason.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any, Iterator

import yaml
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from analysis.ingest.manifest import MANIFEST_NAME, Manifest
from analysis.collect.hostfacts import cpu_percent, cpu_sample, host_facts
from analysis.collect.dialects import dialect
from analysis.collect.extension import (EXTENSIONS_NAME, check_extension, earlier_plans, extended_schedule, extension_record,
                                        load_extensions)
from analysis.collect.hosts import HostsTestbed, RemoteServerSet
from analysis.collect.plan import Plan, PlanError, Run, factor_table, payload_bytes, schedule
from analysis.collect.runners import ServerSet, StepResult, client_steps, ditg_logs, run_step, save_output
from analysis.collect.testbed import CaughtSignals, Testbed, signal_name, signals_raise, workdir
from analysis.collect.uml import ADDRESSES as UML_ADDRESSES, UmlTestbed
from analysis.collect.until_decided import UntilDecided, in_looks
from analysis.verdicts.registration import register
from analysis.verdicts.spec import load_hypotheses
from analysis.artefacts import replace_whole
from analysis.yamlfiles import read_yaml

COLLECT_DIR = "collect"  # plan copy, tool side logs, warm-ups: not measurements
CPU_NOTE = ("meta host_cpu_pct is the whole host's CPU utilisation (all CPUs, /proc/stat) over the run: "
            "sender, routers and receiver share this host's CPUs")
HOSTS_NOTE = ("On lab hosts (testbeds of kind hosts) meta sender_cpu_pct is the sending host's CPU utilisation (all CPUs, "
              "its /proc/stat) over the run's main step, meta commands the command lines exactly as the hosts' shells "
              "received them (meta command_hosts: which host ran each), and meta output_sha256 the checksum the host "
              "computed of the output the collector copied back.")
LOAD_NOTE = ("meta host_load_1m is the collecting host's 1-minute load average (/proc/loadavg) at the end of the run: "
             "other work on the machine shows there.")
OS_FACTORS = ("os", "os_version", "receiver_os", "receiver_os_version")
UML_NOTE = ("On User-mode Linux testbeds (kind uml) each node is a kernel booted as a process of this host: os_version is "
            "the guest kernel's release, the measurement is that kernel's own TCP/IP stack with its defaults (its congestion "
            "control, buffers and its virtual NIC's offloads, in the host facts), not hardware drivers; UML's timer and I/O "
            "emulation add overhead, so absolute rates are lower than on hardware and only the comparison between kernels "
            "on this one host is meant. The guests' userland is this host's (hostfs, read-only). Both guests are processes "
            "of this host, so meta host_cpu_pct is its CPU utilisation (all CPUs, /proc/stat) over the run.")


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="milliseconds")


def _dump(data: Any, path: Path) -> None:
    """Write YAML atomically: a reader (or a crash) never sees half a manifest."""
    text = yaml.dump(data, Dumper=yaml.CSafeDumper, sort_keys=False, width=160, allow_unicode=True)
    replace_whole(path, lambda stream: stream.write(text))


@dataclass
class Outcome:
    status: str  # ok | failed
    reason: str | None
    results: list[StepResult]
    logs: dict[str, tuple[Path, str]] = field(default_factory=dict)  # D-ITG binary logs copied from lab hosts (local copy, SHA-256), by side

    def discard(self) -> None:
        """Remove the local copies of an outcome that is not kept."""
        for x in self.results:
            x.discard()
        for copy, _ in self.logs.values():
            copy.unlink(missing_ok=True)


@dataclass
class Collector:
    plan: Plan
    out: Path
    resume: bool = False
    hypotheses: Path | None = None  # registered before the first run (docs/statistics.md, "Pre-registration")
    console: Console = field(default_factory=lambda: Console(stderr=True))
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    testbeds: dict[str, Testbed | HostsTestbed] = field(default_factory=dict)
    servers: dict[str, ServerSet | RemoteServerSet] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)
    elapsed_before: float = 0.0
    started: float | None = None  # monotonic start of this session
    host: dict[str, Any] = field(default_factory=dict)
    interruptions: list[dict[str, Any]] = field(default_factory=list)  # each session a signal stopped: which, when
    until_decided: UntilDecided | None = None  # registered claims with stop: (docs/statistics.md, "Collect until decided")
    signals: CaughtSignals = field(default_factory=CaughtSignals)  # what signals_raise caught this session
    extensions: list[dict[str, Any]] = field(default_factory=list)  # collect/extensions.yaml: how the plan grew

    # --- preparation ------------------------------------------------------
    def prepare(self) -> list[Run]:
        """Check the folder against the plan, register the hypothesis file; the runs still to do."""
        if self.hypotheses is not None:
            load_hypotheses(self.hypotheses)  # a claim the engine refuses fails now, before anything is made
            self.until_decided = UntilDecided.of(self.out, self.hypotheses)
            if self.until_decided:
                self.until_decided.check(self.plan)
        plan_copy = self.out / COLLECT_DIR / "plan.yaml"
        if self.out.exists() and any(self.out.iterdir()):
            if not self.resume:
                raise PlanError(f"{self.out} exists and is not empty; add --resume to continue that campaign")
            if not plan_copy.is_file():
                raise PlanError(f"{self.out}: no {COLLECT_DIR}/plan.yaml, so it is not a campaign this collector started")
            self.extensions = load_extensions(self.out / COLLECT_DIR)
            previous = Plan.model_validate(read_yaml(plan_copy, PlanError))
            if previous.model_dump(mode="json") != self.plan.model_dump(mode="json"):
                self._extend(previous)
            self._load_previous()
        (self.out / COLLECT_DIR).mkdir(parents=True, exist_ok=True)
        _dump(self.plan.model_dump(mode="json"), plan_copy)
        if self.hypotheses is not None:  # before any testbed or run: the record must precede the data
            self.console.log(register(self.out, self.hypotheses), markup=False, highlight=False)
        pending = [r for r in self.runs if r.path not in self.entries]
        return in_looks(pending, self.until_decided.points) if self.until_decided else pending

    @property
    def runs(self) -> list[Run]:
        """Every run of the campaign in its order (an extended plan's added runs after the earlier ones)."""
        return extended_schedule([*earlier_plans(self.extensions), self.plan])

    def _extend(self, previous: Plan) -> None:
        """Accept a plan that only adds cells, blocks or runs to the one the
        campaign ran so far (:mod:`analysis.collect.extension`), recorded
        before any of its runs; anything else is a different campaign."""
        try:
            added = check_extension(previous, self.plan)
        except PlanError as exc:
            raise PlanError(f"{self.out}: the plan differs from the one it was started with "
                            f"({self.out / COLLECT_DIR / 'plan.yaml'}): {exc}") from None
        if not added:
            raise PlanError(f"{self.out}: the plan differs from the one it was started with "
                            f"({self.out / COLLECT_DIR / 'plan.yaml'}) and adds no runs; resume with that plan")
        runs_before = len(extended_schedule([*earlier_plans(self.extensions), previous]))
        record = extension_record(previous, self.plan, runs_before, time.time())
        self.extensions.append(record)
        _dump(self.extensions, self.out / COLLECT_DIR / EXTENSIONS_NAME)
        self.console.log(f"plan extended: {record['runs_added']} runs added (orders {record['orders']}), "
                         f"recorded in {COLLECT_DIR}/{EXTENSIONS_NAME}", markup=False, highlight=False)

    def _load_previous(self) -> None:
        path = self.out / MANIFEST_NAME
        if not path.is_file():
            return
        old = read_yaml(path, PlanError)
        constants = {k: v for k, v in old.get("files", {}).get("constants", {}).items() if k in OS_FACTORS}
        for e in old.get("files", {}).get("table", []):
            if e.get("meta", {}).get("status") in ("ok", "failed") and (self.out / e["path"]).is_file():
                e["levels"] = constants | e.get("levels", {})  # one-level OS factors were written as constants
                self.entries[e["path"]] = e
        extra = old.get("campaign", {}).get("extra", {})
        self.facts = extra.get("testbeds", {})
        self.elapsed_before = float(extra.get("progress", {}).get("collection_seconds", 0.0))
        self.interruptions = list(extra.get("progress", {}).get("interruptions", []))

    # --- the campaign -----------------------------------------------------
    def run(self) -> dict[str, Any]:
        pending = self.prepare()
        self.host = host_facts()
        self.started = time.monotonic()
        try:
            with signals_raise() as self.signals, contextlib.ExitStack() as stack:
                self._bring_up(stack, pending)
                self.signals.check()
                self._warm_up(pending)
                self._loop(pending)
        except KeyboardInterrupt as exc:
            self.interruptions.append({"signal": signal_name(exc), "at": _iso(time.time()),
                                       "runs_done": self.progress()["runs_done"]})
            raise
        finally:
            self.write_manifest()
        return self.progress()

    def _bring_up(self, stack: contextlib.ExitStack, pending: list[Run]) -> None:
        needed = {self.plan.testbed_of(r.levels) for r in pending}
        for name in self.plan.testbeds:
            if name not in needed:
                continue
            spec = self.plan.testbeds[name]
            if spec.kind in ("hosts", "uml"):
                self._bring_up_hosts(stack, name, pending)
                continue
            bed = self.testbeds[name] = stack.enter_context(Testbed(name, spec))
            self._check_profiles(bed)
            scratch = workdir(bed.prefix)
            stack.callback(shutil.rmtree, scratch, True)
            servers = ServerSet(bed.receiver.ns, bed.spec.ports, scratch, self.out / COLLECT_DIR / "servers", bed.target(4))
            stack.callback(servers.stop)
            self.servers[name] = servers
            self.facts[name] = bed.facts()
            self.console.log(f"testbed {name}: {bed.spec.kind}" + (f", namespaces {', '.join(bed.namespaces)}" if bed.namespaces else ""))

    def _bring_up_hosts(self, stack: contextlib.ExitStack, name: str, pending: list[Run]) -> None:
        """Connect to a lab testbed's hosts (a uml testbed's: after booting
        them), check their tools, record their facts."""
        runs = [r for r in pending if self.plan.testbed_of(r.levels) == name]
        tools = {r.tool for r in runs}
        spec = self.plan.testbeds[name]
        bed = UmlTestbed.of(name, spec, tools) if spec.kind == "uml" else HostsTestbed(name, spec, self.plan.hosts, tools)
        self.testbeds[name] = stack.enter_context(bed)
        if isinstance(bed, UmlTestbed):  # runs before the guests stop: what their consoles said during the campaign
            stack.callback(lambda: self.facts[name].update(guests_at_end=bed.guest_report()))
        for stale in bed.remove_stale(self.facts.get(name, {}).get("hosts", {})):
            self.console.log(f"removed the scratch folder an earlier session left: {stale}")
        servers = RemoteServerSet(bed.receiver, bed.spec.ports, self.out / COLLECT_DIR / "servers")
        stack.callback(servers.stop)
        self.servers[name] = servers
        self.facts[name] = bed.facts()
        owd = sorted({r.block for r in runs if r.tool == "ditg" and r.levels.get("mode") == "owdm"})
        if owd and not bed.owd_allowed:
            raise PlanError(f"testbed {name}: one-way delay (D-ITG owdm in block {', '.join(owd)}) needs synchronised clocks "
                            f"on {bed.spec.sender} and {bed.spec.receiver}, and no sync is recorded (neither host reports "
                            "chrony, ntpd, systemd-timesyncd or w32time as synchronised): say how they are synchronised "
                            "in the testbed's clock_sync, or set owd_without_clock_sync: true to collect them anyway")
        self.console.log(f"testbed {name}: hosts " + ", ".join(
            f"{h} ({f.get('distribution') or f.get('os')}, {f.get('kernel')})" for h, f in bed.host_facts.items()))

    def _check_profiles(self, bed: Testbed) -> None:
        """Refuse, before any run, a congestion control a namespace may not
        select: outside the initial namespace the kernel allows only those in
        net.ipv4.tcp_allowed_congestion_control (EPERM otherwise)."""
        if not bed.namespaces:
            return
        allowed = Path("/proc/sys/net/ipv4/tcp_allowed_congestion_control").read_text().split()
        for name, sysctls in self.plan.stack_profiles.items():
            cc = sysctls.get("net.ipv4.tcp_congestion_control")
            if cc and cc not in allowed:
                raise PlanError(f"stack profile {name}: congestion control {cc!r} cannot be selected inside a network "
                                f"namespace here: net.ipv4.tcp_allowed_congestion_control is {' '.join(allowed)!r}")

    def _warm_up(self, pending: list[Run]) -> None:
        """One discarded run per tool and testbed, so first runs do not pay for cold caches."""
        if not self.plan.warmup_s:
            return
        seen: dict[tuple[str, str], Run] = {}
        for r in pending:
            seen.setdefault((self.plan.testbed_of(r.levels), r.tool), r)
        for (bed, tool), r in seen.items():
            outcome = self._measure(r, self.plan.warmup_s, tag=f"warmup-{bed}-{tool}")
            self._main_result(outcome).save(_first_free(self.out / COLLECT_DIR / "warmup" / f"{bed}-{tool}.txt"))
            outcome.discard()

    def _loop(self, pending: list[Run]) -> None:
        total = len(self.runs)
        columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
        with Progress(*columns, console=self.console) as bar:
            task = bar.add_task(self.plan.name, total=total, completed=total - len(pending))
            for r in pending:
                self.signals.check()  # a signal whose exception Python dropped still stops the campaign here
                if self.until_decided and not self.until_decided.wanted(r, len(self.entries)):
                    bar.advance(task)  # its cell is decided: no open claim needs the run
                    continue
                entries = self._do(r)
                self.entries.update((e["path"], e) for e in entries)
                self.write_manifest()
                bar.advance(task)
                if entries[0]["meta"]["status"] != "ok":
                    bar.console.log(f"[{r.order}] {r.path}: FAILED: {entries[0]['meta']['reason']}")
                elif not self.console.is_terminal and r.order % 25 == 0:  # a log file gets a heartbeat instead of a bar
                    bar.console.log(f"{self.plan.name}: {self.progress()['runs_done']}/{total} runs")
                time.sleep(self.plan.pause_s)
        if self.until_decided:
            self.until_decided.look("after the last run")

    # --- one run ----------------------------------------------------------
    def _do(self, r: Run) -> list[dict[str, Any]]:
        """Run ``r`` (with the plan's retries); its manifest entries, the run's own file first."""
        bed = self.testbeds[self.plan.testbed_of(r.levels)]
        if "mtu_bytes" in r.levels:
            bed.set_mtu(int(r.levels["mtu_bytes"]))
        profile = self.plan.stack_profiles.get(str(r.levels.get("stack")), {})
        effective = bed.apply_stack(profile)
        attempts = 0
        while True:
            attempts += 1
            before, t0 = cpu_sample(), time.time()
            guest_said = bed.console_counts() if isinstance(bed, UmlTestbed) else {}
            outcome = self._measure(r, self.plan.duration_of(r), tag=f"run{r.order}")
            cpu = cpu_percent(before, cpu_sample())
            if outcome.status == "ok" or attempts > self.plan.retries:
                break
            self._keep_failed_attempt(r, outcome, attempts)
        remote = isinstance(bed, HostsTestbed)
        main = self._main_result(outcome)
        meta = {
            "order": r.order,
            "status": outcome.status,
            "reason": outcome.reason,
            "commands": "\n".join(x.command or shlex.join(x.step.argv) for x in outcome.results),
            "exit_status": outcome.results[-1].exit_status,
            "started": _iso(t0),
            "ended": _iso(outcome.results[-1].ended),
            "attempts": attempts,
            "host_cpu_pct": None if remote and not isinstance(bed, UmlTestbed) else cpu,  # UML guests are this host's processes
            "host_load_1m": round(os.getloadavg()[0], 2),
            "testbed": bed.name,
            "duration_planned_s": self.plan.duration_of(r),
            "payload_bytes": payload_bytes(r.levels),
            "stack_effective": " ".join(f"{k}={effective.get(k)}" for k in profile) or None,
        }
        if isinstance(bed, UmlTestbed):  # what the guests' virtual NICs logged during the run (uml.Guest.console_facts)
            meta |= {f"guest_{k}": n - guest_said[k] for k, n in bed.console_counts().items()}
        if remote:
            meta |= {"command_hosts": " ".join(str(x.host) for x in outcome.results), "sender_cpu_pct": main.cpu_pct,
                     "output_sha256": main.sha256}
            if outcome.logs:
                meta["ditg_logs_sha256"] = " ".join(f"{side}={digest}" for side, (_, digest) in sorted(outcome.logs.items()))
        levels = dict(r.levels) | self._os_levels(bed)
        return [{"path": path, "levels": lv, "meta": meta, **_parser_hints(r, lv)}
                for path, lv in self._write(r, outcome, levels)]

    def _os_levels(self, bed: Testbed | HostsTestbed) -> dict[str, str]:
        """The sender's and the receiver's OS and version: factors across testbeds of different machines."""
        if isinstance(bed, HostsTestbed):
            snd, rcv = bed.host_facts[str(bed.spec.sender)], bed.host_facts[str(bed.spec.receiver)]
        else:
            snd = rcv = self.host
        return {"os": str(snd.get("os") or "unknown"), "os_version": str(snd.get("os_version") or "unknown"),
                "receiver_os": str(rcv.get("os") or "unknown"), "receiver_os_version": str(rcv.get("os_version") or "unknown")}

    def _measure(self, r: Run, duration: float, tag: str) -> Outcome:
        bed = self.testbeds[self.plan.testbed_of(r.levels)]
        servers = self.servers[bed.name]
        servers.ensure(r.tool)
        target = bed.target(int(r.levels.get("ip_version", 4)))
        if isinstance(bed, HostsTestbed):
            return self._measure_remote(r, bed, servers, target, duration, tag)
        assert isinstance(servers, ServerSet)
        steps = client_steps(r.levels, target, bed.sender.ns, bed.spec.ports,
                             duration, self.plan.options, servers.cwd, tag, self.plan.timeout_s)
        results: list[StepResult] = []
        for step in steps:
            res = run_step(step, cwd=servers.cwd)
            results.append(res)
            if res.exit_status != 0 or res.tool_error():
                servers.restart(r.tool)  # a failed client can leave a server wedged
                return Outcome("failed", _failure(res), results)
        for p in servers.cwd.glob(f"{tag}.*"):
            p.unlink()
        return Outcome("ok", None, results)

    def _measure_remote(self, r: Run, bed: HostsTestbed, servers: ServerSet | RemoteServerSet, target: str,
                        duration: float, tag: str) -> Outcome:
        """The same steps on lab hosts over SSH; D-ITG's binary logs are copied back too."""
        steps = client_steps(r.levels, target, None, bed.spec.ports, duration, self.plan.options, bed.scratch("sender"),
                             tag, self.plan.timeout_s, recv_scratch=bed.scratch("receiver"), owd=bed.owd_allowed)
        results: list[StepResult] = []
        outcome: Outcome | None = None
        for i, step in enumerate(steps):
            res = bed.execute(step, tag, i)
            results.append(res)
            if res.exit_status != 0 or res.tool_error():
                servers.restart(r.tool)
                outcome = Outcome("failed", _failure(res), results)
                break
        outcome = outcome or Outcome("ok", None, results)
        if r.tool == "ditg":
            send_log, recv_log = ditg_logs(bed.scratch("sender"), tag, bed.scratch("receiver"))
            sides = {"receiver": recv_log} | ({"sender": send_log} if r.levels.get("mode") == "rttm" else {})
            outcome.logs = bed.fetch_logs(sides)
        return outcome

    @staticmethod
    def _main_result(outcome: Outcome) -> StepResult:
        main = [x for x in outcome.results if x.step.output == ""]
        return (main or outcome.results)[-1]

    def _write(self, r: Run, outcome: Outcome, levels: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        """Write the run's file(s) and side logs; (path, levels) per measurement file.
        The run's file is the main measuring step's output, or the output of
        the step that failed before it (so the file says why)."""
        stem, ext = r.path.rsplit(".", 1)
        files: list[tuple[str, StepResult | bytes | Path, str | None]] = [(r.path, self._main_result(outcome), _log_of(r))]
        files += [(f"{stem}{x.step.output}.{ext}", x, x.step.log) for x in outcome.results if x.step.output]
        for x in outcome.results:
            if x.step.output is None:
                files.append((f"{COLLECT_DIR}/logs/{r.path}.{x.step.label}.log", x, None))
            if x.stderr and x.exit_status != 0:  # a spinner is noise; a failing step's stderr is its reason
                files.append((f"{COLLECT_DIR}/logs/{r.path}.{x.step.label}.stderr", x.stderr, None))
        for side, (copy, _) in outcome.logs.items():
            files.append((f"{COLLECT_DIR}/ditg-logs/{r.path}.{side}.log", copy, None))
        written = []
        for rel, data, log in files:
            if isinstance(data, StepResult):
                data.save(self.out / rel)
            else:
                save_output(data, self.out / rel)
            if not rel.startswith(COLLECT_DIR + "/"):
                written.append((rel, dict(levels) | ({"log": log} if log else {})))
        return written

    def _keep_failed_attempt(self, r: Run, outcome: Outcome, attempt: int) -> None:
        target = self.out / COLLECT_DIR / "failed" / f"{r.path}.attempt{attempt}"
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "wb") as out:
            for x in outcome.results:
                x.write_into(out)
        outcome.discard()

    # --- the manifest -----------------------------------------------------
    def progress(self) -> dict[str, Any]:
        """Runs done so far (a run's second D-ITG file is not a second run)."""
        runs = self.runs
        statuses = [self.entries[r.path]["meta"]["status"] for r in runs if r.path in self.entries]
        total = len(runs)
        return {
            "runs_total": total,
            "runs_done": len(statuses),
            "runs_failed": statuses.count("failed"),
            "complete": len(statuses) == total,
            "collection_seconds": round(self.elapsed_before + (time.monotonic() - self.started if self.started else 0), 1),
        } | ({"interruptions": self.interruptions} if self.interruptions else {})

    def write_manifest(self) -> None:
        if not self.host:
            return
        plan = self.plan
        table = sorted(self.entries.values(), key=lambda e: e["meta"]["order"])
        dates = sorted({e["meta"]["started"][:10] for e in table})
        constants: dict[str, Any] = {}
        if len(plan.testbeds) == 1:
            constants["topology"] = next(iter(plan.testbeds))
        factors = factor_table(plan)
        for name in constants:
            factors.pop(name, None)
        # OS factors: a constant while every run has one level, a factor once testbeds differ.
        for name in OS_FACTORS:
            levels = list(dict.fromkeys(str(e["levels"][name]) for e in table if name in e["levels"]))
            if len(levels) > 1:
                factors[name] = {"type": "str", "levels": levels, "description": _OS_DESCRIPTIONS[name]}
            elif levels:
                constants[name] = levels[0]
            elif name == "os":
                constants[name] = self.host.get("os") or self.host["distribution"]
        table = [e | {"levels": {k: v for k, v in e["levels"].items() if k not in constants}} for e in table]
        machines = self._machines()
        manifest = {
            "campaign": {
                "title": plan.title,
                "description": f"{plan.description.strip()} Runs last {plan.duration_s:g} s each (duration_s), "
                f"{plan.runs_per_cell} per cell, unless a block says otherwise{self._block_overrides()}; "
                f"in a random order from seed {plan.seed}.",
                "synthetic": False,
                "testbed": "; ".join(f"{n}: {self._describe(t)}" for n, t in plan.testbeds.items()),
                "hosts": [label for label, _ in machines],
                "os": "; ".join(dict.fromkeys(str(f.get("distribution") or f.get("os")) for _, f in machines)),
                "kernel": "; ".join(dict.fromkeys(str(f.get("kernel")) for _, f in machines)),
                "tool_versions": _merged_versions([f.get("tool_versions") or {} for _, f in machines]),
                "dates": dates,
                "notes": " ".join(x for x in (plan.notes.strip(), self._notes()) if x),
                "extra": {
                    "collector": {"plan": plan.model_dump(mode="json"), "duration_s": plan.duration_s, "seed": plan.seed}
                    | ({"extensions": [{k: v for k, v in x.items() if k != "plan_before"} for x in self.extensions]}
                       if self.extensions else {}),
                    "host": self.host,
                    "testbeds": self.facts,
                    "progress": self.progress(),
                },
            },
            "factors": factors,
            "files": {"table": table, "constants": constants, "ignore": [f"{COLLECT_DIR}/*"]},
        }
        # Through the ingest model: a key ingest would refuse fails here, at collection time.
        validated = Manifest.model_validate(manifest)
        _dump(validated.model_dump(mode="json", exclude_unset=True), self.out / MANIFEST_NAME)

    def _machines(self) -> list[tuple[str, dict[str, Any]]]:
        """Every machine that ran tools: this one (namespace and loopback
        testbeds) and the lab hosts, each with a one-line label."""
        kinds = {t.kind for t in self.plan.testbeds.values()}
        out: list[tuple[str, dict[str, Any]]] = []
        if kinds - {"hosts", "uml"}:
            out.append((self.host["hostname"] + " (every testbed node is a namespace on this one host)", self.host))
        seen = set()
        for name, spec in self.plan.testbeds.items():
            if spec.kind not in ("hosts", "uml"):
                continue
            for host, facts in self.facts.get(name, {}).get("hosts", {}).items():
                if host in seen:
                    continue
                seen.add(host)
                ssh = facts.get("ssh", {})
                who = f"{ssh.get('user')}@" if ssh.get("user") else ""
                out.append((f"{host} ({who}{ssh.get('address')}:{ssh.get('port')}, {', '.join(ssh.get('roles', []))}): "
                            f"{facts.get('distribution') or facts.get('os')}, kernel {facts.get('kernel')}, "
                            f"{facts.get('cpu_model')}", facts))
        return out

    def _notes(self) -> str:
        kinds = {t.kind for t in self.plan.testbeds.values()}
        notes = ((CPU_NOTE, bool(kinds - {"hosts", "uml"})), (HOSTS_NOTE, bool(kinds & {"hosts", "uml"})), (UML_NOTE, "uml" in kinds))
        return " ".join([*(note for note, wanted in notes if wanted), LOAD_NOTE])

    def _block_overrides(self) -> str:
        said = [f"{b.name}: " + ", ".join(x for x in (f"{b.duration_s:g} s" if b.duration_s else "",
                                                       f"{b.runs_per_cell} runs" if b.runs_per_cell else "") if x)
                for b in self.plan.blocks if b.duration_s or b.runs_per_cell]
        return f" ({'; '.join(said)})" if said else ""

    @staticmethod
    def _describe(spec: Any) -> str:
        if spec.kind == "loopback":
            return "loopback (127.0.0.1, ::1) on one host"
        if spec.kind == "uml":
            kernels = spec.kernels()
            return (f"two User-mode Linux guests on one link (tap devices bridged in a namespace), sender kernel {kernels['sender']}, "
                    f"receiver kernel {kernels['receiver']}, {spec.guest_mem_mb} MiB each, MTU {spec.mtu}")
        if spec.kind == "hosts":
            path = " - ".join([spec.sender, *spec.routers, spec.receiver])
            return f"lab hosts over SSH: {path} (clients on {spec.sender}, servers on {spec.receiver})"
        parts = [{"p2p": "sender - receiver (one veth pair)", "routed": "sender - r1 - r2 - receiver (three veth pairs, static routes)"}[spec.kind],
                 f"MTU {spec.mtu}"]
        if spec.rate:
            parts.append(f"rate limit {spec.rate} ({spec.shaper}) on every link end")
        if spec.offloads:
            parts.append("offloads " + ", ".join(f"{k} {'on' if v else 'off'}" for k, v in spec.offloads.items()))
        return ", ".join(parts)


_OS_DESCRIPTIONS = {
    "os": "the sending host's operating system (os-release NAME; Windows: Win32_OperatingSystem Caption)",
    "os_version": "the sending host's OS version (os-release VERSION_ID; Windows: Version)",
    "receiver_os": "the receiving host's operating system",
    "receiver_os_version": "the receiving host's OS version",
}


def _merged_versions(per_machine: list[dict[str, str]]) -> dict[str, str]:
    """Each tool's version; where machines differ, their versions joined with ' / '."""
    out: dict[str, list[str]] = {}
    for versions in per_machine:
        for tool, version in versions.items():
            if version not in out.setdefault(tool, []):
                out[tool].append(version)
    return {tool: " / ".join(vs) for tool, vs in out.items()}


def _first_free(path: Path) -> Path:
    """``path``, or ``<stem>.2<suffix>``, ``.3``, … when it is taken: a resumed session's warm-up keeps the earlier ones'."""
    n = 1
    candidate = path
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.stem}.{n}{path.suffix}")
    return candidate


def _failure(res: StepResult) -> str:
    why = (f"killed after {res.ended - res.started:.0f} s (timeout)" if res.exit_status is None
           else f"exit status {res.exit_status}" if res.exit_status != 0 else res.tool_error())
    return f"{res.step.label}: {why}" + (f" on {res.host}" if res.host else "")


def _parser_hints(r: Run, levels: dict[str, Any]) -> dict[str, Any]:
    """A round-trip sender log (or its ITGDec summary) reads exactly like a
    one-way receiver log: the manifest tells ingest which one each file is."""
    if r.tool != "ditg":
        return {}
    meter = "rttm" if levels.get("log") == "sender" and levels.get("mode") == "rttm" else "owdm"
    return {"parser_hints": {"ditg": {"meter": meter}}}


def _log_of(r: Run) -> str | None:
    """Which D-ITG log the run's own file decodes (also when the run failed before decoding)."""
    if r.tool != "ditg":
        return None
    return "sender" if r.levels.get("mode") == "rttm" else "receiver"


def dry_run_lines(plan: Plan, limit: int | None = None) -> Iterator[str]:
    """The schedule as text: one line per run with its command(s), then the expected duration."""
    from analysis.collect.plan import expected_seconds
    from analysis.collect.testbed import LOOPBACK

    runs = schedule(plan)
    for r in runs[:limit]:
        spec = plan.testbeds[plan.testbed_of(r.levels)]
        version = int(r.levels.get("ip_version", 4))
        yield f"{r.order:5d}  {r.path}"
        if spec.kind == "uml":
            address = dict(zip((4, 6), UML_ADDRESSES["receiver"]))[version]
            steps = client_steps(r.levels, address, None, spec.ports, plan.duration_of(r), plan.options,
                                 PurePosixPath("<sender-scratch>"), f"run{r.order}", plan.timeout_s,
                                 recv_scratch=PurePosixPath("<receiver-scratch>"))
            for s in steps:
                yield f"         {s.where} guest (kernel {spec.kernels()[s.where]}): " + dialect("posix").command_line(s.argv)
            continue
        if spec.kind == "hosts":
            hosts = {"sender": plan.hosts[str(spec.sender)], "receiver": plan.hosts[str(spec.receiver)]}
            steps = client_steps(r.levels, str(hosts["receiver"].test_address(version)), None, spec.ports, plan.duration_of(r),
                                 plan.options, PurePosixPath("<sender-scratch>"), f"run{r.order}", plan.timeout_s,
                                 recv_scratch=PurePosixPath("<receiver-scratch>"))
            for s in steps:
                host = hosts[s.where]
                argv = [host.executable(s.argv[0]), *s.argv[1:]]
                yield f"         {getattr(spec, s.where)}: " + dialect(host.dialect).command_line(argv)
            continue
        ns = None if spec.kind == "loopback" else "<sender-ns>"
        target = LOOPBACK[version] if spec.kind == "loopback" else f"<receiver-ipv{version}>"
        steps = client_steps(r.levels, target, ns, spec.ports, plan.duration_of(r), plan.options, Path("<scratch>"), f"run{r.order}", plan.timeout_s)
        for s in steps:
            yield "         " + shlex.join(s.argv)
    if limit is not None and len(runs) > limit:
        yield f"  ... {len(runs) - limit} more runs"
    secs = expected_seconds(plan, runs)
    yield f"{len(runs)} runs on {len(plan.testbeds)} testbed(s); expected duration {secs / 60:.1f} min ({secs:.0f} s)"
