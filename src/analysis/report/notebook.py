"""The start every campaign notebook shares (01_ingest … 04_figures)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import pandas as pd
from IPython.display import Markdown, display

from analysis.ingest.campaign import Campaign, load_campaign
from analysis.ingest.per_run import one_row_per_run
from analysis.report import overview

if TYPE_CHECKING:
    from analysis.verdicts.engine import Verdicts

# How the report's tables print: long cell tables whole, four significant decimals.
DISPLAY_OPTIONS = {"display.max_rows": 400, "display.max_columns": 30, "display.width": 200, "display.precision": 4}


class NotebookStart(NamedTuple):
    """What a campaign notebook works on."""

    data: Campaign  # the campaign as loaded: runs, intervals, manifest, ingest account
    runs: pd.DataFrame  # one row per run (each metric from the side that measured it)
    factors: list[str]  # the design factors present in the runs (not the replicate counter)


def setup(campaign: str | Path, hypotheses: str | Path | None = None) -> NotebookStart:
    """Start a campaign notebook on the campaign folder ``campaign``.

    Sets pandas' display options for the report's tables, loads the campaign
    (re-ingesting only when its raw files or manifest changed, see
    :func:`~analysis.ingest.campaign.load_campaign`), reduces it to one row per
    run, finds the design factors, and shows the campaign's banner — title,
    SYNTHETIC or real, testbed, the question (from the hypothesis file, when
    given) and the design in one sentence — as the notebook's heading. The
    report page shows the banner of its first notebook only.

    Returns ``(data, runs, factors)``; in a notebook, after the parameters cell::

        from analysis.report.notebook import setup
        data, runs, factors = setup(campaign, hypotheses)
    """
    for option, value in DISPLAY_OPTIONS.items():
        pd.set_option(option, value)
    data = load_campaign(campaign)
    runs = one_row_per_run(data.runs)
    factors = overview.design_factors(data, runs)
    display(Markdown(overview.banner(data, runs, hypotheses)))
    return NotebookStart(data, runs, factors)


def campaign_verdicts(campaign: str | Path, runs: pd.DataFrame, hypotheses: str | Path) -> Verdicts:
    """Every claim of ``hypotheses`` on the campaign's runs, each row marked
    registered or post hoc by the campaign's collect record, as ``netrepro
    verdicts`` marks them: a directional claim gets its one-sided test only
    when the file was registered before the first run, in the report as on
    the command line (docs/statistics.md, "Pre-registration")::

        verdicts, cells = campaign_verdicts(campaign, runs, hypotheses)
    """
    from analysis.verdicts import evaluate
    from analysis.verdicts.registration import registration_of

    return evaluate(runs, hypotheses, registration=registration_of(Path(campaign), Path(hypotheses)))


def campaign_looks(campaign: str | Path, runs: pd.DataFrame, hypotheses: str | Path, out_dir: str | Path, *,
                   name: str, synthetic: bool) -> list[tuple[str, Path]]:
    """(caption, png) of every claim collected until decided, look by look against
    its boundaries, one- or two-sided as the verdict table tests it (the
    campaign's registration); none for a campaign without ``stop:`` claims::

        show.figures(campaign_looks(campaign, runs, hypotheses, Path(out) / 'figures', ...))
    """
    from analysis.figures.look_figures import draw_looks
    from analysis.verdicts.registration import registration_of

    drawn = draw_looks(runs, hypotheses, out_dir, campaign=name, synthetic=synthetic,
                       registration=registration_of(Path(campaign), Path(hypotheses)))
    return [(d.caption, d.png) for d in drawn]
