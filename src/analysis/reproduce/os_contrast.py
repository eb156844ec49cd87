"""The seeds' question asked of our own runs: how do operating systems' stacks
differ, over IPv4 and IPv6, across packet sizes?

On a campaign whose ``os_version`` varies (kernels as the OS on User-mode Linux
testbeds, or real hosts over SSH), per tool, mode, transport and metric:

- a factorial ANOVA of OS × IP version × size (:func:`seeds_anova`) and Jain's
  allocation of variation, one line per model (:func:`allocation`): how much of
  the variation is the OS, how much the IP version, how much the size;
- post-hoc OS contrasts per IP version and size (:func:`os_contrasts`): Welch
  tests, Holm-adjusted across the sizes of one IP version;
- the shape of that contrast across sizes (:func:`contrast_shape`), which the
  study pages set beside each study's own OS claims (:func:`beside_study_claims`):
  the studies compared other OSes, so only the shape can agree or not — is one
  OS ahead at every size, as they say of theirs?
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.config import raw_dir as default_raw_dir
from analysis.figures.exploration import SIZE_FACTORS, ok_runs
from analysis.ingest.campaign import current_fingerprint, processed_dir_for
from analysis.reproduce.claims import Claim
from analysis.reproduce.mirrors import OS_CAMPAIGN, load_mirror, mirror_available
from analysis.stats import adjust, factorial_anova, t_test

OS_FACTOR = "os_version"
IP_FACTOR = "ip_version"
# What each metric's better direction is, for saying which OS is ahead.
HIGHER_IS_BETTER = {"throughput_mbps": True, "transactions_per_s": True, "rtt_ms": False, "jitter_ms": False,
                    "loss_pct": False}
# Where our campaign measures a studied metric: (tool, mode) of the runs that carry it.
SOURCES = {"throughput_mbps": ("netperf", "stream"), "transactions_per_s": ("netperf", "rr"),
           "rtt_ms": ("ditg", "rttm"), "jitter_ms": ("iperf3", "stream"), "loss_pct": ("iperf3", "stream")}
# The studies' metrics our metrics stand for (packets dropped: our loss share).
STUDY_METRIC = {"throughput_mbps": "throughput_mbps", "rtt_ms": "rtt_ms", "jitter_ms": "jitter_ms",
                "packets_dropped": "loss_pct"}
# Why a studied metric has no contrast of ours to stand beside it.
NOT_COMPARED = {"owd_ms": "not measured: the guests keep clocks of their own, so our delays are round trips (rtt_ms)",
                "cpu_pct": "not compared: a User-mode Linux guest's CPU is busy emulating system calls"}
MODEL = ["tool", "mode", "transport"]
CONTRAST_COLUMNS = [*MODEL, "metric", IP_FACTOR, "size", "os_a", "os_b", "n_a", "n_b", "mean_a", "mean_b", "diff",
                    "diff_pct", "ci_low", "ci_high", "p", "p_holm", "ahead"]


@dataclass(frozen=True)
class SeedsAnswer:
    """The seeds' question answered on one campaign: the ANOVA, its allocation, the OS contrasts."""

    anova: pd.DataFrame
    allocation: pd.DataFrame
    contrasts: pd.DataFrame


def seeds_question(runs: pd.DataFrame) -> SeedsAnswer:
    """Every part of the answer, for a campaign's page (:func:`has_os_factor` first)."""
    anova = seeds_anova(runs)
    return SeedsAnswer(anova, allocation(anova), os_contrasts(runs))


def study_os_claims(claims: list[Claim], campaign: str = OS_CAMPAIGN, raw_dir: Path | None = None) -> pd.DataFrame | None:
    """A study's OS claims beside our campaign's OS contrast, or None when that campaign is not here."""
    if not mirror_available(campaign, raw_dir):
        return None
    return beside_study_claims(claims, campaign_contrasts(campaign, raw_dir))


