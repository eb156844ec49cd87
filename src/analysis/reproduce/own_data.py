"""Where our own data agrees or not: a study's claims re-tested on its mirror campaign.

A claim is comparable when what it compares, and every factor it is
specific to, exist in the study's mirror dataset (IP version, transport,
size, frame size, application).  A claim about an OS, a security mode or a
testbed is "not comparable: our data has no <factor>".  Where a claim holds
over *several* levels of such a factor (e.g. "for all three OSes"), that
factor is not what it is about: it is dropped, or, on lan-p2p, replaced by
our own platform factor (the TCP stack profile), so the claim must hold for
every stack as the study's held for every OS.

Each comparable claim becomes one hypothesis spec per combination of its
other ``per`` factors that we vary (the registry allows one ``per``: the
size), evaluated by :func:`analysis.hypotheses.evaluate_hypotheses` on
one row per run, and the sub-verdicts combined as the claim's ``holds`` says.
"""

from __future__ import annotations

import tempfile
from functools import lru_cache
from itertools import product
from pathlib import Path

import pandas as pd

from ..campaign import load_campaign
from ..claims import Claim, load_claims
from ..hypotheses import HypothesisError, canon, evaluate_hypotheses
from ..ingest import fingerprint
from ..per_run import one_row_per_run
from .lookup import load_record

STUDY_DATASET = {
    "000_4e5320b6fe1e825c": "lan-p2p", "001_67ed56f85540d5f7": "lan-p2p",
    "002_6c0e8c5c95705e2f": "lan-p2p", "003_78d69edb35c6dd71": "sizes-10",
    "004_a7738a926cf50bd6": "jumbo-routed",
}
# The size the study varies, as our column: packet (payload) size or frame size.
SIZE_COLUMN = {"lan-p2p": "packet_size_bytes", "sizes-10": "packet_size_bytes",
               "jumbo-routed": "frame_size_bytes"}
OUR_FACTORS = ("ip_version", "transport", "application", "size_bytes")
# Our platform factor standing in for "for every OS of the study".
PLATFORM = {"lan-p2p": "stack"}
# Claim metric -> (our column, scope that selects the tool/mode measuring it).
METRICS = {
    "lan-p2p": {
        "throughput_mbps": ("throughput_mbps", {"tool": "netperf", "mode": "stream"}),
        "rtt_ms": ("rtt_ms", {"tool": "netperf", "mode": "rr"}),
        "jitter_ms": ("jitter_ms", {"tool": "iperf3", "transport": "UDP"}),
        "cpu_pct": ("cpu_local_pct", {"tool": "netperf", "mode": "stream"}),
    },
    "sizes-10": {
        "throughput_mbps": ("throughput_mbps", {"tool": "netperf", "mode": "stream", "topology": "p2p"}),
        "rtt_ms": ("rtt_ms", {"tool": "ditg", "mode": "rttm", "log": "sender", "topology": "p2p"}),
        "jitter_ms": ("jitter_ms", {"tool": "ditg", "mode": "rttm", "log": "receiver", "topology": "p2p"}),
        "cpu_pct": ("cpu_local_pct", {"tool": "netperf", "mode": "stream", "topology": "p2p"}),
    },
    "jumbo-routed": {
        "throughput_mbps": ("throughput_mbps", {"tool": "ditg"}),
        "owd_ms": ("owd_ms", {"tool": "ditg"}),
        "jitter_ms": ("jitter_ms", {"tool": "ditg"}),
    },
}
# What a dataset's fixed scope means for the claims tested on it.
DATASET_NOTES = {"sizes-10": "our p2p topology only (loopback is no testbed of the study's)"}
DEFAULT_MARGIN_PCT = 5.0
COLUMNS = ["id", "statement", "study_verdict", "published_verdict", "dataset", "our_test",
           "our_verdict", "our_summary", "adaptation"]


class NotComparable(Exception):
    """Why a claim cannot be tested on our data (the message is shown as is)."""


@lru_cache(maxsize=None)
def _cached_runs(campaign: str, raw_dir: str, version: str) -> pd.DataFrame:
    with tempfile.TemporaryDirectory() as scratch:
        data = load_campaign(Path(raw_dir) / campaign, processed=scratch)
    return one_row_per_run(data.runs)


def _raw_dir(raw_dir: Path | None) -> Path:
    """data/raw as published_figures knows it (imported late: it imports this package)."""
    from ..published_figures import RAW_DIR
    return Path(raw_dir or RAW_DIR)


