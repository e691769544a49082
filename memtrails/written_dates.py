"""Dates written in words, as mail, chat and spreadsheet exports write them: zone names past
the eight US ones ``Date.parse`` knows (``CET``, ``JST``, ``AEST``, Outlook's long names),
month names of other languages (``3 mai 2024``, ``3. März 2024``, ``3 de mayo de 2024``,
``3 במאי 2024``, ``3 Μαΐου 2024``, ``٣ أيار ٢٠٢٤``: ``month_names`` holds the tables).

One reading and one set of tables for every source: the mail importer reads a Date header by
:func:`read_written` (``importers.mail.dates`` adds what a mail's time must be), and a
record's time read from a value (``At.of``, a row, a dict, a JSON Lines field) asks
:func:`words_ms` and :func:`zoned_ms` (``export_dates``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .date_years import year_written
from .dates import days_from_civil, utc_from_local_ms
from .day_order import unordered
from .month_names import ENGLISH, LETTER, month_of, one_word, weekday_last
from .zone_names import AMBIGUOUS_ZONES, ZONES, unsure_zone

__all__ = [
    "AMBIGUOUS_ZONES",
    "ZONES",
    "as_date_parse_reads",
    "month_year_ms",
    "read_written",
    "unsure_zone",
    "words_ms",
    "zoned_ms",
]

# Zone names as Outlook and other clients spell them out, lower case, one space apart.
_LONG_ZONES: dict[str, int] = {
    "coordinated universal time": 0, "greenwich mean time": 0, "gmt standard time": 0,
    "gmt daylight time": 60, "british summer time": 60, "western european time": 0,
    "western european summer time": 60, "w. europe standard time": 60,
    "w. europe daylight time": 120, "romance standard time": 60,
    "romance daylight time": 120, "central european time": 60,
    "central european standard time": 60, "central europe standard time": 60,
    "central european summer time": 120, "central european daylight time": 120,
    "central europe daylight time": 120, "eastern european time": 120,
    "e. europe standard time": 120, "gtb standard time": 120, "fle standard time": 120,
    "eastern european summer time": 180, "e. europe daylight time": 180,
    "gtb daylight time": 180, "fle daylight time": 180, "israel standard time": 120,
    "israel daylight time": 180, "moscow standard time": 180, "russian standard time": 180,
    "arab standard time": 180, "arabian standard time": 240, "india standard time": 330,
    "se asia standard time": 420, "china standard time": 480,
    "singapore standard time": 480, "taipei standard time": 480,
    "japan standard time": 540, "tokyo standard time": 540, "korea standard time": 540,
    "aus eastern standard time": 600, "australian eastern standard time": 600,
    "aus eastern daylight time": 660, "australian eastern daylight time": 660,
    "new zealand standard time": 720, "new zealand daylight time": 780,
    "hawaiian standard time": -600, "alaskan standard time": -540,
    "alaskan daylight time": -480, "pacific standard time": -480,
    "pacific daylight time": -420, "mountain standard time": -420,
    "mountain daylight time": -360, "central standard time": -360,
    "central daylight time": -300, "eastern standard time": -300,
    "eastern daylight time": -240, "atlantic standard time": -240,
    "atlantic daylight time": -180, "newfoundland standard time": -210,
    "newfoundland daylight time": -150,
}  # fmt: skip
_LONG_ZONE = re.compile(
    r"\b(" + "|".join(re.escape(k).replace(r"\ ", r"\s+") for k in _LONG_ZONES) + r")\b",
    re.IGNORECASE,
)


_TIME = re.compile(r"(?<![\d:.])(\d{1,2}):(\d\d)(?::(\d\d)(?:[.,](\d{1,9}))?)?(?![\d:])")
_DOTTED_TIME = re.compile(r"(?<![\d.])(\d{1,2})\.(\d\d)(?:\.(\d\d))?(?![\d.])")
_MERIDIEM = re.compile(r"\s*([ap])\.?\s?m\b\.?", re.IGNORECASE)
_OFFSET = re.compile(
    r"(?<![^\W\d_])(?:(gmt|utc|ut)\s?)?([+-])\s?(\d{1,2})(?::?(\d\d))?(?!\d)", re.IGNORECASE
)
_NAMED_OFFSET = re.compile(r"\b(?:gmt|utc|ut)\s?[+-]\s?\d", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+")
_ISO_T = re.compile(r"(?<=\d)[Tt](?=\d)")
_TOKEN = re.compile(rf"{LETTER}+\.?|\d+|[-/.]|[^\s\w]", re.UNICODE)
_ORDINAL = frozenset(("st", "nd", "rd", "th"))
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)

# What a value (a row's, a dict's, a JSON Lines field's) must be to be read in words: short,
# with a four-digit year and a word of two letters or more.
_LONGEST_VALUE = 100
_FULL_YEAR = re.compile(r"(?<!\d)\d{4}(?!\d)")
_LETTERS = re.compile(rf"{LETTER}{{2,}}")
# A day written in numbers ("2024-03-10", "4/2/2024", "03.05.2024"; not a clock's "10.30.15").
_NUMBERS_DAY = re.compile(
    r"(?<!\d)(?:\d{4}-\d\d|\d{1,4}([-/])\d{1,2}\1\d{1,4}|\d{1,2}\.\d{1,2}\.\d{4}|\d{4}\.\d{1,2}\.\d{1,2})(?!\d)"
)
_AFTER_DIGITS = re.compile(r"(?<=\d)[^\d]*$")
# A time as French and Portuguese write it ("10h30", "10 h 30", "10h") and German's "Uhr"
# after one ("10:30 Uhr", "10 Uhr"): read as "10:30" (it was passed over: midnight).
_HOURS = re.compile(r"(?<![\w:.])(\d{1,2})(?:\s?h\s?(\d\d)?|(?::(\d\d))?\s+Uhr)(?![\w:])", re.I)
_NUMERIC_ZONE = re.compile(r"\d\s*(?:[+-]\d\d:?\d\d|[+-]\d\d\b)|\b(?:GMT|UTC|UT)\s*[+-]\d", re.I)
# RFC 822's military zones, one letter after the time ("10:00:00 A"): RFC 2822 (4.3) reads
# every one of them as "-0000", UTC with no word of the local zone, as a mail's Date is read.
_MILITARY = re.compile(r"\d\d:\d\d(?::\d\d)?\s+[A-IK-Y]\s*$")
# A day's ordinal as other languages write it, the number's ending: French "1er", "1re",
# "2e", "2ème"; Spanish, Portuguese, Italian "1º", "1°", "1ª", "1.º"; Dutch "1ste", "3de",
# "2e"; Catalan "1r", "2n", "4t"; Swedish "1:a", "3:e"; Russian "3-go", "3-e" (Cyrillic).
_DAY_ORDINAL = re.compile(
    r"(?<![\d:.,/-])(\d{1,2})(?:er|re|ère|ème|eme|è|e|\.?[º°ª]|ste|de|r|n|t|:[ae]|-?\u0433\u043e|-?\u0435)"
    r"(?=[\s,.]|$)",
    re.I,
)
# A zone's name after a time ("10:00 CEST", "10:00:00 CEST (Berlin)").
_ZONE_NAME = re.compile(r"(?<=[\d.A-Za-z])(\s+)([A-Za-z]{2,5})(?=\s*(?:\([^()]*\))?\s*$)")
# A month and its year, no day ("Mai 2024", "agosto de 2024"): Date.parse passes over a word
# before the first number and reads 1 January; a month's name is read as the month.
_MONTH_YEAR = re.compile(rf"({LETTER}{{2,}}\.?),?\s+(?:d[eio]l?\s+)?(\d{{4}}(?!\d).*)", re.S)
_YEAR_MONTH = re.compile(rf"(\d{{4}})\.?\s+({LETTER}{{2,}})\.?")  # Hungarian's year first


def _comments(text: str) -> tuple[str, list[str]]:
    """Return ``text`` with its ``(comments)`` blanked out, and the comments' texts."""
    plain: list[str] = []
    comments: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in text:
        if ch == "(":
            depth += 1
            plain.append(" ")
            continue
        if ch == ")" and depth:
            depth -= 1
            if not depth:
                comments.append("".join(current))
                current.clear()
            plain.append(" ")
            continue
        if depth:
            current.append(ch)
            plain.append(" ")
        else:
            plain.append(ch)
    if current:  # an unclosed comment runs to the end
        comments.append("".join(current))
    return "".join(plain), comments


