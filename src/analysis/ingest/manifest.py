"""Campaign manifest: which raw file holds which factor levels, and what the
campaign is (testbed, hosts, tools, dates, synthetic or real).

A campaign is a folder ``data/raw/<campaign>/`` with the tools' untouched
outputs and a ``manifest.yaml``. Files map to factor levels through path
templates such as ``{tool}/ipv{ip_version:int}/{scenario}_{run:int}.txt``
(:mod:`.templates`), whole regular expressions, folder segments, an explicit
table and/or a mapping CSV (:mod:`.mapping_table`); constants apply to every
file; ignore rules name files that are not measurements (notes, command
sidecars). The manifest is validated with pydantic so that a mistake names
its key and the fix, and every factor it names is declared and checked
against the tables' columns when it is loaded (:mod:`.factor_declarations`).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from analysis.errors import ManifestError
from analysis.ingest.factor_declarations import declare
from analysis.ingest.mapping_table import read_mapping
from analysis.ingest.templates import FactorType, LevelError, PathRule, parse_template, placeholders, segments_pieces
from analysis.yamlfiles import load_model_tree

MANIFEST_NAME = "manifest.yaml"
_IDENTIFIER = re.compile(r"^[a-z][a-z0-9_]*$")


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
    templates: list[str] = Field(default_factory=list, description="path templates, tried in order until one fits")
    patterns: list[str] = Field(default_factory=list, description="regular expressions whose named groups are factors")
    segments: list[str | None] | None = Field(default=None, description="one factor per folder (null: any), then any file name")
    mapping: str | None = Field(default=None, description="a CSV file in the campaign: path, then one column per factor")
    table: list[FileEntry] = Field(default_factory=list)
    constants: dict[str, int | float | str] = Field(default_factory=dict)
    ignore: list[str] = Field(default_factory=list)
    parser_hints: ParserHints = Field(default_factory=dict, description="hints for every file; a table entry's own win")

    @field_validator("templates")
    @classmethod
    def _templates_name_factors(cls, templates: list[str]) -> list[str]:
        for t in templates:
            names = [p.name for p in placeholders(parse_template(t))]
            if not names:
                raise ValueError(f"template {t!r} has no {{factor}} placeholder; list such files in files.table instead")
            bad = [n for n in names if not _IDENTIFIER.match(n)]
            if bad:
                raise ValueError(f"template {t!r}: placeholder {bad[0]!r} is not a factor name (lower case, digits, _)")
            _check_relative(t, "files.templates")
        return templates

    @field_validator("patterns")
    @classmethod
    def _patterns_name_factors(cls, patterns: list[str]) -> list[str]:
        for p in patterns:
            try:
                groups = re.compile(p).groupindex
            except re.error as exc:
                raise ValueError(f"pattern {p!r} is not a regular expression: {exc}") from None
            if not groups:
                raise ValueError(f"pattern {p!r} has no named group (?P<factor>...)")
        return patterns

    @field_validator("segments")
    @classmethod
    def _segments_name_factors(cls, segments: list[str | None] | None) -> list[str | None] | None:
        if segments is not None and not any(s is not None for s in segments):
            raise ValueError("files.segments names no factor; give one name per folder level (null for a level that is none)")
        return segments

    @model_validator(mode="after")
    def _table_paths_are_inside(self) -> "FilesSpec":
        for e in self.table:
            _check_relative(e.path, "files.table[].path")
        if self.mapping is not None:
            _check_relative(self.mapping, "files.mapping")
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
    """The campaign's manifest, with every factor it names declared and every
    level it states typed (see :mod:`.factor_declarations`); a mapping CSV's
    rows join ``files.table``. ManifestError names FILE:LINE and the fix."""
    path = Path(campaign_dir) / MANIFEST_NAME
    if not path.is_file():
        raise ManifestError(f"{path}: no manifest; a campaign folder needs a {MANIFEST_NAME} (see docs/architecture.md)")
    manifest, node = load_model_tree(path, Manifest, ManifestError, "keys campaign, factors, files")
    mapping = read_mapping(Path(campaign_dir) / manifest.files.mapping) if manifest.files.mapping else None
    declared = declare(manifest, node, path, mapping)
    table = [e.model_copy(update={"levels": levels}) for e, levels in zip(manifest.files.table, declared.table_levels)]
    listed = {e.path: i for i, e in enumerate(table)}
    for rel, (line, levels) in declared.mapping_levels.items():
        if rel in listed:
            entry = table[listed[rel]]
            clash = [k for k in levels if k in entry.levels and entry.levels[k] != levels[k]]
            if clash:
                raise ManifestError(f"{mapping.file if mapping else ''}:{line}: {rel}: {clash[0]}={levels[clash[0]]!r} "
                                    f"but files.table says {entry.levels[clash[0]]!r}")
            table[listed[rel]] = entry.model_copy(update={"levels": entry.levels | levels})
        else:
            table.append(FileEntry(path=rel, levels=levels))
    files = manifest.files.model_copy(update={"constants": declared.constants, "table": table})
    factors = {name: FactorSpec(**spec) for name, spec in declared.factors.items()}
    return manifest.model_copy(update={"factors": factors, "files": files})


def path_rules(manifest: Manifest) -> list[PathRule]:
    """The manifest's templates, patterns and segment rule, in the order they are tried."""
    kinds = {name: FactorType(spec.type, tuple(spec.levels) if spec.levels is not None else None)
             for name, spec in manifest.factors.items()}
    files = manifest.files
    rules = [PathRule(f"template {t!r}", kinds, pieces=parse_template(t)) for t in files.templates]
    rules += [PathRule(f"pattern {p!r}", kinds, regex=p) for p in files.patterns]
    if files.segments:
        rules.append(PathRule("files.segments", kinds, pieces=segments_pieces(files.segments)))
    return rules


