"""Dates ``Date.parse`` gives NaN for that are unambiguous all the same: ISO 8601 week and
ordinal dates, and days written with the words of Chinese, Japanese, Korean, Cyrillic-script
languages and Thai, with the years of Japan's eras (``令和5年``, ``R5.4.1``), of the Republic
of China (``民國112年``) and of the Thai Buddhist era (``พ.ศ. 2566``) read as the Gregorian
year; and a time followed by an IANA zone (:func:`iana_ms`).

``export_dates.exported_ms`` asks :func:`world_ms` last, so what ``Date.parse`` reads is
never read otherwise. Each form is read only whole: a text with anything else in it (a word,
a zone, a second date) is no date here. Two are asked first (``export_dates.text_ms``),
for what other locales write that ``Date.parse`` reads wrongly or not at all: bidi marks,
Unicode dashes and other scripts' digits (:func:`plain_date_text`), and a numeric day with
a year of the Buddhist era (:func:`buddhist_day`: "03/05/2567" is 3 May 2024).
"""

# ruff: noqa: RUF001, RUF003 (Cyrillic, CJK, Thai and full-width words and punctuation, on purpose)

from __future__ import annotations

import calendar
import re
import unicodedata
from collections.abc import Callable
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .dates import parse_date
from .locale_dates import locale_forms
from .month_names import CYRILLIC, INDIC_LETTERS, LETTER, month_of, other_calendar

__all__ = [
    "buddhist_day",
    "iana_ms",
    "in_other_script",
    "names_month",
    "plain_date_text",
    "world_ms",
]

_LONGEST = 80  # a date is short: a longer value is not scanned

# ISO 8601's ordinal date, a year and its day (GNU date's %Y-%j, mainframes' Julian dates).
_ORDINAL_DAY = re.compile(r"(\d{4})-(\d{3})(?:([T ])(\S.*))?", re.I | re.A)
# ISO 8601 week dates: "2024-W18" (its Monday), "2024-W18-3", "2024W183", with a time after
# "T" or a space ("2024-W18-3T10:00:00Z").
_WEEK = re.compile(r"(\d{4})-?W(\d\d)(?:-?([1-7]))?(?:([T ])(\S.*))?", re.I | re.A)

# Chinese, Japanese, Korean: year 年/년, month 月/월, day 日/일 (号/號 in Chinese).
_CJK_YMD = re.compile(r"(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日号號일]?")
_KOREAN_MDY = re.compile(r"(\d{1,2})\s*월\s*(\d{1,2})\s*일\s*,?\s*(\d{4})\s*년?")
_CJK_MONTH = re.compile(r"[\d〇一二三四五六七八九十]\s*[月월]")
_WORDS = re.compile(rf"{LETTER}+")
_CJK_YM = re.compile(r"(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]")  # a month: its first day
# Any letter of these scripts: Date.parse ignores such words before a number ("мая 2024" is
# 1 January 2024), so a text with one is asked here first.
_SCRIPTS = re.compile(
    r"[\u0400-\u04ff\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\u1100-\u11ff"
    r"\u0370-\u03ff\u1f00-\u1fff\u0590-\u05ff\u0600-\u065f\u066a-\u06ef\u06fa-\u06ff"
    r"\u0750-\u077f\ufb1d-\ufdff\ufe70-\ufefe]"  # Arabic's letters: its digits are digits
    rf"|{INDIC_LETTERS}"
)
_CJK_WEEKDAY = re.compile(
    r"[(（]\s*[月火水木金土日一二三四五六天월화수목금토일]\s*[)）]|[月火水木金土日]曜日?"
    r"|(?:星期|礼拜|禮拜|[周週])[一二三四五六日天]|[월화수목금토일]요일"
)
_CJK_TIME = re.compile(
    r"(午前|午後|上午|下午|早上|晚上|오전|오후)?\s*(\d{1,2})"
    r"(?:[:：](\d\d)(?:[:：](\d\d))?|\s*[時时点點시]\s*(?:(\d{1,2})\s*[分분])?\s*(?:(\d{1,2})\s*[秒초])?)"
    r"\s*(?:([ap])\.?m\.?)?",
    re.I,
)
_AFTERNOON = frozenset({"午後", "下午", "晚上", "오후", "p"})
_MORNING = frozenset({"午前", "上午", "早上", "오전", "a"})

