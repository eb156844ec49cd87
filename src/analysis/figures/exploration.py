"""Exploring a campaign: which metrics it has, cell summaries per tool, and
whether the results drift with the order the runs were made in."""

from __future__ import annotations

import pandas as pd
from scipy import stats as sps

from analysis.stats import cell_summaries

METRICS = ("throughput_mbps", "transactions_per_s", "rtt_ms", "owd_ms", "jitter_ms", "loss_pct",
           "cpu_local_pct", "cpu_remote_pct")
SIZE_FACTORS = ("packet_size_bytes", "frame_size_bytes", "message_size_bytes")


def ok_runs(runs: pd.DataFrame) -> pd.DataFrame:
    return runs[runs["status"] == "ok"]


def metrics_of(runs: pd.DataFrame) -> list[str]:
    """The canonical metrics this table has values for, in a fixed order."""
    return [m for m in METRICS if m in runs and runs[m].notna().any()]


def size_factor(factors: list[str]) -> str | None:
    return next((f for f in SIZE_FACTORS if f in factors), None)


def blocks(part: pd.DataFrame, factors: list[str]):
    """Split one tool's runs into blocks of the design: runs that share which
    factors they have a level for (a campaign may cross frame sizes in one
    block and applications in another). Yields (factors present, runs)."""
    present = part[factors].notna()
    pattern = present.apply(lambda row: tuple(row), axis=1) if len(part) else pd.Series(dtype=object)
    for key, block in part.groupby(pattern, sort=True):
        yield [f for f, ok in zip(factors, key) if ok], block


def summaries_by_tool(runs: pd.DataFrame, factors: list[str]) -> pd.DataFrame:
    """Cell summaries of every metric each tool reports, per cell of the
    design factors (long format, one row per tool, cell and metric)."""
    parts = []
    by = [f for f in factors if f != "tool"]
    for tool, part in ok_runs(runs).groupby("tool", sort=True):
        table = cell_summaries(part, metrics_of(part), by=by)
        parts.append(table.dropna(subset=["mean"]).assign(tool=tool))
    if not parts:
        return pd.DataFrame()
    out = pd.concat(parts, ignore_index=True)
    return out[["tool", *[c for c in out.columns if c != "tool"]]]


def drift(runs: pd.DataFrame, factors: list[str]) -> pd.DataFrame:
    """Spearman correlation between run order and each run's deviation from
    its cell mean, per tool and metric: a trend means the testbed changed
    while the campaign ran (warm-up, thermal, background load)."""
    if "meta_order" not in runs:
        return pd.DataFrame(columns=["tool", "metric", "n", "spearman_rho", "p"])
    rows = []
    by = [f for f in factors if f != "tool"]
    for tool, part in ok_runs(runs).groupby("tool", sort=True):
        for metric in metrics_of(part):
            data = part.dropna(subset=[metric, "meta_order"])
            if len(data) < 4 or data[metric].nunique() < 2:
                continue
            deviation = data[metric] - data.groupby(by, dropna=False)[metric].transform("mean") if by else data[metric]
            rho, p = sps.spearmanr(data["meta_order"], deviation)
            rows.append({"tool": tool, "metric": metric, "n": len(data), "spearman_rho": rho, "p": p})
    return pd.DataFrame(rows, columns=["tool", "metric", "n", "spearman_rho", "p"])


def outliers(runs: pd.DataFrame, factors: list[str]) -> pd.DataFrame:
    """Runs outside Tukey's fences (1.5 IQR beyond the quartiles) of their
    cell, per tool and metric: candidates to look at, never to drop silently."""
    parts = []
    by = [f for f in factors if f != "tool"]
    for tool, part in ok_runs(runs).groupby("tool", sort=True):
        for metric in metrics_of(part):
            data = part.dropna(subset=[metric])
            grouped = data.groupby(by, dropna=False)[metric] if by else data.groupby(lambda _: 0)[metric]
            q1, q3 = grouped.transform("quantile", 0.25), grouped.transform("quantile", 0.75)  # no lambda per cell
            iqr = q3 - q1
            flagged = data[(data[metric] < q1 - 1.5 * iqr) | (data[metric] > q3 + 1.5 * iqr)]
            parts.append(flagged.assign(tool=tool, metric=metric, value=flagged[metric])[
                ["tool", "metric", "source_path", "value", *by]])
    columns = ["tool", "metric", "source_path", "value", *by]
    parts = [p for p in parts if not p.empty]
    return pd.concat(parts, ignore_index=True)[columns] if parts else pd.DataFrame(columns=columns)


def anova_design(data: pd.DataFrame, factors: list[str], metric: str) -> tuple[list[str], int] | None:
    """The factors a factorial ANOVA of ``metric`` can use on ``data`` and
    the highest interaction order it can fit, or None when it cannot fit one.

    Factors that vary and are known for every run take part. When the
    observed cells do not cross every level of every factor (e.g. frame sizes
    measured for one application only), interactions are not estimable and
    the model is additive (order 1); a model needs residual degrees of freedom.
    """
    if data[metric].nunique() < 2:
        return None
    design = [f for f in factors if f != "tool" and data[f].notna().all() and data[f].nunique() > 1]
    if not design:
        return None
    cells = data.groupby(design).size()
    full = 1
    for f in design:
        full *= data[f].nunique()
    if len(cells) == full and cells.min() >= 2:
        return design, len(design)
    params = 1 + sum(data[f].nunique() - 1 for f in design)
    return (design, 1) if len(data) > params else None


def anova_tables(runs: pd.DataFrame, factors: list[str]) -> pd.DataFrame:
    """Factorial ANOVA (with Jain's allocation of variation) of every
    non-constant metric of every tool over the factors that vary for it."""
    from analysis.stats import factorial_anova

    parts = []
    for tool, part in ok_runs(runs).groupby("tool", sort=True):
        for present, block in blocks(part, factors):
            for metric in metrics_of(block):
                data = block.dropna(subset=[metric])
                fit = anova_design(data, present, metric)
                if fit is None:
                    continue
                design, order = fit
                table = factorial_anova(data, metric, design, order=order)
                model = "full factorial" if order == len(design) else "additive"
                parts.append(table.assign(tool=tool, metric=metric, model=model, block=", ".join(present)))
    if not parts:
        return pd.DataFrame()
    out = pd.concat(parts, ignore_index=True)
    first = ["tool", "block", "metric", "model"]
    return out[[*first, *[c for c in out.columns if c not in first]]]


def allocation_summary(anova: pd.DataFrame) -> pd.DataFrame:
    """One line per model of :func:`anova_tables`: which term explains most of
    the variation and how much (Jain's allocation), the runner-up, and what the
    model leaves unexplained (the residual's share)."""
    columns = ["tool", "metric", "model", "largest term", "share", "next term", "next share", "residual share"]
    if anova is None or anova.empty:
        return pd.DataFrame(columns=columns)
    rows = []
    for (tool, block, metric), part in anova.groupby(["tool", "block", "metric"], sort=False):
        terms = part[part["term"] != "Residual"].sort_values("share", ascending=False)
        residual = part.loc[part["term"] == "Residual", "share"]
        first = terms.iloc[0] if len(terms) else None
        second = terms.iloc[1] if len(terms) > 1 else None
        rows.append([tool, metric, f"{part['model'].iloc[0]}: {block}",
                     first["term"] if first is not None else "", first["share"] if first is not None else float("nan"),
                     second["term"] if second is not None else "",
                     second["share"] if second is not None else float("nan"),
                     residual.iloc[0] if len(residual) else float("nan")])
    return pd.DataFrame(rows, columns=columns)
