"""Recompute every number a study derives from its other printed numbers.

Each derived number is tried with each candidate formula (a − b, (a − b)/a,
(a − b)/b); a formula *reproduces* it when the result rounds to the printed
value at the printed number of decimals.  The first reproducing formula is
stated; otherwise the number is a mismatch and the nearest formula is shown.
"""

from __future__ import annotations

import pandas as pd

from analysis.reproduce.claims import Operand
from analysis.reproduce.lookup import Record, half_unit

DERIVED_COLUMNS = ["id", "quote", "source", "printed", "a", "b", "formula", "recomputed",
                   "status", "alternatives", "note"]


def _operand(record: Record, operand: Operand) -> float:
    if operand.value is not None:
        return operand.value
    assert operand.where is not None  # the Operand model requires exactly one of the two
    return record.index.operand_value(operand.where)


def apply(formula: str, a: float, b: float) -> float:
    """A difference in the operands' unit, or a percentage of a or of b."""
    if formula == "a - b":
        return a - b
    base = a if formula == "(a - b) / a" else b
    return 100 * (a - b) / base


def reproduces(value: float, printed: str) -> bool:
    """True when ``value`` rounds to ``printed`` at its printed precision."""
    return abs(value - float(printed)) <= half_unit(printed) + 1e-9


def recompute_derived(record: Record) -> pd.DataFrame:
    """One row per derived number: the formula that reproduces it, or the mismatch."""
    rows = []
    for item in record.claims.derived:
        a, b = _operand(record, item.a), _operand(record, item.b)
        results = {f: apply(f, a, b) for f in item.formulas}
        hits = [f for f, v in results.items() if reproduces(v, item.printed)]
        formula = hits[0] if hits else min(results, key=lambda f: abs(results[f] - float(item.printed)))
        rows.append({
            "id": item.id, "quote": item.quote, "source": item.source, "printed": item.printed,
            "a": a, "b": b, "formula": formula, "recomputed": round(results[formula], 4),
            "status": "reproduced" if hits else "mismatch",
            "alternatives": "; ".join(f"{f} = {v:.4g}" for f, v in results.items() if f != formula),
            "note": item.note})
    return pd.DataFrame(rows, columns=DERIVED_COLUMNS)
