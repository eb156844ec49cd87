"""Decide what the printed numbers decide (issue 23, item 4): an untestable claim whose
scope prints values at both compared levels is decided, or its claims file says why not."""

import pytest

from analysis.reproduce.claims import studies
from analysis.reproduce.decidable import unjustified_untestable
from analysis.reproduce.lookup import load_record
from analysis.reproduce.verdicts import evaluate_claims

OPEN = {"004_a7738a926cf50bd6": "issue 23, item 4 is open for the thesis: about 230 claims to decide or justify"}


@pytest.mark.slow
@pytest.mark.parametrize("study", [pytest.param(s, marks=pytest.mark.xfail(strict=True, reason=OPEN[s]))
                                   if s in OPEN else s for s in studies()])
def test_no_untestable_claim_leaves_printed_evidence_unexplained(study):
    record = load_record(study)
    verdicts, _ = evaluate_claims(record)
    assert unjustified_untestable(record, verdicts) == []
