"""Multiple-testing corrections across cells: Holm by default, or BH.

NaN p-values (untested cells) are left out of the family and stay NaN.
"""

from __future__ import annotations

import numpy as np
from statsmodels.stats.multitest import multipletests

METHODS = {"holm": "holm", "bh": "fdr_bh", "bonferroni": "bonferroni", "none": None}


def adjust(pvalues, method: str = "holm") -> np.ndarray:
    """Adjusted p-values, as R's p.adjust (method: holm | bh | bonferroni | none)."""
    key = method.lower()
    if key not in METHODS:
        raise ValueError(f"unknown correction {method!r}; expected one of {sorted(METHODS)}")
    p = np.asarray(pvalues, dtype=float)
    out = p.copy()
    ok = ~np.isnan(p)
    if METHODS[key] and ok.any():
        out[ok] = multipletests(p[ok], method=METHODS[key])[1]
    return out
