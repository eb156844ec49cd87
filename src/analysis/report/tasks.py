"""The report as a dependency graph, run by doit: one task per campaign and per
study, rebuilt only when its inputs change, independent tasks in parallel.

A campaign task depends on the four notebooks, the campaign's raw fingerprint
(manifest + every raw file's content), its hypothesis file and the code of
this package; a study task on its notebook, its published record and claims
file, the designs, the mirror map, its mirror campaign's fingerprint and that
of the campaign whose OS contrast its page sets beside its OS claims (uml-seeds).
doit keeps the last-seen signatures in ``<reports>/.doit.db`` (written
whole, :class:`WholeJsonDB`); a task whose inputs did not change is skipped.
A task is done only when its build stamp exists (:func:`.pipeline.build_stamp`,
a target): a build interrupted midway (Ctrl-C, a crash) removed it and wrote
none, so it runs again next time, even where doit kept an earlier success
with the same inputs. A failing task names its notebook and cell
and the others still finish (``--continue``); the index is written last from
whatever reports exist, so it always lists every campaign and study.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from doit.cmd_base import ModuleTaskLoader
from doit.dependency import JsonDB
from doit.doit_cmd import DoitMain
from doit.exceptions import TaskFailed
from doit.tools import config_changed

import analysis
from analysis import config
from analysis.errors import NetreproError, ReportError
from analysis.ingest.campaign import current_fingerprint, processed_dir_for
from analysis.report import pipeline
from analysis.report.kernels import KernelPool, blas_threads_per_kernel


class WholeJsonDB(JsonDB):
    """doit's JSON signatures, written to a new file that then replaces the
    old one: doit's own writes over the file in place, and a build stopped
    during that write left a truncated file that stopped every later build."""

    desc = "JSON, replaced whole"

    def dump(self) -> None:
        partial = f"{self.name}.{os.getpid()}.partial"
        try:
            with open(partial, "w") as stream:
                stream.write(self.codec.encode(self._db))
            os.replace(partial, self.name)
        finally:
            Path(partial).unlink(missing_ok=True)


def _run(build: Callable[[], object], failures: list[str]) -> TaskFailed | None:
    """A doit action: the build, or its error as doit's failure (named, no traceback),
    also kept in ``failures`` for the caller."""
    try:
        build()
    except (ReportError, NetreproError) as exc:
        failures.append(str(exc))
        return TaskFailed(str(exc))
    return None


Fingerprint = Callable[[Path], str]


def raw_fingerprints() -> Fingerprint:
    """A campaign folder's current fingerprint, worked out once per build: a
    study's mirror is also a campaign of the report (lan-p2p serves three)."""
    return functools.cache(lambda folder: current_fingerprint(folder, processed_dir_for(folder)))


def campaign_task(campaign: Path, out_root: Path, hypotheses_dir: Path, code: str, echo,
                  failures: list[str], fingerprint: Fingerprint, kernels: KernelPool) -> dict:
    hyp = hypotheses_dir / f"{campaign.name}.yaml"
    notebooks = [pipeline.NOTEBOOK_DIR / f"{n}.ipynb" for n in pipeline.NOTEBOOKS]
    return {
        "name": f"campaign:{campaign.name}",
        "actions": [(_run, [lambda: pipeline.build_campaign(campaign, out_root, hypotheses_dir, echo, kernels), failures])],
        "file_dep": [str(p) for p in notebooks + ([hyp] if hyp.is_file() else [])],
        "targets": [str(out_root / campaign.name / "report.html"), str(pipeline.build_stamp(out_root / campaign.name))],
        "uptodate": [config_changed({"raw": fingerprint(campaign), "code": code,
                                     "hypotheses": hyp.is_file()})],
        "doc": f"campaign {campaign.name}",
    }


def study_task(name: str, out_root: Path, code: str, echo, failures: list[str], fingerprint: Fingerprint,
               kernels: KernelPool) -> dict:
    """``name``: a study stem, or ``00_overview`` (which reads every study)."""
    from analysis.reproduce.mirrors import OS_CAMPAIGN, load_mirrors, mirror_available
    from analysis.reproduce.summaries import shared_inputs

    published, claims = config.published_dir(), config.claims_dir()
    overview = name == pipeline.OVERVIEW_NOTEBOOK.stem
    stems = "[0-9][0-9][0-9]_*" if overview else name
    deps = [pipeline.OVERVIEW_NOTEBOOK if overview else pipeline.STUDY_NOTEBOOK, claims / "mirrors.yaml",
            *shared_inputs()]  # designs, stated sizes, doubtful rows, the second reading
    deps += sorted(published.glob(f"{stems}.csv")) + sorted(claims.glob(f"{stems}.yaml"))
    deps += sorted((published / "reconciliation").glob(f"{stems}.csv")) + sorted((claims / "previous").glob(f"{stems}.csv"))
    mirror = load_mirrors().studies.get(name)
    raw = ""
    if mirror and mirror_available(mirror):
        raw = fingerprint((config.raw_dir() / mirror).resolve())
    os_raw = ""
    if not overview and mirror_available(OS_CAMPAIGN):
        os_raw = fingerprint((config.raw_dir() / OS_CAMPAIGN).resolve())
    return {
        "name": f"study:{name}",
        "actions": [(_run, [lambda: pipeline.build_paper(name, out_root, echo, kernels), failures])],
        "file_dep": [str(p) for p in dict.fromkeys(deps)],
        "targets": [str(out_root / "papers" / name / "report.html"), str(pipeline.build_stamp(out_root / "papers" / name))],
        "uptodate": [config_changed({"mirror": raw, "os_campaign": os_raw, "code": code})],
        "doc": f"study {name}",
    }


