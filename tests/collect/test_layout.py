"""Testbed layout without building it: names, addresses, routes' endpoints; host facts."""

from __future__ import annotations

import ipaddress
import os
import shutil

import pytest

from analysis.collect.hostfacts import host_facts, tool_versions
from analysis.collect.plan import TestbedSpec
from analysis.collect.testbed import PREFIX_RE, Testbed

BENCH4 = ipaddress.ip_network("198.18.0.0/15")
BENCH6 = ipaddress.ip_network("2001:2::/48")


@pytest.mark.parametrize("kind, nodes", [("p2p", ["snd", "rcv"]), ("routed", ["snd", "r1", "r2", "rcv"])])
def test_names_follow_the_prefix_scheme_and_fit_ifnamsiz(kind, nodes):
    bed = Testbed("t", TestbedSpec(kind=kind))
    assert [n.role for n in bed.nodes] == nodes
    names = bed.namespaces + [ifname for link in bed.links for _, ifname in (link.a, link.b)]
    assert all(PREFIX_RE.match(n) and n.startswith(bed.prefix + "-") for n in names)
    assert all(len(ifname) <= 15 for link in bed.links for _, ifname in (link.a, link.b))
    assert Testbed("t", TestbedSpec(kind=kind)).prefix != bed.prefix


@pytest.mark.parametrize("kind", ["p2p", "routed"])
def test_targets_are_in_the_benchmarking_ranges(kind):
    bed = Testbed("t", TestbedSpec(kind=kind))
    assert ipaddress.ip_address(bed.target(4)) in BENCH4
    assert ipaddress.ip_address(bed.target(6)) in BENCH6
    assert bed.target(4) == ("198.18.0.2" if kind == "p2p" else "198.18.2.2")


def test_loopback_uses_loopback_and_no_namespace():
    bed = Testbed("lo", TestbedSpec(kind="loopback"))
    assert (bed.target(4), bed.target(6)) == ("127.0.0.1", "::1")
    assert bed.namespaces == [] and bed.links == []


def test_per_link_mtu():
    bed = Testbed("t", TestbedSpec(kind="routed", mtu=[1500, 9000, 4000]))
    assert [link.mtu for link in bed.links] == [1500, 9000, 4000]


def test_host_facts():
    facts = host_facts()
    assert facts["cpu_count"] == os.cpu_count()
    assert facts["kernel"] == os.uname().release
    assert isinstance(facts["netem_available"], bool)


@pytest.mark.skipif(shutil.which("netperf") is None or shutil.which("ITGSend") is None, reason="needs netperf and D-ITG installed")
def test_tool_versions_as_the_tools_print_them():
    versions = tool_versions()
    assert versions["netperf"][0].isdigit() and versions["ditg"][0].isdigit()
