"""Each study's reproduction and overview numbers, kept beside the campaigns'
tables so that neither its page nor the overview of the five studies reproduces
it again while nothing it depends on changed.

Reproducing a study takes seconds to tens of seconds (the thesis's the most).
Both are stored under ``<processed>/studies/`` with a key of everything the
reproduction depends on — the study's published record, designs, claims, earlier
verdicts, the second reading and the netrepro code
(:func:`analysis.source_fingerprint`) — and are used only while that key is
unchanged; otherwise the study is reproduced and both are written again (whole
or not at all):

- ``<stem>.json``, the summary: the overview needs only the study's counts and
  its audit findings per rule, read in milliseconds;
- ``<stem>.pickle``, the whole reproduction for the study's page (17 MB and
  under half a second to read for the thesis, against some 10 s to reproduce).
  Its key adds the Python, pandas, NumPy and pyarrow versions that wrote it, and
  one that cannot be read back is reproduced again. Pickle runs code as it reads,
  so the file is only ever one this package wrote into the processed folder, as
  trusted as the code itself.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import pickle
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

import analysis
from analysis import config
from analysis.artefacts import replace_whole
from analysis.verdicts.rules import CLAIM_ORDER

if TYPE_CHECKING:
    from analysis.reproduce.study import Reproduction


def shared_inputs() -> list[Path]:
    """What every study's reproduction reads beside its own record and claims: the files
    beside the five records (designs, stated sizes, doubtful rows: one added later is an
    input without a change here) and the second reading."""
    published = config.published_dir()
    beside = sorted(p for p in published.iterdir() if p.is_file() and not re.match(r"\d{3}_", p.name))
    return [*beside, published / "reconciliation" / "second_reading.csv"]


def study_inputs(study: str) -> list[Path]:
    """The files a study's reproduction reads (missing ones count as absent)."""
    published, claims = config.published_dir(), config.claims_dir()
    return [published / f"{study}.csv", *shared_inputs(),
            claims / f"{study}.yaml", claims / "previous" / f"{study}.csv"]


def summary_key(study: str) -> str:
    """A hash of the study's inputs and of the code that reproduces it."""
    digest = hashlib.sha256(analysis.source_fingerprint().encode())
    for path in study_inputs(study):
        digest.update(b"\0" + path.name.encode() + b"\0")
        digest.update(path.read_bytes() if path.is_file() else b"(absent)")
    return digest.hexdigest()


def summary_path(study: str) -> Path:
    return config.study_summaries_dir() / f"{study}.json"


def reproduction_path(study: str) -> Path:
    return config.study_summaries_dir() / f"{study}.pickle"


def _pickle_key(key: str) -> str:
    """The summary key and the libraries a pickled reproduction is read back with."""
    import numpy
    import pyarrow

    versions = {"python": sys.version.split()[0], "pandas": pd.__version__, "numpy": numpy.__version__,
                "pyarrow": pyarrow.__version__}
    return " ".join([key, *(f"{name} {version}" for name, version in versions.items())])


@contextlib.contextmanager
def _alone(study: str) -> Iterator[None]:
    """One process at a time reproduces a study into the store; the others wait, then read it."""
    lock = config.study_summaries_dir() / f".{study}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "w") as stream:
        fcntl.flock(stream, fcntl.LOCK_EX)
        yield


def _read_back(path: Path, key: str) -> Reproduction | None:
    """The stored reproduction if it was stored under ``key`` (its first record); None
    if it is missing, of other inputs, code or libraries, or cannot be read back."""
    try:
        with open(path, "rb") as stream:
            if pickle.load(stream) != key:
                return None
            return pickle.load(stream)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, IndexError, KeyError, OverflowError,
            TypeError, ValueError):
        return None


def stored_reproduction(study: str) -> Reproduction:
    """``reproduce_study(study)``, read back from the store while its key is current,
    else reproduced now and stored with its summary. Each call reads a new copy,
    so a caller may change what it gets."""
    key = summary_key(study)
    pickled = _pickle_key(key)
    with _alone(study):
        r = _read_back(reproduction_path(study), pickled)
        if r is None:
            from analysis.reproduce.study import reproduce_study

            r = reproduce_study(study)

            def write(stream) -> None:
                pickle.dump(pickled, stream, protocol=pickle.HIGHEST_PROTOCOL)
                pickle.dump(r, stream, protocol=pickle.HIGHEST_PROTOCOL)

            replace_whole(reproduction_path(study), write, binary=True)
        if _stored_summary(study).get("key") != key:
            remember(r, key)
    return r


def remember(r: Reproduction, key: str | None = None) -> dict[str, Any]:
    """Store the overview's numbers of a reproduction just computed; returns them."""
    audit = r.audit_summary()
    summary = {"key": key or summary_key(r.study), "title": r.record.design.get("title", ""),
               "counts": {k: _plain(v) for k, v in r.counts().items()},
               "audit": {"columns": list(audit.columns),
                         "rows": [[_plain(v) for v in row] for row in audit.itertuples(index=False)]}}
    replace_whole(summary_path(r.study), lambda stream: json.dump(summary, stream, indent=1))
    return summary


def _plain(value: Any) -> Any:
    """A NumPy scalar as the Python number JSON writes."""
    return value.item() if hasattr(value, "item") else value


def _stored_summary(study: str) -> dict[str, Any]:
    try:
        return json.loads(summary_path(study).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def study_summary(study: str) -> dict[str, Any]:
    """The study's title, counts (:meth:`Reproduction.counts`) and audit findings
    per rule and severity: stored if still current, else from the stored (or a new)
    reproduction."""
    key = summary_key(study)
    stored = _stored_summary(study)
    if stored.get("key") == key:
        return stored
    r = stored_reproduction(study)  # which stores the summary too, unless another process changed the inputs since
    stored = _stored_summary(study)
    return stored if stored.get("key") == key else remember(r, key)


def audit_frame(summary: dict[str, Any]) -> pd.DataFrame:
    """The stored audit findings per rule and severity as a table."""
    return pd.DataFrame(summary["audit"]["rows"], columns=summary["audit"]["columns"])


def overview_tables(study_stems: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The overview: one row per study (title, numbers, claims by class and verdict,
    derived numbers, audit findings by severity, verdicts changed) with a total row,
    and the audit's findings per study, rule and severity. Each study's numbers
    come from its stored summary while its inputs and the code are unchanged
    (reproduce.summaries), so the overview does not reproduce the five again."""
    summaries = {s: study_summary(s) for s in study_stems}
    table = pd.DataFrame([{"title": m["title"], **m["counts"]} for m in summaries.values()])
    verdicts = [f"verdict_{v.value}" for v in CLAIM_ORDER]
    first = ["study", "title", "numbers", "tables", "figures", "claims", "tested", "descriptive", "untestable"]
    table = table.reindex(columns=[*first, *verdicts, *[c for c in table.columns if c not in first + verdicts]])
    counts = [c for c in table.columns if c not in ("study", "title")]
    table[counts] = table[counts].fillna(0).astype(int)
    total = {"study": "all five", "title": "", **{c: int(table[c].sum()) for c in counts}}
    audits = pd.concat([audit_frame(m).assign(study=s) for s, m in summaries.items()], ignore_index=True)
    audits = audits[["study", *[c for c in audits.columns if c != "study"]]]
    return pd.concat([table, pd.DataFrame([total])], ignore_index=True), audits


__all__ = ["audit_frame", "overview_tables", "remember", "shared_inputs", "stored_reproduction", "study_inputs",
           "study_summary", "summary_key"]
