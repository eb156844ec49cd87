"""What a campaign is, as tables the report shows: its design (factors,
levels, runs per cell, run order), its host facts, the ingest account, and a
Hoefler & Belli checklist (SC'15, "Scientific benchmarking of parallel
computing systems": twelve rules for interpretable benchmarking)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.figures.labels import QUANTITY_SUFFIXES, is_quantity, label, level_order, name
from analysis.naming import level_label
from analysis.ingest.campaign import Campaign

NON_DESIGN = {"run", "index", "shard"}


def design_factors(campaign: Campaign, runs: pd.DataFrame) -> list[str]:
    """Factors of the design: declared or constant manifest factors present
    in the runs, except replicate counters such as ``run``."""
    m = campaign.manifest
    names = list(m.factors) + [k for k in m.files.constants if k not in m.factors]
    return [n for n in names if n in runs.columns and n not in NON_DESIGN]


def question(campaign: Campaign, hypotheses: str | Path | None = None) -> str:
    """What the campaign asks: the hypothesis file's ``question``, else what
    testing its claims asks, else that there is nothing to test."""
    if not hypotheses or not Path(hypotheses).is_file():
        return (f"None stated: no hypothesis file, so this report describes the runs without testing a claim "
                f"(add `data/hypotheses/{campaign.name}.yaml`).")
    from analysis.verdicts.spec import load_hypotheses, load_question

    asked = load_question(hypotheses)
    if asked:
        return asked
    n = len(load_hypotheses(hypotheses))
    if n == 1:
        return f"Does the claim of `{Path(hypotheses).name}` hold on these runs?"
    return f"Do the {n} claims of `{Path(hypotheses).name}` hold on these runs?"


def _levels_text(runs: pd.DataFrame, factor: str) -> str:
    levels = level_order(runs[factor].dropna().unique())
    shown = [level_label(factor, v) for v in levels]
    if len(levels) > 4 and is_quantity(runs, factor):
        unit = label(factor).rsplit(" (", 1)[-1].rstrip(")") if "(" in label(factor) else ""
        return f"{len(levels)}: {shown[0]}–{shown[-1]}{f' {unit}' if unit else ''}"
    if len(levels) > 6:
        return f"{len(levels)} levels"
    return ", ".join(shown)


def design_sentence(campaign: Campaign, runs: pd.DataFrame) -> str:
    """The design in one sentence: runs, factors with their levels, cells
    measured of those the factors span, and runs per cell."""
    factors = [f for f in design_factors(campaign, runs) if runs[f].nunique(dropna=True) > 1]
    total = len(runs)
    if not factors:
        return f"{total:,} runs of one configuration."
    cells = runs_per_cell(campaign, runs).iloc[0]
    spanned = 1
    for f in factors:
        spanned *= runs[f].nunique(dropna=True)
    crossed = " × ".join(f"{name(f)} ({_levels_text(runs, f)})" for f in factors)
    measured = (f"all {spanned:,} combinations measured" if int(cells["cells"]) >= spanned
                else f"{int(cells['cells']):,} of the {spanned:,} combinations measured (not every tool or block has every level)")
    lo, hi = int(cells["runs_min"]), int(cells["runs_max"])
    per = f"{lo} runs each" if lo == hi else f"{lo}–{hi} runs each"
    return f"{total:,} runs: {crossed}; {measured}, {per}."


def banner(campaign: Campaign, runs: pd.DataFrame | None = None, hypotheses: str | Path | None = None) -> str:
    """A markdown heading that says what the page is about in four lines:
    title; real or SYNTHETIC, campaign and testbed; the question; the design in
    one sentence. The full description is in :func:`about`."""
    from analysis.ingest.per_run import one_row_per_run

    info = campaign.manifest.campaign
    label_ = "**SYNTHETIC DATA** — not measured." if info.synthetic else "Real measurements."
    runs = one_row_per_run(campaign.runs) if runs is None else runs
    return (f"## {info.title}\n\n{label_} Campaign `{campaign.name}`, testbed: {info.testbed or 'not stated'}.\n\n"
            f"**Question.** {question(campaign, hypotheses)}\n\n"
            f"**Design.** {design_sentence(campaign, runs)}")


def about(campaign: Campaign) -> str:
    """The campaign's description and notes from its manifest, as markdown."""
    info = campaign.manifest.campaign
    parts = [info.description or "The manifest has no description."]
    if info.notes:
        parts.append(f"*Notes.* {info.notes}")
    return "\n\n".join(parts)


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
    """Runs that failed, one row per file, with why: the tool's words, or that
    its output is empty or stops before its result. From the ingest account,
    which also counts an empty output no row can name a tool for."""
    failed = [f for f in campaign.report.get("files", []) if f.get("outcome") == "failed"]
    return pd.DataFrame({"source_path": [f["path"] for f in failed], "tool": [f.get("tool") for f in failed],
                         "error": [f.get("reason") for f in failed]}, columns=["source_path", "tool", "error"])


