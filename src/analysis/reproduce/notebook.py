"""What a study notebook runs first: display options, the whole reproduction
computed once, its tables written, and the study's title and counts shown."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from analysis.reproduce.study import Reproduction, reproduce_study


def start(study: str, out: str | Path) -> Reproduction:
    """Reproduce ``study``, write its tables under ``out`` and show its heading."""
    from IPython.display import Markdown, display

    pd.set_option("display.max_rows", 1000, "display.max_columns", 40, "display.width", 240,
                  "display.max_colwidth", None, "display.precision", 4)
    r = reproduce_study(study)
    r.write(out)
    counts = r.counts()
    display(Markdown(f"## {r.title}\n\n{counts['numbers']} printed numbers, {counts['claims']} claims "
                     f"({counts['tested']} tested, {counts['descriptive']} judged by sign, "
                     f"{counts['untestable']} untestable), {counts['inconsistencies']} audit findings "
                     f"({counts['audit_major']} major), {counts['verdicts_changed']} earlier verdicts changed."))
    return r


def show_tables(r: Reproduction) -> None:
    """Every table the study prints, rebuilt cell by cell from the record."""
    from IPython.display import Markdown, display

    if not r.tables:
        display(Markdown("The study prints no tables of its results."))
    for locator, table in r.tables.items():
        display(Markdown(f"**{locator}**"))
        display(table)