_WEEKDAY_WORDS = (
    "понедельник вторник среда четверг пятница суббота воскресенье пн вт ср чт пт сб вс "
    "понеділок вівторок середа четвер п'ятниця пʼятниця субота неділя нд "
    "понеделник сряда петък събота неделя"
)
_CYRILLIC_WEEKDAYS = frozenset(_WEEKDAY_WORDS.split())
_CYRILLIC_DATE = re.compile(
    r"(?:([^\W\d_]+'?[^\W\d_]*)\.?,?\s+)?(?:(\d{1,2})\.?\s+)?([^\W\d_]+)\.?,?\s+(\d{4})"
    r"(?:\s*(?:г|года|год|р|року|рік)\.?)?"
    r"(?:\s*,?\s+(?:(?:в|во|о|об|у)\s+)?(\d{1,2}):(\d\d)(?::(\d\d))?)?"
)

# Japan's eras (their first days, by the Gregorian calendar) and the Republic of China's
# (Taiwan's Minguo): "令和5年" is 2023, "元年" the era's first year. Meiji's began in October
# 1868 and was counted from 1 January; before 1873 Japan's days were lunar ones: no check.
_ERAS: dict[str, tuple[int, int, int]] = {
    "明治": (1868, 1, 1),
    "大正": (1912, 7, 30),
    "昭和": (1926, 12, 25),
    "平成": (1989, 1, 8),
    "令和": (2019, 5, 1),
    "民國": (1912, 1, 1),
    "民国": (1912, 1, 1),
    "中華民國": (1912, 1, 1),
    "中华民国": (1912, 1, 1),
}
_INITIALS = {"M": "明治", "T": "大正", "S": "昭和", "H": "平成", "R": "令和"}
_ERA_NAME = re.compile(r"民國|民国|明治|大正|昭和|平成|令和|[㍾㍽㍼㍻㋿]")
_ERA_YEAR = re.compile(
    r"(中華民國|中华民国|民國|民国|明治|大正|昭和|平成|令和)\s*(\d{1,3}|元)\s*年"
)
# Japanese forms and spreadsheets write the era by its initial: "R5.4.1", "H31/04/30".
_ERA_DAY = re.compile(r"([MTSHR])\s?(\d{1,2}|元)([./-])(\d{1,2})\3(\d{1,2})(?!\d)(.*)", re.S)
_YEAR_ALONE = re.compile(r"(\d{4})\s*[年년]")
# Kanji numerals before 年, 月, 日 ("令和五年四月一日", "二〇二四年五月三日").
_KANJI_DIGITS = {c: n for n, c in enumerate("〇一二三四五六七八九")} | {"零": 0}
_KANJI_NUMBER = re.compile(r"([〇零一二三四五六七八九十]{1,4})(?=\s*[年月日時时分秒])")

