"""Claims that name no size, and claims over sizes with a number printed for no size (issue 23, item 4):
decided on what is printed, under nested quantifiers, and the decidability check that lists the rest."""
from __future__ import annotations

import pytest

from analysis.reproduce.decidable import comparisons_in_scope, unjustified_untestable
from analysis.reproduce.verdicts import evaluate_claims
from analysis.verdicts.rules import over_groups
from test_rules import claim, record, row

SIZES = (128, 256, 512, 1024, 1408)


def pct(n, ip_version, size, value, larger="subject", os="A", **kw):
    """IPv4 (or IPv6) printed ``value`` % above the other IP version at ``size`` (None: no size)."""
    other = 6 if ip_version == 4 else 4
    return row(n, ip_version=ip_version, size_bytes=size if size is not None else "", size_kind="packet",
               statistic="pct_diff", value=value, unit="%", compared_to=f"IPv{other}", larger_side=larger, os=os,
               snippet=f"on {os} IPv{ip_version} was {value}% off at {size} bytes", **kw)


def no_size(**kw):
    return claim(per=[], **kw)


def judged(rows, claims):
    return evaluate_claims(record(rows, claims, sizes=SIZES))[0].set_index("id").loc["X"]


def test_a_claim_that_names_no_size_is_judged_at_the_printed_sizes():
    rows = [pct(1, 4, 128, 3.0), pct(2, 4, 256, 2.0), pct(3, 4, 512, 4.0)]
    v = judged(rows, [no_size()])
    assert v["verdict"] == "agrees" and v["holds_at"] == "3 of 5"  # more than half of the study's sizes


def test_one_printed_size_decides_it_only_where_printed():
    v = judged([pct(1, 4, 1408, 3.0)], [no_size()])
    assert v["verdict"] == "agrees where printed" and v["judged_at"] == "1408 B"
    against = judged([pct(1, 6, 1408, 3.0)], [no_size()])
    assert against["verdict"] == "disagrees where printed"
    assert "more than half of the study's sizes against it" in against["note"]


def test_more_than_half_of_the_sizes_against_refutes_it():
    rows = [pct(n, 6, s, 2.0) for n, s in enumerate((128, 256, 512), start=1)] + [pct(4, 4, 1408, 1.0)]
    assert judged(rows, [no_size()])["verdict"] == "disagrees"


def test_the_claims_own_quantifier_counts_the_groups():
    """Per OS: 'all' fails when one OS is refuted over its sizes; 'most' needs more than half of the OSes."""
    a_for = [pct(n, 4, s, 2.0, os="A") for n, s in enumerate((128, 256, 512), start=1)]
    b_against = [pct(n, 6, s, 2.0, os="B") for n, s in enumerate((128, 256, 512), start=10)]
    c_for = [pct(n, 4, s, 2.0, os="C") for n, s in enumerate((128, 256, 512), start=20)]
    per_os = {"scope": {}, "per": ["os"]}
    assert judged(a_for + b_against + c_for, [claim(**per_os)])["verdict"] == "disagrees"
    assert judged(a_for + b_against + c_for, [claim(**per_os, holds="most")])["verdict"] == "agrees"
    assert judged(a_for + c_for, [claim(**per_os)])["verdict"] == "agrees"


def test_a_number_printed_without_a_size_still_decides_a_no_size_claim_directly():
    v = judged([pct(1, 4, None, 3.0)], [no_size()])
    assert v["verdict"] == "agrees" and v["judged"] == "1 of 1"


def test_a_restated_summary_gives_way_to_the_bodys_numbers_at_sizes():
    quote = "IPv4 has higher throughput than IPv6"
    rows = [pct(1, 4, None, 3.0) | {"snippet": quote + " by 3%"}, pct(2, 6, 128, 1.0), pct(3, 6, 256, 1.0),
            pct(4, 6, 512, 1.0)]
    v = judged(rows, [no_size(quote=quote)])
    assert v["verdict"] == "disagrees" and v["judged_at"] == "128 B | 256 B | 512 B"


def test_a_difference_printed_for_no_size_refutes_all_sizes_but_decides_most_only_where_printed():
    against = [pct(1, 6, None, 4.0)]  # IPv6 above IPv4 on average: IPv4 below at one size at least
    assert judged(against, [claim()])["verdict"] == "disagrees"
    assert judged(against, [claim(holds="most")])["verdict"] == "disagrees where printed"
    assert judged([pct(1, 4, None, 4.0)], [claim()])["verdict"] == "agrees where printed"


