"""Claims with ``stop:`` (collect until decided) through the engine, on SYNTHETIC
runs built here with a known truth (seeded): the look a cell stops at, the
stage-wise p and repeated CI it reports, an open cell that has no verdict yet,
futility, the refusals, and the label of a fixed analysis of such runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.stats.sequential import boundaries, stagewise_p
from analysis.verdicts import HypothesisError, evaluate, parse_hypotheses
from analysis.verdicts.registration import Registration, register, registration_of

STOP = {"min_runs": 4, "max_runs": 20, "look_every": 4, "spending": "obf"}
REGISTERED = Registration(True, "registered (test)")


def runs(shift: float, n: int = 20, seed: int = 5, sd: float = 2.0) -> pd.DataFrame:
    """SYNTHETIC: runs 1..n of IPv4 (mean 100 + shift) and IPv6 (mean 100)."""
    rng = np.random.default_rng(seed)
    rows = [{"ip_version": ip, "run": r, "status": "ok", "tput": (100 + shift if ip == 4 else 100) + rng.normal(0, sd)}
            for r in range(1, n + 1) for ip in (4, 6)]
    return pd.DataFrame(rows)


def claim(**kw) -> dict:
    return {"id": "v4_faster", "statement": "IPv4 is faster", "metric": "tput",
            "compare": {"factor": "ip_version", "levels": [4, 6]}, "direction": "greater", "stop": STOP} | kw


def test_a_clear_difference_is_decided_before_max_runs():
    v = evaluate(runs(4.0), [claim()], REGISTERED)
    row = v.table.iloc[0]
    assert row["verdict"] == "supported"
    assert 1 < row["look"] < 5
    assert "decided at look" in row["design"] and row["reason"].startswith(f"at look {int(row['look'])}")
    # the p is the stage-wise p of the design at that look, below the α it had spent by then
    n = int(row["look"]) * 4
    design = boundaries([k / 5 for k in range(1, int(row["look"]) + 1)], 0.05, "obf", sides=1)
    assert row["p"] <= design.spent[-1]
    assert row["diff_ci_low"] > 0  # the repeated CI excludes 0 once the boundary is crossed
    assert v.cells.iloc[0]["n_a"] == n


def test_runs_after_the_decision_do_not_change_it():
    full = evaluate(runs(4.0), [claim()], REGISTERED).table.iloc[0]
    look = int(full["look"])
    cut = evaluate(runs(4.0)[lambda r: r["run"] <= 4 * look], [claim()], REGISTERED).table.iloc[0]
    assert (cut["look"], cut["p"], cut["verdict"]) == (full["look"], full["p"], full["verdict"])


def test_the_stagewise_p_is_the_designs():
    row = evaluate(runs(0.0), [claim(direction="different")]).table.iloc[0]
    assert row["look"] == 5 and "reached max_runs" in row["design"]
    design = boundaries([0.2, 0.4, 0.6, 0.8, 1.0], 0.05, "obf", sides=2)
    from analysis.stats.sequential import z_of_t

    up, down = stagewise_p(design, 4, z_of_t(row["statistic"], row["df"]))
    assert row["p"] == pytest.approx(min(1, 2 * min(up, down)))
    assert row["verdict"] == "inconclusive"


def test_an_open_cell_has_no_verdict_even_when_a_fixed_test_would_give_one():
    early = runs(1.6, n=6, seed=2)  # looks at 4 runs complete; 8 not yet made
    fixed = evaluate(early, [claim(stop=None)], REGISTERED).table.iloc[0]
    row = evaluate(early, [claim()], REGISTERED).table.iloc[0]
    assert fixed["verdict"] == "supported"
    assert row["verdict"] == "inconclusive" and "undecided at look 1" in row["reason"]
    assert "open" in row["design"]


def test_futility_stops_a_cell_without_an_effect():
    row = evaluate(runs(0.0, seed=9), [claim(direction="different", stop=STOP | {"futility": 0.2})]).table.iloc[0]
    assert row["look"] < 5 and "futility" in row["design"] and row["verdict"] == "inconclusive"


def test_an_equivalence_is_decided_when_the_repeated_ci_lies_inside_the_margin():
    row = evaluate(runs(0.0, seed=3), [claim(direction="equivalent", margin=3.0)], REGISTERED).table.iloc[0]
    assert row["verdict"] == "supported"
    assert -3 < row["diff_ci_low"] and row["diff_ci_high"] < 3


def test_cells_share_alpha_in_their_boundaries():
    two = pd.concat([runs(4.0).assign(size=64), runs(4.0, seed=6).assign(size=1500)])
    cells = evaluate(two, [claim(per="size")], REGISTERED).cells
    assert all("α=0.025 one-sided" in d for d in cells["design"])


def test_a_failed_run_counts_as_made_but_adds_no_information():
    data = runs(0.0)
    data.loc[(data["run"] == 8) & (data["ip_version"] == 4), ["status", "tput"]] = ["failed", np.nan]
    cells = evaluate(data, [claim(direction="different")]).cells
    assert cells.iloc[0]["look"] == 5 and cells.iloc[0]["n_a"] == 19


@pytest.mark.parametrize("change, message", [
    ({"test": "mann-whitney"}, "Welch's t on two groups"),
    ({"compare": {"factor": "ip_version", "levels": [4, 6, 8]}, "direction": "different"}, "Welch's t on two groups"),
    ({"stop": STOP | {"alpha": 0.01}}, "give it once"),
    ({"stop": STOP | {"max_runs": 3}}, "below min_runs"),
    ({"stop": STOP | {"spending": "haybittle"}}, "spending"),
])
def test_stop_rules_the_engine_cannot_honour_are_refused(change, message):
    with pytest.raises(HypothesisError, match=message):
        parse_hypotheses([claim(**change)])


def test_runs_without_a_run_number_cannot_be_replayed():
    with pytest.raises(HypothesisError, match="no 'run' column"):
        evaluate(runs(4.0).drop(columns="run"), [claim()])


def test_a_fixed_analysis_of_runs_collected_until_decided_is_labelled(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claims.yaml").write_text(
        "hypotheses:\n- id: v4_faster\n  statement: IPv4 is faster\n  metric: tput\n"
        "  compare: {factor: ip_version, levels: [4, 6]}\n  direction: greater\n"
        "  stop: {min_runs: 4, max_runs: 20, look_every: 4}\n")
    (tmp_path / "fixed.yaml").write_text(
        "hypotheses:\n- id: v4_faster\n  statement: IPv4 is faster\n  metric: tput\n"
        "  compare: {factor: ip_version, levels: [4, 6]}\n  direction: greater\n")
    campaign = tmp_path / "campaign"
    campaign.mkdir()
    register(campaign, tmp_path / "claims.yaml")
    assert registration_of(campaign, tmp_path / "claims.yaml").collected_until_decided
    other = registration_of(campaign, tmp_path / "fixed.yaml")
    assert other.collected_until_decided and not other.registered
    row = evaluate(runs(4.0), tmp_path / "fixed.yaml", other).table.iloc[0]
    assert row["design"].startswith("fixed, on runs collected until decided")
    assert evaluate(runs(4.0), tmp_path / "fixed.yaml").table.iloc[0]["design"] == "fixed"


def test_the_engine_stops_where_the_boundary_rule_stops():
    from scipy import stats

    design = boundaries([0.2, 0.4, 0.6, 0.8, 1.0], 0.05, "pocock", sides=2)
    spec = claim(direction="different", stop=STOP | {"spending": "pocock"})
    for seed in range(40):
        data = runs(0.8, seed=100 + seed)
        row = evaluate(data, [spec]).table.iloc[0]
        a, b = (data.loc[data["ip_version"] == v].sort_values("run")["tput"].to_numpy() for v in (4, 6))
        crossed = [k + 1 for k, n in enumerate(range(4, 21, 4))
                   if stats.ttest_ind(a[:n], b[:n], equal_var=False).pvalue <= design.nominal(k)]
        assert row["look"] == (crossed[0] if crossed else 5)
        assert (row["verdict"] == "supported") == bool(crossed)


def test_futility_waits_for_futility_from():
    """The same runs stop for futility early, but not before the information fraction futility_from names."""
    early = evaluate(runs(0.0, seed=9), [claim(direction="different", stop=STOP | {"futility": 0.2})]).table.iloc[0]
    late = evaluate(runs(0.0, seed=9), [claim(direction="different",
                                              stop=STOP | {"futility": 0.2, "futility_from": 0.5})]).table.iloc[0]
    assert early["look"] < 3
    assert late["look"] >= 3  # the first look at information ≥ 0.5 is look 3 (12 of 20 runs)


def test_futility_from_without_futility_is_refused():
    with pytest.raises(HypothesisError, match="futility_from"):
        parse_hypotheses([claim(stop=STOP | {"futility_from": 0.5})])