# Thai: month names and their abbreviations; years of the Buddhist era (พ.ศ., 543 years
# ahead) or of the Christian one (ค.ศ.); a year past 2400 with neither is a Buddhist one.
_THAI_MONTHS: dict[int, str] = {
    1: "มกราคม ม.ค. มค.",
    2: "กุมภาพันธ์ ก.พ. กพ.",
    3: "มีนาคม มี.ค. มีค.",
    4: "เมษายน เม.ย. เมย.",
    5: "พฤษภาคม พ.ค. พค.",
    6: "มิถุนายน มิ.ย. มิย.",
    7: "กรกฎาคม ก.ค. กค.",
    8: "สิงหาคม ส.ค. สค.",
    9: "กันยายน ก.ย. กย.",
    10: "ตุลาคม ต.ค. ตค.",
    11: "พฤศจิกายน พ.ย. พย.",
    12: "ธันวาคม ธ.ค. ธค.",
}
_THAI_MONTH = {w: m for m, words in _THAI_MONTHS.items() for w in words.split()}
_THAI_WORD = "|".join(re.escape(w) for w in sorted(_THAI_MONTH, key=len, reverse=True))
_THAI_DIGITS = str.maketrans("๐๑๒๓๔๕๖๗๘๙", "0123456789")
_THAI_WEEKDAY = re.compile(r"^\s*(?:วัน(?:จันทร์|อังคาร|พุธ|พฤหัสบดี|พฤหัส|ศุกร์|เสาร์|อาทิตย์)?\s*)?(?:ที่\s*)?")
_BUDDHIST = r"พ\.\s?ศ\.|พศ\.?"
_CHRISTIAN = r"ค\.\s?ศ\.|คศ\.?"
_THAI_DATE = re.compile(
    rf"(?:(\d{{1,2}})\s*)?({_THAI_WORD})\s*(?:({_BUDDHIST})|({_CHRISTIAN}))?\s*(\d{{4}}|\d\d)"
    r"(?:\s*,?\s*(?:เวลา\s*)?(\d{1,2})[:.](\d\d)(?:[:.](\d\d))?\s*(?:น\.?|นาฬิกา)?)?"
)
# A year alone: "พ.ศ. 2566", "ปี 2566" ("the year"), "ค.ศ. 2023", or written in Thai digits.
_THAI_YEAR = re.compile(rf"(?:ปี\s*)?(?:({_BUDDHIST})|({_CHRISTIAN}))?\s*(\d{{4}})")
_THAI_SIGNS = re.compile(rf"{_THAI_WORD}|{_BUDDHIST}|{_CHRISTIAN}|ปี(?=\s*\d)|[๐-๙]")
_THAI_LETTER = re.compile(r"[\u0e00-\u0e7f]")
_BUDDHIST_YEAR = re.compile(r"(?<!\d)2[4-7]\d\d(?!\d)")  # 2400-2799: 1857-2256 AD

# A day written with a year of the Thai Buddhist era (543 years ahead) and no Thai word, as
# a Thai locale's short date writes it ("3/5/2567", day first; "2567/05/03"): only a year
# that is 1900 to 2100 so (2443 to 2643), which as a Gregorian year no record is in.
_BUDDHIST_DMY = re.compile(r"\s*(\d{1,2})([./-])(\d{1,2})\2(\d{4})(?!\d)(.*)", re.S)
_BUDDHIST_YMD = re.compile(r"\s*(\d{4})([./])(\d{1,2})\2(\d{1,2})(?!\d)(.*)", re.S)
_BUDDHIST_YEARS = (2443, 2643)
_BUDDHIST_AHEAD = 543
# What RTL locales and word processors put in a date that Date.parse reads none of: bidi
# marks (Intl's Arabic "3/5/2024" has an RLM after each number; Excel's LRM), zero-width
# spaces, dashes and a minus sign for a hyphen ("2024\u201105\u201103", "-05:00" with
# U+2212), and the digits of other scripts (Arabic-Indic, Persian, Devanagari, Bengali).
_MARKS = dict.fromkeys(
    [0x061C, 0x200B, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0xFEFF]
)
_DASHES = dict.fromkeys([*range(0x2010, 0x2014), 0x2212, 0xFE63, 0xFF0D], "-")
_DIGITS = {zero + n: str(n) for zero in (0x0660, 0x06F0, 0x0966, 0x09E6) for n in range(10)}
# The full-width forms East Asian input methods type ("２０２４－０５－０３", "１０：００"):
# ASCII's digits and signs, no other calendar's and no day first.
_FULL_WIDTH = {0xFF10 + n: str(n) for n in range(10)} | {
    ord(wide): ascii_ for wide, ascii_ in zip("：／．，＋ＴＺｔｚ", ":/.,+TZtz", strict=True)
}
# Arabic's comma, and its "ص" (morning) and "م" (evening) after a time, as Intl writes them.
_ARABIC = {0x060C: ","}
_HALF_DAY = re.compile("(?<=\\d)\\s*([\u0635\u0645])(?![^\\W\\d_])")
_SAME = _MARKS | _DASHES | _FULL_WIDTH | _ARABIC
_PLAIN = _SAME | _DIGITS
_EARLIEST_YEAR = 1900  # in other digits, a year before it is another calendar's (1445, 1403)
_RTL_MARKS = frozenset("\u200f\u061c")  # right-to-left and Arabic letter marks
# Arabic, Persian and Indian locales write a day first ("3/5/2024" is 3 May), as their
# digits or their right-to-left marks show.
_SLASHED_DAY = re.compile(r"\s*(\d{1,2})([/-])(\d{1,2})\2(\d{4})(?!\d)(.*)", re.S | re.A)
_FOUR_DIGITS = re.compile(r"(?<!\d)\d{4}(?!\d)", re.A)
# A slashed day with a two-digit year in such digits: Hindi writes "१४/११/२३" day first,
# Nepali "०२/१/१३" year first; Date.parse reads either month first. No day is guessed.
_SHORT_SLASHED = re.compile(r"\s*\d{1,2}([/-])\d{1,2}\1\d{1,2}(?![\d/-])", re.A)
# Bulgarian's, Russian's and Ukrainian's word for "year" after a numeric day's year.
_YEAR_WORD = re.compile(r"(?<=[./-]\d{4})\s*[гр]\.\s*$")

