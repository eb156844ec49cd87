"""The verdict rules on their own: a cell's verdict from its adjusted p and
the sign of its estimate, and the one vocabulary campaigns and studies share."""

import math

import pytest

from analysis.verdicts import rules
from analysis.verdicts.rules import CLAIM_ORDER, Verdict, where_printed

verdict_of = rules.tested_verdict  # under its own name pytest would collect it as a test


@pytest.mark.parametrize("diff, p, verdict", [
    (+1.0, 0.01, Verdict.SUPPORTED),      # significant, the claimed way
    (-1.0, 0.01, Verdict.CONTRADICTED),   # significant, the other way
    (+1.0, 0.20, Verdict.INCONCLUSIVE),
    (-1.0, 0.20, Verdict.INCONCLUSIVE),
    (0.0, 0.01, Verdict.INCONCLUSIVE),    # a significant test whose estimate shows no direction
])
def test_a_post_hoc_claim_passes_its_two_sided_p_both_ways(diff, p, verdict):
    assert verdict_of("greater", diff, p, 0.05, p) == verdict


def test_a_registered_claim_is_contradicted_only_by_the_other_one_sided_p():
    assert verdict_of("less", +1.0, 0.995, 0.05, 0.005) == Verdict.CONTRADICTED
    assert verdict_of("less", +1.0, 0.96, 0.05, 0.04) == Verdict.CONTRADICTED
    assert verdict_of("less", -1.0, 0.04, 0.05, 0.96) == Verdict.SUPPORTED


def test_equivalence_and_difference_ignore_the_sign():
    assert verdict_of("equivalent", -3.0, 0.01, 0.05, 0.99) == Verdict.SUPPORTED
    assert verdict_of("equivalent", -3.0, 0.99, 0.05, 0.01) == Verdict.CONTRADICTED
    assert verdict_of("different", -3.0, 0.01, 0.05) == Verdict.SUPPORTED
    assert verdict_of("different", -3.0, 0.06, 0.05) == Verdict.INCONCLUSIVE


def test_a_directional_claim_without_its_second_p_is_a_programming_error():
    with pytest.raises(ValueError, match="both one-sided p-values, or the two-sided p twice"):
        verdict_of("greater", 1.0, 0.01, 0.05, math.nan)


def test_a_verdict_is_its_text_in_tables_and_in_sets():
    assert Verdict.SUPPORTED == "supported" and str(Verdict.SUPPORTED) == "supported"
    assert f"{Verdict.AGREES_WHERE_PRINTED}" == "agrees where printed"
    assert {"supported": 1}[Verdict.SUPPORTED] == 1 and Verdict("tie") is Verdict.TIE


def test_where_printed_qualifies_support_and_refutation_only():
    assert where_printed("supported") is Verdict.SUPPORTED_WHERE_PRINTED
    assert where_printed(Verdict.AGREES) is Verdict.AGREES_WHERE_PRINTED
    assert where_printed("contradicted") is Verdict.DISAGREES_WHERE_PRINTED
    assert where_printed(Verdict.DISAGREES) is Verdict.DISAGREES_WHERE_PRINTED
    with pytest.raises(KeyError):
        where_printed("inconclusive")


def test_pages_count_every_claim_verdict_in_one_order():
    claim_level = set(Verdict) - {Verdict.UNJUDGED, Verdict.UNDECIDED, Verdict.NOT_COMPARABLE}
    assert set(CLAIM_ORDER) == claim_level and len(CLAIM_ORDER) == len(claim_level)