RATE_SUFFIXES = ("_mbps", "_per_s")
NOT_CHECKED = "not checked"


def hoefler_belli(campaign: Campaign, runs: pd.DataFrame, verdicts: pd.DataFrame | None = None,
                  summaries: pd.DataFrame | None = None, figures: Sequence[Any] | None = None) -> pd.DataFrame:
    """Which of Hoefler & Belli's twelve rules this campaign and its report
    satisfy, each judged from the campaign and what the report computed
    (``verdicts``, cell ``summaries``, the ``figures`` drawn); a rule whose
    evidence is missing says "not checked" and why."""
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
        (3, "Arithmetic mean for costs, harmonic mean for rates", *rule_means_for_rates(summaries)),
        (4, "Do not summarise ratios; summarise the underlying costs/rates", *rule_ratios(runs, verdicts)),
        (5, "Report confidence intervals for nondeterministic data", "satisfied" if cells["runs_min"] >= 2 else "not satisfied",
         f"95% CIs from {int(cells['runs_min'])}-{int(cells['runs_max'])} runs per cell"),
        (6, "Do not assume normality without checking", "satisfied" if normality else "not satisfied",
         "Shapiro-Wilk on residuals beside each test" if normality else "no hypothesis tests were run"),
        (7, "Compare nondeterministic data in a statistically sound way", "satisfied" if tested else "not satisfied",
         "Welch / rank tests and ANOVA with Holm correction" if tested else "no hypothesis file for this campaign"),
        (8, "Check that mean or median is a useful summary; percentiles where needed", *rule_summaries(summaries)),
        (9, "Document all factors, levels and the setup", "satisfied" if len(setup) >= 3 else "partly satisfied",
         f"manifest records: {', '.join(setup) or 'nothing'}"),
        (10, "Report how times were measured and summarised", "partly satisfied",
         "each tool's own timers; per-run values are summarised as stated in the cell summaries"),
        (11, "Show upper performance bounds", "satisfied" if bound else "not satisfied",
         f"stated bound: {bound}" if bound else "the manifest states no upper bound (e.g. link rate)"),
        (12, "Plot enough information; connect points only when interpolation is valid", *rule_plots(figures)),
    ]
    return pd.DataFrame(rules, columns=["rule", "what", "status", "evidence"])


def _listed(items: Sequence[str], most: int = 4) -> str:
    items = list(items)
    return ", ".join(items[:most]) + (f" and {len(items) - most} more" if len(items) > most else "")


def rule_means_for_rates(summaries: pd.DataFrame | None) -> tuple[str, str]:
    """Rule 3: every cell of a rate metric (throughput, transactions/s) has its
    harmonic mean beside the arithmetic one (it needs every run > 0)."""
    if summaries is None or summaries.empty:
        return NOT_CHECKED, "no cell summaries (02_explore writes tables/cell_summaries.csv)"
    rates = summaries[summaries["metric"].astype(str).str.endswith(RATE_SUFFIXES)]
    if rates.empty:
        return "not applicable", "the campaign measures no rate (throughput, transactions per second)"
    missing = rates[rates["hmean"].isna()]
    metrics = _listed(sorted(rates["metric"].unique()))
    if missing.empty:
        return "satisfied", f"harmonic mean beside the arithmetic mean in all {len(rates)} cells of {metrics}"
    return ("partly satisfied", f"{len(missing)} of {len(rates)} cells of {metrics} have no harmonic mean "
            f"(a run of 0 or no value): {_listed(sorted(missing['metric'].unique()))}")