def read_written(value: str) -> tuple[int, bool] | None:
    """Return the instant a date written in words means (a wall clock time as UTC when it
    names no zone) and whether it named its zone, or None: the reading of a mail's Date
    header (``importers.mail.dates.mail_date`` states its rules), with no check of the range
    a time must fall in."""
    plain, comments = _comments(_ISO_T.sub(" ", value))
    clock = _TIME.search(plain) or _DOTTED_TIME.search(plain)
    hour = minute = second = ms = 0
    blank: list[tuple[int, int]] = []
    offset: int | None = None
    if clock is not None:
        hour, minute = int(clock.group(1)), int(clock.group(2))
        second = int(clock.group(3) or 0)
        frac = clock.groups()[3] if clock.re is _TIME else None
        ms = int((frac + "00")[:3]) if frac else 0
        end = clock.end()
        half = _MERIDIEM.match(plain, end)
        if half is not None:
            if not 1 <= hour <= 12:
                return None
            hour = hour % 12 + (12 if half.group(1).lower() == "p" else 0)
            end = half.end()
        blank.append((clock.start(), end))
        tail = plain[end:]
        offset, span = _zone(tail, comments)
        if span is not None:
            blank.append((end + span[0], end + span[1]))
    if not (hour <= 23 or (hour, minute, second, ms) == (24, 0, 0, 0)):
        return None
    if minute > 59 or second > 60:  # 60: a leap second, read as the next minute's first
        return None
    rest = list(plain)
    for start, stop in blank:
        rest[start:stop] = " " * (stop - start)
    day = _day("".join(rest))
    if day is None:
        return None
    days = days_from_civil(*day)
    wall = ((days * 24 + hour) * 60 + minute) * 60 + second
    return (wall - (offset or 0) * 60) * 1000 + ms, offset is not None


