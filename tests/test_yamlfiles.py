"""YAML files are read safely and their errors name file and line."""

import pytest

from analysis.hypotheses import HypothesisError, load_hypotheses
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
