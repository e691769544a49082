"""Dates ``Date.parse`` gives NaN for that are unambiguous all the same: ISO 8601 week dates,
and days written with the words of Chinese, Japanese, Korean and Cyrillic-script languages.

``export_dates.exported_ms`` asks :func:`world_ms` last, so what ``Date.parse`` reads is
never read otherwise. Each form is read only whole: a text with anything else in it (a word,
a zone, a second date) is no date here.
"""

# ruff: noqa: RUF001 (Cyrillic and CJK words and punctuation, on purpose)

from __future__ import annotations

import calendar
import re
from datetime import date

from .dates import parse_date

__all__ = ["in_other_script", "names_month", "world_ms"]

_LONGEST = 80  # a date is short: a longer value is not scanned

# ISO 8601 week dates: "2024-W18" (its Monday), "2024-W18-3", "2024W183", with a time after
# "T" or a space ("2024-W18-3T10:00:00Z").
_WEEK = re.compile(r"(\d{4})-?W(\d\d)(?:-?([1-7]))?(?:([T ])(\S.*))?", re.I | re.A)

# Chinese, Japanese, Korean: year 年/년, month 月/월, day 日/일 (号/號 in Chinese).
_CJK_YMD = re.compile(r"(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日号號일]?")
_KOREAN_MDY = re.compile(r"(\d{1,2})\s*월\s*(\d{1,2})\s*일\s*,?\s*(\d{4})\s*년?")
_CJK_MONTH = re.compile(r"\d\s*[月월]")
_WORDS = re.compile(r"[^\W\d_]+")
_CJK_YM = re.compile(r"(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]")  # a month: its first day
# Any letter of these scripts: Date.parse ignores such words before a number ("мая 2024" is
# 1 January 2024), so a text with one is asked here first.
_SCRIPTS = re.compile(r"[\u0400-\u04ff\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\u1100-\u11ff]")
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

# Cyrillic month names, as a date writes them (the genitive: "3 мая 2024") and alone, with
# their usual abbreviations: Russian, Ukrainian, Belarusian, Bulgarian, Serbian, Macedonian.
_CYRILLIC_MONTHS: dict[int, str] = {
    1: "январь января янв січень січня січ студзень студзеня студз януари яну јануар јануари",
    2: "февраль февраля фев февр лютий лютого лют люты лютага февруари фебруар февруари",
    3: "март марта мар березень березня бер сакавік сакавіка сак",
    4: "апрель апреля апр квітень квітня квіт красавік красавіка крас април",
    5: "май мая травень травня трав мај",
    6: "июнь июня июн червень червня черв чэрвень чэрвеня чэрв юни јун јуни",
    7: "июль июля июл липень липня лип ліпень ліпеня ліп юли јул јули",
    8: "август августа авг серпень серпня серп жнівень жніўня жнів",
    9: "сентябрь сентября сен сент вересень вересня вер верасень верасня вер сеп септември "
    "септембар",
    10: "октябрь октября окт жовтень жовтня жовт кастрычнік кастрычніка кастр октомври октобар",
    11: "ноябрь ноября ноя нояб листопад листопада лист лістапад лістапада ліст ное ноември "
    "новембар",
    12: "декабрь декабря дек грудень грудня груд снежань снежня снеж декември децембар",
}
_CYRILLIC = {word: month for month, words in _CYRILLIC_MONTHS.items() for word in words.split()}
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


def world_ms(text: str) -> int | None:
    """Return the epoch milliseconds of an ISO week date or of a day written in CJK or
    Cyrillic words, or None when ``text`` is none of those.

    A week date is read as the ISO date it names (``2024-W18-3`` is ``2024-05-01``: UTC
    midnight, or the time after it). A CJK or Cyrillic day is read as ``Date.parse`` reads
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
    if (m := _WEEK.fullmatch(value)) is not None:
        return _week(m)
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
    """Tell whether ``text`` names a month in CJK ("5月", "5월") or Cyrillic words ("мая"):
    when :func:`world_ms` does not read it, it is no date (``Date.parse`` would skip the
    word: "пятница мая 2024" would be 1 January)."""
    if _CJK_MONTH.search(text):
        return True
    return any(word.lower() in _CYRILLIC for word in _WORDS.findall(text))


def _week(m: re.Match[str]) -> int | None:
    year, week, weekday, sep, clock = m.groups()
    try:
        day = date.fromisocalendar(int(year), int(week), int(weekday or 1))
    except ValueError:
        return None
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
    month = _CYRILLIC.get(word.lower())
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
