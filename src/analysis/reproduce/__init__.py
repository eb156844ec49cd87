"""Reproduce a study from its published record: one job per module.

- ``lookup``: find a cell's printed mean, SD, difference and runs per point.
- ``pooled``: numbers said of a group of OSes, and the "similar" an OS's own sentence says instead.
- ``verdicts``: classify each claim (tested / descriptive / untestable) and judge it.
- ``derived``: recompute every number the text derives from other printed numbers.
- ``mdd``: the smallest difference each study could have detected.
- ``tables``: the study's tables rebuilt from the record.
- ``audit``: the consistency audit (hand-found items + what the evaluator finds).
- ``own_data``: the claims re-tested on our own mirror dataset, beside the study's verdict.
- ``study``: all of the above for one study, as its notebook shows it.
- ``summaries``: each study's overview numbers, stored while its inputs are unchanged.

The names below load their module on first use, so reading one study's
stored summary (``summaries``, the overview) or its claims file does not
import the whole evaluator (scipy, statsmodels: seconds). Type checkers see
the real signatures (the TYPE_CHECKING imports).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from analysis.reproduce.audit import audit_table
    from analysis.reproduce.derived import recompute_derived
    from analysis.reproduce.lookup import Record, load_record
    from analysis.reproduce.mdd import mdd_table, minimum_detectable_difference
    from analysis.reproduce.own_data import own_data_counts, own_data_table
    from analysis.reproduce.study import Reproduction, reproduce_study
    from analysis.reproduce.summaries import overview_tables
    from analysis.reproduce.tables import rebuild_tables
    from analysis.reproduce.verdicts import CLASSES, evaluate_claims, summary_counts

_HOME = {
    "audit_table": "audit", "recompute_derived": "derived", "Record": "lookup", "load_record": "lookup",
    "mdd_table": "mdd", "minimum_detectable_difference": "mdd", "own_data_counts": "own_data",
    "own_data_table": "own_data", "Reproduction": "study", "overview_tables": "summaries", "reproduce_study": "study",
    "rebuild_tables": "tables", "CLASSES": "verdicts", "evaluate_claims": "verdicts", "summary_counts": "verdicts",
}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(import_module(f"analysis.reproduce.{_HOME[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CLASSES", "Record", "Reproduction", "overview_tables", "reproduce_study", "audit_table", "evaluate_claims", "load_record", "mdd_table",
    "minimum_detectable_difference", "own_data_counts", "own_data_table", "rebuild_tables", "recompute_derived", "summary_counts",
]
