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
"""

from analysis.reproduce.audit import audit_table
from analysis.reproduce.derived import recompute_derived
from analysis.reproduce.lookup import Record, load_record
from analysis.reproduce.mdd import mdd_table, minimum_detectable_difference
from analysis.reproduce.own_data import own_data_counts, own_data_table
from analysis.reproduce.study import Reproduction, overview_table, reproduce_study
from analysis.reproduce.tables import rebuild_tables
from analysis.reproduce.verdicts import CLASSES, evaluate_claims, summary_counts

__all__ = [
    "CLASSES", "Record", "Reproduction", "overview_table", "reproduce_study", "audit_table", "evaluate_claims", "load_record", "mdd_table",
    "minimum_detectable_difference", "own_data_counts", "own_data_table", "rebuild_tables", "recompute_derived", "summary_counts",
]