def mirror_runs(campaign: str, raw_dir: Path | None = None) -> pd.DataFrame:
    """One row per run of our campaign, ingested into a scratch directory (as
    draw_mirror does) so nothing is written into data/processed while a
    collector may be replacing the campaign; cached until its raw files change."""
    raw_dir = _raw_dir(raw_dir)
    return _cached_runs(campaign, str(raw_dir), fingerprint(raw_dir / campaign))


# ---------------------------------------------------------------- claim -> specs

def _levels(value) -> list:
    return [v for v in (value if isinstance(value, list) else [value]) if v is not None]


def _our_name(factor: str, dataset: str) -> str:
    return SIZE_COLUMN[dataset] if factor == "size_bytes" else factor


def _check_factors(claim: Claim) -> None:
    """A claim comparing, or specific to one level of, a factor we do not vary is not comparable."""
    if claim.compare.factor not in OUR_FACTORS:
        raise NotComparable(f"not comparable: our data has no {claim.compare.factor}")
    for factor, value in claim.scope.items():
        if factor not in OUR_FACTORS and len(_levels(value)) == 1:
            raise NotComparable(f"not comparable: the claim is about {factor}={_levels(value)[0]} only; "
                                f"our data has no {factor}")


def _size_per(claim: Claim, size: str) -> tuple[dict, list[str]]:
    """The size as the registry's single ``per``, with holds as the claim says ('most' -> pooled)."""
    if "size_bytes" not in claim.per:
        if _levels(claim.scope.get("size_bytes")):
            return {}, []
        return {"per": size, "holds": "pooled"}, [f"no size named: pooled over {size}"]
    if claim.holds == "most":
        return {"per": size, "holds": "pooled"}, [f"'most sizes' tested as the effect pooled over {size}"]
    return {"per": size, "holds": claim.holds}, []


def _splits(claim: Claim, dataset: str, runs: pd.DataFrame) -> tuple[list[dict], list[str]]:
    """One scope per combination of the claim's other per-factors we vary (and our
    platform factor where the claim holds for every OS)."""
    factors, notes = [], []
    for factor in claim.per:
        if factor == "size_bytes":
            continue
        if factor in OUR_FACTORS:
            factors.append((factor, _levels(claim.scope.get(factor)) or sorted(runs[factor].dropna().unique())))
        elif factor == "os" and dataset in PLATFORM:
            ours = PLATFORM[dataset]
            factors.append((ours, sorted(runs[ours].dropna().unique())))
            notes.append(f"'for every os' tested as 'for every {ours}' (our platform factor)")
        else:
            notes.append(f"{factor} not varied in our data (one level): dropped")
    combos = [dict(zip([f for f, _ in factors], vals)) for vals in product(*[lv for _, lv in factors])]
    return combos, notes


def _base_scope(claim: Claim, dataset: str) -> tuple[dict, list[str]]:
    """The claim's scope on our factors (a single size as our size column)."""
    scope, notes = {}, []
    for factor, value in claim.scope.items():
        levels = _levels(value)
        if factor in OUR_FACTORS and levels and factor not in claim.per:
            scope[_our_name(factor, dataset)] = levels if len(levels) > 1 else levels[0]
        elif factor not in OUR_FACTORS and levels and factor not in claim.per:
            notes.append(f"{factor} not varied in our data: dropped")
    return scope, notes


def study_scope(study: str) -> dict:
    """What the study's design fixes for every claim: its single transport, if it used one."""
    transports = load_record(study).design_value("transports") or []
    return {"transport": transports[0]} if len(transports) == 1 else {}


def claim_specs(claim: Claim, dataset: str, runs: pd.DataFrame,
                fixed: dict | None = None) -> tuple[list[dict], list[str]]:
    """Hypothesis specs (one per split) equivalent to ``claim`` on ``dataset``, and what was adapted.

    ``fixed`` (see :func:`study_scope`) applies where the claim names no level of
    that factor.  Raises NotComparable with the reason when the claim cannot be tested here.
    """
    _check_factors(claim)
    if claim.metric not in METRICS[dataset]:
        raise NotComparable(f"not comparable: our {dataset} has no {claim.metric} measurement")
    column, tool_scope = METRICS[dataset][claim.metric]
    scope, notes = _base_scope(claim, dataset)
    for factor, value in (fixed or {}).items():
        if factor not in claim.scope and factor not in claim.per:
            scope[factor] = value
            notes.append(f"{factor}={value}: the study measured only that")
    size, size_notes = _size_per(claim, SIZE_COLUMN[dataset])
    splits, split_notes = _splits(claim, dataset, runs)
    base = {"statement": claim.quote, "source": claim.source, "metric": column,
            "compare": {"factor": _our_name(claim.compare.factor, dataset), "levels": claim.compare.levels},
            "direction": claim.direction, **size}
    if claim.direction == "equivalent":
        base |= {"margin": claim.margin} if claim.margin is not None else {"margin_pct": DEFAULT_MARGIN_PCT}
        if claim.margin is None:
            notes.append(f"no margin printed: equivalence within ±{DEFAULT_MARGIN_PCT:g}%")
    specs = []
    for split in splits:
        label = ", ".join(f"{k}={canon(v)}" for k, v in split.items())
        specs.append(base | {"id": f"{claim.id} [{label}]" if label else claim.id,
                             "scope": {**tool_scope, **scope, **split}})
    return specs, [*notes, *size_notes, *split_notes, *filter(None, [DATASET_NOTES.get(dataset)])]


