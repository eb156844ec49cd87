"""Reading the project's YAML files (manifests, plans, hypotheses, claims)
safely, with errors that name the file, the line and the key to fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)


def read_yaml(path: str | Path, error: type[Exception]) -> Any:
    """The parsed document (plain data only: no object tags), or ``error``
    naming the file and, for a syntax error, the line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror}") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise error(f"{path}{where}: not valid YAML ({getattr(exc, 'problem', None) or exc})") from None


def problems(exc: ValidationError) -> str:
    """A pydantic error as 'key.path: message; ...'."""
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(top)'}: {e['msg']}" for e in exc.errors())


def load_model(path: str | Path, model: type[M], error: type[Exception], expected: str) -> M:
    """A YAML mapping validated into ``model``; ``error`` names the file and
    every key to fix (``expected`` says what the mapping should hold)."""
    raw = read_yaml(path, error)
    if not isinstance(raw, dict):
        raise error(f"{path}: expected a mapping with {expected}")
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise error(f"{path}: {problems(exc)}") from None