# An IANA zone after a time: in brackets as RFC 9557 and Java's ZonedDateTime write it
# ("...+02:00[Europe/Berlin]", "...T10:00[Europe/Berlin]"), or after a space.
_IANA = re.compile(
    r"(.*?\d[Zz]?)(?:\s*\[!?([A-Za-z][\w+-]*(?:/[\w+-]+)*)\](?:\[[^\]]*\])*|\s+([A-Za-z]\w*/[\w+-]+(?:/[\w+-]+)?))\s*"
)
_OFFSET_AT_END = re.compile(
    r"\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?\s*(?:[Zz]|[+-]\d\d(?::?\d\d)?|UTC|GMT|UT)\s*$"
)


def world_ms(text: str) -> int | None:
    """Return the epoch milliseconds of an ISO week date or of a day written in CJK or
    Cyrillic words, or None when ``text`` is none of those.

    A week date or an ordinal date is read as the ISO date it names (``2024-W18-3`` is
    ``2024-05-01``, ``2024-124`` is ``2024-05-03``: UTC midnight, or the time after it). A CJK or Cyrillic day is read as ``Date.parse`` reads
    "2024/05/03 10:32": in local time (``TZ``), its midnight when no time is given; a month
    and a year alone ("май 2024", "2024年5月") are its first day, as ``Date.parse`` reads
    "May 2024". A day that does not exist (31 April, week 53 of a year of 52) is no date.

    Example:
        >>> world_ms("2024-W18-3") == parse_date("2024-05-01")
        True
        >>> world_ms("2024年5月3日") == world_ms("3 мая 2024") == parse_date("2024/05/03")
        True
    """
    value = text.strip()
    if len(value) > _LONGEST:
        return None
    if not value.isascii():
        # Full-width letters and digits ("Ｈ３１．４．３０"), an era's one sign ("㍻", "㋿").
        value = unicodedata.normalize("NFKC", value)
    if (m := _WEEK.fullmatch(value)) is not None:
        return _week(m)
    if (m := _ORDINAL_DAY.fullmatch(value)) is not None:
        return _ordinal_day(m)
    if _THAI_SIGNS.search(value):
        return _thai(value.translate(_THAI_DIGITS))
    if _KANJI_NUMBER.search(value):
        value = _KANJI_NUMBER.sub(lambda m: _kanji(m[1]), value)
    if _ERA_YEAR.search(value) or _ERA_DAY.fullmatch(value):
        return _era(value)
    return _gregorian(value)


