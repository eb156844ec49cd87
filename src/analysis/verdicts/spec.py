"""What a claim says, as data: the hypothesis schema, reading hypothesis
files, and checking a claim against the columns and levels of a dataset."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Literal, Union

import numpy as np
import pandas as pd
import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from analysis.errors import HypothesisError
from analysis.naming import is_clock_offset
from analysis.yamlfiles import line_of, problems, read_yaml, read_yaml_tree

Scalar = Union[int, float, str]
Direction = Literal["greater", "less", "different", "equivalent"]


def canon(value) -> str:
    """Canonical text of a factor level: 4, 4.0 and '4' are the same level."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def canon_column(series: pd.Series) -> pd.Series:
    """:func:`canon` of every value of a column, computed once per distinct value (a
    campaign's factor columns hold a few levels over thousands of runs)."""
    codes, uniques = pd.factorize(series, use_na_sentinel=False)
    return pd.Series(np.asarray([canon(v) for v in uniques], dtype=object)[codes], index=series.index,
                     name=series.name)


class Compare(BaseModel):
    """The factor compared, and either its levels or named groups of levels."""

    model_config = ConfigDict(extra="forbid")
    factor: str
    levels: list[Scalar] | None = None
    groups: dict[str, list[Scalar]] | None = None

    @model_validator(mode="after")
    def _one_of(self):
        if (self.levels is None) == (self.groups is None):
            raise ValueError("give exactly one of 'levels' or 'groups'")
        if len(self.labels()) < 2:
            raise ValueError("compare needs at least two levels or groups")
        return self

    def named_twice(self) -> list[str]:
        """Levels listed more than once (4, 4.0 and '4' are one level): a group compared with itself."""
        named = [canon(v) for v in self.all_levels()]
        return sorted({v for v in named if named.count(v) > 1})

    def labels(self) -> list[str]:
        """Group labels in claim order (first is 'a', second 'b')."""
        if self.groups is not None:
            return list(self.groups)
        return [canon(v) for v in self.levels or []]

    def level_map(self) -> dict[str, str]:
        """Canonical level -> group label."""
        if self.groups is None:
            return {canon(v): canon(v) for v in self.levels or []}
        return {canon(v): name for name, vals in self.groups.items() for v in vals}

    def all_levels(self) -> list[Scalar]:
        """Every level named, flattened over groups."""
        if self.levels is not None:
            return list(self.levels)
        return [v for vals in (self.groups or {}).values() for v in vals]


class Stop(BaseModel):
    """Collect until decided: look after every ``look_every`` runs a group (from
    ``min_runs`` on, at most ``max_runs``) and stop a cell once its answer is
    known; α is spent over the looks by ``spending`` (docs/statistics.md,
    "Collect until decided"). ``futility``: stop a cell whose conditional power
    under the current trend falls below it (non-binding; none by default), at
    looks from information fraction ``futility_from`` on (the early trend of a
    few runs is too noisy to give up on: starting later keeps the power)."""

    model_config = ConfigDict(extra="forbid")
    when: Literal["decided"] = "decided"
    min_runs: int = Field(ge=2)
    max_runs: int = Field(ge=2)
    look_every: int = Field(ge=1)
    spending: Literal["obf", "pocock"] = "obf"
    alpha: float | None = Field(default=None, gt=0, lt=1)
    futility: float | None = Field(default=None, gt=0, lt=1)
    futility_from: float = Field(default=0.0, ge=0, lt=1)

    @model_validator(mode="after")
    def _ordered(self):
        if self.max_runs < self.min_runs:
            raise ValueError(f"stop: max_runs {self.max_runs} is below min_runs {self.min_runs}")
        if self.futility_from and self.futility is None:
            raise ValueError("stop: futility_from is given but futility is not: no look would stop for futility")
        return self

    def schedule(self) -> list[int]:
        """Runs per group at each planned look; the last is max_runs."""
        looks = list(range(self.min_runs, self.max_runs, self.look_every))
        return looks + [self.max_runs]


