"""The calendar that the times a query names are read with: month, season and weekday names,
full dates, and the UTC windows of a day, a month, a season, a quarter or a year."""

from __future__ import annotations

import calendar
import re
from datetime import UTC, date, datetime, timedelta

__all__ = [
    "COUNT",
    "DAY_MS",
    "MONTH",
    "MONTHS",
    "NOT_A_YEAR",
    "SEASON",
    "SEASONS",
    "WEEKDAY_NUMBERS",
    "YEAR",
    "Windows",
    "count_of",
    "date_window",
    "day_ms",
    "day_start",
    "epoch_ms",
    "latest_weekday",
    "month_after",
    "month_as_a_word",
    "quarter",
    "season",
    "window",
]

#: UTC windows [start, end) in epoch ms; a record written inside any of them is "then".
Windows = tuple[tuple[int, int], ...]

DAY_MS = 86_400_000
MONTHS = {
    name.lower(): n
    for n in range(1, 13)
    for name in (calendar.month_name[n], calendar.month_abbr[n])
}
MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
YEAR = r"(1[89]\d\d|2[01]\d\d)"
WEEKDAY_NUMBERS = {name.lower(): n for n, name in enumerate(calendar.day_name)}
# Meteorological seasons of the northern hemisphere: the month each starts (winter runs
# into the next year).
SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
SEASON = "|".join(SEASONS)
# A count of days, weeks, ... in digits or words ("three weeks ago", "the past few days").
_COUNTS = {
    **{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6},
    **{"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12},
}
# A count said loosely ("a few days ago"): that many, and a window as wide as the count.
_ROUGHLY = {"a few": 3, "a couple": 2, "a couple of": 2, "couple of": 2, "several": 4, "few": 3}
COUNT = (
    r"(\d{1,2}|a\s+few|a\s+couple(?:\s+of)?|couple\s+of|several|few|"
    + "|".join(sorted(_COUNTS, key=len, reverse=True))
    + ")"
)
# Words after which four digits (or a dotted date) are a number, not a time.
NOT_A_YEAR = re.compile(r"\b(?:port|pid|issue|ticket|pr|bug|version|v|id|no|number|#)\s*$", re.I)

_DAY_MONTH_YEAR = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({MONTH})\.?,?\s+{YEAR}\b", re.I
)
_MONTH_DAY_YEAR = re.compile(rf"\b({MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+{YEAR}\b", re.I)
_MONTH_YEAR = re.compile(rf"\b({MONTH})\.?,?\s+{YEAR}\b", re.I)
_ISO = re.compile(rf"\b{YEAR}-(\d\d)(?:-(\d\d))?\b")
# "08.05.2023" is day first wherever dots are written (Germany, Russia, ...); "05/08/2023"
# month first as in the US, unless its first number cannot be a month ("31/12/2022").
_NUMERIC = re.compile(rf"(?<![\d./])(\d{{1,2}})([./])(\d{{1,2}})\2{YEAR}(?![\d./]\d)")
_YEAR_ONLY = re.compile(rf"\b(?:in|during|since|of|from)\s+{YEAR}\b", re.I)


def count_of(words: str) -> tuple[int, bool]:
    """The number a :data:`COUNT` says, and whether it is said loosely ("a few": 3).

    Example:
        >>> count_of("three"), count_of("a  couple of"), count_of("12")
        ((3, False), (2, True), (12, False))
    """
    said = " ".join(words.lower().split())
    if said in _ROUGHLY:
        return _ROUGHLY[said], True
    return (int(said) if said.isdigit() else _COUNTS.get(said, 1)), False


def epoch_ms(year: int, month: int, day: int = 1) -> int:
    """The start of a UTC day, epoch ms."""
    return int(datetime(year, month, day, tzinfo=UTC).timestamp() * 1000)


def day_ms(day: date) -> int:
    """The start of ``day`` (UTC), epoch ms."""
    return epoch_ms(day.year, day.month, day.day)


def latest_weekday(day: date, weekday: int, *, that_day: bool = False) -> date:
    """The latest ``weekday`` (0 is Monday) before ``day``, or ``day`` itself when it is one
    and ``that_day``: "last Friday" asked on a Friday is a week ago, "on Friday" said of
    the past may be today."""
    back = (day.weekday() - weekday) % 7
    return day - timedelta(days=back if back or that_day else 7)


def month_as_a_word(name: str) -> bool:
    """Whether a month's name is written as the word it also is, in small letters: "this may
    take a while" (a verb), "their last march" (a noun)."""
    return name.lower() in ("may", "march") and name[0].islower()


def month_after(year: int, month: int) -> int:
    """The start of the month after ``month`` of ``year``, epoch ms."""
    return epoch_ms(year + (month == 12), month % 12 + 1)


def window(year: int, month: int | None = None, day: int | None = None) -> tuple[int, int] | None:
    """The window of a year, a month of it or a day, or None for no such day ("31 February")."""
    try:
        if month is None:
            return epoch_ms(year, 1), epoch_ms(year + 1, 1)
        if day is None:
            return epoch_ms(year, month), month_after(year, month)
        start = epoch_ms(year, month, day)
    except ValueError:  # "31 February", month 13
        return None
    return start, start + DAY_MS


def date_window(query: str) -> tuple[int, int] | None:
    """Return the UTC window [start, end) in epoch ms of the first full date the query names.

    A day ("3 April 2003", "the 3rd of April 2003", "April 3, 2003", "2003-04-03", "03.04.2003" day first,
    "4/3/2003" month first unless the first number cannot be a month), a month ("April 2003", "Apr
    2003", "2003-04") or a year after "in", "during", "since", "of" or "from" ("in 2003").

    Example:
        >>> date_window("what did Glyph say in April 2003?") == (1049155200000, 1051747200000)
        True
    """
    for pattern, order in (
        (_DAY_MONTH_YEAR, "dmy"),
        (_MONTH_DAY_YEAR, "mdy"),
        (_ISO, "iso"),
        (_NUMERIC, "numeric"),
        (_MONTH_YEAR, "my"),
        (_YEAR_ONLY, "y"),
    ):
        m = pattern.search(query)
        if m is None or (order == "numeric" and NOT_A_YEAR.search(query[: m.start()])):
            continue  # "version 1.2.2023" is no day
        g = m.groups()
        if order == "dmy":
            return window(int(g[2]), MONTHS[g[1].lower()], int(g[0]))
        if order == "mdy":
            return window(int(g[2]), MONTHS[g[0].lower()], int(g[1]))
        if order == "iso":
            return window(int(g[0]), int(g[1]), int(g[2]) if g[2] else None)
        if order == "numeric":
            first, second = int(g[0]), int(g[2])
            if g[1] == "." or first > 12:
                first, second = second, first
            return window(int(g[3]), first, second)
        if order == "my":
            return window(int(g[1]), MONTHS[g[0].lower()])
        return window(int(g[0]))
    return None


def day_start(now: datetime) -> datetime:
    """The start of ``now``'s UTC day."""
    return now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def season(year: int, name: str) -> tuple[int, int]:
    """The season ``name`` that starts in ``year`` (winter: in its December)."""
    first = SEASONS[name.lower()]
    end_year, end_month = (year + 1, 3) if first == 12 else (year, first + 3)
    return epoch_ms(year, first), epoch_ms(end_year, end_month)


def quarter(year: int, number: int) -> tuple[int, int]:
    """The quarter ``number`` (1-4) of ``year``."""
    start = 3 * number - 2
    return epoch_ms(year, start), month_after(year, start + 2)
