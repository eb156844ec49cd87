"""Which runs a claim is about, and how they split into cells."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.verdicts.spec import Hypothesis, canon, canon_column


def select(hyp: Hypothesis, runs: pd.DataFrame, successful_only: bool = True) -> pd.DataFrame:
    """Successful runs in scope, with the compared group as column '_group'
    (every run in scope, failed ones too, with ``successful_only=False``: which were made).
    One mask, one take: each filter in turn copied every column of the runs again."""
    keep = np.ones(len(runs), dtype=bool)
    if "status" in runs.columns and successful_only:
        keep &= (runs["status"] == "ok").to_numpy(dtype=bool, na_value=False)
    for factor, value in hyp.scope.items():
        values = {canon(v) for v in (value if isinstance(value, list) else [value])}
        keep &= canon_column(runs[factor]).isin(values).to_numpy()
    group = canon_column(runs[hyp.compare.factor]).map(hyp.compare.level_map()).to_numpy(dtype=object)
    keep &= pd.notna(group)
    if successful_only:
        keep &= runs[hyp.metric].notna().to_numpy()
    return runs[keep].assign(_group=group[keep])


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
