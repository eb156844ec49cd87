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


def test_a_key_written_twice_is_refused_with_both_lines(tmp_path):
    """The reported cases: a second ``synthetic`` relabelled real data, a second ``direction`` changed the test."""
    from analysis.errors import ManifestError
    from analysis.ingest.manifest import load_manifest

    (tmp_path / "manifest.yaml").write_text("campaign:\n  title: t\n  synthetic: false\n  synthetic: true\nfiles: {}\n")
    with pytest.raises(ManifestError, match=r"manifest\.yaml:4: key 'synthetic' is written twice in one mapping "
                                            r"\(first at line 3\)"):
        load_manifest(tmp_path)
    hyp = tmp_path / "h.yaml"
    hyp.write_text("hypotheses:\n  - id: a\n    metric: throughput_mbps\n    direction: greater\n"
                   "    compare: {factor: ip_version, levels: [4, 6]}\n    direction: less\n")
    with pytest.raises(HypothesisError, match=r"h\.yaml:6: key 'direction' is written twice .*first at line 4"):
        load_hypotheses(hyp)


def test_keys_are_compared_as_loaded_and_in_every_mapping(tmp_path):
    path = tmp_path / "k.yaml"
    path.write_text("levels:\n  - {1: a, 01: b}\n")  # two spellings of the int 1
    with pytest.raises(Broken, match=r"k\.yaml:2: key '01' is written twice .*first at line 2"):
        read_yaml(path, Broken)
    path.write_text("a: 1\nb:\n  c: 2\nA: 3\n'a ': 4\n")  # other keys, not the same one
    assert read_yaml(path, Broken) == {"a": 1, "b": {"c": 2}, "A": 3, "a ": 4}


def test_a_merged_key_may_be_overridden(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text("base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  x: 3\n")
    assert read_yaml(path, Broken) == {"base": {"x": 1, "y": 2}, "other": {"x": 3, "y": 2}}


def test_every_yaml_file_the_package_reads_goes_through_yamlfiles():
    """A direct yaml.safe_load would accept the duplicate keys (and the alias bombs) refused here."""
    import re
    from pathlib import Path

    import analysis

    package = Path(analysis.__file__).parent
    direct = re.compile(r"\byaml\.(safe_load|load|full_load|unsafe_load|load_all|safe_load_all|compose)\(")
    readers = [f"{p.relative_to(package)}:{n}" for p in sorted(package.rglob("*.py")) if p.name != "yamlfiles.py"
               for n, line in enumerate(p.read_text().splitlines(), 1) if direct.search(line)]
    assert readers == []
