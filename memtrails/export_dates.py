"""Dates as exports write them where JavaScript's ``Date.parse`` reads no date.

``dates.parse_date`` is the port of ``Date.parse`` alone, and a record's time is first read
by it, so that what the fixtures hold reads the same in every language. What it gives NaN for
and an export writes all the same is read here: numbers of seconds, milliseconds,
microseconds or nanoseconds since 1970 (as numbers or as strings of digits), ISO 8601 in its
basic form ("20231114T221320Z") or with a comma before the fraction, and the ways chat and
spreadsheet exports write a day ("May 8th, 2023 at 7 p.m."). ``conformance/README.md``
states each rule beside ``Date.parse``'s.
"""

from __future__ import annotations

import math
import re

from .dates import days_from_civil, parse_date, utc_from_local_ms

__all__ = [
    "EPOCH_FROM",
    "EXCEL_DAYS",
    "SECONDS_BELOW",
    "as_date_parse_reads",
    "epoch_ms",
    "exported_ms",
    "number_ms",
]

SECONDS_BELOW = 100_000_000_000
"""A number of magnitude below this (1e11) is Unix seconds; above it, milliseconds, then
microseconds from 1e14 and nanoseconds from 1e17.

Exports write any of them (a Unix ``date +%s``, Slack's ``ts`` and Python's ``time.time()``
are seconds; JavaScript's ``Date.now()`` is milliseconds; BigQuery and Postgres's
``extract(epoch)`` times a million are microseconds; Go's ``UnixNano`` and pandas are
nanoseconds). Each step is a factor of 1000 and the bounds are 1e11, 1e14 and 1e17: in its
own unit each bound is 1973-03-03, in the unit before it the year 5138. So every unit reads as
meant from March 1973 to the year 5138; a stamp of 1966-11 to 1973-03 in a finer unit than
seconds would be read in the coarser one (give it as an ISO string instead). JavaScript's
``new Date(n)`` reads every number as milliseconds: ``conformance/README.md`` states the
difference.
"""

EPOCH_FROM = 100_000_000
"""A number of magnitude below this (1e8, 1973-03-03 in seconds) is no epoch stamp in an
export (:func:`number_ms`): 0 and small numbers are unset fields, counts and durations, and
a string of epoch digits has nine at least for the same reason."""

EXCEL_DAYS = (20_000, 80_000)
"""The serial day numbers (1954-10-03 to 2119-01-10) read as a spreadsheet's dates where the
field's name says it holds one (:func:`number_ms`)."""
_EXCEL_EPOCH = 25_569  # 1970-01-01 as a serial day of Excel's 1900 date system
_DAY_MS = 86_400_000

# A string of epoch digits: at least nine (1973-03-03 in seconds), at most a nanosecond
# stamp's nineteen, with a fraction; eight digits are a day ("20231114").
_EPOCH_DIGITS = re.compile(r"[+-]?\d{9,19}(?:\.\d+)?")
# ISO 8601's basic form, "20231114", "20231114T2213Z", "20231114T221320.5+0100".
_BASIC_ISO = re.compile(
    r"(\d{4})(\d\d)(\d\d)(?:[T ](\d\d)(\d\d)(?:(\d\d)(?:[.,](\d{1,9}))?)?"
    r"(Z|[+-]\d\d(?::?\d\d)?)?)?",
    re.I,
)
# ISO 8601 allows a comma before the fraction of a second ("22:13:20,123Z"); ES5 does not.
_COMMA_FRACTION = re.compile(
    r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d),(\d{1,9}(?:Z|[+-]\d\d:?\d\d)?)", re.I
)


def epoch_ms(value: int | float) -> int:
    """Return the epoch milliseconds a number stands for, by the rule of :data:`SECONDS_BELOW`.

    Example:
        >>> epoch_ms(1_700_000_000), epoch_ms(1_700_000_000_000_000)
        (1700000000000, 1700000000000)

    Raises:
        ValueError: the number is not finite.
    """
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"not a date: {value!r}")
    magnitude = abs(value)
    if magnitude < SECONDS_BELOW:  # seconds
        return round(value * 1000) if isinstance(value, float) else value * 1000
    if magnitude < SECONDS_BELOW * 10**3:  # milliseconds
        return int(value)
    if magnitude < SECONDS_BELOW * 10**6:  # microseconds
        return round(value * 1e-3)
    if isinstance(value, float):  # nanoseconds
        return round(value * 1e-6)
    return (value + 500_000) // 10**6  # integer arithmetic: an int of 400 digits is no float


