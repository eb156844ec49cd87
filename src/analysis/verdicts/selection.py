"""Which runs a claim is about, and how they split into cells."""

from __future__ import annotations

import pandas as pd

from analysis.verdicts.spec import Hypothesis, canon, canon_column


def select(hyp: Hypothesis, runs: pd.DataFrame, successful_only: bool = True) -> pd.DataFrame:
    """Successful runs in scope, with the compared group as column '_group'
    (every run in scope, failed ones too, with ``successful_only=False``: which were made)."""
    data = runs[runs["status"] == "ok"] if "status" in runs.columns and successful_only else runs
    for factor, value in hyp.scope.items():
        values = {canon(v) for v in (value if isinstance(value, list) else [value])}
        data = data[canon_column(data[factor]).isin(values)]
    mapping = hyp.compare.level_map()
    group = data[hyp.compare.factor].map(lambda v: mapping.get(canon(v)))
    return data.assign(_group=group).dropna(subset=["_group", hyp.metric] if successful_only else ["_group"])


def _numeric_first(label: str):
    """Sort key for 'factor=level' labels: numbers in numeric order (128 before 1024)."""
    value = label.split("=", 1)[-1]
    try:
        return (0, float(value), "")
    except ValueError:
        return (1, 0.0, value)


def split_cells(hyp: Hypothesis, data: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """One (label, runs) per level of ``per`` when the claim holds per cell; else one cell."""
    if hyp.per and hyp.holds in ("all", "any"):
        cells = [(f"{hyp.per}={k}", g) for k, g in data.groupby(canon_column(data[hyp.per]), sort=False)]
        return sorted(cells, key=lambda item: _numeric_first(item[0]))
    return [("all", data)]
