"""The times a query names: dates, months without a year, bare years, relative times."""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime, timedelta

from .when_calendar import (
    COUNT,
    DAY_MS,
    MONTH,
    MONTHS,
    NOT_A_YEAR,
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
    quarter,
    season,
    window,
)
from .when_languages import WHEN_WORDS, times_in_english
from .when_spans import counted_back, holidays_every_year, past_weekday, spans_named

__all__ = [
    "EARLIEST",
    "LATEST",
    "Windows",
    "asks_when",
    "date_window",
    "is_time_name",
    "names_a_time",
    "query_windows",
]

# "in May", "during March", "since June": a month named without a year, any year ("last June"
# is the latest June: when_spans.py, read first). Only after one of these words: "may" alone
# is a verb, "march" one too.
_MONTH_ONLY = re.compile(
    rf"\b(?:(?:in|during|of|last|this|early|late|since)\s+|mid-?\s*)({MONTH})\b(?!\s*\d)",
    re.I,
)
# A bare year: four digits standing alone, not a part of a version, an amount, a time, a
# port ("port 2003") or an identifier.
_BARE_YEAR = re.compile(rf"(?<![\w$£€#:./-]){YEAR}(?![\w%.:/-]|\s*(?:ms|kb|mb|gb|px)\b)", re.I)
_RELATIVE = re.compile(
    r"\b(?:(the\s+day\s+before\s+yesterday|the\s+week\s+before\s+last|yesterday|today"
    r"|recently|lately)"
    r"|(last|this|past|previous)\s+(week|month|quarter|year|weekend)"
    rf"|{COUNT}\s+(day|weekend|week|month|year)s?\s+ago)\b",
    re.I,
)
# "summer 2023", "the spring of 2023" ("autumn '23": when_spans.py).
_SEASON_YEAR = re.compile(rf"\b({SEASON})\s+(?:of\s+)?{YEAR}\b", re.I)
# "last summer", "this winter"; "in the spring", "over the summer" (every year's).
_THIS_SEASON = re.compile(rf"\b(last|this|previous)\s+({SEASON})\b", re.I)
_ANY_SEASON = re.compile(rf"\b(?:in|over|during|through)\s+the\s+({SEASON})\b", re.I)
# "Q3 2024", "the third quarter of 2024"; "in Q2" (every year's).
_QUARTER = re.compile(rf"\bQ([1-4])\s+{YEAR}\b")
_ANY_QUARTER = re.compile(r"\b(?:in|during|by|since|until|before|after)\s+Q([1-4])\b")
# "between March and May 2023", "from June to August 2022".
_BETWEEN = re.compile(
    rf"\b(?:between|from)\s+({MONTH})\.?(?:\s+{YEAR})?\s+(?:and|to|until|till|through)\s+"
    rf"({MONTH})\.?,?\s+{YEAR}\b",
    re.I,
)
# "from March to May", "between November and February": that span of every year.
_BETWEEN_ANY = re.compile(
    rf"\b(?:between|from)\s+({MONTH})\.?\s+(?:and|to|until|till|through)\s+({MONTH})\b"
    r"(?!\.?,?\s*\d)",
    re.I,
)
# "on May 3rd", "on the 3rd of May", "on 3 May": that day of every year.
_ON_DAY = re.compile(
    rf"\bon\s+(?:(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({MONTH})"
    rf"|({MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?)\b(?!,?\s*\d)",
    re.I,
)
_LAST_WEEKDAY = re.compile(
    rf"\b(?:last|this\s+past|previous)\s+({'|'.join(WEEKDAY_NUMBERS)})\b", re.I
)


def is_time_name(word: str) -> bool:
    """Whether ``word`` (in lower case) is the name of a month or a weekday in English
    ("april", "sept", "monday"): capitalised, yet a time rather than the name of a thing.

    Example:
        >>> [is_time_name(w) for w in ("april", "monday", "wed", "redis")]
        [True, True, True, False]
    """
    return word in _TIME_NAMES


