"""Reading single values the same way in every parser: numeric tokens, JSON
numbers, IP addresses and start times.

Each parser used to carry its own variant of these (four ways of telling the
IP version of an address, two of reading a number); they live here once, so
an IPv4-mapped address or a ``nan`` token means the same to every tool.
"""

from __future__ import annotations

import ipaddress
import math
import re
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any

_NUMBER = re.compile(r"^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")


def to_float(token: str) -> float | None:
    """A numeric token (``12``, ``-1.00``, ``1.5e3``) -> float, or None when
    it is not a plain decimal number (``nan``, ``inf``, ``1,5`` and the empty
    string are not). Only spaces and tabs around it are dropped: a control
    byte beside the digits is damage, not white space."""
    token = token.strip(" \t")
    if not _NUMBER.match(token):
        return None
    return float(token)


def finite(value: float | None) -> float | None:
    """``value``, or None when it is NaN or infinite: a figure a tool printed
    as nan/inf measured nothing."""
    return value if value is not None and math.isfinite(value) else None


def json_number(value: Any) -> float | None:
    """A JSON number -> float; None for null, strings, booleans and
    non-finite values (the tolerant iperf3 loader turns nan into null)."""
    kind = type(value)  # the common cases first: a JSON document has thousands
    if kind is float:
        return value if value - value == 0.0 else None  # nan - nan and inf - inf are nan
    if value is None:
        return None
    if kind is int:
        try:
            return float(value)  # finite, or too large for a double
        except OverflowError:
            return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return finite(float(value))
    except OverflowError:  # an integer beyond any double: no usable figure
        return None


def strip_zone(address: str) -> str:
    """``fe80::1%eth0`` / ``127.0.0.1%lo`` (a scope or device suffix) -> the address."""
    return address.split("%", 1)[0]


def is_ipv4_mapped(address: str | None) -> bool:
    """``::ffff:127.0.0.1``: an IPv4 peer seen on an IPv6 socket."""
    parsed = _address(address)
    return isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is not None


def ip_version_of(address: str | None) -> int | None:
    """4 or 6 for a printed address, None for a host name or nothing.
    An IPv4-mapped IPv6 address is 4: the packets on the wire were IPv4."""
    parsed = _address(address)
    if parsed is None:
        return None
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is not None:
        return 4
    return parsed.version


def _address(address: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    if not address:
        return None
    text = strip_zone(address.strip()).strip("[]")
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


# Start times: every parser stores a timezone-aware datetime in UTC, or None.
# A time printed without an offset (iperf 2's "(CET)") cannot be placed on the
# time line without guessing the zone's rules, so it is not stored.

_UTC_NAMES = frozenset({"UTC", "GMT", "Z", "UT"})


def utc_from_epoch(seconds: Any) -> datetime | None:
    """Seconds since the epoch (iperf3's ``timesecs``) -> UTC datetime."""
    value = json_number(seconds)
    if value is None or not 0 <= value < 253402300800:  # up to 9999-12-31
        return None
    return datetime.fromtimestamp(value, tz=timezone.utc)


def utc_from_rfc1123(text: str | None) -> datetime | None:
    """``Sun, 22 Nov 2026 01:51:33 GMT`` (iperf3's ``Time:``) -> UTC datetime;
    None when the text is no such date or names no offset."""
    if not text:
        return None
    try:
        parsed = parsedate_to_datetime(text.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if parsed.tzinfo is None:
        return None
    return parsed.astimezone(timezone.utc)


def utc_from_zone_name(date: str, time: str, zone: str) -> datetime | None:
    """``2026-11-22 01:51:50 (UTC)`` as iperf 2 prints it -> UTC datetime;
    None for any zone other than UTC/GMT (a name is no offset)."""
    if zone.strip() not in _UTC_NAMES:
        return None
    try:
        return datetime.fromisoformat(f"{date}T{time}").replace(tzinfo=timezone.utc)
    except ValueError:
        return None
