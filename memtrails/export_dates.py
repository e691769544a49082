"""Dates as exports write them where JavaScript's ``Date.parse`` reads no date.

``dates.parse_date`` is the port of ``Date.parse`` alone, and a record's time is first read
by it, so that what the fixtures hold reads the same in every language. What it gives NaN for
and an export writes all the same is read here: numbers of seconds, milliseconds,
microseconds or nanoseconds since 1970 (as numbers or as strings of digits), ISO 8601 in its
basic form ("20231114T221320Z"), with a comma before the fraction or in hours ("T10+02"),
the ways chat and spreadsheet exports write a day ("May 8th, 2023 at 7 p.m."), and last ISO
week dates and days in other scripts' words (``world_dates``). A number alone, which
``Date.parse`` makes a year ("0" is 2000), is read as the number (:func:`digits_ms`).
``conformance/README.md`` states each rule beside ``Date.parse``'s.
"""

from __future__ import annotations

import calendar
import math
import re

from .date_years import buddhist_era, misread_year, of_our_era, spans_years
from .dates import days_from_civil, parse_date, utc_from_local_ms
from .day_order import dotted_day, evidence, ordered
from .month_names import misread_month, nameless_month, unsure_month
from .world_dates import (
    buddhist_day,
    iana_ms,
    in_other_script,
    names_month,
    plain_date_text,
    world_ms,
)
from .written_dates import as_date_parse_reads, month_year_ms, unsure_zone, words_ms, zoned_ms

