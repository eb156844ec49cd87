"""The ``netrepro`` command line: parse, ingest, report."""

from __future__ import annotations

import csv
import json
import math
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from .collect.command import collect_command
from .errors import ManifestError, ParseError
from .ingest import ingest_campaign, summary_lines, write_outputs
from .campaign import processed_dir_for

app = typer.Typer(add_completion=False, no_args_is_help=True, help="netrepro: network benchmark outputs -> tidy tables, tests, verdicts, reports.")

DEFAULT_RAW = Path("data/raw")
app.command("collect")(collect_command)


def _jsonable(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@app.command()
def parse(
    files: Annotated[list[Path], typer.Argument(help="raw tool outputs (the tool is detected from the content)")],
    format: Annotated[str, typer.Option("--format", help="jsonl or csv")] = "jsonl",
    intervals: Annotated[bool, typer.Option("--intervals", help="print interval rows instead of run records")] = False,
    packets: Annotated[bool, typer.Option("--packets", help="print per-packet rows (D-ITG logs)")] = False,
    hint: Annotated[Optional[list[str]], typer.Option("--hint", help="what the output cannot say: TOOL.KEY=VALUE, e.g. ditg.meter=rttm")] = None,
) -> None:
    """Print one canonical record per line for each FILE; FILE:LINE: reason on stderr for what cannot be parsed."""
    from .parsers import parse_file

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
    for path in files:
        try:
            result = parse_file(path, hints=hints)
        except ParseError as exc:
            print(str(exc), file=sys.stderr)
            failed = True
            continue
        except OSError as exc:
            print(f"{path}:-: cannot read: {exc.strerror}", file=sys.stderr)
            failed = True
            continue
        if packets:
            rows = [] if result.packets is None else result.packets.assign(source_path=str(path)).to_dict("records")
        elif intervals:
            rows = [iv.to_dict() | {"source_path": str(path)} for iv in result.intervals]
        else:
            rows = [r.to_dict() | {"source_path": str(path)} for r in result.records]
        for row in rows:
            row = {k: _jsonable(v) for k, v in row.items()}
            if format == "jsonl":
                print(json.dumps(row, default=str))
            else:
                if writer is None:
                    writer = csv.DictWriter(sys.stdout, fieldnames=list(row), extrasaction="ignore")
                    writer.writeheader()
                writer.writerow({k: ("; ".join(v) if isinstance(v, list) else v) for k, v in row.items()})
    raise typer.Exit(1 if failed else 0)


@app.command()
def ingest(
    campaign: Annotated[Path, typer.Argument(help="campaign folder with manifest.yaml")],
    out: Annotated[Optional[Path], typer.Option("--out", help="where to write (default data/processed/<campaign>)")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="exit non-zero if any file is rejected or contradicts the manifest")] = False,
) -> None:
    """Ingest a campaign into runs.parquet, intervals.parquet, rejected.csv and ingest.json."""
    try:
        result = ingest_campaign(campaign, strict=strict)
    except ManifestError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise typer.Exit(2)
    target = write_outputs(result, out or processed_dir_for(campaign))
    for line in summary_lines(result):
        print(line)
    print(f"  written to {target}")
    if strict and result.counts["rejected"]:
        raise typer.Exit(1)


@app.command()
def report(
    campaigns: Annotated[Optional[list[Path]], typer.Argument(help="campaign folders (default: every data/raw/*/manifest.yaml)")] = None,
    out: Annotated[Path, typer.Option("--out", help="where the report goes")] = Path("reports"),
    papers: Annotated[bool, typer.Option("--papers/--no-papers", help="also rebuild the five studies' reproductions")] = True,
) -> None:
    """Rebuild the report headless: run the notebooks with papermill for each campaign, write HTML and an index."""
    from .pipeline import ReportError, build_report

    folders = campaigns or sorted(p.parent for p in DEFAULT_RAW.glob("*/manifest.yaml"))
    if not folders:
        print("no campaigns found under data/raw/", file=sys.stderr)
        raise typer.Exit(1)
    try:
        index = build_report(folders, out, papers=papers)
    except (ReportError, ManifestError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise typer.Exit(1)
    print(f"report: {index}")


@app.command()
def verdicts(
    campaign: Annotated[Path, typer.Argument(help="campaign folder with manifest.yaml")],
    hypotheses: Annotated[Path, typer.Argument(help="hypothesis file (YAML, see docs/statistics.md)")],
    cells: Annotated[bool, typer.Option("--cells", help="also print the evidence of every cell")] = False,
    csv_out: Annotated[Optional[Path], typer.Option("--csv", help="write the verdict table to this CSV file")] = None,
) -> None:
    """Test every claim of HYPOTHESES on CAMPAIGN and print the verdict table."""
    from rich.console import Console
    from rich.table import Table

    from .campaign import load_campaign
    from .hypotheses import HypothesisError, evaluate_cells, evaluate_hypotheses
    from .per_run import one_row_per_run

    try:
        loaded = load_campaign(campaign)
        runs = one_row_per_run(loaded.runs)
        table = evaluate_hypotheses(runs, hypotheses)
    except (ManifestError, HypothesisError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise typer.Exit(2)
    console = Console(width=160)
    title = f"{loaded.name}: {hypotheses.name}" + (" [SYNTHETIC DATA]" if loaded.synthetic else "")
    shown = Table(title=title, show_lines=True)
    for column in ("id", "verdict", "test", "summary", "reason"):
        shown.add_column(column, overflow="fold")
    for row in table.itertuples():
        shown.add_row(str(row.id), str(row.verdict), str(row.test), str(row.summary), str(row.reason))
    console.print(shown)
    if cells:
        console.print(evaluate_cells(runs, hypotheses)[["id", "cell", "verdict", "summary", "reason"]].to_string(index=False))
    if csv_out:
        table.to_csv(csv_out, index=False)


if __name__ == "__main__":
    app()
