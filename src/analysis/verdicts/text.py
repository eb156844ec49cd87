"""How verdicts are worded: the claim in symbols, the reason for a
non-result, run counts, and the assumptions behind the test used."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis import stats as st

SYMBOLS = {"greater": ">", "less": "<", "different": "≠", "equivalent": "≈"}
ADEQUATE_POWER = 0.8


def claim_text(factor: str, labels: list[str], direction: str, *, margin: float | None = None,
               margin_pct: float | None = None, per: list[str] | str | None = None,
               holds: str = "all", interaction: str | None = None) -> str:
    """'ip_version: 4 > 6, all size_bytes' — the claim in one line."""
    text = f"{factor}: " + f" {SYMBOLS[direction]} ".join(labels)
    if margin is not None:
        text += f" within ±{margin:g}"
    elif margin_pct is not None:
        text += f" within ±{margin_pct:g}%"
    if interaction:
        return f"{text}: effect differs across {interaction} (interaction)"
    per = [per] if isinstance(per, str) else (per or [])
    if per:
        text += f", {holds} {' × '.join(per)}"
    return text


def weak_reason(what: str, power: float, min_effect_pct: float, runs_needed: float) -> str:
    """Say whether a non-result is underpowered for the smallest effect of interest."""
    if power is None or np.isnan(power):
        return what
    if power < ADEQUATE_POWER:
        need = (f"need {int(runs_needed)} runs per group" if np.isfinite(runs_needed)
                else "no number of runs reaches 80 % power at this spread")
        return f"{what}; underpowered: power {power:.2f} to detect {min_effect_pct:g}% ({need})"
    return f"{what}; power {power:.2f} to detect {min_effect_pct:g}%"


def n_text(tested: pd.DataFrame) -> str:
    """'5+5' per cell, or the list when cells differ."""
    pairs = sorted({f"{int(a)}+{int(b)}" if b else f"{int(a)}"
                    for a, b in zip(tested["n_a"], tested["n_b"]) if not np.isnan(a)})
    return ", ".join(pairs)


def cell_summary(row: dict, alpha: float) -> str:
    """benchstat-style line: % change for two groups (the absolute difference
    when no % change is defined), F for omnibus tests."""
    if np.isnan(row["df_num"]):
        if np.isnan(row["estimate_pct"]) and not np.isnan(row["diff"]):
            return st.format_difference(row["diff"], row["diff_ci_low"], row["diff_ci_high"],
                                        row["p_adj"], row["n_a"], row["n_b"], alpha)
        return st.format_change(row["estimate_pct"], row["estimate_ci_low"], row["estimate_ci_high"],
                                row["p_adj"], row["n_a"], row["n_b"], alpha)
    return st.format_f(row["statistic"], row["df_num"], row["df"], row["p_adj"],
                       row["n_a"] + row["n_b"], alpha)


def assumptions_text(checks: list, extra: list[str], used: str | None,
                     consequence: dict[str, str] | None = None) -> str:
    """What was checked, what a failed check changed for this claim, and the test used.
    ``consequence`` maps a check's first word (Brown-Forsythe, Shapiro-Wilk) to
    what its failure did here; without it the check's generic fallback is named."""
    notes = []
    for c in checks:
        note = f"{c.check} p={c.p:.3g}"
        if not c.passed:
            then = (consequence or {}).get(c.check.split()[0]) or f"the fallback is {c.fallback}"
            note += f" (fails -> {then})"
        notes.append(note)
    notes += extra
    if used:
        notes.append(f"used: {used}")
    return "; ".join(notes)
