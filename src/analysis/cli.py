"""The ``netrepro`` command line: parse, manifest init, ingest, verdicts, report, collect.

Exit codes, the same for every command: 0 done; 1 done, but some input was
rejected or failed (each one named on stderr); 2 the input cannot be used
(``error: FILE[:LINE]: reason`` on stderr, from one handler); 130 interrupted.
"""

from __future__ import annotations

import csv
import functools
import json
import math
import os
import sys
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from analysis import config
from analysis.collect.command import collect_command
from analysis.errors import NetreproError, ParseError
from analysis.ingest.manifest_command import init_command

# Only what lists the commands is imported here; each command imports what it
# needs when it runs: pandas, pandera and the collector take over a second to
# import, and `netrepro --help` or one `parse` need none of them.
if TYPE_CHECKING:
    from distributed import Client

    from analysis.parsers.ditg_log import Packets

app = typer.Typer(add_completion=False, no_args_is_help=True, help="netrepro: network benchmark outputs -> tidy tables, tests, verdicts, reports.")
EXIT_SOME_FAILED, EXIT_UNUSABLE_INPUT, EXIT_INTERRUPTED = 1, 2, 130


def reports_errors(command):
    """Every command's one error path: a NetreproError is one line on stderr and exit 2."""
    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except NetreproError as exc:
            print(f"error: {exc}", file=sys.stderr)
            raise typer.Exit(EXIT_UNUSABLE_INPUT) from None
    return wrapper


app.command("collect")(reports_errors(collect_command))

manifest_app = typer.Typer(no_args_is_help=True, help="Describe a campaign folder: propose its manifest.yaml from the file names.")
manifest_app.command("init")(reports_errors(init_command))
app.add_typer(manifest_app, name="manifest")


def _jsonable(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, datetime):
        return value.isoformat()  # ISO 8601 with its offset, +00:00
    return value


@app.command()
@reports_errors
def parse(
    files: Annotated[list[Path], typer.Argument(help="raw tool outputs (the tool is detected from the content)")],
    format: Annotated[str, typer.Option("--format", help="jsonl or csv")] = "jsonl",
    intervals: Annotated[bool, typer.Option("--intervals", help="print interval rows instead of run records")] = False,
    packets: Annotated[bool, typer.Option("--packets", help="print per-packet rows (D-ITG logs)")] = False,
    hint: Annotated[Optional[list[str]], typer.Option("--hint", help="what the output cannot say: TOOL.KEY=VALUE, e.g. ditg.meter=rttm")] = None,
) -> None:
    """Print one canonical record per line for each FILE; FILE:LINE: reason on stderr for what cannot be parsed."""
    from analysis.parsers import parse_file
    from analysis.parsers.ditg_log import packets_frame

    if format not in ("jsonl", "csv"):
        raise typer.BadParameter("use jsonl or csv", param_hint="--format")
    hints: dict[str, dict[str, str]] = {}
    for item in hint or []:
        key, sep, value = item.partition("=")
        tool, dot, name = key.partition(".")
        if not (sep and dot and tool and name):
            raise typer.BadParameter(f"{item!r}: write TOOL.KEY=VALUE", param_hint="--hint")
        hints.setdefault(tool, {})[name] = value
    failed = False
    writer = None

    def emit(rows: list[dict]) -> None:
        nonlocal writer
        for row in rows:
            row = {k: _jsonable(v) for k, v in row.items()}
            if format == "jsonl":
                print(json.dumps(row, default=str))
            else:
                if writer is None:
                    writer = csv.DictWriter(sys.stdout, fieldnames=list(row), extrasaction="ignore")
                    writer.writeheader()
                writer.writerow({k: ("; ".join(v) if isinstance(v, list) else v) for k, v in row.items()})

    for path in files:
        printed = 0

        def emit_packets(part: Packets, path: Path = path) -> None:  # a packet log's rows as it is read
            nonlocal printed
            printed += len(part.seq)
            emit(packets_frame(part).assign(source_path=str(path)).to_dict("records"))

        try:
            result = parse_file(path, hints=hints, on_packets=emit_packets if packets else None)
        except ParseError as exc:
            print(str(exc), file=sys.stderr)
            failed = True
            continue
        except OSError as exc:
            print(f"{path}:-: cannot read: {exc.strerror}", file=sys.stderr)
            failed = True
            continue
        for warning in result.warnings:
            print(f"{path}: warning: {warning}", file=sys.stderr)
        if packets:
            if result.packets is not None:  # a packet log read whole (one ending in NUL padding)
                emit_packets(result.packets)
            if not printed and not result.variant.startswith(("binary-", "packets-")):
                print(f"{path}: no per-packet rows: this {result.tool} output ({result.variant}) has none (only D-ITG "
                      "packet logs do: binary ITGRecv/ITGSend -l logs and ITGDec -l text)", file=sys.stderr)
                failed = True
        elif intervals:
            emit([iv.to_dict() | {"source_path": str(path)} for iv in result.intervals])
        else:
            emit([r.to_dict() | {"source_path": str(path)} for r in result.records])
    raise typer.Exit(1 if failed else 0)