__all__ = [
    "EPOCH_FROM",
    "EXCEL_DAYS",
    "FULL_YEAR",
    "HOUR_STAMP_FROM",
    "SECONDS_BELOW",
    "as_date_parse_reads",
    "digits_ms",
    "epoch_ms",
    "exported_ms",
    "is_number",
    "is_zero_date",
    "names_no_day",
    "number_ms",
    "stamp_ms",
    "text_ms",
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

FULL_YEAR = re.compile(r"(?<!\d)\d{4}(?!\d)")
"""Four digits alone, a year: only a text with one is read as a date written in words."""
# MySQL's "zero date", which its exports and drivers write for a time never set.
# And the days other tools write for one, at midnight: Go's zero time and .NET's MinValue
# (0001-01-01), FILETIME's zero (1601-01-01), SQL Server's empty datetime (1900-01-01), the
# epoch; and the end of time (9999-12-31, .NET's MaxValue 23:59:59.9999999).
_ZERO_DATE = re.compile(
    r"(?:(?:0000-00-00|0001-01-01|1601-01-01|1900-01-01|1970-01-01|9999-12-31)"
    r"(?:[T ]00:00(?::00(?:[.,]0+)?)?)?"
    r"|9999-12-31[T ]23:59(?::59(?:[.,]9+)?)?)"
    r"(?:\s*(?:Z|UTC|GMT|[+-]00(?::?00)?))?",
    re.I,
)
# What a field holds when it holds no date: an empty text, and "none" as exports write it.
_UNSET = frozenset({"", "-", "null", "none", "nil", "undefined", "nan", "nat", "n/a"})
# Before this, a number read as an epoch stamp is an unset value, not a time: pandas' NaT
# as an integer (-2**63 ns, 1677), Go's zero time in seconds (-62135596800, the year 1).
_EPOCH_FLOOR = -2_208_988_800_000  # 1900-01-01T00:00:00Z
_EARLIEST_TIME = -8.64e15  # a JavaScript Date's first instant
# .NET's JSON date (DataContractJsonSerializer): UTC milliseconds; an offset says only where.
_DOTNET = re.compile(r"/Date\((-?\d{1,16})(?:[+-]\d{4})?\)/")
# A number alone, as an export writes one ("0", "1700000000", "45123.5", "-86400").
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)", re.A)  # ASCII digits: others are text_ms's
# Exponent notation, as spreadsheets write an epoch stamp ("1.71473E+09", "1,71473E+09").
_EXPONENT = re.compile(r"[+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+)[eE][+-]?\d{1,3}")
# A leap second ("23:59:60"), as POSIX time counts it: the second after ":59".
_LEAP_SECOND = re.compile(r"(?<=\d\d:\d\d):60(?!\d)")
# ISO 8601 with a space before its offset ("2024-05-03T10:00:00 +05:30").
_SPACED_OFFSET = re.compile(r"\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(\s+)([+-]\d\d(?::?\d\d)?)\s*$")
# A year with a sign and four or five digits, as Java writes one before 1 or after 9999
# (LocalDate's "-0001-05-03", "+10000-01-01"); ISO 8601 and Date.parse want six.
_SIGNED_YEAR = re.compile(r"\s*([+-])(\d{4,5})(-\d\d-\d\d(?![\d-]).*)", re.S)
_AT_SECONDS = re.compile(r"@([+-]?\d{1,13})(?:[.,](\d{1,9}))?")
_MOST_DIGITS = 19  # a nanosecond stamp's; a longer number is no date
# A day or a time written as digits alone (ISO 8601's basic form without a "T"): 20240503,
# 202405031032, 20240503103200: 8, 12 or 14 digits beginning with a year of 1900 to 2100.
_COMPACT = re.compile(r"((?:19|20)\d\d|2100)(\d\d)(\d\d)(?:(\d\d)(\d\d)(\d\d)?)?")
# An hour written as digits (YYYYMMDDHH: 2024050310), ten of them, as Unix seconds are.
_HOUR_STAMP = re.compile(r"(20\d\d|2100)(\d\d)(\d\d)(\d\d)")
HOUR_STAMP_FROM = 2_000_000_000
"""Ten digits from 2e9 up that are an hour of 2000 to 2100 (``2024050310``) are that hour
(local time), others Unix seconds: the value's rule, never the clock's. Below 2e9: seconds up
to 2033-05-18. From 2e9 (May 2033 to July 2036) one in about a hundred is an hour, read so."""
# ISO 8601's basic form, "20231114", "20231114T2213Z", "20231114T221320.5+0100".
_BASIC_ISO = re.compile(
    r"(\d{4})(\d\d)(\d\d)(?:[T ](\d\d)(\d\d)(?:(\d\d)(?:[.,](\d{1,9}))?)?"
    r"(Z|[+-]\d\d(?::?\d\d)?)?)?",
    re.I,
)
# The same without its "T" when a zone ends it ("20240503103200Z"): digits and a zone are a time.
_BASIC_NO_T = re.compile(r"(\d{8})(\d{4}(?:\d\d(?:[.,]\d{1,9})?)?(?:Z|[+-]\d\d(?::?\d\d)?))", re.I)
# ISO 8601's hour alone or offset in hours ("2024-05-03T10+02:00", date -Ihours; "...T10:00+05").
_SHORT_ISO = re.compile(r"(\d{4}-\d\d-\d\dT\d\d)((?::\d\d){,2}(\.\d+)?)([Zz]|[+-]\d\d(:?\d\d)?)?")
# ISO 8601 allows a comma before the fraction of a second ("22:13:20,123Z"); ES5 does not.
_COMMA_FRACTION = re.compile(
    r"(\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d),(\d{1,9})\s?(Z|[+-]\d\d:?\d\d)?", re.I
)
# An offset and a zone's name, Go's time.String() ("... +0200 CEST"): the offset says when.
_OFFSET_NAMED = re.compile(r"(.*\d\s*[+-]\d\d:?\d\d)\s+[A-Za-z]{2,5}", re.S)
# The Common Log Format of web servers' access logs: "03/May/2024:10:00:00 +0200".
_CLF = re.compile(r"(\d{1,2})/([A-Za-z]{3})/(\d{4}):(\d\d:\d\d:\d\d)(?:\s*([+-]\d{4}|Z))?")


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

    A whole number whose digits are a day or a time (``20240503``, ``202405031032``,
    ``20240503103200``: :func:`digits_ms`) is that day or time. Otherwise, from
    :data:`EPOCH_FROM` (1e8) up, in magnitude, it is an epoch stamp read by
    :func:`epoch_ms` (negative ones are before 1970; one before 1900 is an unset value,
    such as pandas' NaT as an integer or Go's zero time, and no date). Below it: a whole number from 1000 to
    9999 is that year (UTC midnight of 1 January, as ``Date.parse("2019")``); with
    ``day_named`` (the field's name says it is a date), a number in :data:`EXCEL_DAYS` is
    a spreadsheet's serial day (whole: UTC midnight, as an ISO date; with a fraction: that
    wall clock time in local time, as an ISO date-time without offset); anything else (0,
    -1, a count, NaN) is no date, not January 1970.

    Example:
        >>> number_ms(0) is None, number_ms(2019), number_ms(45123, day_named=True)
        (True, 1546300800000, 1689465600000)
        >>> number_ms(20240503)  # a day, not August 1970
        1714694400000

    Raises:
        ValueError: the number is infinite.
    """
    if isinstance(value, float) and not math.isfinite(value):
        if math.isnan(value):
            return None
        raise ValueError(f"not a date: {value!r}")
    if (compact := _compact_number(value)) is not None:
        return compact[0]
    if abs(value) >= EPOCH_FROM:
        ms = epoch_ms(value)
        # NaT's -2**63, Go's zero time: unset; past what a time holds: the caller's error.
        return ms if ms >= _EPOCH_FLOOR or ms < _EARLIEST_TIME else None
    if value == int(value) and 1000 <= value <= 9999:
        return days_from_civil(int(value), 1, 1) * _DAY_MS
    if day_named and EXCEL_DAYS[0] <= value < EXCEL_DAYS[1]:
        wall = round((value - _EXCEL_EPOCH) * _DAY_MS)
        return wall if value == int(value) else utc_from_local_ms(wall)
    return None


# A day its month does not have, which Date.parse rolls over into the next month
# ("2024-02-30" is 1 March): ISO, year/month/day, month/day/year, or a month's English name.
_NUMERIC_DAY = re.compile(
    r"\s*(?:[+-]?(\d{4,6})-(\d\d)-(\d\d)|(\d{4})/(\d{1,2})/(\d{1,2})|(\d{1,2})/(\d{1,2})/(\d{4}))(?!\d)"
)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = "(" + "|".join(_MONTHS) + r")[a-z]*\.?"
_NAMED_DAY = re.compile(
    rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b"
    rf"|\b(\d{{1,2}})(?:st|nd|rd|th|\.)?\s+(?:of\s+)?{_MONTH},?\s+(\d{{4}})\b",
    re.I,
)
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_LONGEST = 80  # a date is short: a longer value is not scanned


def names_no_day(text: str) -> bool:
    """Tell whether ``text`` writes a day its month does not have ("2024-02-30",
    "2023/02/29", "04/31/2024", "Feb 30, 2024"): ``Date.parse`` rolls it over into the
    next month (1 March), a time no export meant; a record's time refuses it.

    Example:
        >>> names_no_day("2024-02-30"), names_no_day("2024-02-29"), names_no_day("30 Feb 2023")
        (True, False, True)
    """
    if len(text) > _LONGEST:
        return False
    if (m := _NUMERIC_DAY.match(text)) is not None:
        g = m.groups()
        y, mo, d = (g[0:3] if g[0] else g[3:6]) if (g[0] or g[3]) else (g[8], g[6], g[7])
        return _no_day(int(y), int(mo), int(d))
    if (m := _NAMED_DAY.search(text)) is not None:
        if m[1]:
            return _no_day(int(m[3]), _MONTHS.index(m[1].lower()) + 1, int(m[2]))
        return _no_day(int(m[6]), _MONTHS.index(m[5].lower()) + 1, int(m[4]))
    return False


def _existing(text: str) -> int | None:
    """``parse_date(text)``, but None for a day its month does not have."""
    return None if names_no_day(text) else parse_date(text)


def _no_day(year: int, month: int, day: int) -> bool:
    if not 1 <= month <= 12 or day > 31:
        return False  # no month, no day: Date.parse gives NaN itself
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return day > _MONTH_DAYS[month - 1] + (month == 2 and leap)


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
    if is_number(text):
        return digits_ms(text)
    if _EXPONENT.fullmatch(text):  # "1.71473E+09": a number, read as any number is
        number = float(text.replace(",", "."))
        return number_ms(number) if math.isfinite(number) else None
    if (m := _BASIC_NO_T.fullmatch(text)) is not None:
        text = f"{m.group(1)}T{m.group(2)}"
    if (m := _BASIC_ISO.fullmatch(text)) is not None:
        y, mo, d, h, mi, s, fraction, zone = m.groups()
        clock = f"T{h}:{mi}:{s or '00'}.{fraction or '0'}{_extended(zone)}" if h else ""
        return _existing(f"{y}-{mo}-{d}{clock}")
    if (m := _COMMA_FRACTION.fullmatch(text)) is not None:
        # Python's logging writes "2024-05-03 10:00:00,123" (local time, as without a comma).
        return _existing(f"{m.group(1)}.{m.group(2)}{m.group(3) or ''}")
    if (m := _SHORT_ISO.fullmatch(text)) is not None:
        return _existing(f"{m[1]}{m[2] or ':00'}{_extended(m[4])}")
    if (m := _CLF.fullmatch(text)) is not None:
        day, month, year, clock, zone = m.groups()
        return _existing(f"{day} {month} {year} {clock}{' ' + zone if zone else ''}")
    reworded = as_date_parse_reads(value)  # when Date.parse reads it not, words_ms may
    if reworded is not None and (ms := _existing(reworded)) is not None:
        return ms
    if (m := _DOTNET.fullmatch(text)) is not None:  # "/Date(1714732320000)/"
        return int(m[1]) if abs(int(m[1])) <= -_EARLIEST_TIME else None
    if (m := _SPACED_OFFSET.search(text)) is not None:  # "2024-05-03T10:00:00 +05:30"
        return text_ms(text[: m.start(1)] + m.group(2))
    if (named := _OFFSET_NAMED.fullmatch(text)) is not None:
        return text_ms(named.group(1))  # Go's "+0200 CEST": the offset says when
    for read in (zoned_ms, iana_ms):  # "10:00 CEST"; "...[Europe/Berlin]", "10:00 Asia/Kolkata"
        if (ms := read(text, text_ms)) is not None:
            return ms
    ms = world_ms(value)  # "2024-W18-3", "2024年5月3日", "3 мая 2024"
    return ms if ms is not None else words_ms(text, text_ms)  # "3 mai 2024", "3. März 2024"


def text_ms(value: str, *, day_first: bool | None = None) -> int | None:
    """Return the epoch milliseconds of a date written as a string (``At.of``'s reading), or
    None when it is none.

    A day in numbers whose order its numbers leave open ("05/04/2024") is read on evidence
    (:mod:`.day_order`): ``day_first`` (the file's other days, an export's format), else
    the value's own (a right-to-left comma, a script no month-first locale writes), else it
    is no date.

    ``Date.parse`` reads it (:func:`dates.parse_date`), except: a number alone is read as
    :func:`digits_ms` reads it ("0" is no year 2000, "20240503103200" a time); a date without
    a year ("May 3", which it makes a day of 2001) and a day its month does not have
    ("2024-02-30", :func:`names_no_day`) are no date; a day written with dots is day first
    ("03.05.2024": 3 May), and so is one with a Buddhist era's year ("03/05/2567": 3 May
    2024; ``world_dates`` reads marks, dashes and other digits first); a month named in
    another language is that month. Where it gives NaN: :func:`exported_ms`.

    Example:
        >>> text_ms("0") is None, text_ms("2024-05-03"), text_ms("1714694400")
        (True, 1714694400000, 1714694400000)
    """
    converted = buddhist_era(value)  # "2559 BE", "28 Heisei"
    return None if converted is None else of_our_era(value, _read(converted, day_first))


def _read(value: str, day_first: bool | None) -> int | None:
    """:func:`text_ms` but for its calendar's check."""
    if day_first is None:
        day_first = evidence(value)  # before the plain text loses it (Urdu's "،", ጥዋት)
    plain = plain_date_text(value)
    if plain is None:
        return None
    value = plain
    text = value.strip()
    if spans_years(text) or unsure_zone(text) or unsure_month(text):
        return None  # "Dec 2023 - Jan 2024": which day? "10:00 IST": India's or Israel's?
    if is_number(text) and not in_other_script(text):  # "๒๕๖๖": a Thai year, below
        # Past a nanosecond stamp's nineteen digits a number is no time at all.
        return digits_ms(text) if len(text.lstrip("+-").split(".")[0]) <= _MOST_DIGITS else None
    if (m := _AT_SECONDS.fullmatch(text)) is not None:  # "@1714732320": seconds, any size
        seconds, fraction = m.groups()
        sign = -1 if seconds.startswith("-") else 1
        stamp = int(seconds) * 1000 + sign * int((fraction or "0")[:3].ljust(3, "0"))
        return stamp if stamp and abs(stamp) <= -_EARLIEST_TIME else None  # "@0": as "0"
    if in_other_script(value) or misread_month(value):
        # "мая 2024", "3 marraskuuta 2024": not Date.parse's 1 January, 3 March (by "mar").
        ms = world_ms(value)
        for read in (words_ms, month_year_ms):
            ms = read(value.strip(), text_ms) if ms is None else ms
        if ms is not None or (in_other_script(value) and names_month(value)):
            return ms
    if (buddhist := buddhist_day(value)) is not None:
        value = buddhist  # "03/05/2567": 3 May 2024, not 5 March 2567
    elif (dotted := dotted_day(value)) is not None:
        value = dotted  # "03.05.2024": 3 May, where Date.parse reads 5 March
    elif (in_order := ordered(value, day_first)) is None:
        return None  # "05/04/2024": 5 April or 4 May, and nothing says which
    else:
        value = in_order
    if (signed := _SIGNED_YEAR.fullmatch(value)) is not None:  # Java's "-0001-05-03"
        mark, year, rest = signed.groups()
        value = f"{mark}{int(year):06d}{rest}" if int(year) else f"0000{rest}"
    leap, seconds = _LEAP_SECOND.subn(":59", value)  # "23:59:60": the second after 23:59:59
    if seconds:  # (Date.parse: NaN, or :00); a time has one second
        ms = text_ms(leap) if seconds == 1 else None
        return None if ms is None else ms + 1000
    ms = month_year_ms(value.strip(), text_ms)  # "Mai 2024": May, not Date.parse's January
    ms = parse_date(value) if ms is None else ms
    if ms is not None and (names_no_day(value) or misread_year(value, ms) or nameless_month(value)):
        return None  # "2024-02-30": not 1 March; "May 3": not 2001; "3-5 May 2024": not 2005
    return ms if ms is not None else exported_ms(value)


