"""Reading the project's YAML files (manifests, plans, hypotheses, claims)
safely, with errors that name the file, the line and the key to fix.

Plain data only (no object tags), libyaml's C parser when present (a 1 MB
manifest parses 4× faster), and a bound on what aliases may expand to, so
a "billion laughs" document fails at once instead of eating memory later.
A key written twice in one mapping is refused: YAML loaders keep the last
value silently, and a second ``synthetic: true`` would relabel real data.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)
Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MAX_BYTES = 64 * 2**20
MAX_EXPANDED_NODES = 2_000_000
STR_TAG = "tag:yaml.org,2002:str"


def _expanded_size(node: yaml.Node, memo: dict[int, int]) -> int:
    """Nodes the document has once every alias is expanded (memoised, so fast on bombs)."""
    key = id(node)
    if key not in memo:
        memo[key] = 0  # a recursive alias counts once
        if isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = node.value
        else:
            children = []
        memo[key] = 1 + sum(_expanded_size(child, memo) for child in children)
    return memo[key]


def _first_duplicate_key(root: yaml.Node, loader: Any) -> tuple[yaml.Node, yaml.Node] | None:
    """The first key written twice in one mapping (its second and first
    nodes), or None. Keys are compared as loaded (``1`` and ``01`` are one
    int); merged keys (``<<: *base``) may be overridden, that is their use."""
    seen_nodes: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen_nodes:  # an alias: checked once
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[Any, yaml.Node] = {}
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                    # a string loads as its text: constructed only when it is not one (a manifest's
                    # 100,000 keys are nearly all strings; constructing each took a fifth of its load)
                    loaded = key.value if key.tag == STR_TAG else loader.construct_object(key)
                    if loaded in first:
                        return key, first[loaded]
                    first[loaded] = key
            stack.extend(n for pair in reversed(node.value) for n in reversed(pair))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(reversed(node.value))
    return None


def _compose(path: Path, error: type[Exception]) -> tuple[Any, yaml.Node | None]:
    """The parsed document and its node tree (for line numbers)."""
    try:
        if path.stat().st_size > MAX_BYTES:
            raise error(f"{path}: larger than {MAX_BYTES // 2**20} MiB; not a file netrepro reads")
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    loader = Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, None
        # an alias needs an anchor, and an anchor an "&": a document without one expands to itself
        size = _expanded_size(node, {}) if "&" in text else 0
        if size > MAX_EXPANDED_NODES:
            raise error(f"{path}:{node.start_mark.line + 1}: aliases expand to {size:,} nodes "
                        f"(more than {MAX_EXPANDED_NODES:,}); refusing an alias bomb")
        duplicate = _first_duplicate_key(node, loader)
        if duplicate is not None:
            second, first = duplicate
            raise error(f"{path}:{second.start_mark.line + 1}: key {second.value!r} is written twice in one mapping "
                        f"(first at line {first.start_mark.line + 1}); keep one: a loader would silently use the last")
        return loader.construct_document(node), node
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise error(f"{path}{where}: not valid YAML ({getattr(exc, 'problem', None) or exc})") from None
    finally:
        loader.dispose()


def read_yaml(path: str | Path, error: type[Exception]) -> Any:
    """The parsed document (plain data only: no object tags), or ``error``
    naming the file and, for a syntax error, the line."""
    return _compose(Path(path), error)[0]


def read_yaml_tree(path: str | Path, error: type[Exception]) -> tuple[Any, yaml.Node | None]:
    """The parsed document and its node tree, for errors that name a line (``line_of``)."""
    return _compose(Path(path), error)


def line_of(node: yaml.Node | None, loc: tuple) -> int | None:
    """1-based line of the deepest node on the key path ``loc`` (None without a tree)."""
    if node is None:
        return None
    line = node.start_mark.line + 1
    for key in loc:
        child = None
        if isinstance(node, yaml.MappingNode):
            child = next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == str(key)), None)
            if child is not None:
                key_node = next(k for k, v in node.value if v is child)
                line = key_node.start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            child = node.value[key]
            line = child.start_mark.line + 1
        if child is None:
            break
        node = child
    return line


def problems(exc: ValidationError, node: yaml.Node | None = None) -> str:
    """A pydantic error as "key 'a.b': message; ..." (with 'line N' when the tree is known)."""
    parts = []
    for e in exc.errors():
        key = ".".join(str(p) for p in e["loc"]) or "(top)"
        line = line_of(node, tuple(e["loc"]))
        parts.append((f"line {line}: " if line else "") + f"key '{key}': {e['msg']}")
    return "; ".join(parts)


def load_model(path: str | Path, model: type[M], error: type[Exception], expected: str) -> M:
    """A YAML mapping validated into ``model``; ``error`` names the file, the
    line and every key to fix (``expected`` says what the mapping should hold)."""
    return load_model_tree(path, model, error, expected)[0]


def load_model_tree(path: str | Path, model: type[M], error: type[Exception], expected: str) -> tuple[M, yaml.Node | None]:
    """:func:`load_model` and the document's node tree, for checks after
    validation that name a line (``line_of``)."""
    path = Path(path)
    raw, node = _compose(path, error)
    if not isinstance(raw, dict):
        raise error(f"{path}: expected a mapping with {expected}")
    try:
        return model.model_validate(raw), node
    except ValidationError as exc:
        first = line_of(node, tuple(exc.errors()[0]["loc"]))
        text = problems(exc, node)
        if first:  # the first problem's line leads, as FILE:LINE
            text = text.removeprefix(f"line {first}: ")
        raise error(f"{path}{f':{first}' if first else ''}: {text}") from None