def plain_date_text(value: str) -> str | None:
    """Return ``value`` without bidi marks, its dashes as hyphens, its digits in ASCII
    (:data:`_PLAIN`) and a locale's forms as ``Date.parse`` reads them (``locale_forms``),
    or None when its digits were another script's and its years are another calendar's (the
    Hijri 1445, the Persian 1403: no Gregorian year before 1900) or its day is slashed with
    a two-digit year (day first in Hindi, year first in Nepali).
    A day written with slashes in such digits or with right-to-left marks is day first, as
    Arabic, Persian and Indian locales write it: it is returned as year/month/day.

    Example:
        >>> plain_date_text("\u0663\u200f/\u0665\u200f/\u0662\u0660\u0662\u0664")
        '2024/05/03'
        >>> plain_date_text("\u06f1\u06f4\u06f0\u06f3/\u06f0\u06f2/\u06f1\u06f4") is None
        True
    """
    value = locale_forms(value)  # "PM 10:13", "24. 5. 3.", "3 tháng 5, 2024"
    if value.isascii():
        return value
    plain = _YEAR_WORD.sub("", value.translate(_PLAIN))  # "3.01.2024 г.": the year's word
    other_digits = plain != value.translate(_SAME)
    if other_digits:  # a year of which calendar?
        years = [int(y) for y in _FOUR_DIGITS.findall(plain)]
        if (years and max(years) < _EARLIEST_YEAR) or _SHORT_SLASHED.match(plain):
            return None
    if (other_digits or not _RTL_MARKS.isdisjoint(value)) and (
        m := _SLASHED_DAY.fullmatch(plain)
    ) is not None:
        day, _, month, year, rest = m.groups()
        plain = f"{year}/{int(month):02d}/{int(day):02d}{rest}"  # day first ("০৩-০৫-২০২৪" too)
    return _HALF_DAY.sub(lambda h: " am" if h[1] == "\u0635" else " pm", plain)


def buddhist_day(value: str) -> str | None:
    """Return a day written with a year of the Buddhist era and no Thai word ("03/05/2567",
    "2567/05/03") as ``Date.parse`` reads its Gregorian day ("2024/05/03"), or None when
    ``value`` is no such day.

    Example:
        >>> buddhist_day("03/05/2567 10:30"), buddhist_day("03/05/2024")
        ('2024/05/03 10:30', None)
    """
    if (m := _BUDDHIST_DMY.fullmatch(value)) is not None:
        day, _, month, year, rest = m.groups()
    elif (m := _BUDDHIST_YMD.fullmatch(value)) is not None:
        year, _, month, day, rest = m.groups()
    else:
        return None
    if not _BUDDHIST_YEARS[0] <= int(year) <= _BUDDHIST_YEARS[1]:
        return None
    return f"{int(year) - _BUDDHIST_AHEAD:04d}/{int(month):02d}/{int(day):02d}{rest}"