def is_zero_date(text: str) -> bool:
    """Tell whether ``text`` is MySQL's zero date ("0000-00-00", "0000-00-00 00:00:00"), or
    another day tools write for a time never set, at midnight (UTC): Go's zero time and
    .NET's ``DateTime.MinValue`` ("0001-01-01T00:00:00Z"), FILETIME's zero (1601-01-01), SQL
    Server's empty datetime (1900-01-01), the epoch ("1970-01-01T00:00:00Z"), and the end of
    time ("9999-12-31", "9999-12-31T23:59:59.9999999"): no date, as 0 is, not a record of
    the year 1 or 9999; so are an empty text and how exports write none ("null", "NaT")."""
    plain = text.strip()
    return plain.lower() in _UNSET or _ZERO_DATE.fullmatch(plain) is not None


def is_number(text: str) -> bool:
    """Tell whether ``text`` is a number alone ("0", "1700000000.5", "-86400"), no spaces."""
    return _NUMBER.fullmatch(text) is not None


def digits_ms(text: str, *, day_named: bool = False) -> int | None:
    """Return the epoch milliseconds of a number written as a string (:func:`is_number`), or
    None when it is no date.

    Digits that are a day or a time of 1900 to 2100 are that: ``20240503`` (UTC midnight, as
    the ISO date ``2024-05-03``), ``202405031032`` and ``20240503103200`` (local time, as an
    ISO date-time without an offset). Eight, twelve or fourteen digits that begin with such a
    year and are no valid day or time (``20240503256199``, ``20241399103200``) are no date;
    they are not read as an epoch stamp (the year 2611). Any other number is read as
    :func:`number_ms` reads it: 0 and small numbers are no date, 1000 to 9999 a year, from
    1e8 an epoch stamp, up to nineteen digits (a 64-bit count of nanoseconds; more are no
    date, as ``At.of`` reads them, not a nanosecond stamp of the year 2361).

    Example:
        >>> digits_ms("20240503") == text_ms("2024-05-03")
        True
        >>> digits_ms("0"), digits_ms("7"), digits_ms("20240503256199"), digits_ms("2019")
        (None, None, None, 1546300800000)
    """
    if in_other_script(text):
        return world_ms(text)  # "๒๕๖๗": Thai digits, a year of the Buddhist era
    whole, _, fraction = text.partition(".")
    if len(whole.lstrip("+-")) > _MOST_DIGITS:
        return None  # past a 64-bit nanosecond stamp's nineteen digits: no time at all
    if (compact := _compact(whole, fraction)) is not None:
        return compact[0]
    return number_ms(float(text) if "." in text else int(text), day_named=day_named)


