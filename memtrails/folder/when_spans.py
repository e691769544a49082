"""Times a question names in several words, read as the span a record telling of them was
written in: a month of a year said in words ("May last year", "last May", "spring '23"),
"the month before last", "the past two weeks", parts of a year ("early 2023", "the end of
last year", "H1 2024"), decades ("the 1990s"), holidays ("Christmas 2022", "over Easter"),
times of day ("last night") and times counted from a date ("the week before 9 June 2023").

What a question dates is when something happened; the records that answer are written when
it was told: a plan before, a recap after. So the spans here that are narrower than a month
reach a little past the time itself (a holiday from :data:`HOLIDAY_REACH` days before it to
:data:`TOLD_AFTER` days after; a time counted from a date up to the end of that date, or
:data:`TOLD_AFTER` days past it), and a part of a year reaches :data:`TOLD_AFTER` days into
the next part.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

from .when_calendar import (
    COUNT,
    DAY_MS,
    MONTH,
    MONTHS,
    SEASON,
    WEEKDAY_NUMBERS,
    YEAR,
    Windows,
    count_of,
    date_window,
    day_ms,
    day_start,
    epoch_ms,
    latest_weekday,
    month_after,
    month_as_a_word,
    season,
    window,
)

__all__ = [
    "HOLIDAY_REACH",
    "PLANS_BEFORE",
    "TOLD_AFTER",
    "counted_back",
    "holidays_every_year",
    "past_weekday",
    "spans_named",
]

#: Days before a holiday that its span reaches back (plans are told before it; what happened
#: is told up to :data:`TOLD_AFTER` days after it).
HOLIDAY_REACH = 10
#: Days past a time counted from a date, or past a part of a year, that its telling reaches.
TOLD_AFTER = 14
#: Days before the day asked that the plans for a time still to come are looked for in.
PLANS_BEFORE = 30

_WEEKDAY = "|".join(WEEKDAY_NUMBERS)
_UNIT_DAYS = {"day": 1, "week": 7, "fortnight": 14, "month": 30, "year": 365}

# "May last year", "the 3rd of May last year", "spring '23", "May of this year".
_OF_A_YEAR = re.compile(
    rf"\b(?:(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?)?({MONTH}|{SEASON})\.?"
    rf"(?:\s+(\d{{1,2}})(?:st|nd|rd|th)?)?(?:\s*[,;])?\s+(?:of\s+|in\s+)?"
    r"(?:(last|this)\s+year|(the\s+year\s+before\s+last)|['\u2019](\d\d))(?!\w)",
    re.I,
)
# "last May", "this March": the latest such month, or this year's.
_LAST_MONTH_NAMED = re.compile(rf"\b(last|this|previous)\s+({MONTH})\b(?![\s,]*(?:\d|'))", re.I)
_BEFORE_LAST = re.compile(r"\bthe\s+(month|year|weekend)\s+before\s+last\b", re.I)
# "the past two weeks", "over the last few days", "in the previous three months".
_PAST_COUNT = re.compile(
    rf"\b(?:the\s+)?(?:past|last|previous)\s+{COUNT}\s+(day|week|month|year)s\b", re.I
)
_EARLIER_THIS = re.compile(r"\bearlier\s+this\s+(week|month|year)\b", re.I)
# "early 2023", "mid-2023", "the end of last year", "the first half of 2024", "H2 2023".
_PART_OF_YEAR = re.compile(
    r"\b(?:(early|mid|late)[\s-]*|(?:the\s+)?(start|beginning|middle|end|first\s+half"
    r"|second\s+half|latter\s+half)\s+of\s+(?:the\s+year\s+)?)"
    rf"(?:{YEAR}|(last|this)\s+year)\b",
    re.I,
)
_HALF = re.compile(rf"\b(?:H([12])\s*{YEAR}|{YEAR}\s*H([12]))\b")
_PARTS = {
    **dict.fromkeys(("early", "start", "beginning"), (1, 4)),
    **dict.fromkeys(("mid", "middle"), (5, 8)),
    **dict.fromkeys(("late", "end"), (9, 12)),
    "first half": (1, 6),
    "second half": (7, 12),
    "latter half": (7, 12),
}
# "the 1990s", "the '90s".
_DECADE = re.compile(r"\b(?:the\s+)?(?:(1[89]\d|20\d)0s|['\u2019]([0-9])0s)\b", re.I)
_TIME_OF_DAY = re.compile(r"\b(this\s+(?:morning|afternoon|evening)|tonight|last\s+night)\b", re.I)
# "What did Ann cook on Tuesday?": a weekday said in the past is the latest one.
_ON_WEEKDAY = re.compile(rf"\bon\s+({_WEEKDAY})\b(?!s)", re.I)
_PAST_TENSE = re.compile(r"\b(?:did|was|were|had|went|said)\b", re.I)
# "the week before 9 June 2023", "two days after May 5, 2023", "the Sunday before ...".
_AROUND = re.compile(
    rf"\b(?:the\s+)?(?:(day|week|weekend|fortnight|month|year)|({_WEEKDAY})"
    rf"|{COUNT}\s+(day|week|fortnight|month|year)s?)\s+(before|prior\s+to|after|following)\s+",
    re.I,
)
_DATE_START = re.compile(rf"(?:on\s+)?(?:the\s+)?(?:\d|(?:{MONTH})\b)", re.I)


def _easter(year: int) -> date:
    """Easter Sunday of ``year`` (the Gregorian computus of Meeus, Jones and Butcher)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    g = (b - (b + 8) // 25 + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    weekday = (32 + 2 * e + 2 * i - h - k) % 7
    shift = h + weekday - 7 * ((a + 11 * h + 22 * weekday) // 451) + 114
    return date(year, shift // 31, shift % 31 + 1)


def _nth_weekday(year: int, month: int, weekday: int, n: int) -> date:
    """The ``n``-th ``weekday`` (0 Monday) of a month; ``n`` -1 is its last."""
    if n > 0:
        first = date(year, month, 1)
        return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))
    return latest_weekday(_day(month_after(year, month)), weekday)  # the month's last


def _day(ms: int) -> date:
    """The UTC day an epoch-ms instant falls on."""
    return datetime.fromtimestamp(ms / 1000, UTC).date()


def _fixed(month: int, day: int) -> Callable[[int], date]:
    return lambda year: date(year, month, day)


# The holidays read, each with the day it falls on in a year (the US's where countries
# differ: Thanksgiving, Mother's Day). Lunar holidays (Eid, Diwali, the Lunar New Year) are
# not read: their days would need a table per year.
_HOLIDAYS: list[tuple[str, Callable[[int], date]]] = [
    (r"christmas\s+eve", _fixed(12, 24)),
    (r"boxing\s+day", _fixed(12, 26)),
    (r"(?:christmas|xmas)(?:\s+day)?", _fixed(12, 25)),
    (r"new\s+year['\u2019]?s\s+eve|nye", _fixed(12, 31)),
    (r"new\s+year['\u2019]?s(?:\s+day)?|new\s+year", _fixed(1, 1)),
    (r"valentine['\u2019]?s(?:\s+day)?", _fixed(2, 14)),
    (r"(?:st\.?|saint)\s+patrick['\u2019]?s(?:\s+day)?", _fixed(3, 17)),
    (r"good\s+friday", lambda y: _easter(y) - timedelta(days=2)),
    (r"easter(?:\s+(?:sunday|monday|weekend))?", _easter),
    (r"mother['\u2019]?s\s+day", lambda y: _nth_weekday(y, 5, 6, 2)),
    (r"father['\u2019]?s\s+day", lambda y: _nth_weekday(y, 6, 6, 3)),
    (r"memorial\s+day", lambda y: _nth_weekday(y, 5, 0, -1)),
    (r"independence\s+day|(?:the\s+)?fourth\s+of\s+july", _fixed(7, 4)),
    (r"labou?r\s+day", lambda y: _nth_weekday(y, 9, 0, 1)),
    (r"hallowe['\u2019]?en", _fixed(10, 31)),
    (r"bonfire\s+night|guy\s+fawkes(?:\s+night)?", _fixed(11, 5)),
    (r"thanksgiving(?:\s+day)?", lambda y: _nth_weekday(y, 11, 3, 4)),
]
_HOLIDAY = "|".join(name for name, _ in _HOLIDAYS)
# A word one of them holds, looked for first (in lower case): most texts name no holiday, and
# a substring test costs far less than the patterns' search (names_a_time reads every
# candidate passage of a question asking when).
_HOLIDAY_WORDS = (
    *("christmas", "xmas", "boxing", "new year", "nye", "valentine", "patrick", "easter"),
    *("good friday", "mother", "father", "memorial", "independence", "fourth of july"),
    *("labor", "labour", "hallowe", "bonfire", "guy fawkes", "thanksgiving"),
)
_HOLIDAY_NAMES = [(re.compile(name, re.I), day) for name, day in _HOLIDAYS]
_HOLIDAY_OF_A_YEAR = re.compile(
    rf"\b(?:(last|this|previous)\s+)?(?P<holiday>{_HOLIDAY})(?:\s+(?:of\s+|in\s+)?"
    rf"(?:{YEAR}\b|(last|this)\s+year\b|['\u2019](\d\d)\b))?",
    re.I,
)
_HOLIDAY_ANY_YEAR = re.compile(
    r"\b(?:at|over|on|for|during|before|after|since|around|until|by|through|in)\s+"
    rf"(?:the\s+)?(?P<holiday>{_HOLIDAY})\b",
    re.I,
)


def _holds(text: str, words: tuple[str, ...]) -> bool:
    """Whether ``text`` holds one of ``words`` (lower case) anywhere: the cheap test each
    reading makes before its patterns' search."""
    low = text.lower()
    return any(word in low for word in words)


def _two_digit_year(digits: str, now: datetime) -> int:
    """'23 is 2023, '98 1998: the latest such year not past next year."""
    year = 2000 + int(digits)
    return year if year <= now.year + 1 else year - 100


def _holiday_span(day: date) -> tuple[int, int]:
    start = day_ms(day)
    return start - HOLIDAY_REACH * DAY_MS, start + (TOLD_AFTER + 1) * DAY_MS


def _holiday_day(m: re.Match[str]) -> Callable[[int], date]:
    """The day in a year of the holiday ``m`` found."""
    name = m.group("holiday")
    return next(day for pattern, day in _HOLIDAY_NAMES if pattern.fullmatch(name))


def _ahead(span: tuple[int, int], now: datetime) -> tuple[int, int]:
    """A span still to come when asked (Christmas this year, asked in November) is told of
    in the plans written before it: the window opens :data:`PLANS_BEFORE` days before the
    day asked."""
    start = int(day_start(now).timestamp() * 1000)
    if span[0] <= start:
        return span
    return start - PLANS_BEFORE * DAY_MS, span[1]


def _holiday(query: str, now: datetime) -> Windows | None:
    """A holiday of a year: "Christmas 2022", "last Easter", "Halloween this year"."""
    if not _holds(query, _HOLIDAY_WORDS):
        return None
    today = day_start(now).date()
    for m in _HOLIDAY_OF_A_YEAR.finditer(query):
        which, _, year_digits, said_year, short = m.groups()
        on = _holiday_day(m)
        if year_digits:
            year = int(year_digits)
        elif short:
            year = _two_digit_year(short, now)
        elif said_year:
            year = today.year - (said_year.lower() == "last")
        elif which:
            # "last Easter" is the latest one before today.
            this = which.lower() == "this" or on(today.year) < today
            year = today.year - (not this)
        else:
            continue
        return (_ahead(_holiday_span(on(year)), now),)
    return None


def holidays_every_year(query: str, now: datetime) -> Windows | None:
    """A holiday named without its year after a word that places a time ("over Christmas",
    "at Easter", "for Thanksgiving"): its span in every year from 1970 to next year."""
    if not _holds(query, _HOLIDAY_WORDS) or (m := _HOLIDAY_ANY_YEAR.search(query)) is None:
        return None
    on = _holiday_day(m)
    return tuple(_holiday_span(on(year)) for year in range(1970, now.year + 2))


def _of_a_year(query: str, now: datetime) -> Windows | None:
    """A month, a day of a month or a season of a year said in words or with two digits,
    or "last May" (the latest May before this month)."""
    if not _holds(query, ("year", "'", "\u2019", "last", "this", "previous")):
        return None
    today = day_start(now)
    for m in _OF_A_YEAR.finditer(query):
        day_of, name, day, which, before_last, short = m.groups()
        if month_as_a_word(name):
            continue  # "it may last year-round"
        if short:
            year = _two_digit_year(short, now)
        else:
            year = today.year - (2 if before_last else (which or "").lower() == "last")
        if name.lower() not in MONTHS:
            return (_ahead(season(year, name), now),)
        number = day_of or day
        span = window(year, MONTHS[name.lower()], int(number) if number else None)
        if span is not None:
            return (_ahead(span, now),)
    for m in _LAST_MONTH_NAMED.finditer(query):
        if month_as_a_word(m.group(2)):
            continue  # "their last march"
        month = MONTHS[m.group(2).lower()]
        this = m.group(1).lower() == "this"
        span = window(today.year - (not this and month >= today.month), month)
        assert span is not None
        return (_ahead(span, now),)
    return None


def counted_back(query: str, now: datetime) -> Windows | None:
    """Return the window of "the month before last", "the past two weeks", "earlier this
    month", "this morning" or "last night" (told last night or this morning), counted from
    the day ``now`` falls on; else None."""
    if not _holds(query, ("last", "past", "previous", "earlier", "this", "tonight")):
        return None
    today = day_start(now)
    start = int(today.timestamp() * 1000)
    if (m := _BEFORE_LAST.search(query)) is not None:
        unit = m.group(1).lower()
        if unit == "weekend":
            saturday = start - (today.weekday() + 9) * DAY_MS
            return ((saturday, saturday + 2 * DAY_MS),)
        if unit == "year":
            span = window(today.year - 2)
        else:
            back = today.month - 3  # two months before this one, counted from 0
            span = window(today.year + back // 12, back % 12 + 1)
        assert span is not None
        return (span,)
    if (m := _PAST_COUNT.search(query)) is not None:
        days = count_of(m.group(1))[0] * _UNIT_DAYS[m.group(2).lower()]
        return ((start - days * DAY_MS, start + DAY_MS),)
    if (m := _EARLIER_THIS.search(query)) is not None:
        unit = m.group(1).lower()
        if unit == "week":
            begin = start - today.weekday() * DAY_MS
        else:
            begin = epoch_ms(today.year, today.month if unit == "month" else 1)
        return ((begin, start + DAY_MS),)
    if (m := _TIME_OF_DAY.search(query)) is not None:
        back = DAY_MS if m.group(1).lower().startswith("last") else 0
        return ((start - back, start + DAY_MS),)
    return None


def past_weekday(query: str, now: datetime) -> Windows | None:
    """Return, for a question in the past tense that names a weekday ("What did Ann cook on
    Tuesday?"), the window from the latest such day (today included) to the end of today,
    when it was told; else None. "on Tuesdays" is a habit, no time."""
    if not _holds(query, ("day",)) or (m := _ON_WEEKDAY.search(query)) is None:
        return None
    if not _PAST_TENSE.search(query):
        return None
    today = day_start(now).date()
    said = latest_weekday(today, WEEKDAY_NUMBERS[m.group(1).lower()], that_day=True)
    return ((day_ms(said), day_ms(today) + DAY_MS),)


def _part_of_year(query: str, now: datetime) -> Windows | None:
    """ "early 2023", "the end of last year", "H1 2024", "the 1990s"."""
    if not _holds(query, (*_PARTS, "half", "h1", "h2", "0s")):
        return None
    if (m := _PART_OF_YEAR.search(query)) is not None:
        said, part, year_digits, which = m.groups()
        year = int(year_digits) if year_digits else day_start(now).year - (which.lower() == "last")
        first, last = _PARTS[" ".join((said or part).lower().split())]
        return ((epoch_ms(year, first), month_after(year, last) + TOLD_AFTER * DAY_MS),)
    if (m := _HALF.search(query)) is not None:
        half, year_a, year_b, half_b = m.groups()
        year, first = int(year_a or year_b), 1 if (half or half_b) == "1" else 7
        return ((epoch_ms(year, first), month_after(year, first + 5) + TOLD_AFTER * DAY_MS),)
    if (m := _DECADE.search(query)) is not None:
        if m.group(1):
            start = int(m.group(1)) * 10
        else:
            start = 2000 + 10 * int(m.group(2))
            start = start if start <= day_start(now).year else start - 100
        return ((epoch_ms(start, 1), epoch_ms(start + 10, 1)),)
    return None


def _around_a_date(query: str) -> Windows | None:
    """A time counted from a full date: "the week before 9 June 2023", "the day after May
    5, 2023", "the Sunday before 25 May 2023", "two weeks after 3 March 2024". Before a
    date, the window runs from that time to the end of the date (told on the date: "last
    week I ..."); after it, from the date's end to :data:`TOLD_AFTER` days past that time."""
    if not _holds(query, ("before", "after", "prior", "following")):
        return None
    for m in _AROUND.finditer(query):
        # A date is short: the rest past it is not read (a text of many "before"s stays linear).
        rest = query[m.end() : m.end() + 48]
        if not _DATE_START.match(rest) or (named := date_window(rest)) is None:
            continue
        unit, weekday, count, counted, side = m.groups()
        before = side.lower() == "before" or side.lower().startswith("prior")
        start, end = named
        first = _day(start) if before else _day(end)
        if weekday:
            wanted = WEEKDAY_NUMBERS[weekday.lower()]
            if before:
                return ((day_ms(latest_weekday(first, wanted)), end),)
            at = day_ms(first + timedelta(days=(wanted - first.weekday()) % 7))
            return ((at, at + (1 + TOLD_AFTER) * DAY_MS),)
        if unit and unit.lower() == "weekend":
            if before:  # the Saturday of the latest Sunday before the date
                return ((day_ms(latest_weekday(first, 6)) - DAY_MS, end),)
            at = day_ms(first + timedelta(days=(5 - first.weekday()) % 7))
            return ((at, at + (2 + TOLD_AFTER) * DAY_MS),)
        days = _UNIT_DAYS[(unit or counted).lower()] * (count_of(count)[0] if count else 1)
        if before:
            return ((start - days * DAY_MS, end),)
        return ((end, end + (days + TOLD_AFTER) * DAY_MS),)
    return None


def spans_named(query: str, now: datetime) -> Windows | None:
    """Return the windows of a time ``query`` names that this module reads (see its
    docstring), or None when it names none of them.

    Example:
        >>> from datetime import UTC
        >>> now = datetime(2024, 7, 10, tzinfo=UTC)
        >>> [(datetime.fromtimestamp(a / 1000, UTC).date().isoformat(),
        ...   datetime.fromtimestamp(b / 1000, UTC).date().isoformat())
        ...  for a, b in spans_named("What did Ann cook in May last year?", now) or ()]
        [('2023-05-01', '2023-06-01')]
    """
    return (
        _around_a_date(query)
        or _holiday(query, now)
        or _of_a_year(query, now)
        or _part_of_year(query, now)
    )