# ---------------------------------------------------------------- evaluation

def _combine(verdicts: list[str], holds: str) -> str:
    """Sub-verdicts -> claim verdict: 'any' needs one supported split, else every split must."""
    found = set(verdicts)
    if holds == "any" and "supported" in found:
        return "supported"
    for verdict in ("contradicted", "inconclusive", "untestable"):
        if verdict in found:
            return verdict
    return "supported"


def _test_text(specs: list[dict]) -> str:
    """The spec in words: metric, comparison, size handling, the scope all splits share."""
    first = specs[0]
    scope = ", ".join(f"{k}={v}" for k, v in first["scope"].items()
                      if all(s["scope"].get(k) == v for s in specs))
    sym = {"greater": ">", "less": "<", "different": "≠", "equivalent": "≈"}[first["direction"]]
    levels = f" {sym} ".join(canon(v) for v in first["compare"]["levels"])
    per = f", {first['holds']} {first['per']}" if first.get("per") else ""
    splits = f"; for each of {len(specs)} splits" if len(specs) > 1 else ""
    return f"{first['metric']}: {first['compare']['factor']} {levels}{per} [{scope}]{splits}"


def _evaluate(claim: Claim, dataset: str, runs: pd.DataFrame, fixed: dict) -> dict:
    try:
        specs, notes = claim_specs(claim, dataset, runs, fixed)
        table = evaluate_hypotheses(runs, specs)
    except (NotComparable, HypothesisError) as err:
        text = str(err) if isinstance(err, NotComparable) else f"not comparable: {err}"
        return {"our_verdict": "not comparable", "our_summary": text, "our_test": "", "adaptation": ""}
    verdict = _combine(list(table["verdict"]), claim.holds)
    lines = [f"{r.id}: {r.verdict} ({r.reason})" if len(table) > 1 else f"{r.reason} ({r.test}, n={r.n})"
             for r in table.itertuples()]
    return {"our_verdict": verdict, "our_summary": "; ".join(lines), "our_test": _test_text(specs),
            "adaptation": "; ".join(notes)}


def _published(verdicts: pd.DataFrame | None, claim_id: str) -> str:
    if verdicts is None or verdicts.empty:
        return ""
    row = verdicts[verdicts["id"] == claim_id]
    return "" if row.empty else f"{row['verdict'].iloc[0]} ({row['class'].iloc[0]})"


def own_data_table(study: str, verdicts: pd.DataFrame | None = None, raw_dir: Path | None = None) -> pd.DataFrame:
    """Side by side, per claim of ``study``: the study's verdict (as printed, and as
    our evaluation of its published numbers found, from ``verdicts``) and the
    same hypothesis on our mirror dataset, or why it cannot be tested there."""
    from ..published_figures import mirror_available

    dataset, raw_dir = STUDY_DATASET[study], _raw_dir(raw_dir)
    claims = load_claims(study).claims
    runs = mirror_runs(dataset, raw_dir) if mirror_available(dataset, raw_dir) else None
    fixed = study_scope(study)
    rows = []
    for claim in claims:
        ours = (_evaluate(claim, dataset, runs, fixed) if runs is not None else
                {"our_verdict": "not comparable", "our_summary": f"our dataset {dataset} is not available",
                 "our_test": "", "adaptation": ""})
        rows.append({"id": claim.id, "statement": claim.quote, "study_verdict": claim.study_verdict,
                     "published_verdict": _published(verdicts, claim.id), "dataset": dataset, **ours})
    return pd.DataFrame(rows, columns=COLUMNS)


def own_data_counts(table: pd.DataFrame) -> dict:
    """How many claims are comparable, and our verdicts on them."""
    comparable = table[table["our_verdict"] != "not comparable"]
    return {"claims": len(table), "comparable": len(comparable),
            **comparable["our_verdict"].value_counts().to_dict()}


__all__ = ["STUDY_DATASET", "claim_specs", "study_scope", "mirror_runs", "own_data_counts", "own_data_table"]