def test_a_number_printed_for_no_size_is_not_used_for_a_claim_about_some_sizes():
    v = judged([pct(1, 6, None, 4.0)], [claim(scope={"os": "A", "size_bytes": [128, 256]})])
    assert v["verdict"] == "untestable"


def test_as_many_printed_values_for_it_as_against_it_is_not_a_tie():
    rows = [pct(1, 4, 128, 2.0), pct(2, 6, 256, 2.0)]
    assert judged(rows, [claim(holds="most")])["verdict"] == "disagrees where printed"


@pytest.mark.parametrize("holds, groups, expected", [
    ("all", ["agrees", "agrees"], "agrees"),
    ("all", ["supported", "supported"], "supported"),
    ("all", ["agrees", "disagrees where printed"], "disagrees where printed"),
    ("all", ["agrees", "contradicted"], "contradicted"),
    ("all", ["agrees", "untestable"], "agrees where printed"),
    ("most", ["agrees", "agrees", "disagrees"], "agrees"),
    ("most", ["disagrees", "disagrees", "agrees"], "disagrees"),
    ("most", ["agrees", "disagrees"], "disagrees where printed"),
    ("any", ["disagrees", "agrees"], "agrees"),
    ("any", ["disagrees", "disagrees"], "disagrees"),
    ("any", ["disagrees", "untestable"], "disagrees where printed"),
    ("all", ["supported where printed", "inconclusive"], "inconclusive"),  # 001 C010: IPv6's cell undecided
    ("most", ["supported", "supported", "inconclusive"], "supported"),
    ("all", ["restated", "untestable"], "restated"),
    ("all", ["untestable"], "untestable"),
])
def test_over_groups(holds, groups, expected):
    assert over_groups(holds, groups) == expected


def test_decidable_lists_an_untestable_claim_whose_scope_prints_a_comparison():
    """A 'similar' claim with no margin stays untestable; the check lists it until a reason is given,
    and ignores the claim's own sentence and the exceptions it names."""
    similar = claim(direction="equivalent")
    rows = [pct(1, 4, 128, 3.0)]
    rec = record(rows, [similar], sizes=SIZES)
    verdicts, _ = evaluate_claims(rec)
    assert verdicts.set_index("id").loc["X", "verdict"] == "untestable"
    assert unjustified_untestable(rec, verdicts) == ["X"]
    reasoned = record(rows, [similar | {"reason": "no margin"}], sizes=SIZES)
    assert unjustified_untestable(reasoned, evaluate_claims(reasoned)[0]) == []
    assert "no margin" in evaluate_claims(reasoned)[0].set_index("id").loc["X", "missing"]
    own = record([pct(1, 4, 128, 3.0) | {"snippet": similar["quote"]}], [similar], sizes=SIZES)
    assert comparisons_in_scope(own.claims.claims[0], own).empty
    named = record(rows, [similar | {"exclude": [{"size_bytes": 128}]}], sizes=SIZES)
    assert comparisons_in_scope(named.claims.claims[0], named).empty
    other_app = record([pct(1, 4, 128, 3.0, application="DNS")], [similar], sizes=SIZES)
    assert comparisons_in_scope(other_app.claims.claims[0], other_app).empty


def test_a_named_exception_is_no_size_of_a_claim_that_names_no_size():
    rows = [pct(1, 6, 128, 2.0), pct(2, 4, 256, 1.0)]
    assert judged(rows, [no_size()])["verdict"] == "disagrees where printed"
    v = judged(rows, [no_size(exclude=[{"size_bytes": 128}])])
    assert v["verdict"] == "agrees where printed" and v["judged_at"] == "256 B"


def ranges(a_low, a_high, b_low, b_high):
    """IPv4's (a) and IPv6's (b) printed ranges over sizes."""
    return [row(90, ip_version=4, statistic="range_min", value=a_low), row(91, ip_version=4, statistic="range_max", value=a_high),
            row(92, ip_version=6, statistic="range_min", value=b_low), row(93, ip_version=6, statistic="range_max", value=b_high)]


