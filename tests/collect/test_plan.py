"""Plan validation, the seeded run order and the schedule."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from analysis.collect.plan import Plan, PlanError, expected_seconds, factor_table, load_plan, payload_bytes, schedule

PLANS = Path(__file__).resolve().parents[2] / "plans"

BASE = {
    "name": "t",
    "title": "t",
    "testbeds": {"p2p": {"kind": "p2p", "rate": "1gbit"}},
    "stack_profiles": {"cubic": {"net.ipv4.tcp_congestion_control": "cubic"}, "reno": {"net.ipv4.tcp_congestion_control": "reno"}},
    "blocks": [
        {"name": "np", "tool": "netperf",
         "factors": {"mode": ["stream", "rr"], "ip_version": [4, 6], "transport": ["TCP", "UDP"],
                     "packet_size_bytes": [128, 1408], "stack": ["cubic", "reno"]}},
        {"name": "itg", "tool": "ditg", "factors": {"ip_version": [4, 6], "application": ["DNS", "VoIP-G.729.3"]}},
    ],
    "seed": 7,
    "runs_per_cell": 3,
    "duration_s": 1,
}


def plan(**changes) -> Plan:
    raw = copy.deepcopy(BASE)
    raw.update(changes)
    return Plan.model_validate(raw)


def with_block(**block) -> dict:
    return {"blocks": [{"name": "b", "tool": "netperf"} | block]}


@pytest.mark.parametrize("tool", ["netperf", "iperf3"])
@pytest.mark.parametrize("changes", [{"warmup_s": 0.5}, {"duration_s": 1.5}])
def test_a_fraction_of_a_second_is_refused_where_the_tool_takes_whole_seconds(tool, changes):
    """netperf -l 0.5 and iperf3 -t 0.5 ran until killed at the timeout."""
    with pytest.raises(ValidationError, match=rf"block b: {tool} runs whole seconds, so (warmup_s 0\.5|duration_s 1\.5) cannot be kept"):
        plan(**with_block(tool=tool), **changes)
    assert plan(**with_block(tool="iperf2"), **changes).blocks[0].tool == "iperf2"  # iperf -t and ITGSend -t take fractions


def test_base_plan_counts_cells_and_runs():
    runs = schedule(plan())
    # netperf 2*2*2*2*2 = 32 cells, D-ITG 2*2 = 4 cells, 3 runs each
    assert len(runs) == (32 + 4) * 3
    assert [r.order for r in runs] == list(range(len(runs)))
    assert len({r.path for r in runs}) == len(runs)


def test_same_seed_same_order_other_seed_other_order():
    first = [r.path for r in schedule(plan())]
    assert first == [r.path for r in schedule(plan())]
    assert first != [r.path for r in schedule(plan(seed=8))]
    assert sorted(first) == sorted(r.path for r in schedule(plan(seed=8)))


def test_order_is_shuffled_not_block_by_block():
    tools = [r.tool for r in schedule(plan())]
    # 12 D-ITG runs among 96 netperf runs: a random order does not keep them together
    positions = [i for i, t in enumerate(tools) if t == "ditg"]
    assert positions != list(range(positions[0], positions[0] + len(positions)))


def test_run_levels_and_path():
    run = next(r for r in schedule(plan()) if r.tool == "ditg")
    assert run.levels["tool"] == "ditg" and run.levels["mode"] == "owdm"
    assert run.path.startswith("itg/ip_version-") and run.path.endswith(f"/run{run.levels['run']:03d}.txt")
    iperf3 = plan(blocks=[{"name": "i3", "tool": "iperf3", "factors": {"transport": ["UDP"]}}])
    assert sorted(r.path for r in schedule(iperf3)) == [f"i3/transport-UDP/run00{i}.json" for i in (1, 2, 3)]


@pytest.mark.parametrize(
    "changes, message",
    [
        (with_block(factors={"throughput_mbps": [1]}), "would overwrite a tool-reported column"),
        (with_block(factors={"colour": ["red"]}), "the collector can vary"),
        (with_block(factors={"run": [1]}), "set by the collector"),
        (with_block(factors={"packet_size_bytes": [8]}), "outside 16..65000"),
        (with_block(factors={"packet_size_bytes": [128, 128]}), "levels repeat"),
        (with_block(factors={"ip_version": [5]}), "not possible for netperf"),
        (with_block(factors={"mode": ["rttm"]}), "not possible for netperf"),
        (with_block(factors={"application": ["DNS"]}), "not possible for netperf"),
        (with_block(factors={"transport": ["tcp; rm -rf /"]}), "use 1-40 of"),
        (with_block(name="../etc"), "block name"),
        (with_block(factors={"stack": ["bbr"]}), "not among stack_profiles"),
        (with_block(factors={"topology": ["routed"]}), "not among testbeds"),
        ({"name": "bad name"}, "plan name"),
        ({"duration_s": 0.1}, "greater than or equal to 0.5"),
        ({"duration_s": 3600}, "less than or equal to 600"),
        ({"runs_per_cell": 0}, "greater than or equal to 1"),
        ({"testbeds": {"p2p": {"kind": "p2p", "rate": "fast"}}}, "write a tc rate"),
        ({"testbeds": {"p2p": {"kind": "p2p", "rate": "1tbit"}}}, "write a tc rate"),
        ({"testbeds": {"p2p": {"kind": "p2p", "mtu": 100}}}, "use 1280..9000"),
        ({"testbeds": {"r": {"kind": "routed", "mtu": [9000, 1500]}}}, "has 3 links"),
        ({"testbeds": {"p2p": {"kind": "p2p", "offloads": {"lro": False}}}}, "unknown feature"),
        ({"testbeds": {"lo": {"kind": "loopback", "rate": "1gbit"}}}, "would change the host's own lo"),
        ({"testbeds": {"lo": {"kind": "loopback"}}}, "would change the host itself"),
        ({"testbeds": {"p2p": {"kind": "p2p", "ports": {"netperf": 15201}}}}, "ports must be distinct"),
        ({"testbeds": {"a": {"kind": "p2p"}, "b": {"kind": "routed"}}}, "give a topology factor"),
        ({"stack_profiles": {"x": {"kernel.panic": "1"}}}, "not a per-namespace stack sysctl"),
        ({"stack_profiles": {"x": {"net.ipv4.tcp_congestion_control": "cubic; reboot"}}}, "not a plain sysctl value"),
        ({"blocks": [{"name": "a", "tool": "ditg", "factors": {"application": ["DNS"], "transport": ["UDP"]}}]}, "application preset fixes"),
        ({"blocks": [{"name": "a", "tool": "ditg", "factors": {"frame_size_bytes": [1518], "packet_size_bytes": [512]}}]}, "not both"),
        ({"blocks": [{"name": "a", "tool": "iperf3"}, {"name": "a", "tool": "iperf2"}]}, "names repeat"),
        ({"blocks": [{"name": "a", "tool": "ping"}]}, "Input should be"),
        ({"extra_key": 1}, "Extra inputs are not permitted"),
    ],
)
def test_validation_errors_name_the_problem(changes, message):
    with pytest.raises(Exception, match="(?s)" + message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        plan(**changes)


def test_load_plan_reports_file_and_key(tmp_path):
    bad = copy.deepcopy(BASE)
    bad["testbeds"]["p2p"]["mtu"] = 20000
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(bad))
    with pytest.raises(PlanError, match=r"p\.yaml:\d+: key .testbeds\.p2p.*use 1280\.\.9000"):
        load_plan(path)
    path.write_text("- a list\n")
    with pytest.raises(PlanError, match="p.yaml: expected a mapping with keys name, title, testbeds"):
        load_plan(path)


def test_payload_from_frame_size():
    assert payload_bytes({"frame_size_bytes": 1518, "ip_version": 4, "transport": "UDP"}) == 1518 - 18 - 20 - 8
    assert payload_bytes({"frame_size_bytes": 9014, "ip_version": 6, "transport": "TCP"}) == 9014 - 18 - 40 - 32
    assert payload_bytes({"packet_size_bytes": 640}) == 640
    assert payload_bytes({"application": "DNS"}) is None


def test_factor_table_lists_levels_in_plan_order():
    table = factor_table(plan())
    assert table["tool"]["levels"] == ["netperf", "ditg"]
    assert table["mode"]["levels"] == ["stream", "rr", "owdm"]
    assert table["packet_size_bytes"] == {"type": "int", "levels": [128, 1408]}
    assert table["log"]["levels"] == ["receiver"]
    assert table["run"]["type"] == "int"


@pytest.mark.parametrize("name, runs", [("lan-p2p", 1800), ("sizes-10", 800), ("jumbo-routed", 270), ("first", 36), ("first-ssh", 36),
                                              ("until-decided", 105), ("until-decided-fixed", 105)])
def test_shipped_plans_validate(name, runs):
    p = load_plan(PLANS / f"{name}.yaml")
    assert p.name == name
    scheduled = schedule(p)
    assert len(scheduled) == runs
    assert 40 < expected_seconds(p, scheduled) < 3600
    if name.startswith("first"):
        assert expected_seconds(p, scheduled) <= 120  # the plans a new user runs first take at most two minutes


# --- lab hosts over SSH ---------------------------------------------------------
LAB = {
    "hosts": {
        "alice": {"address": "192.0.2.10", "user": "lab", "roles": ["sender"], "ipv4": "198.18.0.1"},
        "bob": {"address": "bob.lab.example", "roles": ["receiver"], "ipv4": "198.18.0.2", "ipv6": "2001:2::2",
                "dialect": "powershell", "tools": {"iperf3": "C:\\iperf3\\iperf3.exe"}},
    },
    "testbeds": {"lab": {"kind": "hosts", "sender": "alice", "receiver": "bob"}},
    "stack_profiles": {},
    "blocks": [{"name": "i3", "tool": "iperf3", "factors": {"ip_version": [4, 6]}}],
}


def lab(**changes) -> Plan:
    raw = copy.deepcopy(LAB)
    for key, value in changes.items():
        raw[key] = value
    return plan(**raw)


def test_packet_logs_are_the_run_files_and_need_cat_on_the_hosts():
    kept = plan(options={"ditg_packet_log": True})
    ditg_runs = [r for r in schedule(kept) if r.tool == "ditg"]
    assert ditg_runs and all(r.path.endswith(".bin") for r in ditg_runs)
    assert all(r.path.endswith(".txt") for r in schedule(kept) if r.tool == "netperf")
    with pytest.raises(ValueError, match="bob .dialect powershell. does not have"):
        lab(options={"ditg_packet_log": True})


def test_lab_plan_validates_with_strict_host_keys_by_default():
    p = lab()
    assert p.hosts["alice"].known_hosts == "strict" and p.hosts["alice"].port == 22
    assert p.hosts["bob"].executable("iperf3") == "C:\\iperf3\\iperf3.exe" and p.hosts["bob"].executable("netserver") == "netserver"
    assert p.hosts["bob"].test_address(6) == "2001:2::2"
    assert len(schedule(p)) == 6


def _host(name, **kw):
    hosts = copy.deepcopy(LAB["hosts"])
    hosts[name] = hosts.get(name, {}) | kw
    return {"hosts": hosts}


@pytest.mark.parametrize("changes, message", [
    (_host("alice", address="-oProxyCommand=x"), "give a host name or an IP address"),
    (_host("alice", address="a b"), "give a host name or an IP address"),
    (_host("alice", user="-l"), "not starting with -"),
    (_host("alice", port=0), "greater than or equal to 1"),
    (_host("alice", known_hosts="off"), "Input should be 'strict' or 'accept-new'"),
    (_host("alice", roles=[]), "at least 1 item"),
    (_host("alice", roles=["sender", "sender"]), "roles repeat"),
    (_host("alice", dialect="cmd"), "Input should be 'posix' or 'powershell'"),
    (_host("alice", tools={"rm": "/bin/rm"}), "not an executable the collector runs"),
    (_host("alice", tools={"netperf": "/bin/net\nperf"}), "without control characters"),
    (_host("alice", workdir="relative/dir"), "give an absolute path"),
    (_host("alice", ipv4="2001:2::1"), "give an IPv4 address"),
    (_host("alice", password="x"), "Extra inputs are not permitted"),
    (_host("alice", roles=["receiver"]), "host alice is the sender but its roles are"),
    ({"testbeds": {"lab": {"kind": "hosts", "sender": "alice"}}}, "name the sender and the receiver"),
    ({"testbeds": {"lab": {"kind": "hosts", "sender": "alice", "receiver": "carol"}}}, "receiver 'carol' is not among hosts"),
    ({"testbeds": {"lab": {"kind": "hosts", "sender": "alice", "receiver": "bob", "rate": "1gbit"}}}, "would change a lab host's own settings"),
    ({"testbeds": {"lab": {"kind": "hosts", "sender": "alice", "receiver": "bob"}, "p2p": {"kind": "p2p", "sender": "alice"}}}, "only for kind hosts"),
    (_host("carol", address="192.0.2.30", roles=["router"]), "carol is in no testbed"),
    ({"blocks": [{"name": "np", "tool": "netperf", "factors": {"stack": ["reno"]}}],
      "stack_profiles": {"reno": {"net.ipv4.tcp_congestion_control": "reno"}}}, "would change a lab host's own settings"),
    ({"blocks": [{"name": "np", "tool": "netperf", "factors": {"mtu_bytes": [9000]}}]}, "would change a lab host's own settings"),
    (_host("bob", ipv6=None), "needs an IPv6 address for bob: set hosts.bob.ipv6"),
])
def test_lab_plan_errors_name_the_problem(changes, message):
    with pytest.raises(Exception, match="(?s)" + message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        lab(**changes)


def test_lab_plan_error_names_key_and_line(tmp_path):
    raw = copy.deepcopy(BASE) | copy.deepcopy(LAB)
    raw["hosts"]["bob"]["port"] = 70000
    path = tmp_path / "lab.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    line = next(i for i, l in enumerate(path.read_text().splitlines(), 1) if "70000" in l)
    with pytest.raises(PlanError, match=rf"lab\.yaml:{line}: key 'hosts\.bob\.port': Input should be less than or equal to 65535"):
        load_plan(path)


def test_a_plan_dumped_with_its_defaults_validates_again():
    for p in (plan(), lab()):
        assert Plan.model_validate(p.model_dump(mode="json")) == p
