"""How verdicts are worded: the claim in symbols, each cell's effect with its
CI and baseline, the reason for a verdict or a non-result, run counts, and
the assumptions behind the test used."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from analysis import stats as st
from analysis.naming import level_label, unit_of
from analysis.verdicts.cells import CellTest, Evidence
from analysis.verdicts.spec import Hypothesis

SYMBOLS = {"greater": ">", "less": "<", "different": "≠", "equivalent": "≈"}
ADEQUATE_POWER = 0.8


def claim_text(factor: str, labels: list[str], direction: str, *, margin: float | None = None,
               margin_pct: float | None = None, per: list[str] | str | None = None,
               holds: str = "all", interaction: str | None = None, unit: str = "") -> str:
    """'ip_version: 4 > 6, all size_bytes' — the claim in one line."""
    text = f"{factor}: " + f" {SYMBOLS[direction]} ".join(labels)
    if margin is not None:
        text += f" within ±{margin:g}{' ' + unit if unit else ''}"
    elif margin_pct is not None:
        text += f" within ±{margin_pct:g}% of {possessive(level_label(factor, labels[-1]))} mean"
    if interaction:
        return f"{text}: effect differs across {interaction} (interaction)"
    per = [per] if isinstance(per, str) else (per or [])
    if per:
        text += f", {holds} {' × '.join(per)}"
    return text


def groups_named(hyp: Hypothesis) -> tuple[str, str]:
    """The two compared groups as a reader names them: IPv4, bbr, and a bare
    number with its factor ('frame_size_bytes 1518'), which alone says nothing."""
    factor = hyp.compare.factor
    a, b = (level_label(factor, label) for label in hyp.compare.labels()[:2])
    return (f"{factor} {a}", f"{factor} {b}") if _is_number(a) and _is_number(b) else (a, b)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _unit(hyp: Hypothesis) -> str:
    unit = unit_of(hyp.metric)
    return "" if unit in ("", "%") else f" {unit}"


def percent(conf: float) -> str:
    """A confidence level as printed: 95%, 97.5%, 99.9% (never a rounded 100%)."""
    return f"{conf * 100:.4g}%"


def possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def _points(hyp: Hypothesis) -> str:
    """The unit of a difference: percentage points for a metric in %."""
    return _unit(hyp) or (" points" if unit_of(hyp.metric) == "%" else "")


def _effect(hyp: Hypothesis, cell: CellTest) -> str:
    """'+3.1% [+2.2, +4.0] of IPv6's mean' or '+0.12 ms [0.05, 0.20]' (shift: Hodges-Lehmann)."""
    _, b = groups_named(hyp)
    level = "" if math.isclose(cell.conf, 0.95) or math.isnan(cell.conf) else f" ({percent(cell.conf)} CI)"
    shift = "shift " if cell.estimate.startswith("Hodges") else ""
    if not math.isnan(cell.estimate_pct):
        base = "median" if shift else "mean"
        return (f"{shift}{cell.estimate_pct:+.1f}% [{cell.estimate_ci_low:+.1f}, {cell.estimate_ci_high:+.1f}]"
                f"{level} of {possessive(b)} {base}")
    unit = _points(hyp)
    return f"{shift}{cell.diff:+.4g}{unit} [{cell.diff_ci_low:.4g}, {cell.diff_ci_high:.4g}]{level}"


def cell_summary(hyp: Hypothesis, evidence: Evidence, p_shown: float, significant: bool, tests: int = 1) -> str:
    """benchstat-style line that always shows the effect: 'bbr vs reno: −35.1% [−40.2, −29.6]
    of reno's mean, bbr lower (p<0.001, n=10+10)'; '~' first when not significant;
    F for omnibus tests; a deterministic difference for constant groups. The
    interval is the test's, before the correction across ``tests``: where the
    two part ways (an interval clear of 0 beside a '~'), the line says so."""
    a, b = groups_named(hyp)
    if not isinstance(evidence, CellTest):
        if math.isnan(evidence.diff):
            return ""
        return f"{a} − {b}: {evidence.diff:+g}{_points(hyp)} in every run (no variance)"
    head = "" if significant else "~ "
    if not math.isnan(evidence.df_num):
        n = int(evidence.n_a + (0 if math.isnan(evidence.n_b) else evidence.n_b))
        return (f"{head}F({evidence.df_num:.3g}, {evidence.df:.3g})={evidence.statistic:.3g} "
                f"({st.format_p(p_shown)}, n={n})")
    way = ""
    if significant and evidence.direction() != 0 and hyp.direction != "equivalent":
        way = f", {a} {'higher' if evidence.direction() > 0 else 'lower'}"
    margin = "" if math.isnan(evidence.margin) else f", margin ±{evidence.margin:.4g}{_points(hyp)}"
    if margin and hyp.margin_pct is not None:
        margin = f", margin ±{hyp.margin_pct:g}% of {possessive(b)} mean (±{evidence.margin:.4g}{_points(hyp)})"
    clear = evidence.diff_ci_low > 0 or evidence.diff_ci_high < 0
    unadjusted = (f"; its CI is not adjusted for the {tests} tests corrected together"
                  if tests > 1 and hyp.direction != "equivalent" and clear != significant else "")
    return (f"{head}{a} vs {b}: {_effect(hyp, evidence)}{way}{margin} "
            f"({st.format_p(p_shown)}, n={int(evidence.n_a)}+{int(evidence.n_b)}{unadjusted})")


def weak_reason(what: str, power: float, min_effect_pct: float, runs_needed: float, rough: bool = False) -> str:
    """Say whether a non-result is underpowered for the smallest effect of interest."""
    need = ("no number of runs reaches 80 % power at this spread" if not np.isfinite(runs_needed)
            else f"need {int(runs_needed)} runs per group")
    if rough and not np.isnan(runs_needed):
        return (f"{what}; power not stated: the spread of so few runs is too uncertain "
                f"(rough: {need} to detect {min_effect_pct:g}%)")
    if power is None or np.isnan(power):
        return what
    if power < ADEQUATE_POWER:
        return f"{what}; underpowered: power {power:.2f} to detect {min_effect_pct:g}% ({need})"
    return f"{what}; power {power:.2f} to detect {min_effect_pct:g}%"


def n_text(tested: pd.DataFrame) -> str:
    """'5+5' per cell, or the list when cells differ."""
    pairs = sorted({f"{int(a)}+{int(b)}" if b else f"{int(a)}"
                    for a, b in zip(tested["n_a"], tested["n_b"]) if not np.isnan(a)})
    return ", ".join(pairs)


def assumptions_text(checks: list, extra: list[str], used: str | None,
                     consequence: dict[str, str] | None = None) -> str:
    """What was checked, what a failed check changed for this claim, and the test used.
    ``consequence`` maps a check's first word (Brown-Forsythe, Shapiro-Wilk) to
    what its failure did here; without it the check's generic fallback is named."""
    notes = []
    for c in checks:
        if np.isnan(c.p):
            notes.append(f"{c.check} not computed on these runs")
            continue
        note = f"{c.check} p={c.p:.3g}"
        if not c.passed:
            then = (consequence or {}).get(c.check.split()[0]) or f"the fallback is {c.fallback}"
            note += f" (fails -> {then})"
        notes.append(note)
    notes += extra
    if used:
        notes.append(f"used: {used}")
    return "; ".join(notes)
