"""A date reader that accepts what JavaScript's ``Date.parse`` accepts, with the same results."""

from __future__ import annotations

import os
import re
import threading
import time
from array import array
from datetime import datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .date_fields import MONTH_NUMBERS, ZONE_HOURS, parse_fields

__all__ = [
    "civil_from_days",
    "days_from_civil",
    "iso_from_ms",
    "parse_date",
    "utc_from_local_ms",
]


# The V8 port that reads the text into fields is date_fields'; this module makes an instant of
# them (days of the civil calendar, the local zone) and holds the fast paths for common forms.
_MS_PER_DAY = 86_400_000
_MAX_TIME = 8.64e15  # the range of a JavaScript Date (TimeClip)
_MAX_YEAR = 1_000_000  # MakeDay gives NaN outside +-1e6 years


def days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (any year, any day 1..31)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(z: int) -> tuple[int, int, int]:
    """Return the (year, month, day) of day ``z`` since 1970-01-01 (proleptic Gregorian)."""
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + (3 if mp < 10 else -9)
    return yoe + era * 400 + (m <= 2), m, d


# The common RFC 2822 form of mail (weekday, day, month, 4-digit year, time, numeric offset or
# one of V8's zone names, an optional comment). Anything else, or any field V8 would read in
# an unusual way (a year below 100, a day or time out of range), takes the full parser.
_RFC2822 = re.compile(
    r"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), )?(\d{1,2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
    r" (\d{4}) (\d\d):(\d\d)(?::(\d\d))? (?:([+-])(\d\d)(\d\d)|(GMT|UTC?|Z|[ECMP][SD]T))"
    r"(?: \([^()\x00]*\))?\Z",
    re.ASCII,
)


def _parse_rfc2822(m: re.Match[str]) -> int | None:
    """Read a match of _RFC2822 as V8 would, or return None to use the full parser."""
    day_s, month_s, year_s, hh, mi, ss, sign, oh, om, zone = m.groups()
    day, year, hour, minute, second = int(day_s), int(year_s), int(hh), int(mi), int(ss or 0)
    if not (1 <= day <= 31 and year >= 100 and hour <= 23 and minute <= 59 and second <= 59):
        return None
    if zone is not None:
        offset = ZONE_HOURS[zone] * 60
    else:
        # V8 takes any four digits as hhmm, without range checks.
        offset = (int(oh) * 60 + int(om)) * (1 if sign == "+" else -1)
    days = days_from_civil(year, MONTH_NUMBERS[month_s], 1) + day - 1
    return (days * 86400 + hour * 3600 + minute * 60 + second - offset * 60) * 1000


# Date.prototype.toISOString's form for years 0..9999: the one memtrails writes and reads most.
_CANONICAL = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{3})Z\Z", re.ASCII)
_EPOCH = datetime(1970, 1, 1)
_400_YEARS_MS = 146097 * _MS_PER_DAY
_zones = threading.local()


def _local_zone() -> tzinfo | None:
    """Return the zone of the process's TZ (cached per TZ value), as V8 + ICU read it."""
    key = os.environ.get("TZ")
    cache: dict[str | None, tzinfo | None] = _zones.__dict__.setdefault("by_tz", {})
    if key in cache:
        return cache[key]
    zone: tzinfo | None = None
    try:
        if key:
            zone = ZoneInfo(key.removeprefix(":"))
        elif os.path.exists("/etc/localtime"):
            with open("/etc/localtime", "rb") as f:
                zone = ZoneInfo.from_file(f)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        zone = None  # a POSIX rule string such as "EST5EDT,M3.2.0,M11.1.0": fall back to libc
    cache[key] = zone
    return zone


