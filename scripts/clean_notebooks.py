#!/usr/bin/env python3
"""Write the campaign notebooks the way JupyterLab saves them, so that a user
who only opens one leaves git clean.

An execution by nbconvert or papermill records what JupyterLab does not:
per-cell timestamps (``metadata.execution``), papermill's cell and notebook
metadata, the kernel's display name from the kernelspec it was started
with, and widget views whose model ids live only in that run's kernel (they
go as the project's JupyterLab drops them on save: analysis.report.lab_save). JupyterLab rewrites the kernelspec when it starts the kernel, and saves
(autosave) what it shows: a committed notebook that differs from that shows up
as a change in git although nobody edited it.

    python scripts/clean_notebooks.py notebooks/0*.ipynb          # rewrite in place
    python scripts/clean_notebooks.py --check notebooks/0*.ipynb  # exit 1 and name what is not clean

`make notebooks` runs it after re-executing the four campaign notebooks and
the studies' two (notebooks/papers/).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

from analysis.report.lab_save import without_live_state

CELL_KEYS = ("execution", "papermill", "ExecuteTime", "collapsed", "scrolled")  # recorded runs, view state
NOTEBOOK_KEYS = ("papermill",)
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def kernelspec() -> dict[str, str]:
    """The python3 kernel as JupyterLab names it (its kernelspec's display name)."""
    try:
        from jupyter_client.kernelspec import KernelSpecManager

        spec = KernelSpecManager().get_kernel_spec("python3")
        return {"display_name": spec.display_name, "language": spec.language, "name": "python3"}
    except Exception:  # noqa: BLE001 - no kernelspec installed: the name ipykernel gives it
        return dict(KERNELSPEC)


def clean(nb: nbformat.NotebookNode, spec: dict[str, str]) -> list[str]:
    """Strip what a run records and JupyterLab does not keep; returns what was changed."""
    changed = without_live_state(nb)
    for key in NOTEBOOK_KEYS:
        if nb.metadata.pop(key, None) is not None:
            changed.append(f"metadata.{key}")
    if nb.metadata.get("kernelspec") != spec:
        nb.metadata["kernelspec"] = dict(spec)
        changed.append("metadata.kernelspec")
    for i, cell in enumerate(nb.cells):
        for key in CELL_KEYS:
            if cell.metadata.pop(key, None) is not None:
                changed.append(f"cell {i}: metadata.{key}")
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a notebook is not clean")
    args = parser.parse_args(argv)
    spec = kernelspec()
    dirty = 0
    for path in args.notebooks:
        nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
        before = path.read_text(encoding="utf-8")
        changed = clean(nb, spec)
        after = nbformat.writes(nb) + "\n"  # as the Jupyter server saves: nbformat, one trailing newline
        if after == before:
            continue
        dirty += 1
        what = ", ".join(changed[:6]) + (f" and {len(changed) - 6} more" if len(changed) > 6 else "") or "layout"
        if args.check:
            print(f"{path}: not as JupyterLab saves it ({what})", file=sys.stderr)
        else:
            path.write_text(after, encoding="utf-8")
            print(f"{path}: cleaned ({what})")
    return 1 if args.check and dirty else 0


if __name__ == "__main__":
    sys.exit(main())
