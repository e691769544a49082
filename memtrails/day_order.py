"""Which comes first in a day written in numbers, "05/04/2024": the day or the month.

Most of the world writes the day first (en-GB, fr, es, hi...), the United States the month
(as ``Date.parse`` reads it). A day whose first two numbers are both 12 or less and differ
says nothing of its order on its own, and a wrong day is worse than none: it is read only on
evidence, from the value (:func:`evidence`: a right-to-left comma, words in a script no
month-first locale writes) or from the
values around it (:func:`file_order`: other days of the same file whose first or second
number is past 12), and is no date without any (:func:`ordered`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["AMBIGUOUS", "dotted_day", "evidence", "file_order", "order_of", "ordered"]

# A day in numbers with slashes, dashes or spaces, a four- or two-digit year last ("05/04/2024",
# "2/4/33, 9:29", "02-04-2033", Yoruba's "4 10 2000"); anywhere in the value (after a weekday).
AMBIGUOUS = re.compile(r"(?<![\w/.:-])(\d{1,2})([/ -])(\d{1,2})\2(\d{4}|\d\d)(?![\d/.:-])")
# A day in numbers whose last number has one digit ("10/11/6 (23:58)"): no year last, but
# the short form of Basque (and Nepali), year first in two digits ("yy/M/d"); after a one-digit
# first number it is no form any locale writes.
_ONE_DIGIT_LAST = re.compile(r"(?<![\w/.:-])(\d{1,2})([/-])(\d{1,2})\2(\d)(?![\d/.-])")
_BRACKETED_CLOCK = re.compile(r"\((\d{1,2}:\d\d(?::\d\d)?)\)")
# A day written with dots is day first in every language that writes one so: "03.05.2024",
# "3. 5. 2024" (Czech), "3.5.24 10:00" (a two-digit year as Date.parse reads it: 00-49 2000s).
_DOTTED = re.compile(r"\s*(\d{1,2})\.[ \xa0]?(\d{1,2})\.[ \xa0]?(\d{4}|\d\d)\.?(?![\d.])(.*)", re.S)
_DOTTED_CLOCK = re.compile(r"(?<![\d.:])\d{1,2}\.\d\d(?:\.\d\d)?(?![\d.:])")
# So is one whose first number is past 12 ("13/05/2024", "31-12-2024 10:00"): it is no month.
_DAY_PAST_12 = re.compile(r"\s*(1[3-9]|2\d|3[01])[/-](\d{1,2})[/-](\d{4})(?!\d)(.*)", re.S)
# Letters of scripts whose locales write a day in numbers day first or year first, never
# month first: Greek, Cyrillic, Armenian, Hebrew, Arabic, the Indic scripts, Thai, Lao,
# Tibetan, Myanmar, Georgian, Ethiopic, Khmer. (Not Latin: en-US and fil write month first.)
_DAY_FIRST_SCRIPT = re.compile(
    "[\u0370-\u03ff\u0400-\u052f\u0530-\u058f\u0590-\u05ff\u0600-\u06ff\u0750-\u077f"
    "\u0900-\u0dff\u0e00-\u0fff\u1000-\u109f\u10a0-\u10ff\u1200-\u139f\u1780-\u17ff]"
)


def order_of(value: str) -> bool | None:
    """Tell what a day in numbers in ``value`` shows of its order by its numbers alone: True
    (day first: "25/12/2024"), False (month first: "12/25/2024"), None (it shows nothing, or
    ``value`` holds no such day)."""
    m = AMBIGUOUS.search(value)
    if m is None:
        return None
    first, second = int(m[1]), int(m[3])
    if (first > 12) == (second > 12):
        return None
    return first > 12


def unordered(value: str) -> bool:
    """Tell whether ``value`` holds a day in numbers whose numbers leave its order open
    ("05/04/2024"; not "25/04/2024", "05/05/2024")."""
    m = AMBIGUOUS.search(value)
    return m is not None and m[1] != m[3] and int(m[1]) <= 12 and int(m[3]) <= 12


def evidence(value: str) -> bool | None:
    """Tell whether ``value`` itself shows its day in numbers is day first: True where it
    holds an Arabic comma (Urdu's "2/4/33، 9:29"), a letter of a script no month-first locale
    writes (Amharic's "2/4/2033 ጥዋት 9:29"); else None (no evidence either way: AM and PM
    are written by Indian locales as by the United States, a clock before the day by
    Vietnamese and by logs of either order)."""
    if "\u060c" in value or _DAY_FIRST_SCRIPT.search(value):
        return True
    return None


def file_order(values: Iterable[str]) -> bool | None:
    """The order the days of one source show together: True where some value's first number
    is past 12 ("25/12/2023") and none's second, False the other way round, None where none
    shows its order or they disagree (two writers: each day is read on its own evidence)."""
    seen = {order for value in values if (order := order_of(value)) is not None}
    return next(iter(seen)) if len(seen) == 1 else None


def ordered(value: str, day_first: bool | None = None) -> str | None:
    """Return ``value`` with its day in numbers written year first ("2024/04/05") as
    ``Date.parse`` reads it without doubt, ``value`` unchanged where it holds no such day or
    one whose order its numbers show, or None where the order is unknown.

    A day whose last number has one digit is Basque's year first ("10/11/6": 6 November
    2010), or None after a one-digit first number.

    ``day_first`` is the evidence from outside the value (a file's other days, its format):
    True or False; None: the value's own (:func:`evidence`), or none.

    Example:
        >>> ordered("05/04/2024", True), ordered("05/04/2024"), ordered("25/04/2024")
        ('2024/04/05', None, '25/04/2024')
    """
    if (short := _ONE_DIGIT_LAST.search(value)) is not None:
        if len(short[1]) == 1 or not 1 <= int(short[3]) <= 12:
            return None
        year = int(short[1]) + (2000 if int(short[1]) < 50 else 1900)
        written = f"{year:04d}/{int(short[3]):02d}/{int(short[4]):02d}"
        clock = _BRACKETED_CLOCK.sub(r"\1", value[short.end() :])  # "(23:58)", Basque's
        return f"{value[: short.start()]}{written}{clock}"
    if not unordered(value):
        return value  # its own numbers say (or the order does not matter)
    m = AMBIGUOUS.search(value)
    assert m is not None
    first, second = int(m[1]), int(m[3])
    if day_first is None:
        day_first = evidence(value)
    if day_first is None:
        return None
    day, month = (first, second) if day_first else (second, first)
    year = int(m[4]) if len(m[4]) == 4 else int(m[4]) + (2000 if int(m[4]) < 50 else 1900)
    return f"{value[: m.start()]}{year:04d}/{month:02d}/{day:02d}{value[m.end() :]}"


def dotted_day(value: str) -> str | None:
    """Return a day written with dots ("03.05.2024", "3. 5. 24 10.32") or with a first number
    past 12 ("13/05/2024") as ``Date.parse`` reads its day-first day ("2024/05/03"), or None
    when ``value`` is no such day."""
    m = _DOTTED.fullmatch(value) or _DAY_PAST_12.fullmatch(value)
    if m is None:
        return None
    day, month, year, rest = m.groups()
    full = int(year) if len(year) == 4 else int(year) + (2000 if int(year) < 50 else 1900)
    rest = _DOTTED_CLOCK.sub(lambda t: t[0].replace(".", ":"), rest)  # Danish "10.32.00"
    return f"{full:04d}/{int(month):02d}/{int(day):02d}{rest}"
