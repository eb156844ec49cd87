"""The report's campaign overview: the banner's question and design sentence,
and the Hoefler & Belli checklist, whose judged rules must be able to come
out either way (rules 3, 4, 8 and 12 said "satisfied" whatever the data)."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.figures.campaign_figures import Drawn
from analysis.figures.exploration import summaries_by_tool
from analysis.ingest.campaign import load_campaign
from analysis.ingest.per_run import one_row_per_run
from analysis.report import overview

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data/raw/demo-loopback"


@pytest.fixture(scope="module")
def demo():
    data = load_campaign(DEMO)
    runs = one_row_per_run(data.runs)
    factors = overview.design_factors(data, runs)
    return data, runs, factors, summaries_by_tool(runs, factors)


def test_the_banner_states_question_and_design_in_a_sentence(demo, tmp_path):
    data, runs, _, _ = demo
    text = overview.banner(data, runs, ROOT / "data/hypotheses/demo-loopback.yaml")
    assert text.startswith("## Demo: netperf, iperf3 and D-ITG on loopback")
    assert "**Question.** On this machine's loopback, do IPv4 and IPv6 differ" in text
    assert ("**Design.** 180 runs: Tool (ditg, iperf3, netperf) × IP version (IPv4, IPv6) × Transport (TCP, UDP) × "
            "Packet size (128, 512, 1408); all 36 combinations measured, 5 runs each.") in text
    plain = tmp_path / "claims.yaml"  # a file without a question: what testing it asks
    plain.write_text("hypotheses:\n  - {id: A, statement: s, metric: throughput_mbps, "
                     "compare: {factor: ip_version, levels: [4, 6]}, direction: greater}\n")
    assert overview.question(data, plain) == "Does the claim of `claims.yaml` hold on these runs?"
    assert overview.question(data, None).startswith("None stated: no hypothesis file")


def test_rule_3_harmonic_means_for_rates(demo):
    _, _, _, summaries = demo
    assert overview.rule_means_for_rates(summaries)[0] == "satisfied"
    broken = summaries.copy()
    broken.loc[broken["metric"] == "throughput_mbps", "hmean"] = np.nan  # a run of 0 Mbit/s in every cell
    status, evidence = overview.rule_means_for_rates(broken)
    assert status == "partly satisfied" and "throughput_mbps" in evidence
    assert overview.rule_means_for_rates(summaries[summaries["metric"] == "rtt_ms"])[0] == "not applicable"
    assert overview.rule_means_for_rates(None)[0] == "not checked"


def test_rule_4_ratios_summarised(demo):
    _, runs, _, _ = demo
    status, evidence = overview.rule_ratios(runs, None)
    assert status == "partly satisfied" and "loss_pct" in evidence  # loss % per run, averaged per cell
    no_ratios = runs.assign(loss_pct=np.nan, cpu_local_pct=np.nan, cpu_remote_pct=np.nan)
    assert overview.rule_ratios(no_ratios, None)[0] == "satisfied"


def test_rule_8_median_where_the_mean_misleads(demo):
    _, _, _, summaries = demo
    status, evidence = overview.rule_summaries(summaries)  # 5 runs per cell: no 95% interval for a median
    assert status == "partly satisfied" and "fewer than 6" in evidence
    enough = summaries.assign(median_ci_low=summaries["median"] - 1, median_ci_high=summaries["median"] + 1)
    assert overview.rule_summaries(enough)[0] == "satisfied"
    assert overview.rule_summaries(None)[0] == "not checked"


def test_rule_12_every_run_plotted_and_lines_only_over_quantities():
    def fig(kind, metric="throughput_mbps"):
        return Drawn(f"netperf_{metric}_{kind}", kind, "netperf", metric, Path(f"{kind}.png"))

    good = [fig("vs_packet_size_bytes"), fig("distribution_by_packet_size_bytes")]
    assert overview.rule_plots(good)[0] == "satisfied"
    no_runs = [fig("vs_packet_size_bytes"), fig("distribution_by_packet_size_bytes"), fig("bars_by_transport", "rtt_ms")]
    status, evidence = overview.rule_plots(no_runs)
    assert status == "not satisfied" and "netperf rtt_ms" in evidence
    line_over_category = [fig("vs_ip_version"), fig("distribution_by_ip_version")]
    assert overview.rule_plots(line_over_category)[0] == "not satisfied"
    assert overview.rule_plots(None)[0] == "not checked"


def test_the_checklist_takes_its_judged_rules_from_the_evidence(demo):
    data, runs, _, summaries = demo
    without = overview.hoefler_belli(data, runs).set_index("rule")["status"]
    assert [without[r] for r in (3, 8, 12)] == ["not checked"] * 3
    full = overview.hoefler_belli(data, runs, None, summaries, []).set_index("rule")
    assert full.loc[3, "status"] == "satisfied" and full.loc[8, "status"] == "partly satisfied"
    assert full.loc[12, "status"] == "not applicable" and list(full.columns) == ["what", "status", "evidence"]