def _zone(tail: str, comments: list[str]) -> tuple[int | None, tuple[int, int] | None]:
    """Return the zone after a time (minutes east of UTC, None if unknown) and its span.

    A numeric offset first, then a zone's long name (``Pacific Standard Time``), then a
    short one (``CET``); a comment is read only when the text around it names no zone.
    """
    for m in _OFFSET.finditer(tail):
        hours, minutes = int(m.group(3)), int(m.group(4) or 0)
        if hours <= 14 and minutes <= 59:
            sign = -1 if m.group(2) == "-" else 1
            return sign * (hours * 60 + minutes), m.span()
        break  # an offset out of range is junk: the time stays a wall clock time
    for text in (tail, *comments):
        named = _named_zone(text)
        if named is not None:
            return named, None
    return None, None


def _named_zone(text: str) -> int | None:
    """Return the offset of a zone named in ``text``: ``GMT+1``, a long name, a short one."""
    m = _NAMED_OFFSET.search(text)
    if m is not None:
        found = _OFFSET.search(text, m.start())
        if found is not None and int(found.group(3)) <= 14 and int(found.group(4) or 0) <= 59:
            sign = -1 if found.group(2) == "-" else 1
            return sign * (int(found.group(3)) * 60 + int(found.group(4) or 0))
    m = _LONG_ZONE.search(text)
    if m is not None:
        return _LONG_ZONES[" ".join(m.group(1).lower().split())]
    for w in _WORD.finditer(text):
        found_zone = ZONES.get(w.group(0).upper())
        if found_zone is not None:
            return found_zone
    return None


def _month(word: str) -> int | None:
    return month_of(word)  # any language's (``month_names``)


def _year(digits: str) -> int | None:
    n = int(digits)
    if len(digits) <= 2:
        return n + (2000 if n < 50 else 1900)
    if len(digits) == 3:
        return 1900 + n  # RFC 5322 4.3: a three-digit year counts from 1900
    if len(digits) == 4:
        return n
    if len(digits) == 5 and 19100 <= n <= 19199:  # "19" + (year - 1900), a Y2K-era bug
        return 1900 + n - 19000
    return None


def _day(text: str) -> tuple[int, int, int] | None:
    """Return (year, month, day) from what is left of a date once its time and zone are out."""
    tokens = list(_TOKEN.finditer(text))
    numbers: list[tuple[int, str]] = []  # (token index, digits)
    months: list[tuple[int, int]] = []  # (token index, month)
    for i, token in enumerate(tokens):
        word = token.group(0)
        if word.isdigit():
            start, end = token.span()
            if start and text[start - 1].isalpha():
                continue  # "H0500", "abc12": part of a word, not a field
            if end < len(text) and text[end].isalpha():
                suffix = tokens[i + 1].group(0).lower().rstrip(".")
                if suffix not in _ORDINAL:  # "3rd" is a day; "12abc" is nothing
                    continue
            numbers.append((i, word))
        elif word[0].isalpha():
            month = _month(word)
            if month is not None:
                months.append((i, month))
    if months:
        return _named(_pick(months, tokens, numbers), [digits for _, digits in numbers])
    return _numeric(tokens, numbers)