_TIME_NAMES = frozenset({*MONTHS, *WEEKDAY_NUMBERS, *(name.lower() for name in calendar.day_abbr)})


def _relative(m: re.Match[str], now: datetime) -> tuple[int, int]:
    """Return the window a relative time names, counted back from ``now``."""
    today = day_start(now)

    def ms(t: datetime) -> int:
        return int(t.timestamp() * 1000)

    word, which, unit, count, ago_unit = (
        " ".join(g.lower().split()) if g else None for g in m.groups()
    )
    if word == "the day before yesterday":
        return ms(today) - 2 * DAY_MS, ms(today) - DAY_MS
    if word == "the week before last":
        monday = today - timedelta(days=today.weekday(), weeks=2)
        return ms(monday), ms(monday) + 7 * DAY_MS
    if word == "today":
        return ms(today), ms(today) + DAY_MS
    if word == "yesterday":
        return ms(today) - DAY_MS, ms(today)
    if word in ("recently", "lately"):
        return ms(today) - 30 * DAY_MS, ms(today) + DAY_MS
    if unit is not None:
        back = which in ("last", "previous")
        if unit in ("week", "weekend"):
            monday = today - timedelta(days=today.weekday())
            start = monday - timedelta(weeks=1) if back else monday
            if which == "past":
                return ms(today) - 7 * DAY_MS, ms(today) + DAY_MS
            if unit == "weekend":
                start += timedelta(days=5)
                return ms(start), ms(start) + 2 * DAY_MS
            return ms(start), ms(start) + 7 * DAY_MS
        if unit == "quarter":
            if which == "past":
                return ms(today) - 92 * DAY_MS, ms(today) + DAY_MS
            number = (today.month - 1) // 3 + 1 - back
            return quarter(today.year - (number == 0), number or 4)
        if unit == "month":
            if which == "past":
                return ms(today) - 31 * DAY_MS, ms(today) + DAY_MS
            year, month = today.year, today.month
            if back:
                year, month = (year - 1, 12) if month == 1 else (year, month - 1)
            span = window(year, month)
            assert span is not None
            return span
        year = today.year - back
        if which == "past":
            return ms(today) - 366 * DAY_MS, ms(today) + DAY_MS
        return epoch_ms(year, 1), epoch_ms(year + 1, 1)
    # "N days/weeks/months/years ago": that stretch, widened by half a unit each way (by
    # half the count, said loosely: "a few weeks ago" is two to four and a half weeks back).
    n, rough = count_of(count or "a")
    if ago_unit == "weekend":
        saturday = today - timedelta(days=today.weekday(), weeks=n) + timedelta(days=5)
        return ms(saturday), ms(saturday) + 2 * DAY_MS
    days = {"day": 1, "week": 7, "month": 30, "year": 365}[ago_unit or "day"]
    centre = ms(today) - n * days * DAY_MS
    half = max(1, days * n // 2 if rough else days // 2) * DAY_MS
    return centre - half, centre + half + DAY_MS


def _between(m: re.Match[str]) -> tuple[int, int]:
    """The window from the first month a range names to the end of its last ("between
    November and February 2024": the first in 2023)."""
    first, first_year, last, year = m.groups()
    start, end = MONTHS[first.lower()], MONTHS[last.lower()]
    begin = int(first_year) if first_year else int(year) - (start > end)
    return epoch_ms(begin, start), month_after(int(year), end)


def _spans(query: str) -> Windows | None:
    """The window of a season or a quarter the query names with its year, or None."""
    if (m := _SEASON_YEAR.search(query)) is not None:
        return (season(int(m.group(2)), m.group(1)),)
    if (m := _QUARTER.search(query)) is not None:
        return (quarter(int(m.group(2)), int(m.group(1))),)
    return None


def _every_year(query: str, now: datetime) -> Windows | None:
    """The windows, one a year from 1970 to next year, of a season, a quarter, a day or a
    month named without its year."""
    years = range(1970, now.year + 2)
    if (holiday := holidays_every_year(query, now)) is not None:
        return holiday
    if (m := _ANY_SEASON.search(query)) is not None:
        return tuple(season(year, m.group(1)) for year in years)
    if (m := _ANY_QUARTER.search(query)) is not None:
        return tuple(quarter(year, int(m.group(1))) for year in years)
    if (m := _BETWEEN_ANY.search(query)) is not None:
        first, last = MONTHS[m.group(1).lower()], MONTHS[m.group(2).lower()]
        # The span that starts in each year ("November to February" ends in the next).
        return tuple(
            (epoch_ms(year, first), month_after(year + (last < first), last)) for year in years
        )
    number: int | None = None
    if (m := _ON_DAY.search(query)) is not None:
        day_of, month_of, month, day = m.groups()
        number, name = (int(day_of), month_of) if day_of else (int(day), month)
    elif (m := next(filter(_a_month, _MONTH_ONLY.finditer(query)), None)) is not None:
        name = m.group(1)
    else:
        return None
    windows = (window(year, MONTHS[name.lower()], number) for year in years)
    return tuple(w for w in windows if w is not None)


def _a_month(m: re.Match[str]) -> bool:
    """Whether a month :data:`_MONTH_ONLY` found is one: "this may take a while" and "their
    last march" are a verb and a noun (written in small letters after "this" or "last")."""
    return not (month_as_a_word(m.group(1)) and m.group(0).split()[0].lower() in ("this", "last"))


def query_windows(query: str, now: datetime | None = None) -> Windows:
    """Return the windows of every time the query names, empty when it names none.

    First a time said in several words that holds its year or a date, or is counted back
    (:mod:`.when_spans`: "May last year", "the week before 9 June 2023", "Christmas 2022",
    "the end of 2023", "the month before last", "the past two weeks"); then a range of
    months ("between March and May 2023"); a season or a quarter with its year
    ("the spring of 2023", "Q2 2024"; seasons are the northern hemisphere's, by whole
    months); a full date (see :func:`date_window`); else a relative time counted from ``now``
    (default the current time): "yesterday", "the day before yesterday", "today", "last/this
    week", "the week before last", "last weekend", "two weekends ago", "last/this month",
    "last/this quarter", "last/this year", "the past week/month/year", "three weeks ago", "a
    few days ago" (as wide as its count), "recently" (the last 30 days), "last summer",
    "last Friday" (the latest Friday before today); else a season, a quarter or a day
    without a year ("over the summer", "in Q3", "on May 3rd": that of every year from 1970
    to next year), or a month without a year after "in", "during", "since", ... ("in May");
    else a bare year that is not a version, an amount, a time or a port ("what did we
    decide in 2019", "2019 budget"). Times named in Korean, Chinese, Japanese, Russian,
    Arabic, Hindi, German, French, Spanish, Portuguese and Italian count as their English
    (:func:`.when_languages.times_in_english`: "지난주" is last week, "2019年5月" May 2019).

    Example:
        >>> now = datetime(2024, 5, 3, tzinfo=UTC)
        >>> [datetime.fromtimestamp(s / 1000, UTC).date().isoformat()
        ...  for s, _ in query_windows("what broke last week?", now)]
        ['2024-04-22']
    """
    # A time named in another language is read as the English it means (when_languages.py).
    if named := times_in_english(query):
        query = f"{query} ; {named}"
    now = now or datetime.now(UTC)
    return _directed(query, now, _named_windows(query, now))


# Words that turn the one time named right after them into all the time before or after it:
# "before 2020" asks for what was written before 2020, not in it (it lifted 2020's records).
# "from" is not one ("notes from 2019" are in 2019); nor "by", which names authors; nor
# "since": "How has he been getting to college since January 2024?" asks about what began
# then, and the turn that says so was written then (opened to every later turn, it came
# second on the dev set; benchmarks/README.md, issue 32, twelfth pass).
_DIRECTION = re.compile(
    r"\b(before|prior\s+to|earlier\s+than|until|till|up\s+to|after|later\s+than"
    r"|following)\s+",
    re.IGNORECASE,
)
_ENDS_BEFORE = {"before", "prior to", "earlier than"}  # up to the time's start
_ENDS_WITH = {"until", "till", "up to"}  # up to its end, the time itself included
# "after", "later than", "following": from its end on
# The times JavaScript's Date can hold (epoch ms): the open end of such a window.
EARLIEST, LATEST = -8_640_000_000_000_000, 8_640_000_000_000_000


def _directed(query: str, now: datetime, windows: Windows) -> Windows:
    """Return ``windows`` opened toward the past or the future where the one time they are
    is named right after a word of :data:`_DIRECTION`; else as they are."""
    if len(windows) != 1:
        return windows  # "before May": May of every year has no one before
    start, end = windows[0]
    for m in _DIRECTION.finditer(query):
        # Six words at most, so a slice will do: a text of many "before"s stays linear.
        words = query[m.end() : m.end() + 120].split()[:6]
        if words and words[0].lower() == "the":  # "before the summer of 2023"
            words = words[1:]
        for n in range(1, len(words) + 1):
            # The time must begin at the word after the direction: "before we moved in
            # 2019" names 2019 three words later, and "before" does not govern it.
            if _named_windows("in " + " ".join(words[:n]), now) != windows:
                continue
            if _named_windows("in " + " ".join(words[1:n]), now) == windows:
                break
            word = " ".join(m.group(1).lower().split())
            if word in _ENDS_BEFORE:
                return ((EARLIEST, start),)
            if word in _ENDS_WITH:
                return ((EARLIEST, end),)
            return ((end, LATEST),)
    return windows


def _named_windows(query: str, now: datetime) -> Windows:
    """The windows of the times ``query`` names, as :func:`query_windows` says, not opened."""
    # Times said in several words that hold a year or a date ("the week before 9 June 2023",
    # "Christmas 2022", "May last year", "the end of 2023"): narrower than those parts.
    if (said := spans_named(query, now)) is not None:
        return said
    full = date_window(query)
    # A range of months ends in the month-and-year date_window reads; a season or a quarter
    # with its year is narrower than the year alone.
    if (m := _BETWEEN.search(query)) is not None:
        return (_between(m),)
    if (full is None or full[1] - full[0] > 62 * DAY_MS) and (spans := _spans(query)) is not None:
        return spans
    if full is not None:
        return (full,)
    if (counted := counted_back(query, now)) is not None:
        return counted
    if (m := _RELATIVE.search(query)) is not None:
        return (_relative(m, now),)
    if (m := _THIS_SEASON.search(query)) is not None:
        today = day_start(now)
        # The season this year holds ("this winter" in January: the one that began in
        # December); "last" is the one a year before.
        year = today.year - (m.group(2).lower() == "winter" and today.month < 3)
        return (season(year - (m.group(1).lower() != "this"), m.group(2)),)
    if (m := _LAST_WEEKDAY.search(query)) is not None:
        # The latest such day before today: "last Friday" asked on a Friday is a week ago.
        start = day_ms(latest_weekday(day_start(now).date(), WEEKDAY_NUMBERS[m.group(1).lower()]))
        return ((start, start + DAY_MS),)
    if (weekday := past_weekday(query, now)) is not None:
        return weekday
    if (every := _every_year(query, now)) is not None:
        return every
    words = query.split()
    if len(words) > 1:
        for m in _BARE_YEAR.finditer(query):
            year = int(m.group(1))
            if 1970 <= year <= now.year + 1 and not NOT_A_YEAR.search(query[: m.start()]):
                span = window(year)
                assert span is not None
                return (span,)
    return ()


# A question that asks for a time: its answer names one ("June 9th", "on Monday", "last
# week"), while the turns around it that share its words often do not.
_ASKS_WHEN = re.compile(
    # after a first "and", "so", "but", "then", "ok": "And when does it open?"
    r"^\W*(?:(?:and|so|but|then|ok|okay)\W+)?"
    r"(?:when|(?:(?:in|on|at|during|by|for)\s+)?(?:what|which)\s+(?:time|day|date|year|month"
    r"|week|weekend|season|night|evening|morning)|what(?:\s+was|\s+is|['\u2019]s)\s+the\s+date"
    r"|how\s+long\s+ago|how\s+many\s+(?:days|weeks|months|years)\s+ago"
    r"|(?:since|by|until|till)\s+when)\b"
    # or further on: "Do you remember when Ann moved?", "Ann moved when?"
    r"|\b(?:remember|recall|know|tell\s+me)\s+when\b|\bwhen\s*\?\s*$",
    re.I,
)
_WEEKDAYS = "|".join(WEEKDAY_NUMBERS)
# Times a text can name beyond query_windows' (which reads dates, months after "in", years
# and the past): weekdays, the future, days of a month, clock times, times of day.
_SPAN = r"(?:minutes?|hours?|days?|nights?|weeks?|weekends?|months?|years?|decades?)"
_NAMES_A_TIME = re.compile(
    rf"\b(?:(?:{_WEEKDAYS})s?|tomorrow|tonight|next\s+(?:week|month|year|weekend|{SEASON}"
    rf"|{_WEEKDAYS})|(?:{MONTH})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?"
    r"|\d{1,2}(?:st|nd|rd|th)\b|\d{1,2}(?::\d\d)?\s?(?:am|pm)|\d{1,2}:\d\d"
    r"|(?:this|last)\s+(?:morning|evening|night|afternoon)"
    # What chats say of the past and the near future: "a few days ago", "two weekends ago",
    # "over the summer", "since March", "the other day", "at Christmas", "in two weeks".
    rf"|{_SPAN}\s+(?:ago|later)|a\s+while\s+ago"
    rf"|(?:this|last|past|in\s+the|over\s+the|during\s+the|early|late)\s+(?:{SEASON})"
    rf"|(?:since|until|till|by|before|after|mid|early|late|end\s+of|beginning\s+of|start\s+of)"
    rf"[\s-]+(?:{MONTH})"
    r"|the\s+other\s+(?:day|night|week)|over\s+the\s+weekend|the\s+week\s+before\s+last"
    r"|at\s+(?:noon|midnight|lunchtime)"
    r"|(?:at|over|for|on|during|before|after|since)\s+(?:christmas|easter|thanksgiving"
    r"|new\s+year'?s?(?:\s+(?:eve|day))?|halloween)"
    rf"|in\s+(?:a\s+(?:few|couple(?:\s+of)?)|\d+|a|an|two|three|four|five|six|ten)\s+{_SPAN})\b",
    re.I,
)


def asks_when(query: str) -> bool:
    """Return whether ``query`` asks when something happens ("When do you leave?", "언제").

    Example:
        >>> asks_when("When is Tom leaving for Portugal?"), asks_when("Who is going?")
        (True, False)
    """
    return _ASKS_WHEN.search(query) is not None or WHEN_WORDS.search(query) is not None


# Relative times only need a day to count from: whether a text names one does not depend on it.
_EPOCH_NOW = datetime(2000, 1, 3, tzinfo=UTC)


def names_a_time(text: str, now: datetime | None = None) -> bool:
    """Return whether ``text`` names a time: a date, a month, a year, a weekday, a clock
    time, a relative time in the past or the future ("last week", "tomorrow"), in English
    or in the languages :func:`query_windows` reads.

    Example:
        >>> names_a_time("June 9th. My brother Sam is coming along."), names_a_time("Nice!")
        (True, False)
    """
    if _NAMES_A_TIME.search(text):
        return True
    return bool(query_windows(text, now or _EPOCH_NOW))
