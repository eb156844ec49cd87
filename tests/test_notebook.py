"""setup(): the start the campaign notebooks share."""

from pathlib import Path

import pandas as pd

from analysis.ingest.campaign import load_campaign
from analysis.ingest.per_run import one_row_per_run
from analysis.report import notebook, overview

DEMO = Path(__file__).resolve().parents[1] / "data/raw/demo-loopback"


def test_setup_gives_what_the_notebooks_use_and_shows_the_banner(monkeypatch):
    shown = []
    monkeypatch.setattr(notebook, "display", shown.append)
    with pd.option_context("display.max_rows", 10, "display.precision", 6):  # restored afterwards
        data, runs, factors = notebook.setup(DEMO)
        assert pd.get_option("display.max_rows") == 400 and pd.get_option("display.precision") == 4
    expected = load_campaign(DEMO)
    pd.testing.assert_frame_equal(runs, one_row_per_run(expected.runs))
    assert data.name == "demo-loopback" and factors == overview.design_factors(expected, runs)
    assert "run" not in factors and "tool" in factors
    [banner] = shown
    assert banner.data == overview.banner(data)