def _raw_bytes(campaign: Path) -> int:
    return sum(p.stat().st_size for p in campaign.rglob("*") if p.is_file())


def _claims_bytes(study: str) -> int:
    """A study's claims file size: its page's time grows with its claims (004's 2,431 take longest)."""
    path = config.claims_dir() / f"{study}.yaml"
    return path.stat().st_size if path.is_file() else 0


def longest_first(campaigns: list[Path], studies: list[str]) -> tuple[list[Path], list[str]]:
    """The order tasks start in: doit starts them as listed, so the long ones
    go first and the short ones fill the gaps at the end. Campaigns by raw data
    size, then the single studies by the size of their claims files (by name,
    study 004, the longest task of all, started last and ran alone for the
    build's last 40 s), then the studies' overview (``00_overview``): it waits
    for them and reads the summaries their pages stored (reproduce.summaries)
    instead of reproducing all five again."""
    campaigns = sorted(campaigns, key=lambda c: (-_raw_bytes(c), c.name))
    overview = pipeline.OVERVIEW_NOTEBOOK.stem
    studies = sorted(studies, key=lambda name: (name == overview, -_claims_bytes(name), name))
    return campaigns, studies


def report_tasks(campaigns: list[Path], out_root: Path, hypotheses_dir: Path, papers: bool,
                 echo, failures: list[str], kernels: KernelPool) -> Iterator[dict]:
    """Every task of the report, longest first; the index comes last and always runs."""
    code = analysis.source_fingerprint()  # a change to the library re-runs every notebook
    fingerprint = raw_fingerprints()
    names = []
    names_of_studies: list[str] = []
    if papers:
        from analysis.reproduce.claims import studies

        names_of_studies = [*studies(), pipeline.OVERVIEW_NOTEBOOK.stem]
    campaigns, names_of_studies = longest_first(campaigns, names_of_studies)
    for campaign in campaigns:
        task = campaign_task(campaign, out_root, hypotheses_dir, code, echo, failures, fingerprint, kernels)
        names.append(task["name"])
        yield task
    for name in names_of_studies:
        task = study_task(name, out_root, code, echo, failures, fingerprint, kernels)
        if name == pipeline.OVERVIEW_NOTEBOOK.stem:
            task["task_dep"] = [f"report:study:{s}" for s in names_of_studies if s != name]
        names.append(task["name"])
        yield task
    yield {"name": "index", "actions": [(_run, [lambda: pipeline.write_index_from(out_root), failures])],
           "task_dep": [f"report:{n}" for n in names], "uptodate": [False], "doc": "reports/index.html"}


def run_report(campaigns: list[Path], out_root: Path, hypotheses_dir: Path | None = None,
               papers: bool = True, jobs: int = 2, force: bool = False, echo=print) -> list[str]:
    """Build what changed, ``jobs`` tasks at a time; returns the failures (empty: all built)."""
    out_root = out_root.resolve()
    out_root.mkdir(parents=True, exist_ok=True)
    hypotheses_dir = (hypotheses_dir or config.hypotheses_dir()).resolve()
    campaigns = [c.resolve() for c in campaigns]

    failures: list[str] = []
    # one kernel per worker thread, for all its tasks, sharing the cores for linear algebra
    kernels = KernelPool(blas_threads_per_kernel(jobs))

    def task_report():
        yield from report_tasks(campaigns, out_root, hypotheses_dir, papers, echo, failures, kernels)

    loader = ModuleTaskLoader({"task_report": task_report,
                               "DOIT_CONFIG": {"dep_file": str(out_root / ".doit.db"), "backend": "whole-json",
                                               "verbosity": 2}})
    args = ["run", "--continue", "-n", str(max(1, jobs)), "-P", "thread"]
    if force:
        args.append("--always-execute")
    try:
        code = DoitMain(loader, extra_config={"BACKEND": {"whole-json": f"{__name__}:WholeJsonDB"}}).run(args)
    finally:
        kernels.close()
    if code and not failures:
        failures.append(f"doit exited with {code} (see the messages above)")
    return failures


def build_report(campaigns: list[Path], out_root: Path, hypotheses_dir: Path | None = None,
                 papers: bool = True, echo=print, jobs: int = 1, force: bool = False) -> Path:
    """Rebuild what changed (campaigns, then the studies' reproductions) and the index;
    raises ReportError naming every failed notebook after the others have finished."""
    failures = run_report(campaigns, out_root, hypotheses_dir, papers=papers, jobs=jobs, force=force, echo=echo)
    if failures:
        raise ReportError("; ".join(failures))
    return out_root.resolve() / "index.html"
