"""Whether a date read from a text is of a year the text writes.

``Date.parse`` makes a date written without a year a day of 2001 ("May  3 10:00:00" of
syslog, "3 May", "12/31"), and reads some texts that write a year as another one ("3-5 May
2024" is 3 May 2005: it takes "5" for the year). The mail Date reader, asked last for a
record's time, takes a soup of tokens for a date ("10:15:: Apr 2 2024" is 10 April 2015).
A record's time read so is no date (``export_dates.text_ms``, ``written_dates.words_ms``).
"""

from __future__ import annotations

import re

from .dates import civil_from_days, days_from_civil

__all__ = ["buddhist_era", "misread_year", "of_our_era", "spans_years", "year_written"]

_DAY_MS = 86_400_000
# Date.parse gives a date written without a year the year 2001; one written with it has
# "2001" or "01" (two digits) in it. Give or take a day for the local time zone.
_AROUND_2001 = (days_from_civil(2000, 12, 31) * _DAY_MS, days_from_civil(2002, 1, 2) * _DAY_MS)
_WRITES_2001 = re.compile(r"(?<!\d)(?:2001|01)(?!\d)")
_FULL_YEAR = re.compile(r"(?<!\d)\d{4}(?!\d)")
# Four digits after a sign are an offset ("10:00 +0100"), not a year.
_OFFSET_DIGITS = re.compile(r"(?<![\w-])[+-]\d{4}(?!\d)")


def year_written(text: str, ms: int) -> bool:
    """Tell whether the year of ``ms`` (on either side of the date line) is written in
    ``text`` as four digits.

    Example:
        >>> year_written("3 May 2024", 1714694400000), year_written("3 May", 1714694400000)
        (True, False)
    """
    years = _years(text)
    day = ms // _DAY_MS
    return any(civil_from_days(day + shift)[0] in years for shift in (-1, 0, 1))


def misread_year(text: str, ms: int) -> bool:
    """Tell whether ``Date.parse`` read ``text`` as ``ms`` in a year the text does not write:
    2001 for want of a year, or another year than the four-digit one it writes.

    Example:
        >>> misread_year("3-5 May 2024", 1115078400000), misread_year("3 May", 988848000000)
        (True, True)
        >>> misread_year("3 May 2024", 1714694400000), misread_year("5/3/24", 1714694400000)
        (False, False)
    """
    if _years(text):
        return not year_written(text, ms)
    if not _AROUND_2001[0] <= ms < _AROUND_2001[1]:
        return False
    return _WRITES_2001.search(text) is None


def spans_years(text: str) -> bool:
    """Tell whether ``text`` writes two years of our era ("Dec 2023 - Jan 2024", "30 Dec
    2023 - 2 Jan 2024"): a span, or two dates, of which a record's time would be a guess
    (``Date.parse`` reads the first as 30 January 2023), so no date.

    Example:
        >>> spans_years("Dec 2023 - Jan 2024"), spans_years("2024-05-03T10:00:00+0200")
        (True, False)
    """
    return len({y for y in _years(text) if 1000 <= y <= 2199}) > 1


# "2559 BE" (Intl's Buddhist calendar in English, German, Arabic, Hebrew): 543 years ahead.
_BE_YEAR = re.compile(r"(?<!\d)(\d{4})\s*(?:BE|B\.E\.)(?![^\W\d_])")
# "AM" (Anno Mundi, the Hebrew calendar's era; "ص" in Arabic) after a day, not beside a clock
# ("08.08.76 AM"; not "10:30 AM", Korean's "AM 12:04").
_ERA_AM = re.compile(r"(\S*)\s*(?<![^\W\d_])(?:AM|ص)(?![^\W\d_])(?=\s*(\S*))")
_HOUR = re.compile(r"\d{1,2}(?::\d\d){0,2}|\d{1,2}\.\d\d|[^\d]*")
_CLOCK_NEXT = re.compile(r"\d{1,2}[:.]\d\d")
# What a year outside these is read from without doubt: ISO 8601 (a sign, or a year first
# and its month with a hyphen), a number (an epoch stamp).
_ISO_OR_NUMBER = re.compile(r"\s*(?:[+-]?\d{4,6}-\d\d|[+-]?\d+(?:\.\d*)?\s*$)")
_OUR_YEARS = (1600, 2200)


# A year of Japan's eras or of the Republic of China written with the era's name in Latin
# letters after it, as Intl writes them in Western locales ("April 16, 28 Heisei", "16.04.28
# Heisei", "105 Minguo"): the Gregorian year before its first.
_ERA_NAMES = {"meiji": 1867, "taisho": 1911, "taishō": 1911, "showa": 1925, "shōwa": 1925,
              "heisei": 1988, "reiwa": 2018, "minguo": 1911}  # fmt: skip
_CUT_MINGUO = re.compile(r"[./-]\d{1,2}\s+Minguo\b", re.I)
_NAMED_ERA_YEAR = re.compile(r"(?<!\d)(\d{1,3})\s+(" + "|".join(_ERA_NAMES) + r")\b", re.I)


def buddhist_era(text: str) -> str | None:
    """Return ``text`` with a year of the Buddhist era marked so ("16 April 2559 BE") as its
    Gregorian year ("16 April 2016"), and so a year of a Japanese era or of the Republic of
    China named in Latin letters ("April 16, 28 Heisei", "March 28, 88 Minguo"); ``text``
    as it is without one; None for the Republic's year cut to two digits in a short form
    ("16.04.05 Minguo" is its 105: 2016)."""
    text = _BE_YEAR.sub(lambda m: str(int(m[1]) - 543), text)
    if _CUT_MINGUO.search(text):
        return None
    return _NAMED_ERA_YEAR.sub(lambda m: str(int(m[1]) + _ERA_NAMES[m[2].lower()]), text)


def of_our_era(text: str, ms: int | None) -> int | None:
    """Return ``ms``, the time read from ``text``, or None where the text is of another
    calendar: a year before 1600 or after 2200 not written as ISO 8601 or a number (the
    Hebrew 5776, the Persian 1395, the Hijri 1445, read as Gregorian years), or an era's
    "AM" after a day rather than a clock (the Hebrew calendar's "08.08.76 AM")."""
    if ms is None:
        return None
    year = civil_from_days(ms // _DAY_MS)[0]
    if not _OUR_YEARS[0] <= year <= _OUR_YEARS[1] and not _ISO_OR_NUMBER.match(text):
        return None
    if any(
        not _HOUR.fullmatch(m[1]) and not _CLOCK_NEXT.match(m[2]) for m in _ERA_AM.finditer(text)
    ):
        return None
    return ms


def _years(text: str) -> set[int]:
    return {int(y) for y in _FULL_YEAR.findall(_OFFSET_DIGITS.sub("", text))}
