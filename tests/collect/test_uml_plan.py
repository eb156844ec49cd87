"""``kind: uml`` in plans: what is accepted and refused, what a dry run shows,
and how a missing kernel is reported (no root, no kernel needed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from analysis.collect.campaign import dry_run_lines
from analysis.collect.plan import Plan, expected_seconds, load_plan, schedule
from analysis.collect.uml import Guest, UmlError, find_kernel, Kernel


def uml_plan(testbed: dict | None = None, **block) -> Plan:
    return Plan.model_validate({
        "name": "u", "title": "u", "seed": 3, "runs_per_cell": 2, "duration_s": 1,
        "testbeds": {"k": testbed or {"kind": "uml", "kernel": "bookworm"}},
        "stack_profiles": {"reno": {"net.ipv4.tcp_congestion_control": "reno"}},
        "blocks": [{"name": "b", "tool": "iperf3", "factors": {"ip_version": [4, 6]}} | block],
    })


def test_receiver_kernel_defaults_to_the_senders():
    assert uml_plan().testbeds["k"].kernels() == {"sender": "bookworm", "receiver": "bookworm"}
    mixed = uml_plan({"kind": "uml", "kernel": "bookworm", "receiver_kernel": "bullseye"})
    assert mixed.testbeds["k"].kernels() == {"sender": "bookworm", "receiver": "bullseye"}


@pytest.mark.parametrize("testbed, message", [
    ({"kind": "uml"}, "uml: name the guests' kernel"),
    ({"kind": "uml", "kernel": "bookworm", "rate": "1gbit"}, "uml: rate is not supported on User-mode Linux guests"),
    ({"kind": "uml", "kernel": "book worm"}, "kernel 'book worm': use 1-40 of"),
    ({"kind": "p2p", "kernel": "bookworm"}, "kernel: only for kind uml"),
    ({"kind": "p2p", "guest_mem_mb": 512}, "guest_mem_mb: only for kind uml"),
])
def test_uml_testbed_mistakes_are_refused_by_name(testbed, message):
    with pytest.raises(ValidationError, match=message):
        uml_plan(testbed)


def test_stack_profiles_and_mtu_factors_are_refused_on_guests():
    with pytest.raises(ValidationError, match="a stack profile or an MTU factor is not supported on kind uml"):
        uml_plan(factors={"stack": ["reno"]})
    with pytest.raises(ValidationError, match="a stack profile or an MTU factor is not supported on kind uml"):
        uml_plan(factors={"mtu_bytes": [1500]})


def test_one_way_delay_is_refused_on_guests_and_round_trips_accepted():
    """Each guest keeps its own clock (owdm between two guests measured -44 ms), so D-ITG owdm is refused,
    also where it is D-ITG's default mode; rttm times the round trip on the sender's one clock."""
    for factors in ({"mode": ["owdm"]}, {}):
        with pytest.raises(ValidationError, match="block b: D-ITG owdm .* on kind uml: User-mode Linux guests keep clocks"):
            uml_plan(tool="ditg", factors=factors)
    assert uml_plan(tool="ditg", factors={"mode": ["rttm"]}).blocks[0].factors["mode"] == ["rttm"]


def test_a_jumbo_mtu_is_given_to_the_guests_virtual_nic(tmp_path):
    """The vector driver's MTU is set when the guest boots (`ip link set mtu 9000` alone is refused
    inside the guest: 'mtu greater than device maximum')."""
    (tmp_path / "usr/lib/uml/modules/5.10.46/kernel").mkdir(parents=True)
    guest = Guest("sender", Kernel("bullseye", tmp_path), "nr-abcdef", "nr-abcdef-lan", tmp_path, 256, 9000)
    assert "vec0:transport=tap,ifname=nr-abcdef-tsnd,gro=1,mtu=9000" in guest.argv()
    assert "ip link set vec0 mtu 9000 up" in guest._init(Path("/run/netrepro-guest"))


def test_dry_run_names_each_guests_kernel_and_addresses():
    plan = uml_plan({"kind": "uml", "kernel": "bookworm", "receiver_kernel": "bullseye"})
    lines = list(dry_run_lines(plan))
    commands = [line.strip() for line in lines if "guest" in line]
    assert len(commands) == 4
    assert all(c.startswith("sender guest (kernel bookworm): iperf3 -c ") for c in commands)
    assert sum("-c 198.18.0.2 " in c for c in commands) == 2 and sum("-c 2001:2::2 " in c and c.endswith("-6") for c in commands) == 2
    # remote steps (SSH into the guests) plus the guests' boot: more than a namespace testbed's estimate
    assert expected_seconds(plan, schedule(plan)) >= 30 + 4 * (1 + 0.5 + 0.8)


def test_a_kernel_not_in_the_cache_names_the_install_script(tmp_path):
    with pytest.raises(UmlError, match=r"kernel trixie: no user-mode-linux in .*scripts/install-uml.sh trixie"):
        find_kernel("trixie", base=tmp_path)


def test_guest_command_line_and_init(tmp_path):
    """What the kernel is started with, and what its PID 1 does before sshd."""
    root = tmp_path / "bookworm"
    (root / "usr/lib/uml/modules/6.1.176/kernel").mkdir(parents=True)
    kernel = Kernel("bookworm", root)
    guest = Guest("receiver", kernel, "nr-abcdef", "nr-abcdef-lan", tmp_path / "rcv", 256, 1500)
    argv = guest.argv()
    assert argv[:4] == ["ip", "netns", "exec", "nr-abcdef-lan"]
    assert "vec0:transport=tap,ifname=nr-abcdef-trcv,gro=1,mtu=1500" in argv and "mem=256M" in argv
    assert "rootfstype=hostfs" in argv and "ro" in argv and f"uml_dir={tmp_path / 'rcv'}" in argv
    init = guest._init(Path("/run/netrepro-guest"))
    modules = root / "usr/lib/uml/modules/6.1.176/kernel"
    assert f"insmod {modules}/lib/crc-ccitt.ko; insmod {modules}/net/ipv6/ipv6.ko" in init
    assert init.index("ipv6.ko") < init.index("mount -t tmpfs -o mode=1777 tmpfs /tmp")  # modules first, then /tmp
    assert "ip addr add 198.18.0.2/24 dev vec0" in init and "ip -6 addr add 2001:2::2/64 dev vec0 nodad" in init
    assert init.index("RNDADDENTROPY") < init.index("/usr/sbin/sshd")  # sshd waits for an initialised RNG
    assert init.rstrip().endswith("halt -f")


def test_the_shipped_uml_plan_validates():
    plan = load_plan(Path(__file__).resolve().parents[2] / "plans" / "uml-kernels.yaml")
    assert {t.kind for t in plan.testbeds.values()} == {"uml"}
    assert {t.kernel for t in plan.testbeds.values()} == {"bookworm", "bullseye"}
    runs = schedule(plan)
    assert len(runs) == 2 * 2 * 2 * 3 * 4  # tools x kernels x IP versions x sizes x runs
    assert expected_seconds(plan, runs) < 900


def test_the_shipped_seeds_plan_has_the_seeds_design():
    plan = load_plan(Path(__file__).resolve().parents[2] / "plans" / "uml-seeds.yaml")
    assert {t.kernel for t in plan.testbeds.values()} == {"bookworm", "bullseye"}
    assert {t.mtu for t in plan.testbeds.values()} == {9000}
    stream = next(b for b in plan.blocks if b.name == "netperf").factors
    assert stream["ip_version"] == [4, 6] and stream["transport"] == ["TCP", "UDP"]
    for block in plan.blocks:  # every tool at six sizes or more across 64-1408, and a jumbo size (issue 26)
        sizes = [int(s) for s in block.factors["packet_size_bytes"]]
        assert len([s for s in sizes if 64 <= s <= 1408]) >= 6 and min(sizes) == 64 and max(sizes) > 1500, block.name
    assert {b.tool for b in plan.blocks} == {"netperf", "iperf3", "ditg"} and plan.runs_per_cell >= 10
    assert len(schedule(plan)) == 10 * 2 * 2 * (2 * 7 + 7 + 7 + 7)  # runs x kernels x IP versions x cells per kernel and IP


def test_console_receive_messages_are_told_apart(tmp_path):
    """The positive lines as bullseye's 5.10 guests printed them during
    uml-kernels (a frame left for the next poll); the negative one in the
    driver's same format (a failed read), which no guest here printed."""
    guest = Guest("receiver", Kernel("bullseye", tmp_path), "nr-abcdef", "nr-abcdef-lan", tmp_path, 256, 1500)
    guest.console.write_text("\n".join([
        "Linux version 5.10.46 (buildd@x86-ubc-01) (gcc (Debian 10.2.1-6) 10.2.1 20210110) #1 Wed Aug 4 20:30:21 UTC 2021",
        "uml-vector uml-vector.0 vec0: vector_rx: error(1524)",
        "uml-vector uml-vector.0 vec0: vector_rx: error(96)",
        "uml-vector uml-vector.0 vec0: vector_rx: error(-11)",
        "netrepro-guest: network up",
        "netrepro-guest: entropy credited",
    ]))
    facts = guest.console_facts()
    assert facts["version_line"].startswith("Linux version 5.10.46 ")
    assert (facts["rx_budget_messages"], facts["rx_errors"]) == (2, 1)
    assert facts["first_rx_error"].endswith("error(-11)") and facts["entropy_credited"]
