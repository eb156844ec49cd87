"""Decide what the printed numbers decide (issue 23, item 4): an untestable claim whose
scope prints values at both compared levels is decided, or its claims file says why not."""

import pytest

from analysis.reproduce.claims import studies
from analysis.reproduce.decidable import unjustified_untestable
from analysis.reproduce.lookup import load_record
from analysis.reproduce.verdicts import evaluate_claims

@pytest.mark.slow
@pytest.mark.parametrize("study", studies())
def test_no_untestable_claim_leaves_printed_evidence_unexplained(study):
    record = load_record(study)
    verdicts, _ = evaluate_claims(record)
    assert unjustified_untestable(record, verdicts) == []