def test_printed_ranges_bear_on_a_claim_that_names_no_size():
    """Ranges apart decide every size; a's lowest below b's lowest puts a below b at one size."""
    assert judged(ranges(46, 50, 37, 45), [no_size()])["verdict"] == "agrees"
    crossed = judged([pct(1, 4, 128, 3.0)] + ranges(37.3, 46.1, 37.5, 42.2), [no_size()])
    assert crossed["verdict"] == "agrees where printed"  # for at 128 B and at a's peak, against where a is lowest
    assert "a's lowest 37.3 < b's lowest 37.5" in crossed["note"]


def test_a_tested_cell_for_and_a_printed_value_against_lean_against_most():
    tested = [row(1, ip_version=4, size_bytes=128, size_kind="packet", statistic="mean", value=44.0),
              row(2, ip_version=6, size_bytes=128, size_kind="packet", statistic="mean", value=40.0),
              row(3, ip_version=4, size_bytes=128, size_kind="packet", statistic="sd", value=0.5),
              row(4, ip_version=6, size_bytes=128, size_kind="packet", statistic="sd", value=0.5)]
    rec = record(tested + [pct(5, 6, 256, 2.0)], [claim(holds="most")], sizes=SIZES, runs=10)
    assert evaluate_claims(rec)[0].set_index("id").loc["X", "verdict"] == "disagrees where printed"
    alone = record(tested, [claim(holds="most")], sizes=SIZES, runs=10)
    assert evaluate_claims(alone)[0].set_index("id").loc["X", "verdict"] == "supported where printed"


def test_over_sizes_says_how_a_claim_that_names_no_size_speaks_of_its_sizes():
    """'There were differences' holds at some size: one printed size decides it under over_sizes: any."""
    rows = [pct(1, 4, 128, 3.0)]
    assert judged(rows, [no_size(direction="different")])["verdict"] == "agrees where printed"
    assert judged(rows, [no_size(direction="different", over_sizes="any")])["verdict"] == "agrees"
    with pytest.raises(ValueError, match="names no size"):
        record(rows, [claim(over_sizes="any")])


def test_a_superlative_of_the_peaks_is_decided_by_the_printed_peaks():
    """'IPv4 gave the highest throughput': the peaks decide it, whatever one size says."""
    rows = [pct(1, 6, 128, 2.0)] + ranges(30, 50, 31, 45)
    assert judged(rows, [no_size()])["verdict"] == "disagrees where printed"
    assert judged(rows, [no_size(over_sizes="peak")])["verdict"] == "agrees"
    assert judged(ranges(30, 44, 31, 45), [no_size(over_sizes="peak")])["verdict"] == "disagrees"


def test_a_number_from_the_claims_own_sentence_is_restated_even_with_sds_and_beside_another():
    """A Welch test of the claim's own difference tests the claim's words, not the study's data."""
    quote = "IPv4 has higher throughput than IPv6"
    rows = [row(1, ip_version=4, size_bytes=128, size_kind="packet", statistic="mean", value=44.0, snippet=quote + ": 44"),
            row(2, ip_version=6, size_bytes=128, size_kind="packet", statistic="mean", value=40.0),
            row(3, ip_version=4, size_bytes=128, size_kind="packet", statistic="sd", value=0.5),
            row(4, ip_version=6, size_bytes=128, size_kind="packet", statistic="sd", value=0.5)]
    rec = record(rows, [claim(quote=quote, per=[], scope={"os": "A", "size_bytes": 128})], sizes=SIZES, runs=10)
    assert evaluate_claims(rec)[0].set_index("id").loc["X", "verdict"] == "restated"


def at_size(n, ip_version, size, statistic, value, snippet=""):
    return row(n, ip_version=ip_version, size_bytes=size, size_kind="packet", statistic=statistic, value=value,
               snippet=snippet)


def test_a_peak_printed_at_its_size_decides_a_superlative_of_the_peaks():
    """'IPv6 has the highest RTT of 0.2 ms' beside 'IPv4 peaks at 0.19 ms at the largest size':
    the peaks are printed as one size's maximum, not as a range."""
    rows = [at_size(1, 4, 1408, "max", 0.19), at_size(2, 6, 1408, "mean", 0.2), at_size(3, 6, 1024, "max", 0.18),
            at_size(4, 4, 128, "mean", 0.1), at_size(5, 6, 128, "mean", 0.12)]
    peak = judged(rows, [no_size(direction="less", over_sizes="peak")])
    assert peak["verdict"] == "agrees" and "a's highest printed 0.2" in peak["note"]  # a mean raises a peak (a: the side claimed higher)
    assert judged(rows, [no_size(over_sizes="peak")])["verdict"] == "disagrees"