def campaign_contrasts(campaign: str = OS_CAMPAIGN, raw_dir: Path | None = None) -> pd.DataFrame:
    """:func:`os_contrasts` of a campaign's runs, worked out once per version of
    its raw files in a process: the report's study pages run one after the other
    in a kernel of its own, and each set its claims beside the same contrasts
    (about a second of CPU each). Each caller gets its own copy."""
    folder = raw_dir or default_raw_dir()
    version = current_fingerprint(folder / campaign, processed_dir_for(folder / campaign))
    return _contrasts(campaign, str(folder), version).copy()


@lru_cache(maxsize=2)
def _contrasts(campaign: str, raw_dir: str, version: str) -> pd.DataFrame:
    return os_contrasts(load_mirror(campaign, Path(raw_dir)).runs)


def version_order(levels) -> list[str]:
    """OS levels newest first: numeric release parts compared as numbers (6.1.176 before 5.10.46)."""
    def key(v: str):
        return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in str(v).replace("-", ".").split(".")]
    return sorted({str(v) for v in levels}, key=key, reverse=True)


def has_os_factor(runs: pd.DataFrame) -> bool:
    """True when the runs span two or more OS levels (the seeds' question can be asked)."""
    return OS_FACTOR in runs and ok_runs(runs)[OS_FACTOR].nunique(dropna=True) > 1


def _size_of(runs: pd.DataFrame) -> str:
    size = next((f for f in SIZE_FACTORS if f in runs and runs[f].notna().any()), None)
    if size is None:
        raise ValueError("the runs have no size factor (packet_size_bytes, frame_size_bytes or message_size_bytes)")
    return size


def _models(runs: pd.DataFrame):
    """(tool, mode, transport, metric, its runs) for every metric of :data:`HIGHER_IS_BETTER` a model carries."""
    data = ok_runs(runs).copy()
    for c in MODEL:
        data[c] = data[c].fillna("") if c in data else ""
    for key, part in data.groupby(MODEL, sort=True):
        for metric in HIGHER_IS_BETTER:
            if metric in part and part[metric].notna().any():
                yield (*key, metric, part.dropna(subset=[metric]))


def seeds_anova(runs: pd.DataFrame) -> pd.DataFrame:
    """Factorial ANOVA OS × IP version × size (full factorial where every cell
    has two runs or more, else additive) per tool, mode, transport and metric,
    with each term's share of the variation (Jain's allocation)."""
    size = _size_of(runs)
    parts = []
    for tool, mode, transport, metric, part in _models(runs):
        design = [f for f in (OS_FACTOR, IP_FACTOR, size) if part[f].nunique() > 1]
        if OS_FACTOR not in design or part[metric].nunique() < 2:
            continue
        cells = part.groupby(design).size()
        full = len(cells) == np.prod([part[f].nunique() for f in design]) and cells.min() >= 2
        if not full and len(part) <= 1 + sum(part[f].nunique() - 1 for f in design):
            continue  # not even the additive model leaves a residual degree of freedom
        table = factorial_anova(part, metric, design, order=len(design) if full else 1)
        parts.append(table.assign(tool=tool, mode=mode, transport=transport, metric=metric,
                                  model="full factorial" if full else "additive", n=len(part)))
    if not parts:
        return pd.DataFrame()
    out = pd.concat(parts, ignore_index=True)
    first = [*MODEL, "metric", "model", "n"]
    return out[[*first, *[c for c in out.columns if c not in first]]]