def stamp_ms(value: int | float) -> int:
    """Return the epoch milliseconds of a number given as a time in code (``At.of(n)``): a
    whole number whose digits are a day or a time is that (:func:`digits_ms`), any other is
    an epoch stamp (:func:`epoch_ms`), 0 included: the instant 1970-01-01.

    A record's time read from data (``MemoryRecord(at=...)``, a row, a JSON Lines field) is
    :func:`number_ms`'s, where 0 and small numbers are no date.

    Raises:
        ValueError: the number is not finite, or its digits begin with a day and are no time.
    """
    if (compact := _compact_number(value)) is not None:
        if compact[0] is None:
            raise ValueError(f"not a date: {value!r}")
        return compact[0]
    return epoch_ms(value)


def _compact_number(value: int | float) -> tuple[int | None] | None:
    """:func:`_compact` of a number's digits (20240503103200, 20240503103200.5)."""
    if isinstance(value, bool) or value < 0:
        return None
    if isinstance(value, int):
        return _compact(str(value))
    written = repr(value)  # the shortest digits that are the float: "20240503103200.5"
    if not math.isfinite(value) or "e" in written:
        return None
    whole, _, fraction = written.partition(".")
    return _compact(whole, "" if fraction == "0" else fraction)


def _compact(digits: str, fraction: str = "") -> tuple[int | None] | None:
    """Digits that begin with a year of 1900 to 2100, 8, 12 or 14 of them: (the time they
    are,), or (None,) when they are no time. None for any other digits; ten digits that
    are an hour (:data:`HOUR_STAMP_FROM`) are that hour.

    As an epoch stamp they would be milliseconds of 1976 (12 digits) or of the years 2572 to
    2635 (14 digits): no export means those when it writes a year's digits first."""
    if len(digits) == 10:
        return _hour_stamp(digits) if not fraction else None
    m = _COMPACT.fullmatch(digits)
    if m is None:
        return None
    year, month, day, hour, minute, second = (int(g) if g else 0 for g in m.groups())
    if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]):
        return (None,)  # month 13, 31 April: no day
    days = days_from_civil(year, month, day)
    if m.group(4) is None:
        return (None,) if fraction else (days * _DAY_MS,)
    if hour > 23 or minute > 59 or second > 59 or (fraction and m.group(6) is None):
        return (None,)  # a fraction belongs to the seconds
    wall = days * _DAY_MS + ((hour * 60 + minute) * 60 + second) * 1000
    return (utc_from_local_ms(wall + int(fraction[:3].ljust(3, "0") or 0)),)


def _hour_stamp(digits: str) -> tuple[int] | None:
    """(The local time of ``2024050310``,) by the rule of :data:`HOUR_STAMP_FROM`."""
    m = _HOUR_STAMP.fullmatch(digits)
    if m is None or int(digits) < HOUR_STAMP_FROM:
        return None
    year, month, day, hour = (int(g) for g in m.groups())
    if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1] and hour < 24):
        return None  # no hour: Unix seconds, as any other ten digits
    return (utc_from_local_ms((days_from_civil(year, month, day) * 24 + hour) * 3_600_000),)


def _extended(zone: str | None) -> str:
    """An ISO basic zone ("+0100", "+01", "z") as ES5 writes it ("+01:00", "Z")."""
    if not zone:
        return ""
    if zone in "zZ":
        return "Z"
    digits = zone[1:].replace(":", "")
    return f"{zone[0]}{digits[:2]}:{digits[2:4] or '00'}"
