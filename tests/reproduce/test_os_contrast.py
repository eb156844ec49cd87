"""The seeds' OS question on our own runs (analysis.reproduce.os_contrast): the
ANOVA's allocation, the per-size OS contrasts and their shape, on a small
fixture campaign whose effects are known, on the real uml-kernels campaign,
and set beside a study's own OS claims."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis.reproduce.claims import load_claims
from analysis.reproduce.mirrors import load_mirror, mirror_available
from analysis.reproduce.os_contrast import (NOT_COMPARED, allocation, beside_study_claims, contrast_shape,
                                            every_size_same_os, has_os_factor, os_contrasts, seeds_anova,
                                            seeds_question, study_os_claims, version_order)

NEW, OLD = "6.1.176", "5.10.46"
SIZES = (64, 512, 1408)
S000 = "000_4e5320b6fe1e825c"


def fixture_runs(runs_per_cell: int = 6, seed: int = 26) -> pd.DataFrame:
    """A small campaign: netperf TCP throughput where the new kernel is 30 % ahead
    at every size and IPv6 is 2 % behind, and D-ITG round trips where the new
    kernel is 20 % faster; noise 3 % of the mean (seeded)."""
    rng = np.random.default_rng(seed)
    rows = []
    for os_version in (NEW, OLD):
        for ip in (4, 6):
            for size in SIZES:
                base = size / 10 * (1.3 if os_version == NEW else 1.0) * (0.98 if ip == 6 else 1.0)
                rtt = 2.0 * (0.8 if os_version == NEW else 1.0)
                for run in range(1, runs_per_cell + 1):
                    common = {"os_version": os_version, "ip_version": ip, "packet_size_bytes": size, "run": run,
                              "status": "ok"}
                    rows.append(common | {"tool": "netperf", "mode": "stream", "transport": "TCP",
                                          "throughput_mbps": base * rng.normal(1, 0.03)})
                    rows.append(common | {"tool": "ditg", "mode": "rttm", "transport": "UDP",
                                          "rtt_ms": rtt * rng.normal(1, 0.03)})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def runs():
    return fixture_runs()


def test_newest_kernel_comes_first():
    assert version_order(["5.10.46", "6.1.176", "5.4.0"]) == ["6.1.176", "5.10.46", "5.4.0"]


def test_the_os_question_needs_two_os_levels(runs):
    assert has_os_factor(runs)
    assert not has_os_factor(runs[runs["os_version"] == NEW])


def test_allocation_gives_the_os_most_of_a_large_os_effect(runs):
    anova = seeds_anova(runs)
    tcp = anova[anova["metric"] == "throughput_mbps"]
    assert set(tcp["term"]) >= {"os_version", "ip_version", "packet_size_bytes", "os_version:packet_size_bytes",
                                "Residual"}
    assert tcp["share"].sum() == pytest.approx(1.0)
    shares = allocation(anova).set_index("metric")
    assert shares.loc["throughput_mbps", "model"] == "full factorial"
    # The size sets the scale; of what remains, the OS dwarfs the IP version (30 % vs 2 %).
    assert shares.loc["throughput_mbps", "OS"] > 10 * shares.loc["throughput_mbps", "IP version"]
    assert shares.loc["rtt_ms", "OS"] > 0.8  # round trips differ by kernel only
    assert shares.loc["rtt_ms", "OS p"] < 1e-6


def test_contrasts_name_the_kernel_ahead_at_every_size(runs):
    contrasts = os_contrasts(runs)
    assert len(contrasts) == 2 * 2 * len(SIZES)  # two metrics x two IP versions x sizes
    assert (contrasts[["os_a", "os_b"]].drop_duplicates().values.tolist() == [[NEW, OLD]])
    assert (contrasts["ahead"] == NEW).all()  # higher throughput and lower delay both count as ahead
    rtt = contrasts[contrasts["metric"] == "rtt_ms"]
    assert (rtt["diff"] < 0).all() and rtt["diff_pct"].between(-30, -10).all()
    tcp = contrasts[(contrasts["metric"] == "throughput_mbps") & (contrasts["ip_version"] == 4)]
    assert every_size_same_os(tcp)
    assert contrast_shape(tcp).startswith(f"{NEW} ahead at every size (3); {NEW} − {OLD}: +")


def test_welch_and_holm_per_ip_version_match_scipy(runs):
    contrasts = os_contrasts(runs)
    cell = runs[(runs["tool"] == "netperf") & (runs["ip_version"] == 6)]
    ps = []
    for size in SIZES:
        at = cell[cell["packet_size_bytes"] == size]
        ps.append(stats.ttest_ind(at.loc[at["os_version"] == NEW, "throughput_mbps"],
                                  at.loc[at["os_version"] == OLD, "throughput_mbps"], equal_var=False).pvalue)
    ours = contrasts[(contrasts["metric"] == "throughput_mbps") & (contrasts["ip_version"] == 6)]
    assert ours["p"].tolist() == pytest.approx(ps)
    order = np.argsort(ps)
    holm = np.maximum.accumulate([min(1.0, (len(ps) - i) * ps[j]) for i, j in enumerate(order)])
    assert ours["p_holm"].to_numpy()[order] == pytest.approx(holm)


def test_no_clear_difference_is_said_so():
    """Equal kernels: nobody is ahead, and the shape counts the sizes without a difference."""
    same = fixture_runs()
    same.loc[same["os_version"] == NEW, "throughput_mbps"] /= 1.3
    tcp = os_contrasts(same)
    tcp = tcp[(tcp["metric"] == "throughput_mbps") & (tcp["ip_version"] == 4)]
    assert (tcp["ahead"] == "none").all() and not every_size_same_os(tcp)
    assert contrast_shape(tcp).startswith(f"{NEW} ahead at 0 of 3 sizes, {OLD} at 0, no clear difference at 3")


def test_a_studys_os_claims_beside_our_contrast(runs):
    claims = load_claims(S000).claims
    table = beside_study_claims(claims, os_contrasts(runs))
    os_claims = [c for c in claims if c.compare is not None and c.compare.factor == "os"
                 and c.direction not in (None, "equivalent")]
    throughput = [c for c in os_claims if c.metric == "throughput_mbps" and c.scope.get("transport") == "TCP"
                  and c.scope.get("ip_version") is None]
    row = table[(table["metric"] == "throughput_mbps") & (table["transport"] == "TCP")
                & (table["ip_version"] == "any")]
    assert len(row) == 2  # the claims name no IP version: beside our IPv4 and our IPv6 contrast
    assert (row["study_claims"] == len(throughput)).all()
    assert row["our_os_pair"].tolist() == [f"{NEW} vs {OLD}"] * 2 and row["ours_at_every_size"].all()
    owd = table[table["metric"] == "owd_ms"]
    assert (owd["our_shape"] == NOT_COMPARED["owd_ms"]).all()
    udp = table[(table["metric"] == "throughput_mbps") & (table["transport"] == "UDP")]
    assert (udp["our_shape"] == "not measured by our campaign").all()  # the fixture has no UDP stream


def test_a_model_without_residual_degrees_of_freedom_is_left_out(runs):
    """Early in a collection a tool may have a few runs only: four runs cannot fit the five parameters of
    the additive OS + IP version + size model, so that model is left out and the others stay."""
    first = runs[(runs["tool"] == "netperf") & (runs["run"] == 1)]
    few = pd.concat([first[(first["os_version"] == NEW) & (first["ip_version"] == 4)],
                     first[(first["os_version"] == OLD) & (first["ip_version"] == 6) & (first["packet_size_bytes"] == 64)]])
    assert len(few) == 4 and few["packet_size_bytes"].nunique() == 3
    sparse = pd.concat([runs[runs["tool"] == "ditg"], few])
    assert set(allocation(seeds_anova(sparse))["metric"]) == {"rtt_ms"}


def test_no_campaign_no_table(tmp_path):
    assert study_os_claims(load_claims(S000).claims, raw_dir=tmp_path) is None


@pytest.mark.slow  # ingests a real campaign
@pytest.mark.skipif(not mirror_available("uml-kernels"), reason="data/raw/uml-kernels not present")
def test_the_real_uml_kernels_campaign():
    runs = load_mirror("uml-kernels").runs
    answer = seeds_question(runs)
    assert set(answer.allocation["tool"]) == {"iperf3", "netperf"}
    assert (answer.allocation["model"] == "full factorial").all()  # 2 kernels x 2 IP versions x 3 sizes, 4 runs each
    total = answer.allocation[["OS", "IP version", "size", "interactions", "residual"]].sum(axis=1)
    assert total.to_numpy() == pytest.approx(1.0)
    tcp = answer.contrasts[answer.contrasts["metric"] == "throughput_mbps"]
    assert len(tcp) == 2 * 2 * 3 and set(tcp["n_a"]) == {4} and set(tcp["n_b"]) == {4}
    one = tcp.iloc[0]
    at = runs[(runs["tool"] == one["tool"]) & (runs["ip_version"] == one["ip_version"])
              & (runs["packet_size_bytes"] == one["size"])]
    expected = stats.ttest_ind(at.loc[at["os_version"] == NEW, "throughput_mbps"],
                               at.loc[at["os_version"] == OLD, "throughput_mbps"], equal_var=False)
    assert one["p"] == pytest.approx(expected.pvalue)
