"""``netrepro manifest init DIR``: print (or, with --write, save) the manifest
:mod:`.manifest_init` proposes, with what it does to every file, before
anything is ingested. It never writes over a manifest."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from analysis.errors import ManifestError

if TYPE_CHECKING:
    from analysis.ingest.manifest_init import Proposal


def init_command(
    directory: Annotated[Path, typer.Argument(help="folder of raw tool outputs")],
    write: Annotated[bool, typer.Option("--write", help="save the proposal as DIRECTORY/manifest.yaml (never over an existing one)")] = False,
    show: Annotated[int, typer.Option("--show", metavar="N", help="how many of the first mappings to show")] = 10,
) -> None:
    """Propose a manifest from the file names under DIRECTORY and try it on
    every file: the first mappings, the ignored files and every file it does
    not map go to stderr; the manifest to stdout, or to DIRECTORY/manifest.yaml
    with --write. Exit status: 0 when every file is mapped or ignored, 1 when
    some are not (each is named), 2 when DIRECTORY cannot be used."""
    # imported here: the command line lists this command without loading pandas
    from analysis.ingest.ingest import discover
    from analysis.ingest.manifest import MANIFEST_NAME
    from analysis.ingest.manifest_init import propose

    target = directory / MANIFEST_NAME
    if not directory.is_dir():
        raise ManifestError(f"{directory}: not a folder")
    if write and target.exists():
        raise ManifestError(f"{target}: exists; manifest init never writes over a manifest: run it without --write "
                            "to print the proposal and merge what you need by hand")
    files = discover(directory)
    if not files:
        raise ManifestError(f"{directory}: no files to describe")
    proposal = propose(directory, files)
    for line in account_lines(directory, proposal, show):
        print(line, file=sys.stderr)
    if write:
        target.write_text(proposal.yaml_text(), encoding="utf-8")
        print(f"wrote {target}")
    else:
        print(proposal.yaml_text(), end="")
    if proposal.unmatched:
        raise typer.Exit(1)


def account_lines(directory: Path, proposal: Proposal, show: int) -> list[str]:
    """What the proposal does to the files, for a person to check."""
    measured = len(proposal.mapped) + len(proposal.unmatched)
    lines = [f"{directory}: mapped: {len(proposal.mapped)} of {measured} files"
             + (f" ({len(proposal.ignored)} more ignored)" if proposal.ignored else "")
             + (f"; unmatched: {len(proposal.unmatched)}" if proposal.unmatched else "; unmatched: none")]
    if proposal.mapped:
        lines.append("first mappings:")
        lines += [f"  {rel} -> {_levels(levels)}" for rel, levels in proposal.mapped[:show]]
    for rule, n in sorted(Counter(rule for _, rule in proposal.ignored).items()):
        example = next(rel for rel, r in proposal.ignored if r == rule)
        lines.append(f"ignored {n} file{'s' if n > 1 else ''} by rule {rule!r}, e.g. {example}")
    lines += [f"unmatched {rel}: {reason}" for rel, reason in proposal.unmatched]
    return lines


def _levels(levels: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in levels.items())


__all__ = ["init_command", "account_lines"]