def utc_from_local_ms(local_ms: int, *, fold: int = 0) -> int:
    """Return the instant of a wall-clock time in the process's zone (``TZ``), as JavaScript.

    ``local_ms`` is the wall time counted as if it were UTC (``Date.UTC(y, m, d, h, ...)``);
    the result is what ``new Date(y, m, d, h, ...).getTime()`` gives. Use it for naive
    datetimes so they become the same instant in Python as in the TypeScript reference.

    V8 asks ICU for the offset with UCAL_TZ_LOCAL_FORMER for both skipped and repeated
    times: a time in a spring-forward gap is read with the offset before the gap, and a
    repeated time in the autumn is the first (summer-time) one. zoneinfo's ``fold=0`` is
    the same rule. ``fold=1`` (a Python ``datetime``'s own, which JavaScript cannot say)
    takes the second of a repeated time, as ``datetime.timestamp()`` does.
    """
    zone = _local_zone()
    # zoneinfo stops at years 1..9999; shifting by whole 400-year cycles keeps the calendar,
    # the weekdays and therefore any rule-based offset the same.
    day_ms = local_ms
    while day_ms < -62_135_596_800_000 + _MS_PER_DAY:  # before 0001-01-02
        day_ms += _400_YEARS_MS
    while day_ms >= 253_402_214_400_000:  # from 9999-12-31
        day_ms -= _400_YEARS_MS
    wall = _EPOCH + timedelta(milliseconds=day_ms)
    if zone is not None:
        offset = wall.replace(tzinfo=zone, fold=fold).utcoffset()
        offset_ms = 0 if offset is None else offset // timedelta(milliseconds=1)
    else:
        ts = time.mktime(wall.timetuple()) if not fold else wall.replace(fold=1).timestamp()
        offset_ms = day_ms - int(ts * 1000) - wall.microsecond // 1000
    return local_ms - offset_ms


def parse_date(value: str) -> int | None:
    """Return the epoch milliseconds of ``Date.parse(value)``, or ``None`` where it gives NaN.

    Forms without an offset (other than ISO date-only ones) are read in the process's local
    time zone, the ``TZ`` environment variable, as JavaScript does.

    Example:
        >>> parse_date("Tue, 1 Apr 2003 10:00:00 -0500")
        1049209200000
    """
    m = _CANONICAL.match(value)
    if m is not None:
        # The form memtrails stores (toISOString's); V8's ISO rules for it in short.
        y, mo, d, h, mi, sec, ms = map(int, m.groups())
        if not (1 <= mo <= 12 and 1 <= d <= 31 and mi <= 59 and sec <= 59):
            return None
        if h > 24 or (h == 24 and (mi or sec or ms)):
            return None
        days = days_from_civil(y, mo, 1) + d - 1  # day 31 of a short month rolls over
        return (days * 86400 + h * 3600 + mi * 60 + sec) * 1000 + ms
    m = _RFC2822.match(value)
    if m is not None:
        fast = _parse_rfc2822(m)
        if fast is not None:
            return fast
    units = array("H", value.encode("utf-16-le", "surrogatepass"))
    fields = parse_fields(units)
    if fields is None:
        return None
    year, month, day, hour, minute, second, ms, offset = fields
    if not -_MAX_YEAR <= year <= _MAX_YEAR:
        return None
    t = days_from_civil(year, month, 1) + day - 1
    t = t * _MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + ms
    if offset is None:
        if abs(t) > _MAX_TIME + 10 * _MS_PER_DAY:  # V8's kMaxTimeBeforeUTCInMs
            return None
        t = utc_from_local_ms(t)
    else:
        t -= offset * 1000
    if abs(t) > _MAX_TIME:
        return None
    return t


def iso_from_ms(ms: int) -> str:
    """Format epoch milliseconds as ``Date.prototype.toISOString`` does.

    Years outside 0..9999 are written with a sign and six digits (``+275760-09-13...``).

    Raises:
        ValueError: ``ms`` is outside the range of a JavaScript Date.
    """
    if not -_MAX_TIME <= ms <= _MAX_TIME:
        raise ValueError(f"`ms` is outside the range of a JavaScript Date: {ms}")
    ms = int(ms)
    days, rest = divmod(ms, _MS_PER_DAY)
    y, m, d = civil_from_days(days)
    secs, milli = divmod(rest, 1000)
    hh, rem = divmod(secs, 3600)
    mm, ss = divmod(rem, 60)
    year = f"{y:04d}" if 0 <= y <= 9999 else f"{'-' if y < 0 else '+'}{abs(y):06d}"
    return f"{year}-{m:02d}-{d:02d}T{hh:02d}:{mm:02d}:{ss:02d}.{milli:03d}Z"
