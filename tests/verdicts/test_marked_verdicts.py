"""`netrepro verdicts` marks every row registered or post hoc, and says why:
the call sites of ``evaluate(..., registration=registration_of(campaign, hypotheses))``."""

from __future__ import annotations

import hashlib
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

from analysis.cli import app
from analysis.verdicts.registration import register

ROOT = Path(__file__).resolve().parents[2]


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_netrepro_verdicts_marks_each_row_and_says_why(tmp_path):
    """The demo campaign's runs started 2026-11-22 (its manifest says when):
    its hypothesis file registered the day before is registered; the same
    file with one claim's wording changed is post hoc."""
    camp = tmp_path / "demo-loopback"
    shutil.copytree(ROOT / "data/raw/demo-loopback", camp)
    hyp = tmp_path / "demo.yaml"
    shutil.copyfile(ROOT / "data/hypotheses/demo-loopback.yaml", hyp)
    register(camp, hyp, now=datetime(2026, 11, 21, 12, 0, tzinfo=timezone.utc))
    runner = CliRunner()
    result = runner.invoke(app, ["verdicts", str(camp), str(hyp), "--csv", str(tmp_path / "v.csv")])
    assert result.exit_code == 0, result.output
    assert f"{hyp}: registered 2026-11-21T12:00:00Z (sha256 {sha(hyp)[:8]}…) before the first run" in result.stdout
    table = pd.read_csv(tmp_path / "v.csv").set_index("id")
    assert set(table["registration"]) == {"registered"}
    assert "one-sided" in table.loc["D1", "test"]  # D1 claims "greater": registered, so tested one-sided
    hyp.write_text(hyp.read_text().replace("for all message sizes", "at every message size"))
    result = runner.invoke(app, ["verdicts", str(camp), str(hyp), "--csv", str(tmp_path / "v.csv")])
    assert result.exit_code == 0, result.output
    assert "post hoc: the file changed since it was registered" in result.stdout
    table = pd.read_csv(tmp_path / "v.csv").set_index("id")
    assert set(table["registration"]) == {"post hoc"}
    assert "one-sided" not in table.loc["D1", "test"]  # post hoc: two-sided, exploratory