def number_ms(value: int | float, *, day_named: bool = False) -> int | None:
    """Return the epoch milliseconds of a number an export writes as a date, or None when it
    is no date.

    From :data:`EPOCH_FROM` (1e8) up, in magnitude, it is an epoch stamp read by
    :func:`epoch_ms` (negative ones are before 1970). Below it: a whole number from 1000 to
    9999 is that year (UTC midnight of 1 January, as ``Date.parse("2019")``); with
    ``day_named`` (the field's name says it is a date), a number in :data:`EXCEL_DAYS` is
    a spreadsheet's serial day (whole: UTC midnight, as an ISO date; with a fraction: that
    wall clock time in local time, as an ISO date-time without offset); anything else (0,
    -1, a count, NaN) is no date, not January 1970.

    Example:
        >>> number_ms(0) is None, number_ms(2019), number_ms(45123, day_named=True)
        (True, 1546300800000, 1689465600000)

    Raises:
        ValueError: the number is infinite.
    """
    if isinstance(value, float) and not math.isfinite(value):
        if math.isnan(value):
            return None
        raise ValueError(f"not a date: {value!r}")
    if abs(value) >= EPOCH_FROM:
        return epoch_ms(value)
    if value == int(value) and 1000 <= value <= 9999:
        return days_from_civil(int(value), 1, 1) * _DAY_MS
    if day_named and EXCEL_DAYS[0] <= value < EXCEL_DAYS[1]:
        wall = round((value - _EXCEL_EPOCH) * _DAY_MS)
        return wall if value == int(value) else utc_from_local_ms(wall)
    return None


def exported_ms(value: str) -> int | None:
    """Return the epoch milliseconds of a date an export writes that ``Date.parse`` does not
    read, or None when ``value`` is none of those forms.

    Example:
        >>> exported_ms("1700000000"), exported_ms("20231114T221320Z")
        (1700000000000, 1700000000000)
        >>> exported_ms("2023-11-14T22:13:20,5Z"), exported_ms("May 8th, 2023 at 7 p.m.") is None
        (1700000000500, False)
    """
    text = value.strip()
    if _EPOCH_DIGITS.fullmatch(text):
        return epoch_ms(float(text) if "." in text else int(text))
    if (m := _BASIC_ISO.fullmatch(text)) is not None:
        y, mo, d, h, mi, s, fraction, zone = m.groups()
        clock = f"T{h}:{mi}:{s or '00'}.{fraction or '0'}{_extended(zone)}" if h else ""
        return parse_date(f"{y}-{mo}-{d}{clock}")
    if (m := _COMMA_FRACTION.fullmatch(text)) is not None:
        return parse_date(f"{m.group(1)}.{m.group(2)}")
    reworded = as_date_parse_reads(value)
    return parse_date(reworded) if reworded is not None else None


def _extended(zone: str | None) -> str:
    """An ISO basic zone ("+0100", "+01", "z") as ES5 writes it ("+01:00", "Z")."""
    if not zone:
        return ""
    if zone in "zZ":
        return "Z"
    digits = zone[1:].replace(":", "")
    return f"{zone[0]}{digits[:2]}:{digits[2:4] or '00'}"


# How chat and spreadsheet exports write a date that Date.parse does not read: a day with
# its ordinal ("May 8th", "the 1st of May"), "at" or "on" between the date and the time, the
# time first ("1:56 pm on 8 May, 2023"), "7pm" or "p.m." for "7:00 pm".
_DAY_OF = re.compile(r"\b(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+of\s+(?=[a-z])", re.I)
_ORDINAL = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)\b", re.I)
_MERIDIEM = re.compile(r"\b(\d{1,2})(?::(\d\d))?(?::(\d\d))?\s*([ap])\.?m\b\.?", re.I)
_JOINS = re.compile(r"\s*,?\s+(?:at|on|@)\s+", re.I)
_TIME_FIRST = re.compile(r"^\s*(\d{1,2}(?::\d\d){1,2}(?:\s[ap]m)?)\s*,?\s+(\S.*)$", re.I)
_FULL_YEAR = re.compile(r"(?<!\d)\d{4}(?!\d)")
_LONGEST = 80


def _clock(m: re.Match[str]) -> str:
    hour, minute, second, half = m.groups()
    return f"{hour}:{minute or '00'}{':' + second if second else ''} {half.lower()}m"


def as_date_parse_reads(value: str) -> str | None:
    """Return ``value`` written as ``Date.parse`` reads it, when it is a date an export
    writes in another form, or None when it is not one of those forms.

    For a value ``Date.parse`` gives NaN: the ordinal of a day goes ("May 8th", "the 1st
    of May"), so do "at" and "on" between a date and a time, "7pm" and "7 p.m." become
    "7:00 pm", and a time written first goes last. Only a value with a four-digit year is
    rewritten: "on 3rd" is no date, though ``Date.parse`` reads "on 3" as March 2001.
    ``conformance/README.md`` states the rule beside ``Date.parse``'s.

    Example:
        >>> as_date_parse_reads("1:56 pm on 8 May, 2023")
        '8 May, 2023 1:56 pm'
        >>> as_date_parse_reads("May 8th, 2023 at 7 p.m."), as_date_parse_reads("on 3rd")
        ('May 8, 2023 7:00 pm', None)
    """
    # A date is short: a longer value is no date, and is not scanned (spaces by the million).
    if len(value) > _LONGEST or not _FULL_YEAR.search(value):
        return None
    text = _ORDINAL.sub(r"\1", _DAY_OF.sub(r"\1 ", value))
    text = _JOINS.sub(" ", _MERIDIEM.sub(_clock, text)).strip()
    if (m := _TIME_FIRST.match(text)) is not None and _FULL_YEAR.search(m.group(2)):
        text = f"{m.group(2)} {m.group(1)}"
    return text if text != value else None
