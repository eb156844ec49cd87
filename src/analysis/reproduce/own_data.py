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
size), evaluated by :func:`analysis.verdicts.evaluate_hypotheses` on
one row per run, and the sub-verdicts combined as the claim's ``holds`` says.
"""

from __future__ import annotations

from itertools import product
from pathlib import Path

import pandas as pd

from analysis.errors import HypothesisError
from analysis.reproduce.claims import Claim
from analysis.reproduce.lookup import Record, load_record
from analysis.reproduce.mirrors import Dataset, load_mirror, load_mirrors, mirror_available
from analysis.verdicts import canon, evaluate_hypotheses
from analysis.verdicts.rules import Verdict, aggregate

OUR_FACTORS = ("ip_version", "transport", "application", "size_bytes")
DEFAULT_MARGIN_PCT = 5.0
COLUMNS = ["id", "statement", "study_verdict", "published_verdict", "dataset", "our_test",
           "our_verdict", "our_summary", "adaptation"]


class NotComparable(Exception):
    """Why a claim cannot be tested on our data (the message is shown as is)."""


def mirror_runs(campaign: str, raw_dir: Path | None = None) -> pd.DataFrame:
    """One row per run of our campaign (a fresh copy; see reproduce.mirrors)."""
    return load_mirror(campaign, raw_dir).runs


# ---------------------------------------------------------------- claim -> specs

def _levels(value) -> list:
    return [v for v in (value if isinstance(value, list) else [value]) if v is not None]


def _our_name(factor: str, dataset: Dataset) -> str:
    return dataset.size_column if factor == "size_bytes" else factor


def _check_factors(claim: Claim, constants: dict) -> None:
    """A claim comparing, or specific to one level of, a factor we do not vary is not comparable
    (unless that level is all the study had: then it fixes nothing)."""
    if claim.compare is None or claim.direction is None:
        raise NotComparable(f"not comparable: a {claim.kind} claim, no comparison to test")
    if claim.compared.factor not in OUR_FACTORS:
        raise NotComparable(f"not comparable: our data has no {claim.compared.factor}")
    for factor, value in claim.scope.items():
        if factor in constants and _levels(value) == [constants[factor]]:
            continue
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


def _splits(claim: Claim, dataset: Dataset, runs: pd.DataFrame) -> tuple[list[dict], list[str]]:
    """One scope per combination of the claim's other per-factors we vary (and our
    platform factor where the claim holds for every OS)."""
    factors, notes = [], []
    for factor in claim.per:
        if factor == "size_bytes":
            continue
        if factor in OUR_FACTORS:
            factors.append((factor, _levels(claim.scope.get(factor)) or sorted(runs[factor].dropna().unique())))
        elif factor == "os" and dataset.platform:
            ours = dataset.platform
            factors.append((ours, sorted(runs[ours].dropna().unique())))
            notes.append(f"'for every os' tested as 'for every {ours}' (our platform factor)")
        else:
            notes.append(f"{factor} not varied in our data (one level): dropped")
    combos = [dict(zip([f for f, _ in factors], vals)) for vals in product(*[lv for _, lv in factors])]
    return combos, notes


def _base_scope(claim: Claim, dataset: Dataset) -> tuple[dict, list[str]]:
    """The claim's scope on our factors (a single size as our size column)."""
    scope, notes = {}, []
    for factor, value in claim.scope.items():
        levels = _levels(value)
        if factor in OUR_FACTORS and levels and factor not in claim.per:
            scope[_our_name(factor, dataset)] = levels if len(levels) > 1 else levels[0]
        elif factor not in OUR_FACTORS and levels and factor not in claim.per:
            notes.append(f"{factor} not varied in our data: dropped")
    return scope, notes


def _record(study: str | Record) -> Record:
    return study if isinstance(study, Record) else load_record(study)


def study_scope(study: str | Record) -> dict:
    """What the study's design fixes for every claim: its single transport, if it used one."""
    transports = _record(study).design_value("transports") or []
    return {"transport": transports[0]} if len(transports) == 1 else {}


def study_constants(study: str | Record) -> dict:
    """Factors the study never varied (one level in its whole record, e.g. 000's open system)."""
    rows = _record(study).rows
    out = {}
    for factor in ("os", "security", "testbed", "host", "application"):
        levels = {v for v in rows[factor].dropna() if str(v) != ""}
        if len(levels) == 1:
            out[factor] = levels.pop()
    return out