@app.command()
@reports_errors
def ingest(
    campaign: Annotated[Path, typer.Argument(help="campaign folder with manifest.yaml")],
    out: Annotated[Optional[Path], typer.Option("--out", help="where to write (default data/processed/<campaign>)")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="exit non-zero if any file is rejected or contradicts the manifest")] = False,
    scheduler: Annotated[Optional[str], typer.Option("--scheduler", metavar="ADDRESS", help=(
        "parse on the workers of this running Dask scheduler, e.g. tcp://host:8786; "
        "they must see CAMPAIGN and OUT at the same paths (a shared filesystem)"))] = None,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", metavar="N", help=(
        "parse on N local worker processes (a Dask LocalCluster, closed afterwards)"))] = None,
) -> None:
    """Ingest a campaign into runs.parquet, intervals.parquet, rejected.csv and
    ingest.json, and the packets of its D-ITG packet logs into packets/*.parquet.

    With --scheduler or -j the files are read and parsed, and their packets
    written, on Dask workers; the tables are the same as without.

    The tables are replaced whole or not at all (a failure, a full disk or
    Ctrl-C leaves the previous ones); OUT is refused when another ingest is
    writing it or it holds anything but this campaign's tables.

    Exit status: 0 when at least one file parsed, even if others were rejected
    (each rejected file is named with its line and reason, and listed in
    rejected.csv); 1 when every file was rejected (there is nothing to
    analyse), or with --strict when any file was rejected or contradicts the
    manifest; 2 when the campaign cannot be read (manifest, folder).
    """
    from analysis.ingest.campaign import processed_dir_for
    from analysis.ingest.ingest import ingest_into, summary_lines

    target = out or processed_dir_for(campaign)
    if scheduler is not None and jobs is not None:
        raise typer.BadParameter("give one of --scheduler and -j", param_hint="--scheduler / -j")
    cluster: AbstractContextManager[Client | None] = nullcontext()
    if scheduler is not None or jobs is not None:
        from analysis.ingest.distributed import dask_client

        cluster = dask_client(scheduler, jobs)
    try:
        with cluster as client:
            result = ingest_into(campaign, target, strict=strict, client=client)
    except KeyboardInterrupt:
        print(f"interrupted: {target} is as it was before this ingest", file=sys.stderr)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    for line in summary_lines(result):
        print(line)
    print(f"  written to {target}")
    rejected, parsed = result.counts["rejected"], result.counts["parsed"]
    if rejected and not parsed:
        print(f"error: {campaign}: every file was rejected ({rejected}); nothing to analyse", file=sys.stderr)
        raise typer.Exit(EXIT_SOME_FAILED)
    if strict and rejected:
        raise typer.Exit(EXIT_SOME_FAILED)


