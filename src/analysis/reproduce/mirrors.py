"""Our own datasets that mirror each study's design (data/claims/mirrors.yaml),
and their runs, ingested once per change of their raw files.

Both the study figures (drawn beside the published points) and the claims
re-tested on our data read the mirror through here. A mirror is read from
the campaign's own tables (``load_campaign``, ingested only when its raw
files changed, found by their size and time stamps), so a report's study
pages reuse what its campaign pages ingested: each study ingested its mirror
again into a scratch folder and hashed every raw file of it on each call
(a third of study 000's page)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pandas as pd
from pydantic import BaseModel, ConfigDict

from analysis.config import claims_dir, raw_dir as default_raw_dir
from analysis.errors import ClaimsError
from analysis.ingest.campaign import current_fingerprint, load_campaign, processed_dir_for
from analysis.ingest.per_run import one_row_per_run
from analysis.yamlfiles import load_model

Level = int | float | str
# Our campaign with an OS factor, whose OS contrast (reproduce.os_contrast) the study pages
# set beside their OS claims; named here, where the report's task graph reads it without
# importing the statistics.
OS_CAMPAIGN = "uml-seeds"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MetricSource(_Strict):
    """Which of our columns measures a claim's metric, and which runs measure it."""

    column: str
    scope: dict[str, Level] = {}


class Dataset(_Strict):
    name: str = ""  # filled from its key in the file
    size_column: str
    platform: str | None = None
    note: str = ""
    metrics: dict[str, MetricSource]


class Mirrors(_Strict):
    datasets: dict[str, Dataset]
    studies: dict[str, str]


def load_mirrors(directory: Path | None = None) -> Mirrors:
    """The mirror map, validated (errors name the file and the key)."""
    path = (directory or claims_dir()) / "mirrors.yaml"
    mirrors = load_model(path, Mirrors, ClaimsError, "keys datasets, studies")
    for name, dataset in mirrors.datasets.items():
        dataset.name = name
    unknown = sorted(set(mirrors.studies.values()) - set(mirrors.datasets))
    if unknown:
        raise ClaimsError(f"{path}: key 'studies': unknown dataset(s) {', '.join(unknown)}")
    return mirrors


@dataclass(frozen=True)
class MirrorData:
    """One row per run of a mirror campaign, with what its figures must say about it."""

    name: str
    testbed: str
    synthetic: bool
    runs: pd.DataFrame


def mirror_available(campaign: str, raw_dir: Path | None = None) -> bool:
    """Our matching campaign exists once its manifest does."""
    return ((raw_dir or default_raw_dir()) / campaign / "manifest.yaml").is_file()


@lru_cache(maxsize=8)
def _ingested(campaign: str, raw_dir: str, version: str) -> MirrorData:
    data = load_campaign(Path(raw_dir) / campaign)
    return MirrorData(data.name, str(data.manifest.campaign.testbed), data.synthetic,
                      one_row_per_run(data.runs))


def load_mirror(campaign: str, raw_dir: Path | None = None) -> MirrorData:
    """The mirror campaign's runs; cached until its raw files change.  Each
    caller gets its own copy of the table, so no caller can change another's."""
    folder = raw_dir or default_raw_dir()
    version = current_fingerprint(folder / campaign, processed_dir_for(folder / campaign))
    cached = _ingested(campaign, str(folder), version)
    return MirrorData(cached.name, cached.testbed, cached.synthetic, cached.runs.copy())
