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


# --- path rules: typed placeholders, every rule tried, patterns, segments, mapping CSV ---

def manifest_of(tmp_path, text):
    return FileMapper(load_manifest(write(tmp_path, "campaign: {title: t, synthetic: false}\n" + text)))


def test_fields_holding_dashes_and_underscores_split_as_declared(tmp_path):
    m = manifest_of(tmp_path, """
factors:
  scenario: {type: str, levels: [baseline, high_load]}
files:
  templates: ["{scenario}_{src:[a-z0-9-]+}_{dst:[a-z0-9-]+}_{run:int}.json"]
""")
    assert m.assign("high_load_us-east-1_eu-west-2_13.json").levels == {
        "scenario": "high_load", "src": "us-east-1", "dst": "eu-west-2", "run": 13}


def test_a_rule_whose_levels_do_not_cast_gives_way_to_the_next(tmp_path):
    m = manifest_of(tmp_path, """
factors:
  size: {type: int, levels: [64, 1500]}
files:
  templates: ["{size}_{label}.txt", "{label}_{size}.txt"]
""")
    assert m.assign("64_small.txt").levels == {"size": 64, "label": "small"}
    assert m.assign("jumbo_1500.txt").levels == {"label": "jumbo", "size": 1500}  # the first template cannot cast 'jumbo'
    with pytest.raises(Unassigned) as exc:
        m.assign("jumbo_9000.txt")
    assert "factor size: level 9000 is not among the manifest's levels [64, 1500]" in str(exc.value)


def test_a_name_split_two_ways_is_refused_not_guessed(tmp_path):
    m = manifest_of(tmp_path, 'files:\n  templates: ["{a}_{b}.txt"]\n')
    assert m.assign("x_y.txt").levels == {"a": "x", "b": "y"}
    with pytest.raises(Unassigned, match=r"splits the name two ways \(a='x_y', b='z' or a='x', b='y_z'\)"):
        m.assign("x_y_z.txt")


def test_regex_form_and_folder_segments(tmp_path):
    m = manifest_of(tmp_path, r"""
factors:
  run: {type: int}
files:
  patterns: ['(?P<host>[^/]+)/trial-(?P<run>\d+)\.log']
  segments: [tool, null, transport]
""")
    assert m.assign("h-1/trial-07.log").levels == {"host": "h-1", "run": 7}
    assert m.assign("iperf3/whatever/TCP/any name.json").levels == {"tool": "iperf3", "transport": "TCP"}
    with pytest.raises(Unassigned, match="factor transport: 'tcp' is not one of TCP, UDP"):
        m.assign("iperf3/x/tcp/a.json")


def test_mapping_csv_gives_levels_and_is_no_measurement(tmp_path):
    (tmp_path / "levels.csv").write_text("path,site,run\nA 1.txt,Zürich,1\nb.txt,Genève,2\n", encoding="utf-8")
    m = manifest_of(tmp_path, "files:\n  mapping: levels.csv\n")
    assert m.assign("A 1.txt").levels == {"site": "Zürich", "run": 1}
    assert m.manifest.factors["run"].type == "int" and m.is_ignored("levels.csv") == "files.mapping"
    (tmp_path / "levels.csv").write_text("path,run\na.txt,1\na.txt,2\n")
    with pytest.raises(ManifestError, match=r"levels.csv:3: a.txt is listed twice \(first on line 2\)"):
        manifest_of(tmp_path, "files:\n  mapping: levels.csv\n")
    (tmp_path / "levels.csv").write_text("path,run\na.txt,one\n")
    with pytest.raises(ManifestError, match=r"levels.csv:2: factor run: 'one' is not an int"):
        manifest_of(tmp_path, "factors: {run: {type: int}}\nfiles:\n  mapping: levels.csv\n")


# --- names are checked: shadowing, casts, undeclared factors ---

@pytest.mark.parametrize("text, line, column", [
    ("factors:\n  test: {type: str}\nfiles: {}\n", 3, "test"),
    ("files:\n  constants:\n    duration_s: 60\n", 4, "duration_s"),
    ('files:\n  templates: ["{side}/run{run}.txt"]\n', 3, "side"),
    ("files:\n  table:\n    - path: a.txt\n      levels: {throughput_mbps: 1}\n", 5, "throughput_mbps"),
])
def test_a_factor_may_not_shadow_a_measured_column(tmp_path, text, line, column):
    write(tmp_path, "campaign: {title: t, synthetic: false}\n" + text)
    with pytest.raises(ManifestError) as exc:
        load_manifest(tmp_path)
    assert str(exc.value).startswith(f"{tmp_path / 'manifest.yaml'}:{line}: ")
    assert f"factor {column!r} has the name of the column {column!r}" in str(exc.value)


def test_revealed_factors_are_allowed_but_keep_their_columns_type(tmp_path):
    m = manifest_of(tmp_path, 'files:\n  templates: ["{tool}/ipv{ip_version}/{transport}.txt"]\n')
    assert m.assign("iperf3/ipv6/UDP.txt").levels == {"tool": "iperf3", "ip_version": 6, "transport": "UDP"}
    write(tmp_path, "campaign: {title: t, synthetic: false}\nfactors:\n  ip_version: {type: str}\nfiles: {}\n")
    with pytest.raises(ManifestError, match=r"manifest.yaml:3: factor 'ip_version' fills the 'ip_version' column.*type int"):
        load_manifest(tmp_path)


@pytest.mark.parametrize("text, where, message", [
    ("factors:\n  size: {type: int, levels: [64, big]}\nfiles: {}\n", 3, "factor size: 'big' is not an int"),
    ("factors:\n  size: {type: int}\nfiles:\n  constants: {size: big}\n", 5, "factor size: 'big' is not an int"),
    ("factors:\n  run: {type: int}\nfiles:\n  table:\n    - {path: a.txt, levels: {run: 1.5}}\n", 6,
     "factor run: 1.5 is not an int"),
    ("files:\n  table:\n    - {path: a.txt, levels: {run: 1}}\n    - {path: b.txt, levels: {run: x}}\n", 5,
     "factor 'run' is text here but a number at"),
    ('factors:\n  run: {type: str}\nfiles:\n  templates: ["{run:int}.txt"]\n', 5, "{run:int} but factor 'run' is declared str"),
])
def test_levels_the_manifest_states_are_cast_in_one_line(tmp_path, text, where, message):
    write(tmp_path, "campaign: {title: t, synthetic: false}\n" + text)
    with pytest.raises(ManifestError) as exc:
        load_manifest(tmp_path)
    assert str(exc.value).startswith(f"{tmp_path / 'manifest.yaml'}:{where}: ") and message in str(exc.value)
    assert "\n" not in str(exc.value)


def test_undeclared_factors_are_declared_in_order_of_use(tmp_path):
    manifest = load_manifest(write(tmp_path, """
campaign: {title: t, synthetic: false}
factors:
  region: {type: str}
files:
  templates: ["{scenario}/{region}/{size:int}/run{run}.txt"]
  constants: {os: Linux}
  table:
    - {path: extra.txt, levels: {rate: 2.5}}
"""))
    declared = {name: spec.type for name, spec in manifest.factors.items()}
    assert declared == {"region": "str", "scenario": "str", "size": "int", "run": "str", "rate": "float"}
    assert "from its use in template" in manifest.factors["scenario"].description
    assert "os" not in manifest.factors and manifest.files.constants == {"os": "Linux"}  # a constant needs none
