"""Unit conversions: the prefixes the tools print mean different things."""

import pytest

from analysis.parsers import units


@pytest.mark.parametrize(
    "value, unit, expected",
    [
        (941, "Mbits/sec", 941.0),
        (1.5, "Gbits/sec", 1500.0),
        (512, "Kbits/sec", 0.512),
        (1000, "bits/sec", 0.001),
        (1, "MBytes/sec", 8 * 1024**2 / 1e6),  # iperf byte rates are binary
        (2, "KBytes/sec", 2 * 8 * 1024 / 1e6),
    ],
)
def test_rate_to_mbps(value, unit, expected):
    assert units.rate_to_mbps(value, unit) == pytest.approx(expected)


@pytest.mark.parametrize(
    "value, unit, expected",
    [(1, "MBytes", 1024**2), (3, "KBytes", 3072), (1, "GBytes", 1024**3), (800, "Bytes", 800), (8, "Mbits", 1e6)],
)
def test_size_to_bytes(value, unit, expected):
    assert units.size_to_bytes(value, unit) == pytest.approx(expected)


def test_netperf_letters_lower_is_decimal_bits_upper_is_binary_bytes():
    assert units.netperf_rate_to_mbps(941.5, "m") == pytest.approx(941.5)
    assert units.netperf_rate_to_mbps(941.5, "k") == pytest.approx(0.9415)
    assert units.netperf_rate_to_mbps(1.0, "g") == pytest.approx(1000.0)
    assert units.netperf_rate_to_mbps(1.0, "M") == pytest.approx(8.388608)
    assert units.netperf_rate_to_mbps(1.0, "K") == pytest.approx(0.008192)


def test_ditg_and_latency_units():
    assert units.kbps_to_mbps(794.249855) == pytest.approx(0.794249855)
    assert units.s_to_ms(0.000073) == pytest.approx(0.073)
    assert units.us_to_ms(1520.0) == pytest.approx(1.52)


@pytest.mark.parametrize("bad", ["furlongs/fortnight", "Mpackets"])
def test_unknown_units_are_errors(bad):
    with pytest.raises(units.UnitError, match="unknown"):
        units.rate_to_mbps(1, bad)


def test_conversions_are_exact_in_decimal():
    """The issue's examples: binary floating point gave 8199.999999999998 Mbit/s
    and 3532610600.96 bytes. Conversions are exact decimal arithmetic on the
    printed number, rounded once; byte counts to a whole byte."""
    assert units.rate_to_mbps(8.20, "Gbits/sec") == 8200.0
    assert units.rate_to_mbps("8.20", "Gbits/sec") == 8200.0
    assert units.size_to_bytes(3.29, "GBytes") == 3532610601.0
    assert units.size_to_bytes(1.90, "GBytes") == 2040109466.0  # 2040109465.6 -> whole bytes
    assert units.s_to_ms(0.000073) == 0.073
    assert units.kbps_to_mbps(794.249855) == 0.794249855
    assert units.us_to_ms(1520.0) == 1.52
    assert units.netperf_rate_to_mbps(9413.47, "m") == 9413.47
    assert units.bits_per_s_to_mbps(1406725272.9672441) == 1406.7252729672441
    assert units.span_s(0.7, 1.0) == 0.3 and units.span_s("0.50", "1.00") == 0.5


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 1e308])
def test_non_finite_and_huge_values_do_not_raise(value):
    import math
    assert not math.isfinite(value) or units.rate_to_mbps(value, "Gbits/sec") >= 0
    units.size_to_bytes(value, "GBytes")
    units.netperf_rate_to_mbps(value, "G")
