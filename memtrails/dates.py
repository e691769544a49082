"""A date reader that accepts what JavaScript's ``Date.parse`` accepts, with the same results."""

from __future__ import annotations

import calendar
import email.utils
import re
import time
from datetime import datetime, timezone

__all__ = ["iso_from_ms", "parse_date"]

_ISO = re.compile(
    r"^([+-]\d{6}|\d{4})(?:-(\d\d)(?:-(\d\d))?)?"
    r"(?:T(\d\d):(\d\d)(?::(\d\d)(?:[.,](\d+))?)?(Z|[+-]\d\d:\d\d)?)?$"
)


def _local_offset_ms(y: int, mo: int, d: int, h: int, mi: int, s: int) -> int:
    # Wall-clock time in the process's TZ, as V8 reads an ISO date-time without offset.
    ts = time.mktime((y, mo, d, h, mi, s, 0, 0, -1))
    return int(ts * 1000)


def _parse_iso(s: str) -> int | None:
    m = _ISO.match(s)
    if not m:
        return None
    ys, mos, ds, hs, mis, ss, frac, zone = m.groups()
    y, mo, d = int(ys), int(mos or 1), int(ds or 1)
    h, mi, sec = int(hs or 0), int(mis or 0), int(ss or 0)
    ms = int((frac or "0")[:3].ljust(3, "0"))
    if not (1 <= mo <= 12 and 1 <= d <= calendar.monthrange(y, mo)[1] and h <= 24 and mi < 60 and sec < 60):
        return None
    if hs is not None and zone is None:
        return _local_offset_ms(y, mo, d, h, mi, sec) + ms
    base = calendar.timegm((y, mo, d, h, mi, sec, 0, 0, 0)) * 1000 + ms
    if zone and zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        base -= sign * (int(zone[1:3]) * 60 + int(zone[4:6])) * 60_000
    return base


def parse_date(value: str) -> int | None:
    """Return the epoch milliseconds of ``Date.parse(value)``, or ``None`` where it gives NaN."""
    s = value.strip()
    if not s:
        return None
    iso = _parse_iso(s)
    if iso is not None:
        return iso
    parsed = email.utils.parsedate_tz(s)
    if parsed is None:
        return None
    try:
        stamp = email.utils.mktime_tz(parsed)
    except (OverflowError, ValueError):
        return None
    return int(stamp * 1000)


def iso_from_ms(ms: int) -> str:
    """Format epoch milliseconds as ``Date.prototype.toISOString`` does."""
    dt = datetime.fromtimestamp(ms // 1000, tz=timezone.utc)
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + f".{ms % 1000:03d}Z"