def test_a_mean_alone_is_no_peak():
    """IPv4's curve may peak at a size the text gives no number for: its one printed mean decides nothing."""
    rows = [at_size(1, 6, 1408, "max", 528.0), at_size(2, 4, 512, "mean", 354.0), at_size(3, 6, 512, "mean", 355.0)]
    assert judged(rows, [no_size(over_sizes="peak")])["verdict"] == "untestable"


def test_a_peak_known_only_from_the_claims_own_sentence_is_restated():
    quote = "The highest latency is 4.92 ms for IPv4 compared to 4.67 ms for IPv6"
    rows = [at_size(1, 4, 1408, "max", 4.92, snippet=quote),
            at_size(2, 6, 128, "max", 4.67, snippet="The highest delay of IPv6 is 4.67 ms."),
            at_size(3, 4, 128, "mean", 4.0)]
    assert judged(rows, [no_size(quote=quote, over_sizes="peak")])["verdict"] == "restated"
    rows[0] = at_size(1, 4, 1408, "max", 4.92, snippet="IPv4 peaks at 4.92 ms.")
    assert judged(rows, [no_size(quote=quote, over_sizes="peak")])["verdict"] == "agrees"


def test_a_lowest_superlative_is_decided_by_the_printed_minima():
    """'The RTT is lowest on IPv4': IPv4's minimum below IPv6's, whatever the maxima say."""
    rows = ranges(1.20, 1.48, 1.24, 1.44)
    lowest = judged(rows, [no_size(direction="less", over_sizes="lowest")])
    assert lowest["verdict"] == "agrees" and "a's lowest printed 1.24, b's lowest printed 1.2" in lowest["note"]
    assert judged(rows, [no_size(direction="less", over_sizes="peak")])["verdict"] == "disagrees"


def test_a_number_in_the_sentence_of_the_claims_named_exception_is_not_its_evidence():
    """'IPv6 required more CPU on most sizes' + 'However, 5266 and 8037 required up to 0.2 % more than IPv6':
    the second number speaks of the excepted sizes only."""
    exception = "However, frame sizes 1024 and 1408 Bytes required up to 0.2% more than IPv6."
    rows = [pct(1, 4, None, 0.2) | {"snippet": exception}]
    main = claim(holds="most", direction="less", exclude=[{"size_bytes": 1024}, {"size_bytes": 1408}])
    assert judged(rows, [main])["verdict"] == "disagrees where printed"  # without the exception on record
    other = claim(id="Y", quote=exception, kind="exception", scope={"os": "A", "size_bytes": [1024, 1408]},
                  direction="less")
    assert judged(rows, [main, other])["verdict"] == "untestable"


def means_with_sds(n, size, a, b, sd=0.5):
    """IPv4's and IPv6's means ``a`` and ``b`` with SDs at ``size`` (runs from the design)."""
    at = {"size_bytes": size, "size_kind": "packet"}
    return [row(n, ip_version=4, statistic="mean", value=a, **at), row(n + 1, ip_version=6, statistic="mean", value=b, **at),
            row(n + 2, ip_version=4, statistic="sd", value=sd, **at), row(n + 3, ip_version=6, statistic="sd", value=sd, **at)]


def test_a_group_supported_at_some_sizes_and_undecided_at_others_is_supported_where_printed():
    """000 C072: a significant size and a non-significant one lean for the claim; only a group with
    nothing but undecided tests leaves an 'all' claim inconclusive (001 C010)."""
    leaning = record(means_with_sds(1, 128, 44.0, 40.0) + means_with_sds(5, 256, 40.1, 40.0), [no_size()], sizes=SIZES, runs=10)
    assert evaluate_claims(leaning)[0].set_index("id").loc["X", "verdict"] == "supported where printed"
    undecided = record(means_with_sds(5, 256, 40.1, 40.0), [no_size()], sizes=SIZES, runs=10)
    assert evaluate_claims(undecided)[0].set_index("id").loc["X", "verdict"] == "inconclusive"