def claim_specs(claim: Claim, dataset: str | Dataset, runs: pd.DataFrame,
                fixed: dict | None = None, constants: dict | None = None) -> tuple[list[dict], list[str]]:
    """Hypothesis specs (one per split) equivalent to ``claim`` on ``dataset``, and what was adapted.

    ``fixed`` (see :func:`study_scope`) applies where the claim names no level of
    that factor.  Raises NotComparable with the reason when the claim cannot be tested here.
    """
    if isinstance(dataset, str):
        dataset = load_mirrors().datasets[dataset]
    _check_factors(claim, constants or {})
    if claim.metric not in dataset.metrics:
        raise NotComparable(f"not comparable: our {dataset.name} has no {claim.metric} measurement")
    column, tool_scope = dataset.metrics[claim.metric].column, dataset.metrics[claim.metric].scope
    scope, notes = _base_scope(claim, dataset)
    for factor, value in (fixed or {}).items():
        if factor not in claim.scope and factor not in claim.per:
            scope[factor] = value
            notes.append(f"{factor}={value}: the study measured only that")
    size, size_notes = _size_per(claim, dataset.size_column)
    splits, split_notes = _splits(claim, dataset, runs)
    base = {"statement": claim.quote, "source": claim.source, "metric": column,
            "compare": {"factor": _our_name(claim.compared.factor, dataset), "levels": claim.compared.levels},
            "direction": claim.sense, **size}
    if claim.sense == "equivalent":
        base |= {"margin": claim.margin} if claim.margin is not None else {"margin_pct": DEFAULT_MARGIN_PCT}
        if claim.margin is None:
            notes.append(f"no margin printed: equivalence within ±{DEFAULT_MARGIN_PCT:g}%")
    specs = []
    for split in splits:
        label = ", ".join(f"{k}={canon(v)}" for k, v in split.items())
        specs.append(base | {"id": f"{claim.id} [{label}]" if label else claim.id,
                             "scope": {**tool_scope, **scope, **split}})
    return specs, [*notes, *size_notes, *split_notes, *filter(None, [dataset.note])]


# ---------------------------------------------------------------- evaluation

def _combine(verdicts: list[str], holds: str) -> str:
    """Sub-verdicts -> claim verdict: 'any' needs one supported split, else every split must."""
    if holds == "any" and Verdict.SUPPORTED in verdicts:
        return Verdict.SUPPORTED
    return aggregate("all", verdicts, Verdict.SUPPORTED, Verdict.CONTRADICTED, (Verdict.INCONCLUSIVE, Verdict.UNTESTABLE))


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


def _evaluate(claim: Claim, dataset: Dataset, runs: pd.DataFrame, fixed: dict, constants: dict) -> dict:
    try:
        specs, notes = claim_specs(claim, dataset, runs, fixed, constants)
        table = evaluate_hypotheses(runs, specs)
    except (NotComparable, HypothesisError) as err:
        text = str(err) if isinstance(err, NotComparable) else f"not comparable: {err}"
        return {"our_verdict": Verdict.NOT_COMPARABLE, "our_summary": text, "our_test": "", "adaptation": ""}
    verdict = _combine(list(table["verdict"]), claim.holds)
    lines = [f"{r.id}: {r.verdict} ({r.reason})" if len(table) > 1 else f"{r.reason} ({r.test}, n={r.n})"
             for r in table.itertuples()]
    return {"our_verdict": verdict, "our_summary": "; ".join(lines), "our_test": _test_text(specs),
            "adaptation": "; ".join(notes)}


def _published(verdicts: pd.DataFrame | None) -> dict[str, str]:
    """Each claim's verdict from the study's published numbers, by claim id (the first row of an id)."""
    if verdicts is None or verdicts.empty:
        return {}
    found: dict[str, str] = {}
    for claim_id, verdict, kind in zip(verdicts["id"], verdicts["verdict"], verdicts["class"]):
        found.setdefault(claim_id, f"{verdict} ({kind})")
    return found


def own_data_table(study: str, verdicts: pd.DataFrame | None = None, raw_dir: Path | None = None,
                   record: Record | None = None) -> pd.DataFrame:
    """Side by side, per claim of ``study``: the study's verdict (as printed, and as
    our evaluation of its published numbers found, from ``verdicts``) and the
    same hypothesis on our mirror dataset, or why it cannot be tested there.
    ``record``: the study's, when the caller has it loaded (the thesis's takes
    seconds to read)."""
    mirrors = load_mirrors()
    dataset_name = mirrors.studies[study]
    dataset = mirrors.datasets[dataset_name]
    record = record or load_record(study)
    claims = record.claims.claims
    runs = mirror_runs(dataset_name, raw_dir) if mirror_available(dataset_name, raw_dir) else None
    fixed, constants = study_scope(record), study_constants(record)
    published = _published(verdicts)
    rows = []
    for claim in claims:
        ours = (_evaluate(claim, dataset, runs, fixed, constants) if runs is not None else
                {"our_verdict": Verdict.NOT_COMPARABLE, "our_summary": f"our dataset {dataset_name} is not available",
                 "our_test": "", "adaptation": ""})
        rows.append({"id": claim.id, "statement": claim.quote, "study_verdict": claim.study_verdict,
                     "published_verdict": published.get(claim.id, ""), "dataset": dataset_name, **ours})
    return pd.DataFrame(rows, columns=COLUMNS)


def own_data_counts(table: pd.DataFrame) -> dict:
    """How many claims are comparable, and our verdicts on them."""
    comparable = table[table["our_verdict"] != Verdict.NOT_COMPARABLE]
    return {"claims": len(table), "comparable": len(comparable),
            **comparable["our_verdict"].value_counts().to_dict()}


__all__ = ["claim_specs", "study_constants", "study_scope", "mirror_runs", "own_data_counts", "own_data_table"]
