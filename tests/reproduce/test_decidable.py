"""Decide what the printed numbers decide (issue 23, item 4): an untestable claim whose
scope prints values at both compared levels is decided, or its claims file says why not."""

import pytest

from analysis.reproduce.claims import studies
from analysis.reproduce.decidable import unjustified_untestable


@pytest.mark.slow
@pytest.mark.parametrize("study", studies())
def test_no_untestable_claim_leaves_printed_evidence_unexplained(study, reproduced):
    """On evaluate_claims' verdicts, as the session's reproduction holds them (it only adds the second readings)."""
    reproduction = reproduced(study)
    verdicts = reproduction.verdicts.drop(columns="second_reading")
    assert unjustified_untestable(reproduction.record, verdicts) == []
