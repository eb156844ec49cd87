"""Which test a claim gets, and the pre-tests reported beside it.  SYNTHETIC data."""

import numpy as np
import pandas as pd

from analysis.stats import group_residuals, shapiro

from analysis.verdicts.policy import assumption_checks, pick_test
from analysis.verdicts.spec import parse_hypotheses


def hyp(**extra):
    [h] = parse_hypotheses([{"id": "P", "statement": "s", "metric": "rtt_ms", "direction": "less",
                             "compare": {"factor": "ip_version", "levels": [4, 6]}, **extra}])
    return h


def test_auto_is_welch_for_every_metric_and_a_rank_test_only_when_asked():
    assert pick_test(hyp()) == "welch"  # a latency too: the test is fixed before the data
    assert pick_test(hyp(test="mann-whitney")) == "mann-whitney"


def test_pre_tests_are_skipped_below_five_runs_and_say_why():
    data = pd.DataFrame({"_group": ["4"] * 4 + ["6"] * 4, "rtt_ms": [1.0, 2, 3, 4, 2, 3, 4, 5]})
    checks, skipped = assumption_checks(hyp(), data)
    assert checks == []
    assert skipped == "pre-tests skipped: 4 run(s) in the smallest cell, fewer than 5 say nothing of a shape or a spread"


def test_shapiro_sees_standardised_residuals_so_unequal_spreads_alone_pass():
    rng = np.random.default_rng(3)
    a, b = rng.normal(0, 1, 40), rng.normal(0, 20, 40)  # normal in each group, SDs 1:20
    data = pd.DataFrame({"_group": ["4"] * 40 + ["6"] * 40, "rtt_ms": np.concatenate([a, b])})
    spread, shape = assumption_checks(hyp(), data)[0]
    assert not spread.passed  # Brown-Forsythe sees the unequal spreads
    assert shape.passed
    assert not shapiro(group_residuals(data["rtt_ms"], data["_group"])).passed  # raw residuals would fail
