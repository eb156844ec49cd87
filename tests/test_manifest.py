"""Manifest validation and the mapping of files to factor levels."""

import textwrap

import pytest

from analysis.errors import ManifestError
from analysis.ingest.manifest import FileMapper, Unassigned, load_manifest

BASE = """
campaign:
  title: t
  synthetic: false
factors:
  ip_version: {type: int, levels: [4, 6]}
  packet_size_bytes: {type: int}
files:
  templates: ["{os}/ipv{ip_version}/{packet_size_bytes}/run{run}.txt"]
  constants: {transport: TCP}
  ignore: ["*.cmd", "notes/*"]
  table:
    - path: extra/odd-name.txt
      levels: {os: win7, ip_version: 6, packet_size_bytes: 128, run: 1}
      meta: {command: "netperf -H ::1"}
"""


def write(tmp_path, text):
    (tmp_path / "manifest.yaml").write_text(textwrap.dedent(text))
    return tmp_path


def test_template_constants_and_types(tmp_path):
    m = FileMapper(load_manifest(write(tmp_path, BASE)))
    a = m.assign("fedora/ipv6/1408/run3.txt")
    assert a.levels == {"transport": "TCP", "os": "fedora", "ip_version": 6, "packet_size_bytes": 1408, "run": "3"}
    assert m.assign("extra/odd-name.txt").meta == {"command": "netperf -H ::1"}


def test_ignore_rules_match_names_and_paths(tmp_path):
    m = FileMapper(load_manifest(write(tmp_path, BASE)))
    assert m.is_ignored("fedora/ipv6/1408/run3.cmd") == "*.cmd"
    assert m.is_ignored("notes/readme.md") == "notes/*"
    assert m.is_ignored("fedora/ipv6/1408/run3.txt") is None


def test_unknown_path_and_bad_levels_are_unassigned(tmp_path):
    m = FileMapper(load_manifest(write(tmp_path, BASE)))
    with pytest.raises(Unassigned, match="not described by the manifest"):
        m.assign("somewhere/else.txt")
    with pytest.raises(Unassigned, match="ip_version: level 5 is not among"):
        m.assign("fedora/ipv5/1408/run3.txt")
    with pytest.raises(Unassigned, match="packet_size_bytes: 'big' is not an int"):
        m.assign("fedora/ipv4/big/run3.txt")


@pytest.mark.parametrize(
    "bad, message",
    [
        ('files:\n  templates: ["../x/{run}.txt"]', "leads outside the campaign folder"),
        ('files:\n  templates: ["/abs/{run}.txt"]', "leads outside the campaign folder"),
        ('files:\n  templates: ["plain.txt"]', "has no {factor} placeholder"),
        ("files:\n  table: [{path: ../../etc/passwd}]", "leads outside the campaign folder"),
        ("files: {}\nfactorz: {}", "key 'factorz': Extra inputs are not permitted"),
    ],
)
def test_invalid_manifests_name_the_key(tmp_path, bad, message):
    write(tmp_path, "campaign: {title: t, synthetic: false}\n" + bad)
    with pytest.raises(ManifestError, match=message) as exc:
        load_manifest(tmp_path)
    assert "manifest.yaml" in str(exc.value)


def test_synthetic_flag_is_required(tmp_path):
    write(tmp_path, "campaign: {title: t}\nfiles: {}")
    with pytest.raises(ManifestError, match="key 'campaign.synthetic': Field required"):
        load_manifest(tmp_path)


def test_yaml_object_tags_are_refused(tmp_path):
    write(tmp_path, "campaign: !!python/object/apply:os.system ['true']\nfiles: {}")
    with pytest.raises(ManifestError, match="not valid YAML"):
        load_manifest(tmp_path)


def test_missing_manifest(tmp_path):
    with pytest.raises(ManifestError, match="no manifest"):
        load_manifest(tmp_path)
