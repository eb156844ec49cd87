"""Unit prefixes and conversions, in one place.

The tools disagree on what a prefix means: bit rates use decimal prefixes
(1 Mbit/s = 10**6 bit/s), iperf's byte transfers and netperf's ``-f K/M/G``
use binary ones (1 MByte = 2**20 bytes), ITGDec prints Kbit/s (10**3) and
seconds. Every parser converts here so the canonical columns have one meaning:
``*_mbps`` is 10**6 bit/s, ``*_ms`` milliseconds, ``*_bytes`` bytes.

Exact arithmetic: every conversion is done in decimal arithmetic on the
number as printed and rounded once, to the nearest double, at the end. A
float argument stands for its shortest decimal form (``repr``), which for a
value parsed from a tool's text is the printed number itself. So
``8.20 Gbits/sec`` is exactly 8200.0 Mbit/s (binary floating point gave
8199.999999999998), and 0.000073 s is 0.073 ms. Byte counts are counts:
:func:`size_to_bytes` rounds the exact product to a whole byte (half to
even), far below the printed precision (``3.29 GBytes`` is 3532610601 bytes,
not 3532610600.96).
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Context, Decimal

from analysis.errors import NetreproError

_CONTEXT = Context(prec=60)  # more digits than any product of a printed number and a factor here
_ONE, _THOUSAND, _MILLION = Decimal(1), Decimal(1000), Decimal(10**6)
DECIMAL = {p: Decimal(10) ** e for p, e in
           (("", 0), ("k", 3), ("K", 3), ("m", 6), ("M", 6), ("g", 9), ("G", 9), ("t", 12), ("T", 12))}
BINARY = {p: Decimal(1024) ** e for p, e in
          (("", 0), ("k", 1), ("K", 1), ("m", 2), ("M", 2), ("g", 3), ("G", 3), ("t", 4), ("T", 4))}


class UnitError(NetreproError):
    """A unit string that none of the tools prints."""


def _decimal(value: float | str | Decimal) -> Decimal:
    """The number as printed: a float's shortest decimal form, a string as is."""
    if isinstance(value, Decimal):
        return value
    return Decimal(value.strip() if isinstance(value, str) else repr(float(value)))


def _scale(value: float | str | Decimal, times: Decimal, per: Decimal = _ONE) -> float:
    """value * times / per, exactly, rounded once to the nearest double."""
    exact = _CONTEXT.divide(_CONTEXT.multiply(_decimal(value), times), per)
    return float(exact)


def _shifted(value: float | str | Decimal, exponent: int) -> float:
    """value * 10**exponent, exactly, rounded once to the nearest double.

    For a float (or int) this is the same as :func:`_scale` by a power of
    ten: moving the decimal point of the number as printed is exact, and
    ``float()`` of the decimal string rounds once, as ``float(Decimal)``
    does; but it costs half the decimal arithmetic's time, which showed in
    ingesting thousands of iperf3 JSON outputs (tens of numbers each)."""
    if type(value) is float or type(value) is int:
        printed = repr(value if type(value) is float else float(value))
        if "e" not in printed and "n" not in printed:  # no exponent, nan or inf: append one
            return float(f"{printed}e{exponent}")
    return _scale(value, _ONE, Decimal(10) ** -exponent) if exponent < 0 else _scale(value, Decimal(10) ** exponent)


def span_s(start: float | str, end: float | str) -> float:
    """end - start of two printed times (``0.50-1.00 sec``), without the
    binary noise of float subtraction (1.0 - 0.7 = 0.30000000000000004)."""
    return float(_CONTEXT.subtract(_decimal(end), _decimal(start)))


def bits_per_s_to_mbps(value: float | str) -> float:
    return _shifted(value, -6)


def rate_to_mbps(value: float | str, unit: str) -> float:
    """Convert a rate printed with a unit such as ``Mbits/sec``, ``Kbit/s``,
    ``GBytes/sec`` or ``bits/sec`` to 10**6 bit/s.

    Bit rates take decimal prefixes. Byte rates follow iperf's convention:
    binary prefixes (iperf2 and iperf3 print ``MBytes/sec`` = 2**20 B/s).
    """
    u = unit.strip()
    low = u.lower()
    if low.endswith(("bits/sec", "bit/s", "bits/s", "bps", "bit/sec")):
        prefix = u[0] if u[0] in DECIMAL and u[0] != "b" else ""
        return _scale(value, DECIMAL[prefix], _MILLION)
    if low.endswith(("bytes/sec", "byte/s", "bytes/s", "b/s")) and not low.endswith("bit/s"):
        prefix = u[0] if u[0] in BINARY and u[0] not in "bB" else ""
        return _scale(value, BINARY[prefix] * 8, _MILLION)
    raise UnitError(f"unknown rate unit {unit!r}")


def size_to_bytes(value: float | str, unit: str) -> float:
    """Convert a transfer size such as ``MBytes``, ``KBytes``, ``GBytes``,
    ``Bytes`` (binary prefixes, as iperf prints them) or ``Mbits`` (decimal)
    to bytes, rounded to a whole byte (see the module docstring)."""
    u = unit.strip()
    low = u.lower()
    if low.endswith("bytes") or low.endswith("byte"):
        prefix = u[0] if u[0] in BINARY and u[0] not in "bB" else ""
        return _whole(_CONTEXT.multiply(_decimal(value), BINARY[prefix]))
    if low.endswith("bits") or low.endswith("bit"):
        prefix = u[0] if u[0] in DECIMAL and u[0] not in "bB" else ""
        return _whole(_CONTEXT.divide(_CONTEXT.multiply(_decimal(value), DECIMAL[prefix]), Decimal(8)))
    raise UnitError(f"unknown size unit {unit!r}")


def _whole(exact: Decimal) -> float:
    if not exact.is_finite():
        return float(exact)
    return float(exact.to_integral_value(rounding=ROUND_HALF_EVEN))


def netperf_rate_to_mbps(value: float | str, unit_letter: str) -> float:
    """netperf ``-f`` letter -> Mbit/s.

    Lower case (k, m, g) are decimal bits per second (``10^6bits/sec``);
    upper case (K, M, G) are binary bytes per second (``MBytes/sec``), and
    ``B`` / ``b`` mean plain bytes / bits per second.
    """
    if unit_letter == "b":
        return _scale(value, _ONE, _MILLION)
    if unit_letter == "B":
        return _scale(value, Decimal(8), _MILLION)
    if unit_letter and unit_letter in "kmg":
        return _scale(value, DECIMAL[unit_letter], _MILLION)
    if unit_letter and unit_letter in "KMG":
        return _scale(value, BINARY[unit_letter] * 8, _MILLION)
    raise UnitError(f"unknown netperf -f unit {unit_letter!r}")


def kbps_to_mbps(value: float | str) -> float:
    """ITGDec prints bit rates in Kbit/s (10**3 bit/s)."""
    return _scale(value, _ONE, _THOUSAND)


def s_to_ms(value: float | str) -> float:
    return _scale(value, _THOUSAND)


def us_to_ms(value: float | str) -> float:
    """netperf omni latency selectors are in microseconds."""
    return _shifted(value, -3)
