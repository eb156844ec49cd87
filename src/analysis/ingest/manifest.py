"""Campaign manifest: which raw file holds which factor levels, and what the
campaign is (testbed, hosts, tools, dates, synthetic or real).

A campaign is a folder ``data/raw/<campaign>/`` with the tools' untouched
outputs and a ``manifest.yaml``. Files map to factor levels through path
templates such as ``{tool}/ipv{ip_version}/{transport}/{packet_size_bytes}/run{run}.txt``
and/or an explicit table; constants apply to every file; ignore rules name
files that are not measurements (notes, command sidecars). The manifest is
validated with pydantic so that a mistake names its key and the fix.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from analysis.errors import ManifestError
from analysis.yamlfiles import load_model

MANIFEST_NAME = "manifest.yaml"
_IDENTIFIER = re.compile(r"^[a-z][a-z0-9_]*$")
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_CASTS = {"int": int, "float": float, "str": str}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CampaignInfo(_Strict):
    """What the campaign is; shown in the ingest report and the report."""

    title: str
    description: str = ""
    synthetic: bool = Field(description="True when the data did not come from running the tools")
    testbed: str = ""
    hosts: list[dict[str, Any]] | list[str] = Field(default_factory=list)
    os: str = ""
    kernel: str = ""
    tool_versions: dict[str, str] = Field(default_factory=dict)
    dates: list[str] = Field(default_factory=list)
    notes: str = ""
    extra: dict[str, Any] = Field(default_factory=dict, description="anything else worth keeping, e.g. host facts")


class FactorSpec(_Strict):
    type: Literal["int", "float", "str"] = "str"
    levels: list[int | float | str] | None = None
    description: str = ""


ParserHints = dict[str, dict[str, str]]


class FileEntry(_Strict):
    path: str
    levels: dict[str, int | float | str] = Field(default_factory=dict)
    meta: dict[str, Any] = Field(default_factory=dict, description="per-run facts: command, times, exit status, order")
    parser_hints: ParserHints = Field(default_factory=dict, description="what the output cannot say, e.g. {ditg: {meter: rttm}}")


class FilesSpec(_Strict):
    templates: list[str] = Field(default_factory=list)
    table: list[FileEntry] = Field(default_factory=list)
    constants: dict[str, int | float | str] = Field(default_factory=dict)
    ignore: list[str] = Field(default_factory=list)
    parser_hints: ParserHints = Field(default_factory=dict, description="hints for every file; a table entry's own win")

    @field_validator("templates")
    @classmethod
    def _templates_name_factors(cls, templates: list[str]) -> list[str]:
        for t in templates:
            names = _PLACEHOLDER.findall(t)
            if not names:
                raise ValueError(f"template {t!r} has no {{factor}} placeholder; list such files in files.table instead")
            bad = [n for n in names if not _IDENTIFIER.match(n)]
            if bad:
                raise ValueError(f"template {t!r}: placeholder {bad[0]!r} is not a factor name (lower case, digits, _)")
            _check_relative(t, "files.templates")
        return templates

    @model_validator(mode="after")
    def _table_paths_are_inside(self) -> "FilesSpec":
        for e in self.table:
            _check_relative(e.path, "files.table[].path")
        return self


class Manifest(_Strict):
    campaign: CampaignInfo
    factors: dict[str, FactorSpec] = Field(default_factory=dict)
    files: FilesSpec

    @field_validator("factors")
    @classmethod
    def _factor_names(cls, factors: dict[str, FactorSpec]) -> dict[str, FactorSpec]:
        for name in factors:
            if not _IDENTIFIER.match(name):
                raise ValueError(f"factor name {name!r}: use lower case letters, digits and _")
        return factors


def _check_relative(path: str, key: str) -> None:
    p = PurePosixPath(path)
    if p.is_absolute() or ".." in p.parts or "\\" in path:
        raise ValueError(f"{key}: {path!r} leads outside the campaign folder; use a path relative to it")


@dataclass(frozen=True)
class Assignment:
    """The factor levels (and per-run facts) a manifest gives one file."""

    levels: dict[str, Any]
    meta: dict[str, Any]
    parser_hints: dict[str, dict[str, str]]


class Unassigned(Exception):
    """A file the manifest does not describe, or whose levels it cannot read."""


def load_manifest(campaign_dir: Path) -> Manifest:
    path = Path(campaign_dir) / MANIFEST_NAME
    if not path.is_file():
        raise ManifestError(f"{path}: no manifest; a campaign folder needs a {MANIFEST_NAME} (see docs/architecture.md)")
    return load_model(path, Manifest, ManifestError, "keys campaign, factors, files")


class FileMapper:
    """Turns a campaign-relative path into its factor levels, per the manifest."""

    def __init__(self, manifest: Manifest):
        self.manifest = manifest
        self._table = {e.path: e for e in manifest.files.table}
        self._templates = [(t, _template_regex(t)) for t in manifest.files.templates]

    def is_ignored(self, rel: str) -> str | None:
        """The ignore rule that matches ``rel``, if any."""
        for rule in self.manifest.files.ignore:
            if fnmatch.fnmatchcase(rel, rule) or fnmatch.fnmatchcase(PurePosixPath(rel).name, rule):
                return rule
        return None

    def assign(self, rel: str) -> Assignment:
        levels: dict[str, Any] = dict(self.manifest.files.constants)
        meta: dict[str, Any] = {}
        hints = {tool: dict(h) for tool, h in self.manifest.files.parser_hints.items()}
        matched = False
        for template, regex in self._templates:
            m = regex.fullmatch(rel)
            if m:
                levels.update(m.groupdict())
                matched = True
                break
        entry = self._table.get(rel)
        if entry is not None:
            levels.update(entry.levels)
            meta = dict(entry.meta)
            for tool, h in entry.parser_hints.items():
                hints.setdefault(tool, {}).update(h)
            matched = True
        if not matched:
            raise Unassigned("not described by the manifest: no files.templates pattern or files.table entry matches this path")
        return Assignment(self._typed(levels), meta, hints)

    def _typed(self, levels: dict[str, Any]) -> dict[str, Any]:
        typed = {}
        for name, value in levels.items():
            spec = self.manifest.factors.get(name)
            if spec is None:
                typed[name] = value
                continue
            try:
                value = _CASTS[spec.type](value)
            except (TypeError, ValueError):
                raise Unassigned(f"factor {name}: {value!r} is not a {spec.type}") from None
            if spec.levels is not None and value not in spec.levels:
                raise Unassigned(f"factor {name}: level {value!r} is not among the manifest's levels {spec.levels}")
            typed[name] = value
        return typed


def _template_regex(template: str) -> re.Pattern[str]:
    parts: list[str] = []
    seen: set[str] = set()
    pos = 0
    for m in _PLACEHOLDER.finditer(template):
        parts.append(re.escape(template[pos : m.start()]))
        name = m.group(1)
        parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>[^/]+?)")
        seen.add(name)
        pos = m.end()
    parts.append(re.escape(template[pos:]))
    return re.compile("".join(parts))