class Hypothesis(BaseModel):
    """One claim on a campaign.  ``direction`` reads: first level/group <direction> second."""

    model_config = ConfigDict(extra="forbid")
    id: str
    statement: str
    source: str = "user"
    metric: str
    scope: dict[str, Scalar | list[Scalar]] = {}
    compare: Compare
    direction: Direction
    margin: float | None = Field(default=None, gt=0)
    margin_pct: float | None = Field(default=None, gt=0)
    per: str | None = None
    holds: Literal["all", "any", "pooled"] = "all"
    interaction: str | None = None
    test: Literal["auto", "welch", "mann-whitney"] = "auto"
    alpha: float = Field(default=0.05, gt=0, lt=1)
    correction: Literal["holm", "bh", "bonferroni", "none"] = "holm"
    family: Literal["claim", "file"] = "claim"
    min_effect_pct: float = Field(default=5.0, gt=0)
    stop: Stop | None = None
    _origin: str = PrivateAttr(default="")  # "FILE:LINE" of a hypothesis read from a file
    _key_lines: dict = PrivateAttr(default_factory=dict)  # key -> its line in that file

    def where(self, key: str | None = None) -> str:
        """"FILE:LINE" of the claim (of ``key`` in it when known); empty when it came from code."""
        if not self._origin:
            return ""
        line = self._key_lines.get(key)
        return f"{self._origin.rsplit(':', 1)[0]}:{line}" if line else self._origin

    @model_validator(mode="after")
    def _consistent(self):
        twice = self.compare.named_twice()
        if twice:  # a study may print such a comparison (its claims file keeps it); a campaign claim may not
            raise ValueError(f"compare: level {', '.join(twice)} is named twice: a group compared with itself "
                             "(4, 4.0 and '4' are one level)")
        two = len(self.compare.labels()) == 2
        if self.direction in ("greater", "less", "equivalent") and not two:
            raise ValueError(f"direction '{self.direction}' needs exactly two levels or groups")
        if self.direction == "equivalent" and (self.margin is None) == (self.margin_pct is None):
            raise ValueError("direction 'equivalent' needs exactly one of 'margin' or 'margin_pct'")
        if self.interaction and self.direction != "different":
            raise ValueError("an interaction claim has direction 'different'")
        if self.direction == "equivalent" and self.per and self.holds == "pooled":
            raise ValueError("an equivalence claim is tested in each cell (holds: all or any), not pooled")
        if self.interaction and self.per:
            raise ValueError("give 'per' or 'interaction', not both")
        if self.stop is not None:
            self._sequential_ok(self.stop)
        return self

    def _sequential_ok(self, stop: Stop) -> None:
        """A sequential design is computed for Welch's t of two groups per cell (TOST for equivalence)."""
        if stop.alpha is not None and stop.alpha != self.alpha:
            raise ValueError(f"stop: alpha {stop.alpha:g} differs from the claim's alpha {self.alpha:g}; give it once")
        if self.test == "mann-whitney" or self.interaction or self.holds == "pooled" \
                or len(self.compare.labels()) != 2:
            raise ValueError("stop: collecting until decided is designed for Welch's t on two groups in each cell "
                             "(not a rank test, an interaction, a pooled model or more than two groups)")


def parse_hypotheses(specs: Iterable[Mapping], defaults: Mapping | None = None,
                     origin: str = "<hypotheses>", nodes: list | None = None) -> list[Hypothesis]:
    """Validate raw dicts (with file-level defaults) into Hypothesis objects.
    ``nodes`` (the YAML nodes of the specs) lets errors name the line."""
    out: list[Hypothesis] = []
    seen: set[str] = set()
    for i, raw in enumerate(specs):
        node = nodes[i] if nodes is not None and i < len(nodes) else None
        where = f"{origin}:{node.start_mark.line + 1}" if node is not None else origin
        if not isinstance(raw, Mapping):
            raise HypothesisError(f"{where}: hypothesis #{i + 1}: expected a mapping, got {type(raw).__name__}")
        hid = str(raw.get("id", f"#{i + 1}"))
        try:
            hyp = Hypothesis(**{**(defaults or {}), **raw})
        except ValidationError as err:
            loc = err.errors()[0]["loc"]
            line = line_of(node, tuple(loc)) if node is not None and loc and loc[0] in raw else None
            at = f"{origin}:{line}" if line else where
            raise HypothesisError(f"{at}: hypothesis {hid}: {problems(err)}") from None
        if hyp.id in seen:
            raise HypothesisError(f"{where}: hypothesis {hyp.id}: duplicate id")
        seen.add(hyp.id)
        _check_family(hyp, out, where)
        if hyp.margin_pct is not None and is_clock_offset(hyp.metric):
            line = line_of(node, ("margin_pct",)) if node is not None else None
            raise HypothesisError(f"{f'{origin}:{line}' if line else where}: hypothesis {hyp.id}: key 'margin_pct': "
                                  f"{hyp.metric} is a one-way delay, whose level includes the hosts' clock offset; "
                                  "give an absolute 'margin' in ms")
        if node is not None:
            hyp._origin = where
            hyp._key_lines = {k.value: k.start_mark.line + 1 for k, _ in getattr(node, "value", [])
                              if isinstance(k, yaml.ScalarNode)}
        out.append(hyp)
    return out


