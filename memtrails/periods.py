"""Dates as a person writes them (`--since`, `--until`, the MCP search tool's since/until): whole
days, months, years, relative forms.

A date names a period, and both ends include it: ``--since 2005-12-20 --until 2005-12-20``
is that whole day (UTC, as ``Date.parse`` reads a date without a time), ``--until 2024-05``
the end of May, ``--until 2024-W18`` the end of ISO week 18 (a Sunday), ``2024-124`` the
year's 124th day. A value with a time of day is that instant. Relative forms (``yesterday``,
``today``, ``2 weeks ago``, ``last month``, ``20 Dec 2005``) are read by ``dateparser``
(English), loaded only when a value is not an ISO date: it reads many more forms than
``arrow``'s ``dehumanize`` (which refuses ``yesterday`` and ``1 month ago``) and, unlike
``parsedatetime``, it is maintained.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, date, datetime, timedelta

from .records import At

__all__ = ["HINT", "bounds"]

HINT = (
    "give 2024-05-03, 2024-05, 2024, 2024-W18 (a week), 2024-05-03T10:00, yesterday or "
    "'2 weeks ago'"
)
_YEAR = re.compile(r"\d{4}")
_MONTH = re.compile(r"(\d{4})-(\d{1,2})")
_DAY = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_BASIC_DAY = re.compile(r"(\d{4})(\d\d)(\d\d)")  # 20240503, ISO 8601's basic form
_WEEK = re.compile(r"(\d{4})-?W(\d\d)(?:-?([1-7]))?", re.IGNORECASE)  # 2024-W18, 2024-W18-3
_ORDINAL_DAY = re.compile(r"(\d{4})-(\d{3})")  # 2024-124, ISO 8601's ordinal date: 3 May
_CLOCK = re.compile(r"\d[T ]\d|\d:\d|\b(hours?|minutes?|mins?|seconds?|secs?)\b", re.IGNORECASE)
_PERIOD_WORD = re.compile(r"^\s*(last|this|previous)\s+(month|year)\b", re.IGNORECASE)


def _period(value: str, now: datetime) -> tuple[int, int]:
    """Return the first and last millisecond of the period ``value`` names."""
    text = value.strip()
    if _CLOCK.search(text) and not re.search(r"\bago\b", text, re.IGNORECASE):
        try:
            instant = At.of(text).ms  # a time of day: that instant
            return instant, instant
        except ValueError:
            pass
    if (m := _DAY.fullmatch(text) or _BASIC_DAY.fullmatch(text)) is not None:
        start = datetime(int(m[1]), int(m[2]), int(m[3]), tzinfo=UTC)
        return _span(start, start + timedelta(days=1))
    if (m := _WEEK.fullmatch(text)) is not None:
        # An ISO week is Monday to Sunday; "2024-W18-3" is its Wednesday.
        first = date.fromisocalendar(int(m[1]), int(m[2]), int(m[3] or 1))
        start = datetime(first.year, first.month, first.day, tzinfo=UTC)
        return _span(start, start + timedelta(days=1 if m[3] else 7))
    if (m := _ORDINAL_DAY.fullmatch(text)) is not None:
        start = datetime(int(m[1]), 1, 1, tzinfo=UTC) + timedelta(days=int(m[2]) - 1)
        if start.year != int(m[1]) or int(m[2]) < 1:
            raise ValueError(f"{m[1]} has no day {m[2]}")
        return _span(start, start + timedelta(days=1))
    if (m := _MONTH.fullmatch(text)) is not None:
        start = datetime(int(m[1]), int(m[2]), 1, tzinfo=UTC)
        return _span(start, _next_month(start))
    if _YEAR.fullmatch(text):
        start = datetime(int(text), 1, 1, tzinfo=UTC)
        return _span(start, start.replace(year=start.year + 1))
    return _relative(text, now)


def _relative(text: str, now: datetime) -> tuple[int, int]:
    from dateparser.date import DateDataParser  # heavy (~0.5 s): only for such forms

    parser = DateDataParser(
        languages=["en"],
        settings={
            "RETURN_AS_TIMEZONE_AWARE": True,
            "TIMEZONE": "UTC",
            "TO_TIMEZONE": "UTC",
            "PREFER_DATES_FROM": "past",
            "RELATIVE_BASE": now.replace(tzinfo=None),
        },
    )
    data = parser.get_date_data(text)
    found = data.date_obj
    if found is None:
        raise ValueError(f"not a date: {text!r}")
    found = found.astimezone(UTC)
    if _CLOCK.search(text):  # "an hour ago": that instant
        ms = int(found.timestamp() * 1000)
        return ms, ms
    day = found.replace(hour=0, minute=0, second=0, microsecond=0)
    named = data.period if data.period in ("month", "year") else "day"
    if named != "day" and not _PERIOD_WORD.match(text) and re.search(r"\bago\b", text, re.I):
        named = "day"  # "3 months ago" is a day; "last month" and "May 2024" are months
    if named == "year":
        start = day.replace(month=1, day=1)
        return _span(start, start.replace(year=start.year + 1))
    if named == "month":
        start = day.replace(day=1)
        return _span(start, _next_month(start))
    return _span(day, day + timedelta(days=1))


def _next_month(start: datetime) -> datetime:
    days = calendar.monthrange(start.year, start.month)[1]
    return start.replace(day=1) + timedelta(days=days)


def _span(start: datetime, end: datetime) -> tuple[int, int]:
    return int(start.timestamp() * 1000), int(end.timestamp() * 1000) - 1


def bounds(
    since: str | None,
    until: str | None,
    now: datetime | None = None,
    names: tuple[str, str] = ("--since", "--until"),
) -> tuple[At | None, At | None]:
    """Return the first instant of ``since``'s period and the last of ``until``'s.

    Args:
        since, until: the dates as given (None: no bound).
        now: the instant relative forms count from (default: now).
        names: how the caller names the two values, for the error message.

    Raises:
        ValueError: a value is not a date (the message names the option and the forms), or
            ``since`` begins after ``until`` ends (no record could be in between).
    """
    now = now or datetime.now(UTC)
    out: list[At | None] = []
    for option, value, end in ((names[0], since, 0), (names[1], until, 1)):
        if value is None:
            out.append(None)
            continue
        try:
            out.append(At(_period(value, now)[end]))
        except (ValueError, OverflowError) as exc:  # 9999-12-31's end is past datetime's
            raise ValueError(
                f"{option} {value!r} is not a date I can read ({exc}); {HINT}"
            ) from None
    first, last = out
    if first is not None and last is not None and first.ms > last.ms:
        raise ValueError(
            f"{names[0]} {since!r} begins after {names[1]} {until!r} ends "
            f"({first.iso()[:10]} > {last.iso()[:10]}): no record is in between; swap them?"
        )
    return first, last