class FileMapper:
    """Turns a campaign-relative path into its factor levels, per the manifest."""

    def __init__(self, manifest: Manifest):
        self.manifest = manifest
        self._table = {e.path: e for e in manifest.files.table}
        self._rules = path_rules(manifest)

    def is_ignored(self, rel: str) -> str | None:
        """The ignore rule that matches ``rel``, if any (the mapping CSV is no measurement)."""
        if rel == self.manifest.files.mapping:
            return "files.mapping"
        for rule in self.manifest.files.ignore:
            if fnmatch.fnmatchcase(rel, rule) or fnmatch.fnmatchcase(PurePosixPath(rel).name, rule):
                return rule
        return None

    def assign(self, rel: str) -> Assignment:
        levels: dict[str, Any] = dict(self.manifest.files.constants)
        meta: dict[str, Any] = {}
        hints = {tool: dict(h) for tool, h in self.manifest.files.parser_hints.items()}
        found, why = self.from_path(rel)
        entry = self._table.get(rel)
        if found is None and entry is None:
            raise Unassigned(why)
        levels.update(found or {})
        if entry is not None:
            levels.update(entry.levels)
            meta = dict(entry.meta)
            for tool, h in entry.parser_hints.items():
                hints.setdefault(tool, {}).update(h)
        return Assignment(levels, meta, hints)

    def from_path(self, rel: str) -> tuple[dict[str, Any] | None, str]:
        """The levels of the first path rule that matches ``rel`` and whose
        levels cast, or None and why none did (each rule's reason)."""
        reasons = []
        for rule in self._rules:
            try:
                return rule.levels(rel), ""
            except LevelError as exc:
                reasons.append(str(exc))
        if not self._rules:
            return None, "not described by the manifest: no files.table or mapping entry lists this path"
        fitting = [r for r in reasons if not r.endswith("does not match")]
        shown = fitting or ["no files.templates, files.patterns or files.segments rule matches this path"]
        return None, "not described by the manifest: " + "; ".join(shown)