def _campaign_folder(given: Path) -> Path:
    """A campaign folder as given, or by its name under data/raw."""
    for folder in (given, config.raw_dir() / given):
        if (folder / "manifest.yaml").is_file():
            return folder
    raise NetreproError(f"{given}: not a campaign folder (no manifest.yaml there nor in {config.raw_dir() / given})")


@app.command()
@reports_errors
def report(
    campaigns: Annotated[Optional[list[Path]], typer.Argument(help="campaign folders or names under data/raw (default: every data/raw/*/manifest.yaml)")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="where the report goes (default: the project's reports/)")] = None,
    papers: Annotated[bool, typer.Option("--papers/--no-papers", help="also rebuild the five studies' reproductions")] = True,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="notebook tasks run at once (default: one per core)")] = os.cpu_count() or 1,
    force: Annotated[bool, typer.Option("--force", help="re-run every notebook, changed or not")] = False,
) -> None:
    """Rebuild the report headless: only what changed since the last build (a campaign's raw files,
    its hypothesis file, a notebook, a study's record or claims, the library), in parallel; HTML and an index."""
    from analysis.report.tasks import build_report

    folders = [_campaign_folder(c) for c in campaigns] if campaigns else \
        sorted(p.parent for p in config.raw_dir().glob("*/manifest.yaml"))
    if not folders:
        raise NetreproError(f"{config.raw_dir()}: no campaign folders (a folder with manifest.yaml)")
    try:
        index = build_report(folders, out or config.reports_dir(), papers=papers, jobs=jobs, force=force)
    except KeyboardInterrupt:
        print("interrupted: what did not finish is not marked done and runs again on the next build", file=sys.stderr)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    print(f"report: {index}")


@app.command()
@reports_errors
def verdicts(
    campaign: Annotated[Path, typer.Argument(help="campaign folder with manifest.yaml")],
    hypotheses: Annotated[Path, typer.Argument(help="hypothesis file (YAML, see docs/statistics.md)")],
    cells: Annotated[bool, typer.Option("--cells", help="also print the evidence of every cell")] = False,
    csv_out: Annotated[Optional[Path], typer.Option("--csv", help="write the verdict table to this CSV file")] = None,
) -> None:
    """Test every claim of HYPOTHESES on CAMPAIGN and print the verdict table.

    Each row says whether the file was registered before the campaign's first
    run (``netrepro collect --hypotheses``) or is post hoc; the line under the
    table says why (docs/statistics.md, "Pre-registration")."""
    from rich.console import Console
    from rich.table import Table

    from analysis.ingest.campaign import load_campaign
    from analysis.ingest.per_run import one_row_per_run
    from analysis.verdicts import evaluate
    from analysis.verdicts.registration import registration_of

    registration = registration_of(campaign, hypotheses)  # a damaged record is named before any ingest
    loaded = load_campaign(campaign)
    runs = one_row_per_run(loaded.runs)
    table, cell_table = evaluate(runs, hypotheses, registration=registration)
    console = Console(width=160)
    title = f"{loaded.name}: {hypotheses.name}" + (" [SYNTHETIC DATA]" if loaded.synthetic else "")
    shown = Table(title=title, show_lines=True)
    columns = ("id", "verdict", "registration", "test", "summary", "reason")
    for column in columns:
        shown.add_column(column, overflow="fold")
    for row in table[list(columns)].itertuples(index=False):
        shown.add_row(*(str(value) for value in row))
    console.print(shown)
    console.print(f"{hypotheses}: {registration.note}", markup=False, highlight=False, soft_wrap=True)
    if cells:
        console.print(cell_table[["id", "cell", "verdict", "summary", "reason"]].to_string(index=False))
    if csv_out:
        table.to_csv(csv_out, index=False)


if __name__ == "__main__":
    app()
