"""The studies' claims re-tested on our own real mirror datasets (data/raw/<campaign>)."""

from __future__ import annotations

import pytest

from analysis.reproduce.claims import load_claims
from analysis.verdicts import evaluate_hypotheses
from analysis.reproduce.mirrors import load_mirrors, mirror_available
from analysis.reproduce.own_data import (NotComparable, claim_specs, study_constants,
                                         mirror_runs, own_data_counts, own_data_table, study_scope)

S000 = "000_4e5320b6fe1e825c"
S003 = "003_78d69edb35c6dd71"
REAL = ("supported", "contradicted", "inconclusive")
needs_lan = pytest.mark.skipif(not mirror_available("lan-p2p"), reason="data/raw/lan-p2p not present")


def _claim(study, fragment, factor=None, metric=None):
    """The claim whose quote contains ``fragment`` (and compares ``factor``, on ``metric``)."""
    found = [c for c in load_claims(study).claims if fragment in c.quote and c.testable
             and (factor is None or (c.compare is not None and c.compare.factor == factor))
             and (metric is None or c.metric == metric)]
    assert len(found) == 1, [c.id for c in found]
    return found[0]


A1 = "Fedora provides higher throughput and lower delay than Windows 7"  # 000 abstract, first claim: os
R1 = "For Windows 7, IPv4 outperformed IPv6 for all packet sizes."
A3 = "Due to higher overhead, TCP provides lower bandwidth than UDP"


@pytest.fixture(scope="module")
def table000(reproduced):
    return reproduced(S000).own_data()


@pytest.mark.slow  # seconds of CPU: out of `make test-fast`, in `make test`
@needs_lan
def test_000_has_a_real_verdict_with_evidence_on_lan_p2p(table000):
    real = table000[table000["our_verdict"].isin(REAL)]
    assert len(real) >= 1
    row = real.iloc[0]
    assert row["dataset"] == "lan-p2p"
    assert ("n=" in row["our_summary"] or "p_adj=" in row["our_summary"]) and "p" in row["our_summary"]
    assert row["our_test"].split(":")[0] in ("throughput_mbps", "rtt_ms", "jitter_ms", "cpu_local_pct")
    # the study's side is filled from our evaluation of its published numbers
    assert row["published_verdict"].split(" ")[0] in ("supported", "contradicted", "inconclusive", "agrees",
                                                      "disagrees", "untestable")


@pytest.mark.slow  # seconds of CPU: out of `make test-fast`, in `make test`
@needs_lan
def test_os_claims_are_not_comparable_with_the_reason(table000):
    by_id = table000.set_index("id")
    a1 = load_claims(S000).claims[0].id
    assert by_id.loc[a1, "our_verdict"] == "not comparable"
    assert by_id.loc[a1, "our_summary"] == "not comparable: our data has no os"
    assert by_id.loc[_claim(S000, R1).id, "our_summary"] == (
        "not comparable: the claim is about os=Windows 7 only; our data has no os")
    counts = own_data_counts(table000)
    assert counts["claims"] == len(load_claims(S000).claims)
    assert counts["comparable"] == int((table000["our_verdict"] != "not comparable").sum())


@pytest.mark.slow  # reads lan-p2p (ingested first in a fresh test folder): out of `make test-fast`, in `make test`
@needs_lan
def test_a3_spec_is_the_claim_per_stack_and_ip_version():
    """'TCP lower than UDP for all operating systems' (no size named) -> one spec per stack, pooled over sizes."""
    runs = mirror_runs("lan-p2p")
    specs, notes = claim_specs(_claim(S000, A3, "transport"), "lan-p2p", runs, constants=study_constants(S000))
    stacks = sorted(runs["stack"].unique())
    assert len(specs) == len(stacks)
    first = specs[0]
    assert first["metric"] == "throughput_mbps"
    assert first["compare"] == {"factor": "transport", "levels": ["TCP", "UDP"]}
    assert first["direction"] == "less"
    assert (first["per"], first["holds"]) == ("packet_size_bytes", "pooled")
    assert first["scope"] == {"tool": "netperf", "mode": "stream", "stack": stacks[0]}
    assert any("stack" in n for n in notes)


@pytest.mark.slow  # the whole study on lan-p2p (a minute of CPU): out of `make test-fast`, in `make test`
@needs_lan
def test_claim_verdict_is_the_worst_split_verdict(table000):
    """An 'all' claim is supported only when every split is; otherwise the worst split decides."""
    runs = mirror_runs("lan-p2p")
    specs, _ = claim_specs(_claim(S000, A3, "transport"), "lan-p2p", runs, constants=study_constants(S000))
    split = list(evaluate_hypotheses(runs, specs)["verdict"])
    expected = next((v for v in ("contradicted", "inconclusive", "untestable") if v in split), "supported")
    assert table000.set_index("id").loc[_claim(S000, A3, "transport").id, "our_verdict"] == expected


@pytest.mark.slow  # reads lan-p2p (ingested first in a fresh test folder): out of `make test-fast`, in `make test`
@needs_lan
def test_unsized_claim_is_pooled_over_sizes_and_rtt_comes_from_netperf_rr():
    runs = mirror_runs("lan-p2p")
    specs, notes = claim_specs(_claim("002_6c0e8c5c95705e2f", "the RTT is significantly smaller for IPv6 than"),
                               "lan-p2p", runs, study_scope("002_6c0e8c5c95705e2f"))
    assert specs[0]["metric"] == "rtt_ms" and specs[0]["scope"]["mode"] == "rr"
    assert specs[0]["scope"]["transport"] == "UDP"  # 002 measured UDP only; the claim does not say
    assert (specs[0]["per"], specs[0]["holds"]) == ("packet_size_bytes", "pooled")
    assert any("pooled" in n for n in notes)


def test_security_and_testbed_claims_are_not_comparable():
    with pytest.raises(NotComparable, match="our data has no security"):
        claim_specs(_claim("001_67ed56f85540d5f7", "implementing WPA2 wireless security reduces bandwidth",
                           "security", "throughput_mbps"), "lan-p2p", None)
    with pytest.raises(NotComparable, match="our data has no testbed"):
        claim_specs(_claim(S003, "Client-Server IPv6 shows the highest RTT recorded followed by IPv6 in peer-to-peer"),
                    "sizes-10", None)


def test_missing_mirror_is_reported_not_tested(tmp_path):
    table = own_data_table(S003, raw_dir=tmp_path)
    assert set(table["our_verdict"]) == {"not comparable"}
    assert set(table["our_summary"]) == {f"our dataset {load_mirrors().studies[S003]} is not available"}
