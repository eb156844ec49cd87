"""The smallest difference each study could have detected (80 % power, α = 0.05).

From the published SDs and runs per point: the difference δ at which a
two-sided two-sample t-test with n runs per group reaches 80 % power
(``analysis.stats.power_t``, as R's power.t.test), with the two SDs pooled.
A claimed difference smaller than δ could not reliably have been seen, even
where the study says it was.  Studies that print no SDs get a bound from a
stated acceptance rule ("SD below 10 %") or a multiple of the unknown SD.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from analysis.stats import minimum_detectable_difference
from analysis.reproduce.lookup import Record

POWER, ALPHA = 0.8, 0.05
MDD_COLUMNS = ["id", "cell", "a", "b", "sd_a", "sd_b", "n", "mdd", "claimed", "claimed_unit",
               "detectable"]


def acceptance_cv(record: Record) -> float | None:
    """The CV bound a study states as its acceptance rule ("SD below 10%"), if any."""
    rule = record.design_value("acceptance")
    found = re.search(r"(\d+(?:\.\d+)?)\s*%", str(rule or ""))
    return float(found.group(1)) / 100 if found else None


def mdd_table(record: Record, cells: pd.DataFrame) -> pd.DataFrame:
    """Per claim cell with a claimed difference: δ, and whether the difference is ≥ δ.

    With SDs: δ in the metric's unit.  Without SDs but with an acceptance CV
    bound and runs per point: δ as % of the mean (an upper bound, since the
    CV is at most the bound).  Otherwise δ is unknown (NaN).
    """
    rows = []
    cv, n = acceptance_cv(record), record.runs_per_point
    for c in cells.itertuples():
        claimed, unit = (abs(c.diff), "metric unit") if pd.notna(c.diff) else \
            ((abs(c.pct), "%") if pd.notna(c.pct) else (np.nan, ""))
        bound = False  # δ from a stated acceptance rule is only an upper bound on the true δ
        if pd.notna(c.sd_a) and pd.notna(c.sd_b) and n:
            mdd = minimum_detectable_difference(c.sd_a, c.sd_b, n)
        elif unit == "%" and cv and n:
            mdd, bound = 100 * minimum_detectable_difference(cv, cv, n), True
        else:
            mdd = np.nan
        if np.isnan(claimed):
            continue
        if np.isnan(mdd):
            detectable = "unknown"
        elif claimed >= mdd:
            detectable = "yes"
        else:
            detectable = f"not shown (δ ≤ {mdd:.3g} is an upper bound)" if bound else "no"
        rows.append({"id": c.id, "cell": c.cell, "a": c.a, "b": c.b, "sd_a": c.sd_a, "sd_b": c.sd_b,
                     "n": n, "mdd": mdd, "claimed": claimed, "claimed_unit": unit,
                     "detectable": detectable})
    return pd.DataFrame(rows, columns=MDD_COLUMNS)


def mdd_summary(record: Record) -> str:
    """One sentence: what this study's design could detect at all."""
    sds = record.rows[record.rows["statistic"] == "sd"]
    n, cv = record.runs_per_point, acceptance_cv(record)
    if n is None:
        return "Runs per point are not printed, so no detectable difference can be computed."
    unit = minimum_detectable_difference(1.0, 1.0, n)
    if sds.empty:
        text = f"No SDs are printed; with n = {n} runs per group the detectable difference is {unit:.2f} × SD."
        if cv:
            text += (f" The stated acceptance rule (SD below {100 * cv:g} % of the mean) bounds it "
                     f"by {100 * minimum_detectable_difference(cv, cv, n):.1f} % of the mean.")
        return text
    parts = []
    for metric, part in sds.groupby("metric"):
        lo, hi = part["value"].min(), part["value"].max()
        parts.append(f"{metric}: SD {lo:g}–{hi:g} {part['unit'].iloc[0]} → δ "
                     f"{minimum_detectable_difference(lo, lo, n):.3g}–{minimum_detectable_difference(hi, hi, n):.3g}")
    return f"n = {n} runs per point; δ = {unit:.3f} × SD. " + "; ".join(parts) + "."
