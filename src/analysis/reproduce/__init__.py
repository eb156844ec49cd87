"""Reproduce a study from its published record: one job per module.

- ``lookup``: find a cell's printed mean, SD, difference and runs per point.
- ``verdicts``: classify each claim (tested / descriptive / untestable) and judge it.
- ``derived``: recompute every number the text derives from other printed numbers.
- ``mdd``: the smallest difference each study could have detected.
- ``tables``: the study's tables rebuilt from the record.
- ``audit``: the consistency audit (hand-found items + what the evaluator finds).
- ``own_data``: the claims re-tested on our own mirror dataset, beside the study's verdict.
- ``study``: all of the above for one study, as its notebook shows it.

The names below are imported from their modules when first used: importing one
module of the package (the report's up-to-date check reads ``claims`` and
``mirrors``) does not import them all, and scipy and statsmodels with them
(3.8 s of a report with nothing to rebuild).
"""

import importlib
from typing import TYPE_CHECKING

_MODULE_OF = {
    "audit_table": "audit", "recompute_derived": "derived", "Record": "lookup", "load_record": "lookup",
    "mdd_table": "mdd", "minimum_detectable_difference": "mdd", "own_data_counts": "own_data",
    "own_data_table": "own_data", "Reproduction": "study", "overview_table": "study", "reproduce_study": "study",
    "rebuild_tables": "tables", "CLASSES": "verdicts", "evaluate_claims": "verdicts", "summary_counts": "verdicts",
}

if TYPE_CHECKING:
    from analysis.reproduce.audit import audit_table
    from analysis.reproduce.derived import recompute_derived
    from analysis.reproduce.lookup import Record, load_record
    from analysis.reproduce.mdd import mdd_table, minimum_detectable_difference
    from analysis.reproduce.own_data import own_data_counts, own_data_table
    from analysis.reproduce.study import Reproduction, overview_table, reproduce_study
    from analysis.reproduce.tables import rebuild_tables
    from analysis.reproduce.verdicts import CLASSES, evaluate_claims, summary_counts


def __getattr__(name: str):
    if name in _MODULE_OF:
        return getattr(importlib.import_module(f"{__name__}.{_MODULE_OF[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CLASSES", "Record", "Reproduction", "overview_table", "reproduce_study", "audit_table", "evaluate_claims", "load_record", "mdd_table",
    "minimum_detectable_difference", "own_data_counts", "own_data_table", "rebuild_tables", "recompute_derived", "summary_counts",
]