def _pick(
    months: list[tuple[int, int]], tokens: list[re.Match[str]], numbers: list[tuple[int, str]]
) -> int:
    """Return the month of the month word most likely meant, of several.

    A weekday may read as a month (``mar.`` is Tuesday in French and Spanish), and so may
    a junk word (``out``): the month is one after a day (``mar. 3 déc.``: December), else
    the first word that touches a number (``3 Mar``, ``Mar 3``), an English one before another.
    """
    if len(months) == 1:
        return months[0][1]
    at = {i for i, _ in numbers}

    def score(entry: tuple[int, int]) -> int:
        i = entry[0]
        touches = (i - 1) in at or (i + 1) in at
        english = tokens[i].group(0).lower().rstrip(".") in ENGLISH
        after_day = (i - 1) in at and i > 1  # "mar. 3 déc. 2024": December; "mar." a weekday
        return 4 * after_day + 2 * touches + english

    return max(months, key=score)[1]


def _named(month: int, numbers: list[str]) -> tuple[int, int, int] | None:
    """Return the date of a month name and the numbers around it: a day and a year."""
    if len(numbers) < 2:
        return None  # no year: "Mar 3" is no date
    pair = numbers[:2]
    long = [n for n in pair if len(n) >= 3 or int(n) > 31]
    if long:
        year_digits = long[0]
        day_digits = pair[1] if pair[0] is year_digits else pair[0]
    else:
        day_digits, year_digits = pair  # RFC 5322 order: "3 Mar 09", and "Mar 3, 09"
    year = _year(year_digits)
    if year is None or len(day_digits) > 2:
        return None
    return _checked(year, month, int(day_digits))


def _numeric(
    tokens: list[re.Match[str]], numbers: list[tuple[int, str]]
) -> tuple[int, int, int] | None:
    """Return the date of three numbers joined by one of ``-`` ``/`` ``.``, or None."""
    for k in range(len(numbers) - 2):
        (i, a), (j, b), (n, c) = numbers[k : k + 3]
        if not (j == i + 2 and n == j + 2):
            continue
        sep = tokens[i + 1].group(0)
        if sep not in "-/." or tokens[j + 1].group(0) != sep:
            continue
        beyond = tokens[n + 1].group(0) if n + 1 < len(tokens) else ""
        ahead = tokens[i - 1].group(0) if i else ""
        if sep in (beyond, ahead) and (
            (n + 2 < len(tokens) and tokens[n + 2].group(0).isdigit())
            or (i >= 2 and tokens[i - 2].group(0).isdigit())
        ):
            continue  # "1.2.3.4": an address or a version, not a date
        if len(a) == 4:
            year, month, day = _year(a), int(b), int(c)
            if len(b) > 2 or len(c) > 2:
                continue
        else:
            if len(a) > 2 or len(b) > 2 or len(c) not in (2, 4):
                continue
            first, second = int(a), int(b)
            if sep == "." or first > 12:  # 3.3.2009 and 31/12/2009: the day first
                day, month = first, second
            else:  # 3/4/2009: the month first, as in the US (and Date.parse)
                month, day = first, second
            year = _year(c)
        if year is None:
            return None
        return _checked(year, month, day)
    return None


def _checked(year: int, month: int, day: int) -> tuple[int, int, int] | None:
    if not 1 <= month <= 12 or day < 1:
        return None
    leap = month == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if day > _DAYS[month - 1] + leap:
        return None
    return year, month, day


def words_ms(text: str, read: Callable[[str], int | None]) -> int | None:
    """Return the epoch milliseconds of a value written with a month's name in another
    language ("3 mai 2024", "3. März 2024 10:00", "3 de mayo de 2024", "1er mai 2024") or a
    zone's name (:data:`ZONES`), read as :func:`read_written` reads a mail's Date, in local
    time when no zone is named (as ``Date.parse`` reads a time without one); or None.

    Only a value of at most 100 characters with a four-digit year and a word is read: "3/4"
    or a word alone is no date here, nor is a time followed by a word that names no zone.
    ``read`` reads a value without its day's ordinal ("1er mai" is "1 mai"; a Cyrillic
    month is ``world_dates``'s).
    """
    if len(text) > _LONGEST_VALUE or not (_FULL_YEAR.search(text) and _LETTERS.search(text)):
        return None
    text = one_word(text)  # "3 كانون الثاني 2024", "10:30 μ.μ."
    text = _HOURS.sub(lambda m: f"{m[1]}:{m[2] or m[3] or '00'}", text)  # "10h30", "10 Uhr"
    if (plain := _DAY_ORDINAL.sub(r"\1", text)) != text:  # "1er mai 2024": "1 mai 2024"
        if (ms := read(plain)) is not None:
            return ms
        text = plain
    tail = _AFTER_DIGITS.search(text)
    if (
        tail is not None
        and any(
            w.upper() not in ZONES and w.lower() not in ("am", "pm")
            for w in _LETTERS.findall(_LONG_ZONE.sub(" ", tail[0]))  # "Eastern Daylight Time"
        )
        and (_TIME.search(text) or not weekday_last(tail[0]))  # "3 Ocak 2024 Cuma"
    ):
        return None  # "10:00 XYZ": a zone no list names is no zone to guess
    if unordered(text):
        return None  # "Δευ 2/4/2033": the day's order is text_ms's to tell (day_order)
    if _NUMBERS_DAY.search(text) and any(_month(w) for w in _LETTERS.findall(text)):
        return None  # "apr CDT 2024-03-10T02:30": two days, a month's name and a number's
    got = read_written(text.replace("\x00", " "))
    if got is None or not year_written(text, got[0]):
        return None  # "10:15:: Apr 2 2024" read as 10 April 2015: the text is no date
    ms = got[0]
    named = any(w.upper() in ZONES for w in _LETTERS.findall(text)) or _LONG_ZONE.search(text)
    if not (_NUMERIC_ZONE.search(text) or named or _MILITARY.search(text)):
        ms = utc_from_local_ms(ms)  # read_written read the wall clock as UTC
    return ms