def allocation(anova: pd.DataFrame) -> pd.DataFrame:
    """One line per model of :func:`seeds_anova`: the share of the variation
    that is the OS, the IP version, the size, their interactions, and the residual."""
    columns = [*MODEL, "metric", "model", "n", "OS", "IP version", "size", "interactions", "residual", "OS p"]
    if anova.empty:
        return pd.DataFrame(columns=columns)
    rows = []
    for key, part in anova.groupby([*MODEL, "metric"], sort=False):
        share = dict(zip(part["term"], part["share"]))
        mains = {OS_FACTOR: "OS", IP_FACTOR: "IP version"}
        row = dict(zip([*MODEL, "metric"], key)) | {"model": part["model"].iloc[0], "n": int(part["n"].iloc[0])}
        for term, name in mains.items():
            row[name] = share.get(term, 0.0)
        row["size"] = sum(v for t, v in share.items() if ":" not in t and t not in (*mains, "Residual"))
        row["interactions"] = sum(v for t, v in share.items() if ":" in t)
        row["residual"] = share.get("Residual", np.nan)
        row["OS p"] = part.loc[part["term"] == OS_FACTOR, "p"].iloc[0]
        rows.append(row)
    return pd.DataFrame(rows, columns=columns)


def os_contrasts(runs: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Every pair of OS levels (newest first) per tool, mode, transport,
    metric, IP version and size: Welch's difference a − b with its 95 % CI, as
    % of b, p Holm-adjusted across the sizes (and pairs) of one IP version;
    ``ahead`` names the OS that did better where the adjusted p < alpha, else ``none``."""
    size = _size_of(runs)
    rows = []
    for tool, mode, transport, metric, part in _models(runs):
        pairs = list(combinations(version_order(part[OS_FACTOR].dropna()), 2))
        if not pairs:
            continue
        for ip, by_ip in part.groupby(IP_FACTOR, sort=True):
            family = []
            for s, cell in by_ip.groupby(size, sort=True):
                for a, b in pairs:
                    ya = cell.loc[cell[OS_FACTOR].astype(str) == a, metric]
                    yb = cell.loc[cell[OS_FACTOR].astype(str) == b, metric]
                    if len(ya) < 2 or len(yb) < 2:
                        continue
                    family.append(_contrast(ya, yb) | {"tool": tool, "mode": mode, "transport": transport,
                                                        "metric": metric, IP_FACTOR: ip, "size": s, "os_a": a, "os_b": b})
            if family:
                p_holm = adjust([r["p"] if np.isfinite(r["p"]) else 1.0 for r in family], "holm")
                for r, q in zip(family, p_holm):
                    r["p_holm"] = q if np.isfinite(r["p"]) else np.nan
                    r["ahead"] = _ahead(r, metric, alpha)
                rows.extend(family)
    return pd.DataFrame(rows, columns=CONTRAST_COLUMNS)


def _contrast(ya: pd.Series, yb: pd.Series) -> dict:
    mean_a, mean_b = float(ya.mean()), float(yb.mean())
    base = {"n_a": len(ya), "n_b": len(yb), "mean_a": mean_a, "mean_b": mean_b, "diff": mean_a - mean_b,
            "diff_pct": 100 * (mean_a - mean_b) / mean_b if mean_b else np.nan}
    if ya.std() == 0 and yb.std() == 0:  # constant cells: the difference is exact, no test
        return base | {"ci_low": base["diff"], "ci_high": base["diff"], "p": 0.0 if base["diff"] else np.nan}
    t = t_test(ya, yb)
    return base | {"ci_low": t.diff_ci_low, "ci_high": t.diff_ci_high, "p": t.p}


def _ahead(row: dict, metric: str, alpha: float) -> str:
    if not np.isfinite(row["p_holm"]) or row["p_holm"] >= alpha or row["diff"] == 0:
        return "none"
    a_better = (row["diff"] > 0) == HIGHER_IS_BETTER[metric]
    return row["os_a"] if a_better else row["os_b"]


def contrast_shape(contrasts: pd.DataFrame) -> str:
    """The OS contrast across sizes in one phrase, from rows of one OS pair:
    which OS is ahead at how many sizes, and the range of the difference."""
    if contrasts.empty:
        return "not measured"
    a, b = contrasts["os_a"].iloc[0], contrasts["os_b"].iloc[0]
    n = contrasts["size"].nunique()
    counts = contrasts.groupby("size")["ahead"].agg(lambda s: s.mode().iloc[0] if s.nunique() == 1 else "mixed")
    ahead_a, ahead_b = int((counts == a).sum()), int((counts == b).sum())
    low, high = contrasts["diff_pct"].min(), contrasts["diff_pct"].max()
    if ahead_a == n or ahead_b == n:
        lead = f"{a if ahead_a == n else b} ahead at every size ({n})"
    else:
        lead = f"{a} ahead at {ahead_a} of {n} sizes, {b} at {ahead_b}, no clear difference at {n - ahead_a - ahead_b}"
    return f"{lead}; {a} − {b}: {low:+.0f} % to {high:+.0f} %"


def every_size_same_os(contrasts: pd.DataFrame) -> bool:
    """One OS ahead at every size (the shape of the studies' 'at every size' claims)."""
    if contrasts.empty:
        return False
    leaders = contrasts.groupby("size")["ahead"].agg(lambda s: s.iloc[0] if s.nunique() == 1 else "none")
    return leaders.nunique() == 1 and leaders.iloc[0] != "none"


def _scoped(value) -> list:
    return [v for v in (value if isinstance(value, list) else [value]) if v is not None]


def beside_study_claims(claims: list[Claim], contrasts: pd.DataFrame) -> pd.DataFrame:
    """A study's OS-vs-OS claims grouped by metric, transport and IP version,
    each group beside the shape of our own OS contrast of the same metric,
    transport and IP version (where the claim names them; else each of ours).

    ``claims_at_every_size`` counts the study's claims that say one OS is
    ahead at every size; ``ours_at_every_size`` says whether our contrast has
    that shape."""
    columns = ["metric", "transport", IP_FACTOR, "study_claims", "claims_at_every_size", "study_os_pairs",
               "example", "our_source", "our_os_pair", "our_shape", "ours_at_every_size"]
    groups: dict[tuple, list[Claim]] = {}
    for c in claims:
        if c.compare is None or c.compare.factor != "os" or c.direction in (None, "equivalent"):
            continue
        transports: list = _scoped(c.scope.get("transport")) or [None]
        ips: list[int | None] = [int(v) for v in _scoped(c.scope.get(IP_FACTOR))] or [None]
        for t in transports:
            for ip in ips:
                groups.setdefault((c.metric, t, ip), []).append(c)
    rows = []
    for (metric, transport, ip), found in sorted(groups.items(), key=lambda kv: tuple(str(x) for x in kv[0])):
        base = {"metric": metric, "transport": transport or "any", IP_FACTOR: ip or "any", "study_claims": len(found),
                "claims_at_every_size": sum(1 for c in found if "size_bytes" in c.per and c.holds == "all"),
                "study_os_pairs": "; ".join(sorted({" vs ".join(map(str, c.compared.labels())) for c in found})[:4]),
                "example": found[0].quote}
        ours = STUDY_METRIC.get(metric)
        if ours is None or contrasts.empty:
            why = NOT_COMPARED.get(metric, "not measured by our campaign")
            rows.append(base | {"our_source": "", "our_os_pair": "", "our_shape": why, "ours_at_every_size": False})
            continue
        tool, mode = SOURCES[ours]
        mine = contrasts[(contrasts["metric"] == ours) & (contrasts["tool"] == tool) & (contrasts["mode"] == mode)]
        if transport:
            mine = mine[mine["transport"] == transport]
        if ip:
            mine = mine[mine[IP_FACTOR] == ip]
        if mine.empty:
            rows.append(base | {"our_source": f"{tool} {mode}", "our_os_pair": "",
                                "our_shape": "not measured by our campaign", "ours_at_every_size": False})
            continue
        for (t, v, a, b), part in mine.groupby(["transport", IP_FACTOR, "os_a", "os_b"], sort=True):
            rows.append(base | {"our_source": f"{tool} {mode} {t} IPv{v}", "our_os_pair": f"{a} vs {b}",
                                "our_shape": contrast_shape(part), "ours_at_every_size": every_size_same_os(part)})
    return pd.DataFrame(rows, columns=columns)
