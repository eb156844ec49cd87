"""Unit prefixes and conversions, in one place.

The tools disagree on what a prefix means: bit rates use decimal prefixes
(1 Mbit/s = 10**6 bit/s), iperf's byte transfers and netperf's ``-f K/M/G``
use binary ones (1 MByte = 2**20 bytes), ITGDec prints Kbit/s (10**3) and
seconds. Every parser converts here so the canonical columns have one meaning:
``*_mbps`` is 10**6 bit/s, ``*_ms`` milliseconds, ``*_bytes`` bytes.
"""

from __future__ import annotations

from analysis.errors import NetreproError

DECIMAL = {"": 1.0, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9, "t": 1e12, "T": 1e12}
BINARY = {"": 1.0, "k": 1024.0, "K": 1024.0, "m": 1024.0**2, "M": 1024.0**2, "g": 1024.0**3, "G": 1024.0**3, "t": 1024.0**4, "T": 1024.0**4}


class UnitError(NetreproError):
    """A unit string that none of the tools prints."""


def bits_per_s_to_mbps(value: float) -> float:
    return value / 1e6


def rate_to_mbps(value: float, unit: str) -> float:
    """Convert a rate printed with a unit such as ``Mbits/sec``, ``Kbit/s``,
    ``GBytes/sec`` or ``bits/sec`` to 10**6 bit/s.

    Bit rates take decimal prefixes. Byte rates follow iperf's convention:
    binary prefixes (iperf2 and iperf3 print ``MBytes/sec`` = 2**20 B/s).
    """
    u = unit.strip()
    low = u.lower()
    if low.endswith(("bits/sec", "bit/s", "bits/s", "bps", "bit/sec")):
        prefix = u[0] if u[0] in DECIMAL and u[0] != "b" else ""
        return value * DECIMAL[prefix] / 1e6
    if low.endswith(("bytes/sec", "byte/s", "bytes/s", "b/s")) and not low.endswith("bit/s"):
        prefix = u[0] if u[0] in BINARY and u[0] not in "bB" else ""
        return value * BINARY[prefix] * 8 / 1e6
    raise UnitError(f"unknown rate unit {unit!r}")


def size_to_bytes(value: float, unit: str) -> float:
    """Convert a transfer size such as ``MBytes``, ``KBytes``, ``GBytes``,
    ``Bytes`` (binary prefixes, as iperf prints them) or ``Mbits`` (decimal)
    to bytes."""
    u = unit.strip()
    low = u.lower()
    if low.endswith("bytes") or low.endswith("byte"):
        prefix = u[0] if u[0] in BINARY and u[0] not in "bB" else ""
        return value * BINARY[prefix]
    if low.endswith("bits") or low.endswith("bit"):
        prefix = u[0] if u[0] in DECIMAL and u[0] not in "bB" else ""
        return value * DECIMAL[prefix] / 8
    raise UnitError(f"unknown size unit {unit!r}")


def netperf_rate_to_mbps(value: float, unit_letter: str) -> float:
    """netperf ``-f`` letter -> Mbit/s.

    Lower case (k, m, g) are decimal bits per second (``10^6bits/sec``);
    upper case (K, M, G) are binary bytes per second (``MBytes/sec``), and
    ``B`` / ``b`` mean plain bytes / bits per second.
    """
    if unit_letter == "b":
        return value / 1e6
    if unit_letter == "B":
        return value * 8 / 1e6
    if unit_letter in "kmg":
        return value * DECIMAL[unit_letter] / 1e6
    if unit_letter in "KMG":
        return value * BINARY[unit_letter] * 8 / 1e6
    raise UnitError(f"unknown netperf -f unit {unit_letter!r}")


def kbps_to_mbps(value: float) -> float:
    """ITGDec prints bit rates in Kbit/s (10**3 bit/s)."""
    return value / 1e3


def s_to_ms(value: float) -> float:
    return value * 1e3


def us_to_ms(value: float) -> float:
    """netperf omni latency selectors are in microseconds."""
    return value / 1e3