def rule_ratios(runs: pd.DataFrame, verdicts: pd.DataFrame | None) -> tuple[str, str]:
    """Rule 4: percent changes come from the runs (the tested difference of means over the baseline's mean),
    but a metric that is itself a ratio per run (loss %, CPU %) averaged per cell
    summarises ratios; say which, and whether the counts behind them exist."""
    from analysis.figures.exploration import METRICS, ok_runs

    ok = ok_runs(runs)
    ratios = [m for m in METRICS if m.endswith("_pct") and m in ok and ok[m].nunique(dropna=True) > 1]
    changes = "percent changes in the verdicts are the tested differences over the baseline's mean or median" if (
        verdicts is not None and verdicts["estimate_pct"].notna().any()) else "no percent changes are reported"
    if not ratios:
        return "satisfied", f"{changes}; no metric is a ratio per run"
    counts = "packets_lost" in ok and ok["packets_lost"].notna().any() and "loss_pct" in ratios
    hint = "; packets_lost/packets_sent are recorded, so loss could be summed per cell" if counts else ""
    return "partly satisfied", f"{changes}; {_listed(ratios)} (ratios per run) are averaged per cell{hint}"


def rule_summaries(summaries: pd.DataFrame | None) -> tuple[str, str]:
    """Rule 8: the median and its distribution-free interval beside every
    mean (that needs 6 runs at 95 %), and where mean and median part ways."""
    if summaries is None or summaries.empty:
        return NOT_CHECKED, "no cell summaries (02_explore writes tables/cell_summaries.csv)"
    no_interval = summaries["median_ci_low"].isna()
    skewed = (summaries["mean"] < summaries["median_ci_low"]) | (summaries["mean"] > summaries["median_ci_high"])
    where = (f"; in {int(skewed.sum())} cells the mean lies outside the median's interval (read the median there)"
             if skewed.any() else "")
    if not no_interval.any():
        return "satisfied", f"median with a distribution-free 95% CI in all {len(summaries)} cells, runs plotted{where}"
    return ("partly satisfied", f"{int(no_interval.sum())} of {len(summaries)} cells have too few runs "
            f"(fewer than 6) for a distribution-free 95% CI of the median{where}")


def rule_plots(figures: Sequence[Any] | None) -> tuple[str, str]:
    """Rule 12: every tool and metric with a figure also has one that shows
    every run, and lines join levels of a quantity (a size) only."""
    if figures is None:
        return NOT_CHECKED, "no figures given (04_figures draws them)"
    if not figures:
        return "not applicable", "no figures were drawn"
    pairs = {(f.tool, f.metric) for f in figures}
    with_runs = {(f.tool, f.metric) for f in figures if f.kind.startswith("distribution")}
    lines = [f for f in figures if f.kind.startswith(("vs_", "ipv4_minus_ipv6_by_"))]
    bad_lines = [f.name for f in lines if not f.kind.rsplit("_by_", 1)[-1].removeprefix("vs_").endswith(QUANTITY_SUFFIXES)]
    no_runs = sorted(f"{t} {m}" for t, m in pairs - with_runs)
    if not no_runs and not bad_lines:
        return "satisfied", (f"every run plotted for all {len(pairs)} tool/metric pairs; "
                             f"{len(lines)} line figures, each over a size with markers at measured levels")
    problems = ([f"no figure shows the runs of {_listed(no_runs)}"] if no_runs else []) + (
        [f"lines over a factor that is not a quantity: {_listed(bad_lines)}"] if bad_lines else [])
    return "not satisfied", "; ".join(problems)
