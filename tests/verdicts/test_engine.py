"""Hypothesis engine on SYNTHETIC data built here (labelled synthetic).

The data are constructed so that each claim's verdict is known in advance:
means are set by formula, noise is small and seeded.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from analysis.verdicts import (HYPOTHESIS_COLUMNS, HypothesisError, canon,
                                 evaluate_cells, evaluate_hypotheses,
                                 load_hypotheses, parse_hypotheses)

SIZES = [128, 512, 1408]


def synthetic_runs(runs: int = 6, seed: int = 1) -> pd.DataFrame:
    """SYNTHETIC campaign: os A/B × IPv4/6 × 3 sizes, plus a failed WPA2 block.

    throughput: IPv4 10% above IPv6 everywhere; os A and B equal on IPv4;
    on IPv6, B is 3% below A.  rtt: os A grows with size, os B is flat
    (an os × size interaction).  cpu: pure noise (no effect anywhere).
    """
    rng = np.random.default_rng(seed)
    rows = []
    for os_ in ("A", "B"):
        for ip in (4, 6):
            for size in SIZES:
                base = 50 + size / 100
                tput = base * (1.0 if ip == 4 else 0.9) * (0.97 if (os_, ip) == ("B", 6) else 1.0)
                rtt = 1.0 + (size / 1000 if os_ == "A" else 0.0)
                for r in range(runs):
                    rows.append({
                        "os": os_, "ip_version": ip, "transport": "TCP",
                        "packet_size_bytes": size, "security": "open", "run": r,
                        "tool": "synthetic", "side": "receiver", "status": "ok",
                        "throughput_mbps": tput + rng.normal(0, 0.3),
                        "rtt_ms": rtt + rng.normal(0, 0.02),
                        "cpu_local_pct": 20 + rng.normal(0, 5),
                        "owd_ms": np.nan,
                    })
    for r in range(3):  # a level whose runs all failed
        rows.append({"os": "A", "ip_version": 4, "transport": "TCP", "packet_size_bytes": 128,
                     "security": "wpa2", "run": r, "tool": "synthetic", "side": "receiver",
                     "status": "failed", "throughput_mbps": np.nan, "rtt_ms": np.nan,
                     "cpu_local_pct": np.nan, "owd_ms": np.nan})
    return pd.DataFrame(rows)


BASE = {"statement": "synthetic", "source": "user", "scope": {"transport": "TCP", "security": "open"}}


def H(**kw) -> dict:
    return {**BASE, **kw}


SPECS = [
    H(id="all_sizes", metric="throughput_mbps", scope={"os": "A", "security": "open"}, compare={"factor": "ip_version", "levels": [4, 6]},
      direction="greater", per="packet_size_bytes", holds="all"),
    H(id="all_sizes_wrong_way", metric="throughput_mbps",
      compare={"factor": "ip_version", "levels": [6, 4]}, direction="greater",
      per="packet_size_bytes", holds="all"),
    H(id="pooled", metric="throughput_mbps", scope={"ip_version": 6, "security": "open"},
      compare={"factor": "os", "levels": ["A", "B"]}, direction="different",
      per="packet_size_bytes", holds="pooled"),
    H(id="equivalent", metric="throughput_mbps", scope={"ip_version": 4, "security": "open"},
      compare={"factor": "os", "levels": ["A", "B"]}, direction="equivalent", margin_pct=2,
      per="packet_size_bytes", holds="all"),
    H(id="interaction", metric="rtt_ms", scope={"ip_version": 4, "security": "open"},
      compare={"factor": "os", "levels": ["A", "B"]}, direction="different",
      interaction="packet_size_bytes"),
    H(id="no_effect", metric="cpu_local_pct", compare={"factor": "os", "levels": ["A", "B"]},
      direction="greater", scope={"ip_version": 4, "packet_size_bytes": 128, "security": "open"},
      min_effect_pct=5),
    H(id="failed_level", metric="throughput_mbps", scope={"security": "wpa2"},
      compare={"factor": "ip_version", "levels": [4, 6]}, direction="greater"),
    H(id="metric_not_reported", metric="owd_ms", compare={"factor": "ip_version", "levels": [4, 6]},
      direction="less"),
]


@pytest.fixture(scope="module")
def verdicts() -> pd.DataFrame:
    return evaluate_hypotheses(synthetic_runs(), SPECS).set_index("id")


def test_columns_are_stable(verdicts):
    assert list(verdicts.reset_index().columns) == HYPOTHESIS_COLUMNS


@pytest.mark.parametrize("hid, verdict", [
    ("all_sizes", "supported"),
    ("all_sizes_wrong_way", "contradicted"),
    ("pooled", "supported"),
    ("equivalent", "supported"),
    ("interaction", "supported"),
    ("no_effect", "inconclusive"),
    ("failed_level", "untestable"),
    ("metric_not_reported", "untestable"),
])
def test_verdicts_follow_the_constructed_data(verdicts, hid, verdict):
    assert verdicts.loc[hid, "verdict"] == verdict, verdicts.loc[hid, "reason"]


def test_all_sizes_evidence(verdicts):
    row = verdicts.loc["all_sizes"]
    assert row["cells_tested"] == 3
    assert row["n"] == "6+6"
    # IPv4 is 1/0.9 - 1 = 11.1% above IPv6 by construction
    assert row["estimate_ci_low"] < 100 / 9 < row["estimate_ci_high"]
    assert re.fullmatch(r"IPv4 vs IPv6: \+1[01]\.\d% \[\+\d+\.\d, \+1\d\.\d\] of IPv6's mean, IPv4 higher "
                        r"\(p[<=]0\.0\d+, n=6\+6\)", row["summary"])
    assert row["correction"] == "holm" and row["p_adj"] >= row["p"]


def test_contradicted_lists_failed_cells(verdicts):
    failed = verdicts.loc["all_sizes_wrong_way", "cells_failed"]
    assert all(f"packet_size_bytes={s}: contradicted" in failed for s in SIZES)


def test_pooled_estimates_the_constructed_gap(verdicts):
    row = verdicts.loc["pooled"]
    assert row["test"].startswith("OLS throughput_mbps ~ group + packet_size_bytes")
    # B is 3% below A on IPv6: A - B = +3.09% of B
    assert row["estimate_ci_low"] < 100 * (1 / 0.97 - 1) < row["estimate_ci_high"]


def test_interaction_reports_the_term(verdicts):
    row = verdicts.loc["interaction"]
    assert row["df_num"] == 2 and row["effect_name"] == "partial_eta_sq"
    assert row["effect_size"] > 0.9
    assert row["summary"].startswith("F(2, 30)=")


def test_inconclusive_says_why(verdicts):
    reason = verdicts.loc["no_effect", "reason"]
    assert reason.startswith("not significant")
    # CV 25%: 6+6 runs cannot detect 5%, and with so few runs no power figure is trusted
    assert "power not stated" in reason and "rough: need" in reason


def test_untestable_says_what_is_missing(verdicts):
    assert "fewer than 2 successful runs" in verdicts.loc["failed_level", "reason"]
    assert "fewer than 2 successful runs with owd_ms" in verdicts.loc["metric_not_reported", "reason"]


def test_evaluate_cells_has_one_row_per_size():
    cells = evaluate_cells(synthetic_runs(), [SPECS[0]])
    assert list(cells["cell"]) == [f"packet_size_bytes={s}" for s in SIZES]
    assert set(cells["verdict"]) == {"supported"}


@pytest.mark.parametrize("spec, message", [
    (H(id="X1", metric="goodput_mbps", compare={"factor": "os", "levels": ["A", "B"]},
       direction="greater"), "hypothesis X1: key 'metric': unknown metric 'goodput_mbps'"),
    (H(id="X2", metric="throughput_mbps", compare={"factor": "ip_version", "levels": [4, 5]},
       direction="greater"), "hypothesis X2: key 'compare': level 5 of 'ip_version' not in the data"),
    (H(id="X3", metric="throughput_mbps", scope={"os": "Plan9"},
       compare={"factor": "ip_version", "levels": [4, 6]}, direction="greater"),
     "hypothesis X3: key 'scope': level 'Plan9' of 'os' not in the data"),
    (H(id="X4", metric="throughput_mbps", compare={"factor": "ip_version", "levels": [4, 6]},
       direction="greater", per="frame_size_bytes"),
     "hypothesis X4: key 'per': unknown factor 'frame_size_bytes'"),
])
def test_data_validation_errors_name_id_and_key(spec, message):
    with pytest.raises(HypothesisError, match=message.replace("(", r"\(").replace(")", r"\)")):
        evaluate_hypotheses(synthetic_runs(), [spec])


@pytest.mark.parametrize("spec, message", [
    (H(id="Y1", metric="m", compare={"factor": "os", "levels": ["A", "B"]}, direction="bigger"),
     "hypothesis Y1: key 'direction'"),
    (H(id="Y2", metric="m", compare={"factor": "os", "levels": ["A", "B"]}, direction="equivalent"),
     "hypothesis Y2: .*needs exactly one of 'margin' or 'margin_pct'"),
    (H(id="Y3", metric="m", compare={"factor": "os", "levels": ["A", "B", "C"]}, direction="greater"),
     "hypothesis Y3: .*needs exactly two levels"),
    (H(id="Y4", metric="m", compare={"factor": "os"}, direction="greater"),
     "hypothesis Y4: key 'compare'.*exactly one of 'levels' or 'groups'"),
    (H(id="Y5", metric="m", compare={"factor": "os", "levels": ["A", "B"]}, direction="greater",
       typo_key=1), "hypothesis Y5: key 'typo_key'"),
])
def test_schema_errors_name_id_and_key(spec, message):
    with pytest.raises(HypothesisError, match=message):
        parse_hypotheses([spec])


def test_groups_of_levels_compare_like_levels():
    """Named groups (e.g. Microsoft vs Linux) pool the listed levels."""
    spec = H(id="grp", metric="throughput_mbps", compare={"factor": "ip_version",
             "groups": {"v4": [4], "v6": [6]}}, direction="greater",
             per="packet_size_bytes")
    row = evaluate_hypotheses(synthetic_runs(), [spec]).iloc[0]
    assert row["verdict"] == "supported" and row["claim"].startswith("ip_version: v4 > v6")


def test_canon_matches_numeric_levels():
    assert canon(4) == canon(4.0) == canon("4") == "4"


@pytest.mark.parametrize("values", [[4.0, 6.0, None, 4.0], ["TCP", None, "UDP", "TCP"], [128, 1408, 128, 640]])
def test_a_columns_canonical_levels_are_each_values_canon(values):
    from analysis.verdicts.spec import canon_column
    column = pd.Series(values, index=[10, 11, 12, 13])
    assert canon_column(column).tolist() == column.map(canon).tolist()
    assert canon_column(column).index.tolist() == [10, 11, 12, 13]


def test_yaml_file_with_defaults(tmp_path):
    path = tmp_path / "h.yaml"
    path.write_text("defaults: {alpha: 0.01, correction: bh}\nhypotheses:\n"
                    "  - {id: a, statement: s, metric: throughput_mbps, direction: greater,\n"
                    "     compare: {factor: ip_version, levels: [4, 6]}}\n")
    (hyp,) = load_hypotheses(path)
    assert (hyp.alpha, hyp.correction, hyp.source) == (0.01, "bh", "user")


def test_demo_file_covers_the_four_claim_shapes_and_runs_on_the_demo_campaign():
    from pathlib import Path

    from analysis.ingest.campaign import load_campaign
    from analysis.ingest.per_run import one_row_per_run

    root = Path(__file__).resolve().parents[2]
    path = root / "data" / "hypotheses" / "demo-loopback.yaml"
    hyps = {h.id: h for h in load_hypotheses(path)}
    assert hyps["D1"].direction == "greater" and hyps["D1"].holds == "all"
    assert hyps["D2"].holds == "pooled"
    assert hyps["D3"].direction == "equivalent" and hyps["D3"].margin_pct == 20
    assert hyps["D4"].interaction == "packet_size_bytes"
    runs = one_row_per_run(load_campaign(root / "data" / "raw" / "demo-loopback").runs)
    table = evaluate_hypotheses(runs, path).set_index("id")
    # real data: every claim is testable and comes back with its evidence
    assert set(table.index) == set(hyps)
    assert (table["verdict"] != "untestable").all(), table["reason"].to_dict()
    assert table["p"].notna().all() and table["summary"].str.len().gt(0).all()
    assert table.loc["D1", "cells_tested"] == 3  # three packet sizes


def test_a_contradicted_claim_names_the_contradicting_cell():
    # SYNTHETIC: at size 2 the claimed direction is reversed, elsewhere it holds
    rng = np.random.default_rng(7)
    rows = []
    for size, gap in ((1, 10.0), (2, -10.0), (3, 10.0)):
        for ip, shift in ((4, gap), (6, 0.0)):
            rows += [{"packet_size_bytes": size, "ip_version": ip, "status": "ok",
                      "throughput_mbps": 100 + shift + rng.normal(0, 1)} for _ in range(8)]
    table = evaluate_hypotheses(pd.DataFrame(rows), [{
        "id": "mixed", "statement": "IPv4 faster at every size", "metric": "throughput_mbps",
        "compare": {"factor": "ip_version", "levels": [4, 6]}, "direction": "greater",
        "per": "packet_size_bytes", "test": "welch"}]).iloc[0]
    assert table["verdict"] == "contradicted"
    assert table["cell"] == "packet_size_bytes=2"
    assert "deciding cell packet_size_bytes=2" in table["reason"]


@pytest.mark.parametrize("body, line, message", [
    ("    metric: no_such_metric\n    compare: {factor: ip_version, levels: [4, 6]}\n",
     4, "hypothesis H: key 'metric': unknown metric 'no_such_metric'"),
    ("    metric: throughput_mbps\n    scope: {nic: e1000}\n    compare: {factor: ip_version, levels: [4, 6]}\n",
     5, "hypothesis H: key 'scope': unknown factor 'nic'"),
    ("    metric: throughput_mbps\n    compare: {factor: ip_version, levels: [4, 6]}\n    side: receiver\n",
     6, "hypothesis H: key 'side': Extra inputs are not permitted"),
])
def test_errors_of_a_hypothesis_file_name_file_and_line(tmp_path, body, line, message):
    """Schema errors and data errors (raised when the file meets the runs) both lead with FILE:LINE."""
    path = tmp_path / "claims.yaml"
    path.write_text("hypotheses:\n  - id: H\n    statement: s\n" + body + "    direction: greater\n")
    with pytest.raises(HypothesisError) as err:
        evaluate_hypotheses(synthetic_runs(), path)
    assert str(err.value).startswith(f"{path}:{line}: {message}")
