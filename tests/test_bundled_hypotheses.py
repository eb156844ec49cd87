"""Every bundled campaign has a hypothesis file that validates against its
real data, so every campaign's report carries a verdict table; a few verdicts
are pinned because the committed raw data decide them."""

from pathlib import Path

import pytest

from analysis.ingest.campaign import load_campaign
from analysis.verdicts import evaluate_hypotheses, load_hypotheses
from analysis.ingest.per_run import one_row_per_run

pytestmark = pytest.mark.slow  # ingests every bundled campaign (the first load of each takes seconds)

ROOT = Path(__file__).resolve().parents[1]
CAMPAIGNS = sorted(p.parent.name for p in (ROOT / "data/raw").glob("*/manifest.yaml"))


@pytest.mark.parametrize("campaign", CAMPAIGNS)
def test_every_campaign_has_hypotheses_that_fit_its_data(campaign):
    path = ROOT / "data/hypotheses" / f"{campaign}.yaml"
    assert path.is_file(), f"{campaign} has no hypothesis file: its report would have no verdict table"
    runs = one_row_per_run(load_campaign(ROOT / "data/raw" / campaign).runs)
    verdicts = evaluate_hypotheses(runs, path)  # raises on an unknown metric, factor or level
    assert len(verdicts) == len(load_hypotheses(path)) >= 4
    assert not (verdicts["verdict"] == "untestable").any(), verdicts[["id", "reason"]].to_string()


@pytest.mark.parametrize("campaign, hid, verdict", [
    ("jumbo-routed", "J4", "contradicted"),  # no collapse at 4329: throughput is higher there than at 3392
    ("lan-p2p", "L3", "supported"),          # the stack profile moves TCP throughput
    ("sizes-10", "S5", "supported"),         # loopback and the rate-limited link part ways as size grows
])
def test_verdicts_the_committed_data_decide(campaign, hid, verdict):
    runs = one_row_per_run(load_campaign(ROOT / "data/raw" / campaign).runs)
    table = evaluate_hypotheses(runs, ROOT / "data/hypotheses" / f"{campaign}.yaml").set_index("id")
    assert table.loc[hid, "verdict"] == verdict, table.loc[hid, "reason"]
