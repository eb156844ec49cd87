"""YAML files are read safely and their errors name file and line."""

import pytest

from analysis.verdicts import HypothesisError, load_hypotheses
from analysis.yamlfiles import read_yaml


class Broken(ValueError):
    pass


def test_syntax_error_names_file_and_line(tmp_path):
    path = tmp_path / "h.yaml"
    path.write_text("hypotheses:\n  - id: a\n    metric: [unclosed\n")
    with pytest.raises(HypothesisError, match=r"h\.yaml:\d+: not valid YAML"):
        load_hypotheses(path)


def test_missing_file_and_object_tags(tmp_path):
    with pytest.raises(Broken, match=r"nope\.yaml: cannot read"):
        read_yaml(tmp_path / "nope.yaml", Broken)
    evil = tmp_path / "evil.yaml"
    evil.write_text("x: !!python/object/apply:os.system ['true']\n")
    with pytest.raises(Broken, match="not valid YAML"):
        read_yaml(evil, Broken)
    ok = tmp_path / "ok.yaml"
    ok.write_text("a: [1, 2]\n")
    assert read_yaml(ok, Broken) == {"a": [1, 2]}


def test_a_validation_error_names_the_line_of_the_key(tmp_path):
    from analysis.errors import ManifestError
    from analysis.ingest.manifest import load_manifest

    (tmp_path / "manifest.yaml").write_text("campaign:\n  title: t\n  synthetic: false\nfiles: {}\nfactorz: {}\n")
    with pytest.raises(ManifestError, match=r"manifest\.yaml:5: key .factorz."):
        load_manifest(tmp_path)


def test_an_alias_bomb_is_refused_at_once(tmp_path):
    """'Billion laughs': nine levels of ten aliases expand to 10^9 nodes."""
    lines = ['a0: &a0 ["lol"]']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)]
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(lines) + "\n")
    with pytest.raises(HypothesisError, match=r"bomb\.yaml:1: aliases expand to .* refusing an alias bomb"):
        read_yaml(bomb, HypothesisError)


def test_ordinary_anchors_still_work(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_text("base: &b {x: 1}\nother: *b\n")
    assert read_yaml(path, HypothesisError) == {"base": {"x": 1}, "other": {"x": 1}}
