"""The verdict and audit rules on small hand-made records (the text of each row
is made up for the test; the rules, not the studies, are under test)."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.reproduce.claims import parse_claims
from analysis.reproduce.crosscheck import cross_check
from analysis.reproduce.lookup import Record
from analysis.reproduce.verdicts import evaluate_claims
from analysis.verdicts import rules
from analysis.verdicts.rules import aggregate, sign_aggregate, sign_verdict

COLUMNS = ["id", "study", "locator", "testbed", "os", "security", "ip_version", "transport", "size_bytes",
           "size_kind", "application", "host", "metric", "statistic", "value", "value_as_printed", "unit",
           "compared_to", "larger_side", "snippet", "note"]
CLAIM = "IPv4 has higher throughput than IPv6 for all packet sizes"


def row(n, **kw):
    base = {c: "" for c in COLUMNS} | {"id": f"999-{n:04d}", "study": "999_0000000000000000", "locator": "V",
                                      "metric": "throughput_mbps", "unit": "Mbps", "os": "A"}
    base |= {k: v for k, v in kw.items()}
    base["value_as_printed"] = base["value_as_printed"] or f"{base['value']:g}"
    base["snippet"] = base["snippet"] or f"printed {base['value_as_printed']} somewhere"
    return base


def record(rows, claims, sizes=(128, 1408), runs=None):
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame["value"] = frame["value"].astype(float)
    for col in ("ip_version", "size_bytes"):
        frame[col] = pd.to_numeric(frame[col].replace("", None)).astype("Int64")
    design = {"design": [{"field": "sizes_bytes", "value": list(sizes)}]
              + ([{"field": "runs_per_point", "value": runs}] if runs else [])}
    doc = {"study": "999_0000000000000000", "claims": claims}
    return Record("999_0000000000000000", frame, design, parse_claims(doc))


def claim(**kw):
    return {"id": "X", "quote": CLAIM, "source": "999.txt, V", "metric": "throughput_mbps",
            "scope": {"os": "A"}, "compare": {"factor": "ip_version", "levels": [4, 6]},
            "direction": "greater", "per": ["size_bytes"]} | kw


def verdict(rec):
    return evaluate_claims(rec)[0].set_index("id").loc["X"]


def test_a_number_from_the_claims_own_sentence_is_restated_not_agreement():
    rows = [row(1, ip_version=4, size_bytes=1408, size_kind="packet", statistic="pct_diff", value=5.0,
                unit="%", compared_to="IPv6", larger_side="subject", snippet=f"{CLAIM}, by 5% at 1408 bytes")]
    v = verdict(record(rows, [claim()]))
    assert v["verdict"] == "restated" and v["class"] == "descriptive"
    assert v["judged"] == "0 of 2"


def test_an_independent_number_agrees():
    rows = [row(1, ip_version=4, size_bytes=1408, size_kind="packet", statistic="pct_diff", value=5.0,
                unit="%", compared_to="IPv6", larger_side="subject", snippet="At 1408 bytes IPv4 was 5% above IPv6")]
    v = verdict(record(rows, [claim()]))
    assert v["verdict"] == "agrees where printed" and v["holds_at"] == "1 of 2"  # one of two sizes printed
    both = rows + [row(2, ip_version=4, size_bytes=128, size_kind="packet", statistic="pct_diff", value=2.0,
                       unit="%", compared_to="IPv6", larger_side="subject", snippet="At 128 bytes IPv4 was 2% above")]
    assert verdict(record(both, [claim()]))["verdict"] == "agrees"


def test_a_difference_whose_larger_side_is_not_stated_gives_no_sign():
    rows = [row(1, ip_version=4, size_bytes=1408, size_kind="packet", statistic="pct_diff", value=5.0,
                unit="%", compared_to="Windows 7, IPv6", snippet="IPv4 and IPv6 differed by 5% at 1408 bytes")]
    assert verdict(record(rows, [claim()]))["verdict"] == "untestable"


def test_a_difference_stated_the_other_way_round_disagrees():
    rows = [row(1, ip_version=6, size_bytes=1408, size_kind="packet", statistic="pct_diff", value=5.0,
                unit="%", compared_to="IPv4", larger_side="subject", snippet="IPv6 was 5% above IPv4 at 1408")]
    assert verdict(record(rows, [claim()]))["verdict"] == "disagrees"


def test_equal_printed_values_are_a_tie_not_a_contradiction():
    rows = [row(1, ip_version=4, size_bytes=128, size_kind="packet", statistic="mean", value=40.0),
            row(2, ip_version=6, size_bytes=128, size_kind="packet", statistic="mean", value=40.0)]
    v = verdict(record(rows, [claim()]))
    assert v["verdict"] == "tie"
    assert sign_verdict("greater", 0.0) == "tie" and sign_verdict("less", 0.0) == "tie"


def test_printed_ranges_disprove_an_all_sizes_claim():
    """b's highest above a's highest: at the size where b peaks, a < b."""
    rows = [row(1, ip_version=4, statistic="range_min", value=39.0), row(2, ip_version=4, statistic="range_max", value=44.0),
            row(3, ip_version=6, statistic="range_min", value=37.0), row(4, ip_version=6, statistic="range_max", value=45.0)]
    v = verdict(record(rows, [claim()]))
    assert v["verdict"] == "disagrees" and "b's highest 45 > a's highest 44" in v["note"]


def test_ranges_that_do_not_overlap_prove_it_at_every_size_and_overlap_decides_nothing():
    apart = [row(1, ip_version=4, statistic="range_min", value=46.0), row(2, ip_version=4, statistic="range_max", value=50.0),
             row(3, ip_version=6, statistic="range_min", value=37.0), row(4, ip_version=6, statistic="range_max", value=45.0)]
    assert verdict(record(apart, [claim()]))["verdict"] == "agrees"  # the ranges cover every size
    overlap = [row(1, ip_version=4, statistic="range_min", value=38.0), row(2, ip_version=4, statistic="range_max", value=46.0),
               row(3, ip_version=6, statistic="range_min", value=37.0), row(4, ip_version=6, statistic="range_max", value=45.0)]
    assert verdict(record(overlap, [claim()]))["verdict"] == "untestable"


def test_a_tested_claim_is_not_supported_when_printed_ranges_disagree():
    rows = [row(1, ip_version=4, size_bytes=128, size_kind="packet", statistic="mean", value=44.0),
            row(2, ip_version=6, size_bytes=128, size_kind="packet", statistic="mean", value=40.0),
            row(3, ip_version=4, size_bytes=128, size_kind="packet", statistic="sd", value=0.5),
            row(4, ip_version=6, size_bytes=128, size_kind="packet", statistic="sd", value=0.5),
            row(5, ip_version=4, statistic="range_max", value=44.0), row(6, ip_version=6, statistic="range_max", value=47.0)]
    v = verdict(record(rows, [claim()], runs=10))
    assert v["class"] == "tested" and v["verdict"] == "disagrees"


def one_tested_cell(mean_4, mean_6, sd_4, sd_6, runs):
    """One size (128 bytes) with both means and SDs printed: a tested claim of one cell."""
    rows = [row(1, ip_version=4, size_bytes=128, size_kind="packet", statistic="mean", value=mean_4),
            row(2, ip_version=6, size_bytes=128, size_kind="packet", statistic="mean", value=mean_6),
            row(3, ip_version=4, size_bytes=128, size_kind="packet", statistic="sd", value=sd_4),
            row(4, ip_version=6, size_bytes=128, size_kind="packet", statistic="sd", value=sd_6)]
    verdicts, cells = evaluate_claims(record(rows, [claim()], sizes=(128,), runs=runs))
    return verdicts.set_index("id").loc["X"], cells.iloc[0]


WHY = "a direction read from the text after the data is not a pre-registered one-sided hypothesis"


def test_a_post_hoc_claim_with_a_two_sided_p_between_005_and_010_is_inconclusive_and_says_why():
    """000's C016 at 1408 bytes: IPv4 48.27 vs IPv6 47.88 Mbps, SD 0.98 / 0.83, n = 40.
    By hand: se = sqrt(0.98²/40 + 0.83²/40) = 0.203058, t = 0.39 / se = 1.920635,
    Welch df = 75.942106; two-sided p = 2 P(T > t) = 0.0585319, one-sided 0.0292659."""
    v, cell = one_tested_cell(48.27, 47.88, 0.98, 0.83, 40)
    assert cell["statistic"] == pytest.approx(1.920634709859331, rel=1e-12)
    assert cell["df"] == pytest.approx(75.94210606629778, rel=1e-12)
    assert cell["p_adj"] == pytest.approx(0.05853189968922991, rel=1e-9, abs=0)
    assert cell["p_adj_one_sided"] == pytest.approx(0.029265949844614954, rel=1e-9, abs=0)
    assert cell["test"] == "Welch t, two-sided (post hoc, exploratory)" and cell["registration"] == "post hoc"
    assert (cell["verdict"], cell["verdict_one_sided"]) == ("inconclusive", "supported")
    assert v["registration"] == "post hoc" and v["verdict"] == "inconclusive"
    assert v["p_adj"] == pytest.approx(0.05853189968922991, rel=1e-9, abs=0)
    assert v["p_adj_one_sided"] == pytest.approx(0.029265949844614954, rel=1e-9, abs=0)
    assert v["note"] == ("inconclusive, not supported, tested two-sided (post hoc): two-sided p_adj 0.059 ≥ 0.05; "
                         f"the one-sided test formerly used gave 0.029 (supported) — {WHY}")


def test_a_clear_difference_stays_supported_with_no_note():
    """44 vs 40, SD 0.5 each, n = 10: t = 4 / sqrt(0.05) = 17.888544, df = 18, two-sided p = 6.5486e-13."""
    v, cell = one_tested_cell(44.0, 40.0, 0.5, 0.5, 10)
    assert cell["statistic"] == pytest.approx(17.88854381999832, rel=1e-12)
    assert cell["df"] == pytest.approx(18.0, rel=1e-12)
    assert v["verdict"] == "supported" and v["note"] == "" and v["registration"] == "post hoc"
    assert v["p_adj"] == pytest.approx(6.548574155621452e-13, rel=1e-6, abs=0)
    assert v["p_adj_one_sided"] == pytest.approx(v["p_adj"] / 2, rel=1e-12, abs=0)


def test_a_clear_difference_the_other_way_is_contradicted():
    v, cell = one_tested_cell(40.0, 44.0, 0.5, 0.5, 10)
    assert v["verdict"] == "contradicted" and v["note"] == ""
    assert v["p_adj"] == pytest.approx(6.548574155621452e-13, rel=1e-6, abs=0)  # two-sided: the same p
    assert v["p_adj_one_sided"] == pytest.approx(1 - 6.548574155621452e-13 / 2, rel=1e-12)  # the claimed way


def test_a_weak_difference_the_other_way_is_no_longer_a_contradiction():
    """The mirror of C016: one-sided the other way gave 0.029 (contradicted); two-sided 0.059."""
    v, cell = one_tested_cell(47.88, 48.27, 0.83, 0.98, 40)
    assert (cell["verdict"], cell["verdict_one_sided"]) == ("inconclusive", "contradicted")
    assert v["verdict"] == "inconclusive"
    assert v["note"] == ("inconclusive, not contradicted, tested two-sided (post hoc): two-sided p_adj 0.059 ≥ 0.05; "
                         f"the one-sided test the other way formerly gave 0.029 (contradicted) — {WHY}")


def test_an_untestable_claim_says_what_is_missing():
    v = verdict(record([row(1, ip_version=4, statistic="mean", value=1.0, metric="rtt_ms", unit="ms")], [claim()]))
    assert v["verdict"] == "untestable" and "means of IPv4 and IPv6" in v["missing"]


@pytest.mark.parametrize("holds, cells, expected", [
    ("all", ["supported", "supported"], "supported"),
    ("all", ["supported", "inconclusive"], "inconclusive"),
    ("all", ["supported", "contradicted", "inconclusive"], "contradicted"),
    ("any", ["inconclusive", "supported"], "supported"),
    ("any", ["contradicted", "contradicted"], "contradicted"),
    ("most", ["supported", "supported", "inconclusive"], "supported"),
    ("most", ["contradicted", "contradicted", "supported"], "contradicted"),
])
def test_aggregation_over_cells(holds, cells, expected):
    assert aggregate(holds, cells, "supported", "contradicted", ("inconclusive",)) == expected


def test_sign_aggregation_ignores_restated_cells_and_never_turns_a_tie_into_a_contradiction():
    assert sign_aggregate("all", ["restated", "agrees"]) == "agrees"
    assert sign_aggregate("all", ["restated"]) == "restated"
    assert sign_aggregate("all", ["agrees", "tie"]) == "tie"



def test_a_directional_claim_is_judged_on_its_two_one_sided_p_values():
    # p = one-sided p in the claimed direction, p_outside = one-sided p the other way
    assert rules.tested_verdict("greater", -1.0, 0.995, 0.05, 0.005) == "contradicted"
    assert rules.tested_verdict("greater", 1.0, 0.04, 0.05, 0.96) == "supported"  # two-sided p 0.08
    assert rules.tested_verdict("greater", 1.0, 0.20, 0.05, 0.80) == "inconclusive"
    with pytest.raises(ValueError, match="both one-sided p-values"):
        rules.tested_verdict("greater", 1.0, 0.01, 0.05)  # a two-sided p alone is not enough


def test_cross_check_finds_a_quantity_printed_twice_differently_and_a_point_outside_its_range():
    rows = [row(1, ip_version=4, statistic="max", value=44.96, snippet="IPv4 peaked at 44.96"),
            row(2, ip_version=4, statistic="max", value=38.20, snippet="the IPv4 maximum was 38.20"),
            row(3, ip_version=4, statistic="range_max", value=44.96, snippet="IPv4 ranged up to 44.96"),
            row(4, ip_version=4, size_bytes=1408, size_kind="packet", statistic="mean", value=46.1,
                snippet="at 1408 bytes IPv4 gave 46.1")]
    found = pd.DataFrame(cross_check(record(rows, [claim()])))
    rules = dict(zip(found["rule"], found["severity"]))
    assert rules["printed twice differently"] == "major"  # 44.96 vs 38.20: > 10 % apart
    assert rules["outside its printed range"] == "major"


def test_cross_check_recomputes_a_percentage_from_its_two_printed_operands():
    rows = [row(1, ip_version=4, size_bytes=128, size_kind="packet", statistic="mean", value=50.0),
            row(2, ip_version=6, size_bytes=128, size_kind="packet", statistic="mean", value=40.0),
            row(3, ip_version=4, size_bytes=128, size_kind="packet", statistic="pct_diff", value=20.0,
                unit="%", compared_to="IPv6"),  # (50-40)/50 = 20 %: follows
            row(4, os="A", ip_version=4, size_bytes=128, size_kind="packet", statistic="pct_diff", value=30.0,
                unit="%", compared_to="IPv6", snippet="IPv4 was 30% higher")]  # neither base gives 30
    found = pd.DataFrame(cross_check(record(rows, [claim()])))
    bad = found[found["rule"] == "percentage does not follow"]
    assert len(bad) == 1 and "printed 30%" in bad["recomputation"].iloc[0]


def test_cross_check_flags_physically_impossible_numbers():
    rows = [row(1, ip_version=4, statistic="max", value=1200.0),
            row(2, ip_version=4, statistic="mean", size_bytes=128, size_kind="packet", metric="cpu_pct",
                unit="%", value=130.0)]
    rec = record(rows, [claim()])
    rec.design["design"].append({"field": "link_rate_mbps", "value": 1000})
    rules = set(pd.DataFrame(cross_check(rec))["rule"])
    assert {"above the link rate", "percentage outside 0-100"} <= rules


# ---------------------------------------------------------------- quantifiers and scope (issue 23)

def _pct(n, size, value, os="A", compared_to="IPv6", snippet=None):
    return row(n, os=os, ip_version=4, size_bytes=size, size_kind="packet", statistic="pct_diff", value=value,
               unit="%", compared_to=compared_to, larger_side="subject" if value >= 0 else "compared",
               snippet=snippet or f"At {size} bytes on {os} IPv4 differed from {compared_to} by {value}%")


def test_most_is_refuted_only_by_more_than_half_of_the_claims_cells():
    sizes = (64, 128, 256, 512)
    one_against = [_pct(1, 64, -3.0)]  # printed as IPv4 below IPv6: against 'IPv4 > IPv6'
    v = verdict(record([{**r, "value": abs(r["value"])} for r in one_against], [claim(holds="most")], sizes))
    assert v["verdict"] == "disagrees where printed", v["note"]
    three_against = [{**_pct(i, s, 3.0), "larger_side": "compared"} for i, s in enumerate(sizes[:3], 1)]
    assert verdict(record(three_against, [claim(holds="most")], sizes))["verdict"] == "disagrees"
    two_of_four = three_against[:2]  # half is not more than half
    assert verdict(record(two_of_four, [claim(holds="most")], sizes))["verdict"] == "disagrees where printed"


def test_any_is_refuted_only_when_every_cell_is_against_it():
    against = [{**_pct(1, 128, 3.0), "larger_side": "compared"}]
    assert verdict(record(against, [claim(holds="any")]))["verdict"] == "disagrees where printed"
    both = against + [{**_pct(2, 1408, 3.0), "larger_side": "compared"}]
    assert verdict(record(both, [claim(holds="any")]))["verdict"] == "disagrees"


def test_one_size_against_refutes_all_but_not_most_by_the_printed_ranges():
    """b's highest above a's highest shows a < b at one size: enough against 'all', nothing against 'most'."""
    rows = [row(1, ip_version=4, statistic="range_min", value=10.0), row(2, ip_version=4, statistic="range_max", value=20.0),
            row(3, ip_version=6, statistic="range_min", value=12.0), row(4, ip_version=6, statistic="range_max", value=25.0)]
    assert verdict(record(rows, [claim()]))["verdict"] == "disagrees"
    v = verdict(record(rows, [claim(holds="most")]))
    assert v["verdict"] == "untestable"  # overlapping ranges decide nothing about 'most'
    apart = rows[:2] + [row(3, ip_version=6, statistic="range_min", value=21.0),
                        row(4, ip_version=6, statistic="range_max", value=25.0)]
    assert verdict(record(apart, [claim(holds="most")]))["verdict"] == "disagrees"  # a < b at every size


def test_a_difference_with_another_os_is_no_evidence_for_this_os():
    """'IPv4 on A was 5% above IPv6 on B': not a comparison of IPv4 and IPv6 on A."""
    rows = [_pct(1, 128, 5.0, compared_to="B, IPv6"), row(2, os="B", ip_version=6, statistic="mean", value=1.0,
                                                           size_bytes=999)]
    assert verdict(record(rows, [claim()]))["verdict"] == "untestable"
    same_os = [_pct(1, 128, 5.0, compared_to="A, IPv6")] + rows[1:]
    assert verdict(record(same_os, [claim()]))["verdict"] == "agrees where printed"


def test_means_printed_for_several_levels_of_an_unnamed_factor_are_not_used():
    """A claim silent on transport cannot be judged on TCP's mean and UDP's at once."""
    rows = [row(1, ip_version=4, transport="TCP", size_bytes=128, statistic="mean", value=10.0),
            row(2, ip_version=4, transport="UDP", size_bytes=128, statistic="mean", value=30.0),
            row(3, ip_version=6, transport="TCP", size_bytes=128, statistic="mean", value=20.0)]
    rec = record(rows, [claim()])
    cells = evaluate_claims(rec)[1]
    cell = cells[cells["cell"] == "128"].iloc[0]
    assert pd.isna(cell["mean_a"]) and "several transport levels" in cell["note"]
    named = record(rows, [claim(scope={"os": "A", "transport": "TCP"})])
    assert evaluate_claims(named)[1].set_index("cell").loc["128", "diff"] == -10.0


def test_an_up_to_said_of_all_oses_bounds_each_oss_own_up_to():
    """'By up to 10 % on all of the operating systems' is the group's largest: A's own
    'up to 8 %' is no second, different printing of it; A's 'up to 12.4 %' is."""
    group = "TCP outperformed UDP on all of the operating systems by up to 10% at 128 bytes"

    def rows(own):
        said = [row(i, os=o, transport="TCP", size_bytes=128, statistic="max_pct_diff", value=10.0, unit="%",
                    compared_to="UDP", larger_side="subject", snippet=group) for i, o in enumerate("ABC", 1)]
        return said + [row(9, os="A", transport="TCP", size_bytes=128, statistic="max_pct_diff", value=own,
                           unit="%", compared_to="UDP", larger_side="subject", snippet=f"A: up to {own}%")]

    def twice(own):
        return [f for f in cross_check(record(rows(own), [])) if f["rule"] == "printed twice differently"]

    assert twice(8.0) == [] and twice(10.4) == []  # within the bound, to its printed precision
    assert len(twice(12.4)) == 1
