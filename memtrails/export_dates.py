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

import re

from .dates import parse_date

__all__ = ["SECONDS_BELOW", "as_date_parse_reads", "epoch_ms", "exported_ms"]

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
