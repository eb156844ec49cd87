"""Linear models behind two kinds of claim: a difference adjusted for a
blocking factor, and an interaction between two factors.

Both take plain columns (``y``, a two-level group, a block or second
factor), so they know nothing about metrics, tools or claims.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import statsmodels.formula.api as smf

from analysis.stats.corrections import adjust
from analysis.stats.factorial import factorial_anova


def blocked_difference(y, group_is_a, block, conf: float = 0.95) -> dict:
    """OLS ``y ~ group + block`` with HC3-robust SEs: the difference a − b
    adjusted for the block (e.g. packet size), when cells differ in level
    and in variance.  Returns coef, CI, t, df, p and the group sizes."""
    frame = pd.DataFrame({"y": np.asarray(y, float),
                          "grp": np.where(np.asarray(group_is_a, bool), "a", "b"),
                          "blk": np.asarray(block).astype(str)})
    # a block that holds only one group says nothing about the difference and makes the design singular
    both = frame.groupby("blk")["grp"].transform("nunique") == 2
    frame = frame[both]
    counts = frame.groupby("grp").size()
    if len(counts) < 2 or counts.min() < 2:
        raise ValueError("no block holds at least 2 values of both groups")
    fit = smf.ols("y ~ C(grp, Treatment('b')) + C(blk)", frame).fit(cov_type="HC3", use_t=True)
    name = "C(grp, Treatment('b'))[T.a]"
    lo, hi = fit.conf_int(alpha=1 - conf).loc[name]
    return {"diff": float(fit.params[name]), "diff_ci_low": float(lo), "diff_ci_high": float(hi),
            "statistic": float(fit.tvalues[name]), "df": float(fit.df_resid),
            "p": float(fit.pvalues[name]), "base_mean": float(frame.loc[frame.grp == "b", "y"].mean()),
            "n_a": int(counts.get("a", 0)), "n_b": int(counts.get("b", 0))}


def blocked_groups(y, group, block=None) -> dict:
    """OLS ``y ~ group (+ block)`` with HC3-robust SEs for more than two groups:
    the Wald F test that all group means are equal once the block (e.g.
    packet size) is accounted for, and every pairwise contrast with its CI,
    Holm-adjusted. Without a block it is a one-way test robust to unequal
    variances that, unlike Welch's ANOVA, accepts a group with no variance."""
    frame = pd.DataFrame({"y": np.asarray(y, float), "grp": np.asarray(group).astype(str)})
    formula = "y ~ C(grp)"
    if block is not None:
        frame["blk"] = np.asarray(block).astype(str)
        formula += " + C(blk)"
    if block is not None:  # a block holding one group says nothing of the group effect
        shared = frame.groupby("blk")["grp"].transform("nunique") > 1
        alone = sorted(set(frame["grp"]) - set(frame.loc[shared, "grp"]))
        if alone:
            raise ValueError(f"group {', '.join(alone)} shares no block with another group: "
                             "its difference from the others cannot be told from the block's")
        frame = frame[shared]
    labels = sorted(frame["grp"].unique())
    if len(labels) < 2 or frame.groupby("grp").size().min() < 2:
        raise ValueError("every group needs at least 2 values")
    fit = smf.ols(formula, frame).fit(cov_type="HC3", use_t=True)
    if fit.model.rank < fit.model.exog.shape[1]:
        raise ValueError("the groups and blocks do not separate (a rank-deficient design)")
    names = [f"C(grp)[T.{g}]" for g in labels[1:]]
    wald = fit.wald_test(", ".join(f"{n} = 0" for n in names), scalar=True)
    coef = {labels[0]: None, **dict(zip(labels[1:], names))}
    contrasts = []
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            vector = np.zeros(len(fit.params))
            for label, sign in ((a, 1), (b, -1)):
                if coef[label] is not None:
                    vector[list(fit.params.index).index(coef[label])] = sign
            res = fit.t_test(vector)
            lo, hi = np.asarray(res.conf_int()).ravel()
            contrasts.append({"group_a": a, "group_b": b, "diff": float(np.ravel(res.effect)[0]),
                              "ci_low": float(lo), "ci_high": float(hi), "p": float(np.ravel(res.pvalue)[0])})
    table = pd.DataFrame(contrasts)
    table["p_adj"] = adjust(table["p"], "holm")
    return {"statistic": float(wald.statistic), "df_num": float(wald.df_num), "df": float(wald.df_denom),
            "p": float(wald.pvalue), "n": int(len(frame)), "contrasts": table}


def interaction_test(frame: pd.DataFrame, y: str, first: str, second: str) -> dict:
    """Two-way ANOVA ``y ~ first * second``; the interaction term's HC3-robust
    F test, always: cell variances differ between stacks, and choosing the
    test by a pre-test on the same data would change its error rate."""
    table = factorial_anova(frame, y, [first, second], robust="hc3")
    row = table[table["term"] == f"{first}:{second}"].iloc[0]
    resid = table[table["term"] == "Residual"].iloc[0]
    return {"statistic": float(row["F"]), "df_num": float(row["df"]), "df": float(resid["df"]),
            "p": float(row["p"]), "partial_eta_sq": float(row["partial_eta_sq"])}