def iana_ms(text: str, read: Callable[[str], int | None]) -> int | None:
    """Return the epoch milliseconds of a time followed by an IANA zone, or None.

    ``read`` reads the time without the zone. An offset before the zone says when (the
    name only says where); without one the wall clock is read in the zone, a wall time a
    change skips or repeats as ``Date.parse`` reads local time (the offset before it; the
    first of two).

    Example:
        >>> iana_ms("2024-05-03T10:00:00[Europe/Berlin]", parse_date) == parse_date(
        ...     "2024-05-03T08:00:00Z"
        ... )
        True
    """
    m = _IANA.fullmatch(text)
    if m is None:
        return None
    clock, name = m.group(1), m.group(2) or m.group(3)
    if _OFFSET_AT_END.search(clock):  # the offset says when; the name only where
        return read(clock)
    try:
        zone = ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None
    wall = read(f"{clock} UTC" if " " in clock else f"{clock}Z")
    if wall is None:
        return None
    try:
        naive = datetime(1970, 1, 1) + timedelta(milliseconds=wall)
    except OverflowError:
        return None
    shift = naive.replace(tzinfo=zone, fold=0).utcoffset()
    return wall - (shift // timedelta(milliseconds=1) if shift else 0)


def _gregorian(value: str) -> int | None:
    """:func:`world_ms` of a text whose years are the Gregorian calendar's."""
    if _CJK_YMD.search(value) or _KOREAN_MDY.search(value):
        return _cjk(value)
    if (m := _CJK_YM.fullmatch(value)) is not None:
        return _local(int(m[1]), int(m[2]), 1, 0, 0, 0)
    if (m := _CYRILLIC_DATE.fullmatch(value)) is not None:
        return _cyrillic(m)
    return None


def in_other_script(text: str) -> bool:
    """Tell whether ``text`` has a Cyrillic, CJK or Hangul letter: ``Date.parse`` reads
    such a date wrongly when it reads it at all, so :func:`world_ms` is asked first."""
    return _SCRIPTS.search(text) is not None


def names_month(text: str) -> bool:
    """Tell whether ``text`` names a month in CJK ("5月", "5월"), Cyrillic ("мая") or Thai
    words, an era's year ("令和5年", "พ.ศ. 2566"), or is Thai with a year past 2400: when
    :func:`world_ms` does not read it, it is no date (``Date.parse`` would skip the word:
    "пятница мая 2024" would be 1 January, "พ.ศ. 2566" the year 2566)."""
    if _CJK_MONTH.search(text) or _ERA_NAME.search(text) or _THAI_SIGNS.search(text):
        return True  # an era's year ("令和5年") or a Thai one ("พ.ศ. 2566") too
    if _THAI_LETTER.search(text) and _BUDDHIST_YEAR.search(text):
        return True  # a Thai text's 2566 is the Buddhist era's: never the year 2566
    # A month's name in any language of ``month_names`` ("мая", "Μαΐου", "במאי"), or one of
    # another calendar's ("اردیبهشت", "תשרי"): never the 1 January Date.parse would read.
    return any(month_of(w) or other_calendar(w) for w in _WORDS.findall(text))


def _week(m: re.Match[str]) -> int | None:
    year, week, weekday, sep, clock = m.groups()
    try:
        day = date.fromisocalendar(int(year), int(week), int(weekday or 1))
    except ValueError:
        return None
    if clock is None:
        return parse_date(day.isoformat())
    return parse_date(f"{day.isoformat()}{'T' if sep in 'Tt' else ' '}{clock}")


def _ordinal_day(m: re.Match[str]) -> int | None:
    """``2024-124`` (the 124th day of 2024: 3 May) as the ISO date it names."""
    year, number, sep, clock = m.groups()
    if not 1 <= int(number) <= (366 if calendar.isleap(int(year)) else 365):
        return None
    day = date(int(year), 1, 1) + timedelta(days=int(number) - 1)
    if clock is None:
        return parse_date(day.isoformat())
    return parse_date(f"{day.isoformat()}{'T' if sep in 'Tt' else ' '}{clock}")


def _cjk(value: str) -> int | None:
    m = _CJK_YMD.search(value)
    if m is not None:
        year, month, day = int(m[1]), int(m[2]), int(m[3])
    else:
        m = _KOREAN_MDY.search(value)
        assert m is not None
        month, day, year = int(m[1]), int(m[2]), int(m[3])
    rest = _CJK_WEEKDAY.sub(" ", value[: m.start()] + " " + value[m.end() :])
    rest = rest.replace(",", " ").replace("，", " ").strip()
    clock = (0, 0, 0)
    if rest:
        t = _CJK_TIME.fullmatch(rest)
        if t is None:
            return None
        half = t[1] or (t[7] or "").lower() or None
        hour = int(t[2])
        minute = int(t[3] or t[5] or 0)
        second = int(t[4] or t[6] or 0)
        if half is not None:
            if not 1 <= hour <= 12:
                return None
            hour = hour % 12 + (12 if half in _AFTERNOON else 0)
        clock = (hour, minute, second)
    return _local(year, month, day, *clock)


def _cyrillic(m: re.Match[str]) -> int | None:
    weekday, day, word, year, hour, minute, second = m.groups()
    if weekday is not None and weekday.lower() not in _CYRILLIC_WEEKDAYS:
        return None
    month = CYRILLIC.get(word.lower())
    if month is None or (day is None and weekday is not None):
        return None  # a month alone is its first day (as "May 2024"); a weekday needs a day
    return _local(
        int(year), month, int(day or 1), int(hour or 0), int(minute or 0), int(second or 0)
    )


def _local(year: int, month: int, day: int, hour: int, minute: int, second: int) -> int | None:
    """The wall clock time given in local time, as ``Date.parse("2024/05/03 10:32")``."""
    if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]):
        return None
    if hour > 23 or minute > 59 or second > 59:
        return None
    return parse_date(f"{year:04d}/{month:02d}/{day:02d} {hour:02d}:{minute:02d}:{second:02d}")