def month_year_ms(text: str, read: Callable[[str], int | None]) -> int | None:
    """Return the epoch milliseconds of a month's name and a year ("Mai 2024", "agosto de
    2024", "März 2024 10:00"): the month's first day, where ``Date.parse`` passes over the
    word and reads 1 January; None for any other value."""
    m = _MONTH_YEAR.fullmatch(text := one_word(text))
    if m is None and (y := _YEAR_MONTH.fullmatch(text)) is not None:  # "2024. május"
        return words_ms(f"1 {y[2]} {y[1]}", read) if _month(y[2]) else None
    if m is None or _month(m.group(1)) is None:
        return None
    return words_ms(f"1 {m.group(1)} {m.group(2)}", read)


def zoned_ms(text: str, read: Callable[[str], int | None]) -> int | None:
    """Return the epoch milliseconds of a time followed by a zone's short name (``10:00
    CEST``, ``Fri, 3 May 2024 10:00:00 JST``, ``10:00 CEST (Berlin)``): ``read`` reads the
    value with the name's offset (:data:`ZONES`) in its place; None for any other value."""
    m = _ZONE_NAME.search(text)
    if m is None or (offset := ZONES.get(m.group(2).upper())) is None:
        return None
    sign = "-" if offset < 0 else "+"
    hhmm = f"{sign}{abs(offset) // 60:02d}{abs(offset) % 60:02d}"
    for space in (" ", ""):  # "3 May 2024 22:00 +0200", "2024-05-03T22:00:00+0200"
        ms = read(f"{text[: m.start()]}{space}{hhmm}{text[m.end() :]}")
        if ms is not None:
            return ms
    return None


# How chat and spreadsheet exports write a date that Date.parse does not read: a day with
# its ordinal ("May 8th", "the 1st of May"), "at" or "on" between the date and the time, the
# time first ("1:56 pm on 8 May, 2023"), "7pm" or "p.m." for "7:00 pm".
_DAY_OF = re.compile(r"\b(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+of\s+(?=[a-z])", re.I)
_ORDINAL_DAY = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)\b", re.I)
_CLOCK_HALF = re.compile(r"\b(\d{1,2})(?::(\d\d))?(?::(\d\d))?\s*([ap])\.?m\b\.?", re.I)
_JOINS = re.compile(r"\s*,?\s+(?:at|on|@)\s+", re.I)
_TIME_FIRST = re.compile(r"^\s*(\d{1,2}(?::\d\d){1,2}(?:\s[ap]m)?)\s*,?\s+(\S.*)$", re.I)
_LONGEST = 80
# Four digits after a sign are an offset ("10:00 +0100"), not a year.
_OFFSET_DIGITS = re.compile(r"(?<![\w-])[+-]\d{4}(?!\d)")


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
    if len(value) > _LONGEST or not _FULL_YEAR.search(_OFFSET_DIGITS.sub("", value)):
        return None
    text = _ORDINAL_DAY.sub(r"\1", _DAY_OF.sub(r"\1 ", value))
    text = _JOINS.sub(" ", _CLOCK_HALF.sub(_clock, text)).strip()
    if (m := _TIME_FIRST.match(text)) is not None and _FULL_YEAR.search(m.group(2)):
        text = f"{m.group(2)} {m.group(1)}"
    return text if text != value else None
