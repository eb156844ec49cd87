"""What a campaign is, as tables the report shows: its design (factors,
levels, runs per cell, run order), its host facts, the ingest account, and a
Hoefler & Belli checklist (SC'15, "Scientific benchmarking of parallel
computing systems": twelve rules for interpretable benchmarking)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from analysis.ingest.campaign import Campaign

NON_DESIGN = {"run", "index", "shard"}


def design_factors(campaign: Campaign, runs: pd.DataFrame) -> list[str]:
    """Factors of the design: declared or constant manifest factors present
    in the runs, except replicate counters such as ``run``."""
    m = campaign.manifest
    names = list(m.factors) + [k for k in m.files.constants if k not in m.factors]
    return [n for n in names if n in runs.columns and n not in NON_DESIGN]


def banner(campaign: Campaign) -> str:
    """A markdown heading: title, description, and SYNTHETIC when it is."""
    info = campaign.manifest.campaign
    label = "**SYNTHETIC DATA** — not measured." if info.synthetic else "Real measurements."
    return f"## {info.title}\n\n{label} Campaign `{campaign.name}`, testbed: {info.testbed or 'not stated'}.\n\n{info.description}"


def design_table(campaign: Campaign, runs: pd.DataFrame) -> pd.DataFrame:
    """One row per design factor: its levels and how many there are."""
    rows = []
    for f in design_factors(campaign, runs):
        levels = sorted(runs[f].dropna().unique(), key=lambda v: (str(type(v)), v))
        rows.append({"factor": f, "levels": ", ".join(str(v) for v in levels), "n_levels": len(levels)})
    return pd.DataFrame(rows, columns=["factor", "levels", "n_levels"])


def runs_per_cell(campaign: Campaign, runs: pd.DataFrame) -> pd.DataFrame:
    """How many runs each cell of the design has (min, median, max over cells)."""
    factors = design_factors(campaign, runs)
    counts = runs.groupby(factors, dropna=False).size() if factors else pd.Series([len(runs)])
    return pd.DataFrame([{"cells": len(counts), "runs_min": int(counts.min()), "runs_median": float(counts.median()),
                          "runs_max": int(counts.max()), "runs_total": int(counts.sum())}])


def run_order(runs: pd.DataFrame) -> pd.DataFrame:
    """Order in which the runs were made, when the manifest recorded it."""
    if "meta_order" not in runs:
        return pd.DataFrame(columns=["meta_order", "source_path"])
    cols = ["meta_order", "source_path"] + [c for c in ("meta_started", "meta_exit_status") if c in runs]
    return runs[cols].sort_values("meta_order").reset_index(drop=True)


def host_facts(campaign: Campaign) -> pd.DataFrame:
    """The campaign's host and tool facts as a two-column table; nested facts
    (a collector's host, testbeds, progress) one row per leaf, the collector's
    copy of its plan left out (it is in the manifest)."""
    info = campaign.manifest.campaign.model_dump()
    facts: dict[str, Any] = {k: info[k] for k in ("testbed", "os", "kernel", "hosts", "dates") if info.get(k)}
    facts.update({f"{tool} version": v for tool, v in info["tool_versions"].items()})
    extra = {k: v for k, v in info["extra"].items() if k != "collector"}
    facts.update(_flatten(extra))
    return pd.DataFrame({"fact": list(facts), "value": [str(v) for v in facts.values()]})


def _flatten(tree: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            flat.update(_flatten(value, f"{name}."))
        else:
            flat[name] = value
    return flat


def ingest_account(campaign: Campaign) -> pd.DataFrame:
    """Files found and what became of each kind of them."""
    counts = campaign.report["counts"]
    keys = ("files", "parsed", "failed", "rejected", "ignored", "records", "intervals", "rows_with_warnings")
    return pd.DataFrame({"what": list(keys), "count": [counts.get(k, 0) for k in keys]})


def failed_runs(campaign: Campaign) -> pd.DataFrame:
    """Runs whose tool reported a failure, with the tool's words."""
    runs = campaign.runs
    return runs.loc[runs["status"] == "failed", ["source_path", "tool", "error"]].reset_index(drop=True)


def hoefler_belli(campaign: Campaign, runs: pd.DataFrame, verdicts: pd.DataFrame | None = None) -> pd.DataFrame:
    """Which of Hoefler & Belli's twelve rules this campaign and its report
    satisfy, with the evidence for each answer."""
    info = campaign.manifest.campaign
    cells = runs_per_cell(campaign, runs).iloc[0]
    setup = [k for k in ("testbed", "os", "kernel") if getattr(info, k)] + (["tool versions"] if info.tool_versions else [])
    tested = verdicts is not None and len(verdicts) > 0
    normality = verdicts is not None and tested and bool(verdicts["assumptions"].fillna("").str.contains("Shapiro").any())
    bound = info.extra.get("upper_bound") or info.extra.get("link_rate")
    rules = [
        (1, "Report the base case of speedups", "not applicable", "no speedups are reported"),
        (2, "Say why only a subset of benchmarks/resources is used", "satisfied" if info.description else "not satisfied",
         "campaign description states the scope" if info.description else "the manifest has no description"),
        (3, "Arithmetic mean for costs, harmonic mean for rates", "satisfied", "cell summaries give both mean and harmonic mean (hmean)"),
        (4, "Do not summarise ratios; summarise the underlying costs/rates", "satisfied",
         "ratios come from intervals on log values of the runs, never from averaged ratios"),
        (5, "Report confidence intervals for nondeterministic data", "satisfied" if cells["runs_min"] >= 2 else "not satisfied",
         f"95% CIs from {int(cells['runs_min'])}-{int(cells['runs_max'])} runs per cell"),
        (6, "Do not assume normality without checking", "satisfied" if normality else "not satisfied",
         "Shapiro-Wilk on residuals beside each test" if normality else "no hypothesis tests were run"),
        (7, "Compare nondeterministic data in a statistically sound way", "satisfied" if tested else "not satisfied",
         "Welch / rank tests and ANOVA with Holm correction" if tested else "no hypothesis file for this campaign"),
        (8, "Check that mean or median is a useful summary; percentiles where needed", "satisfied",
         "median with a distribution-free CI, min and max per cell; distributions plotted"),
        (9, "Document all factors, levels and the setup", "satisfied" if len(setup) >= 3 else "partly satisfied",
         f"manifest records: {', '.join(setup) or 'nothing'}"),
        (10, "Report how times were measured and summarised", "partly satisfied",
         "each tool's own timers; per-run values are summarised as stated in the cell summaries"),
        (11, "Show upper performance bounds", "satisfied" if bound else "not satisfied",
         f"stated bound: {bound}" if bound else "the manifest states no upper bound (e.g. link rate)"),
        (12, "Plot enough information; connect points only when interpolation is valid", "satisfied",
         "every run is plotted in the distributions; lines join measured sizes only, with markers"),
    ]
    return pd.DataFrame(rules, columns=["rule", "what", "status", "evidence"])