def _kanji(run: str) -> str:
    """Kanji numerals as digits: "五" 5, "十" 10, "三十一" 31, "二〇二四" 2024 (digit by
    digit); a run that is no number (two 十) is left as it is."""
    if "十" not in run:
        return "".join(str(_KANJI_DIGITS[c]) for c in run)
    tens, _, ones = run.partition("十")
    if len(tens) > 1 or len(ones) > 1 or "十" in ones:
        return run
    return str(_KANJI_DIGITS.get(tens, 1) * 10 + _KANJI_DIGITS.get(ones, 0))


def _era(value: str) -> int | None:
    """A day (a month, a year) whose year is an era's: read as the Gregorian one, and no
    date when it falls before the era began ("令和元年4月1日", "平成0年")."""
    if (m := _ERA_DAY.fullmatch(value)) is not None:
        era, number = _INITIALS[m[1]], m[2]
        clock = m[6]
        rest = f"{{year}}年{int(m[4])}月{int(m[5])}日{clock}"
    else:
        m = _ERA_YEAR.search(value)
        assert m is not None
        era, number = m[1], m[2]
        rest = value[: m.start()] + "{year}年" + value[m.end() :]
    count = 1 if number == "元" else int(number)
    if count < 1 or _ERA_YEAR.search(rest):
        return None  # year 0, or a second era's year
    start = _ERAS[era]
    year = start[0] + count - 1
    text = rest.replace("{year}", str(year), 1)
    if (alone := _YEAR_ALONE.fullmatch(text)) is not None:
        # A year alone: its first day, or the era's first day in its first year.
        ms = _local(int(alone[1]), *((start[1], start[2]) if count == 1 else (1, 1)), 0, 0, 0)
    else:
        ms = _gregorian(text)
    if ms is None or ms < (_local(*start, 0, 0, 0) or 0):
        return None
    return ms


def _thai(value: str) -> int | None:
    """A day written in Thai ("1 มกราคม 2566", "วันจันทร์ที่ 1 ม.ค. 66 เวลา 10.30 น."), a
    month ("มกราคม 2566": its first day) or a year ("พ.ศ. 2566": its first day): in local
    time, the year of the Buddhist era (543 ahead) when marked so or past 2400, or two
    digits (66: 2566)."""
    value = _THAI_WEEKDAY.sub("", value, count=1).strip()
    if (m := _THAI_YEAR.fullmatch(value)) is not None:
        year = int(m[3])
        if m[1] or (not m[2] and year > 2400):
            year -= 543
        return _local(year, 1, 1, 0, 0, 0) if year > 0 else None
    m = _THAI_DATE.fullmatch(value)
    if m is None:
        return None
    day, word, buddhist, christian, written, hour, minute, second = m.groups()
    year = int(written)
    if len(written) == 2:
        year += 2500  # "ม.ค. 66": the Buddhist era's 2566
    if buddhist or (not christian and year > 2400):
        year -= 543
    return _local(
        year,
        _THAI_MONTH[word],
        int(day or 1),
        int(hour or 0),
        int(minute or 0),
        int(second or 0),
    )