def _check_family(hyp: Hypothesis, before: list[Hypothesis], where: str) -> None:
    """Claims corrected together as one family (``family: file``) share one correction and one α."""
    first = next((h for h in before if h.family == "file"), None)
    if hyp.family != "file" or first is None:
        return
    if (hyp.correction, hyp.alpha) != (first.correction, first.alpha):
        raise HypothesisError(f"{where}: hypothesis {hyp.id}: key 'family': claims corrected as one file "
                              f"share one correction and alpha ({first.id} has {first.correction}, "
                              f"alpha {first.alpha:g}; this one {hyp.correction}, alpha {hyp.alpha:g})")


def load_hypotheses(path: str | Path) -> list[Hypothesis]:
    """Read a YAML file: ``hypotheses: [...]`` (+ optional ``defaults`` and
    ``question``, see :func:`load_question`) or a list. Every error, and every
    later error about the data, names FILE:LINE."""
    doc, tree = read_yaml_tree(path, HypothesisError)
    if isinstance(doc, list):
        return parse_hypotheses(doc, origin=str(path), nodes=_items(tree))
    if not isinstance(doc, Mapping) or not isinstance(doc.get("hypotheses"), list):
        raise HypothesisError(f"{path}: expected a list or a mapping with a 'hypotheses' list")
    listed = next((v for k, v in tree.value if k.value == "hypotheses"), None) \
        if isinstance(tree, yaml.MappingNode) else None
    return parse_hypotheses(doc["hypotheses"], doc.get("defaults"), origin=str(path), nodes=_items(listed))


def _items(node) -> list | None:
    return list(node.value) if isinstance(node, yaml.SequenceNode) else None


def load_question(path: str | Path) -> str:
    """The question a hypothesis file asks of its campaign (top-level
    ``question:``; the report leads with it), or "" when it states none."""
    doc = read_yaml(path, HypothesisError)
    question = doc.get("question", "") if isinstance(doc, Mapping) else ""
    if not isinstance(question, str):
        raise HypothesisError(f"{path}: key 'question': expected text, got {type(question).__name__}")
    return question.strip()


def as_hypotheses(path_or_specs) -> list[Hypothesis]:
    """A path, Hypothesis objects or raw dicts -> validated Hypothesis objects."""
    if isinstance(path_or_specs, (str, Path)):
        return load_hypotheses(path_or_specs)
    specs = list(path_or_specs)
    if all(isinstance(s, Hypothesis) for s in specs):
        for i, hyp in enumerate(specs):
            _check_family(hyp, specs[:i], hyp.where() or "<hypotheses>")
        return specs
    return parse_hypotheses(specs)


def check_against(hyp: Hypothesis, runs: pd.DataFrame) -> None:
    """Raise HypothesisError when the claim names a column or level the data lacks."""
    def fail(key, msg):
        where = hyp.where(key)
        raise HypothesisError(f"{where + ': ' if where else ''}hypothesis {hyp.id}: key '{key}': {msg}")

    if hyp.metric not in runs.columns:
        fail("metric", f"unknown metric {hyp.metric!r}")
    if not pd.api.types.is_numeric_dtype(runs[hyp.metric]):
        fail("metric", f"column {hyp.metric!r} is not numeric")
    wanted = [("scope", f, v if isinstance(v, list) else [v]) for f, v in hyp.scope.items()]
    wanted.append(("compare", hyp.compare.factor, hyp.compare.all_levels()))
    for key, factor in (("per", hyp.per), ("interaction", hyp.interaction)):
        if factor and factor not in runs.columns:
            fail(key, f"unknown factor {factor!r}")
    for key, factor, levels in wanted:
        if factor not in runs.columns:
            fail(key, f"unknown factor {factor!r}")
        have = sorted({canon(v) for v in runs[factor].dropna().unique()})
        for level in levels:
            if canon(level) not in have:
                fail(key, f"level {level!r} of {factor!r} not in the data (have: {', '.join(have)})")
