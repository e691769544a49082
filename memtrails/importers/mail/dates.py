"""Read a mail's time: its Date header as mailers really write it, else its newest Received."""

from __future__ import annotations

import re
import time

from ...dates import days_from_civil

__all__ = ["ZONES", "mail_date", "mail_time", "received_date"]

#: Zone names a Date header may carry, as minutes east of UTC. RFC 5322 4.3's obsolete
#: zones (``UT``, ``GMT``, ``EST`` ... ``PDT``) come first; the rest are names mailers
#: write though no RFC allows them. Where a name has several readings, the one taken is
#: the first in this list: ``CST`` and ``PST`` are the RFC's (US Central, US Pacific), not
#: China's or the Philippines'; ``IST`` is India (+05:30), not Irish summer time (+01:00)
#: nor Israel (+02:00); ``BST`` is British summer time (+01:00), not Bangladesh; ``AST``
#: is Atlantic (-04:00), not Arabia; ``MSK`` is Moscow's +03:00 (it was +04:00 from March
#: 2011 to October 2014). Military letters other than ``Z`` are not here: RFC 5322 says
#: to read them as ``-0000`` (RFC 822 had their signs reversed), which is what an unknown
#: name gives.
ZONES: dict[str, int] = {
    "UT": 0, "UTC": 0, "GMT": 0, "Z": 0,
    "EST": -300, "EDT": -240, "CST": -360, "CDT": -300,
    "MST": -420, "MDT": -360, "PST": -480, "PDT": -420,
    "UCT": 0, "WET": 0, "WEZ": 0, "WEST": 60, "WESZ": 60, "BST": 60, "IST": 330,
    "CET": 60, "MET": 60, "MEZ": 60, "CEST": 120, "CEDT": 120, "MEST": 120, "MESZ": 120,
    "EET": 120, "OEZ": 120, "EEST": 180, "OESZ": 180, "MSK": 180, "MSD": 240,
    "WAT": 60, "CAT": 120, "SAST": 120, "EAT": 180, "IDT": 180, "GST": 240,
    "PKT": 300, "NPT": 345, "ICT": 420, "WIB": 420,
    "HKT": 480, "SGT": 480, "MYT": 480, "PHT": 480, "AWST": 480,
    "JST": 540, "KST": 540, "ACST": 570, "AEST": 600, "ACDT": 630, "AEDT": 660,
    "NZST": 720, "NZDT": 780,
    "AST": -240, "ADT": -180, "NST": -210, "NDT": -150,
    "AKST": -540, "AKDT": -480, "HST": -600, "HDT": -540,
    "BRT": -180, "BRST": -120, "ART": -180, "CLT": -240, "CLST": -180,
}  # fmt: skip

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

#: The range a mail's time must fall in: from 1900, less the year 1970 (and the last day
#: of 1969, 1970's first day seen from a zone west of UTC). 1970 is the year of a zero time
#: stamp, a clock never set; no mail of 1970 survives (the first was sent in 1971).
_EARLIEST_MS = -2_208_988_800_000  # 1900-01-01
_EPOCH_JUNK = (-86_400_000, 31_536_000_000)  # 1969-12-31 up to 1971-01-01, UTC
#: How far past the moment of reading a mail's time may be: a sender's clock a little
#: ahead, or a wrong zone. Further is a clock set wrong (a year 2038, 3609, 19110).
_AHEAD_MS = 2 * 86_400_000
_ZONE_GUESS_MS = 15 * 3_600_000  # zones run from -12:00 to +14:00; an hour to spare
_QUARTER_HOUR_MS = 900_000
_MAX_RECEIVED = 64  # Received headers tried, from the top: a mail has a few; junk, thousands
_LONGEST = 256  # a Date value is short: what is longer is read only this far

# Month names: English, and the usual abbreviations and full names of German, Dutch,
# French, Spanish, Italian, Portuguese, the Nordic languages and Polish (its genitive, as
# a date writes it). A word is a month when it is one of these, in any case, with or
# without a dot after it.
_MONTH_WORDS: dict[int, str] = {
    1: "jan janv ene gen sty january januar janvier enero gennaio januari janeiro stycznia",
    2: "feb febr fév févr fev fevr lut february februar février fevrier febrero febbraio "
    "februari fevereiro lutego",
    3: "mar mär mrz mrt march märz maerz mars marzo maart março marca",
    4: "apr avr abr kwi april avril abril aprile kwietnia",
    5: "may mai mei maj mag mayo maggio maio maja",
    6: "jun juin giu cze june juni junio giugno junho czerwca",
    7: "jul juil lug lip july juli juillet julio luglio julho lipca",
    8: "aug aoû aou ago sie august août aout agosto augustus sierpnia",
    9: "sep sept set wrz september septembre septiembre setiembre settembre setembro "
    "września wrzesnia",
    10: "oct okt ott out paź paz october oktober octobre octubre ottobre outubro "
    "października pazdziernika",
    11: "nov lis november novembre noviembre novembro listopada",
    12: "dec dez déc dic gru december dezember décembre decembre diciembre dicembre "
    "dezembro grudnia",
}
_MONTHS = {word: month for month, words in _MONTH_WORDS.items() for word in words.split()}
_ENGLISH = frozenset(_MONTH_WORDS[m].split()[0] for m in _MONTH_WORDS) | {
    "sept",
    "january",
    "february",
    "march",
    "april",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
}

_TIME = re.compile(r"(?<![\d:.])(\d{1,2}):(\d\d)(?::(\d\d)(?:[.,](\d{1,9}))?)?(?![\d:])")
_DOTTED_TIME = re.compile(r"(?<![\d.])(\d{1,2})\.(\d\d)(?:\.(\d\d))?(?![\d.])")
_MERIDIEM = re.compile(r"\s*([ap])\.?\s?m\b\.?", re.IGNORECASE)
_OFFSET = re.compile(
    r"(?<![^\W\d_])(?:(gmt|utc|ut)\s?)?([+-])\s?(\d{1,2})(?::?(\d\d))?(?!\d)", re.IGNORECASE
)
_NAMED_OFFSET = re.compile(r"\b(?:gmt|utc|ut)\s?[+-]\s?\d", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+")
_ISO_T = re.compile(r"(?<=\d)[Tt](?=\d)")
_TOKEN = re.compile(r"[^\W\d_]+\.?|\d+|[-/.]|[^\s\w]", re.UNICODE)
_ORDINAL = frozenset(("st", "nd", "rd", "th"))
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def mail_time(
    date: str | None,
    received: list[str],
    *,
    stored: str | None = None,
    now_ms: int | None = None,
) -> tuple[int | None, str | None]:
    """Return a mail's time in epoch milliseconds and where it came from.

    The Date header comes first (:func:`mail_date`). When it names no zone (or one not
    known), its wall clock time is corrected by the newest ``Received`` time when that is
    within 15 hours of it: the difference, to the nearest quarter hour, is the sender's
    zone (``Tue, 12 Oct 2010 16:21:05 H0500`` delivered at ``16:21:05 -0400``). When the
    Date header is missing, unreadable or out of range, the newest ``Received`` header
    that holds a readable time in range gives the time (:func:`received_date`): the hop
    that delivered the mail, as a rule seconds after it was sent. Last comes ``stored``, the
    date of the mbox separator line the mail came after (``Tue Mar  3 10:00:00 2009``: when
    it was stored, read as :func:`mail_date` reads a Date, the same junk refused).

    Returns:
        ``(ms, "date")``; ``(ms, "date, zone from received")``; ``(ms, "received")``;
        ``(ms, "separator")``; or ``(None, None)`` when none of them holds a time.
    """
    now = _now(now_ms)
    if date:
        ms, zoned = _mail_date(date, now)
        if ms is not None:
            if not zoned:
                delivered = received_date(received, now_ms=now)
                if delivered is not None and abs(ms - delivered) <= _ZONE_GUESS_MS:
                    offset = round((ms - delivered) / _QUARTER_HOUR_MS) * _QUARTER_HOUR_MS
                    if _sane(ms - offset, now):
                        return ms - offset, "date, zone from received"
            return ms, "date"
    ms = received_date(received, now_ms=now)
    if ms is not None:
        return ms, "received"
    ms = _mail_date(stored, now)[0] if stored else None
    return (ms, "separator") if ms is not None else (None, None)


def received_date(values: list[str], *, now_ms: int | None = None) -> int | None:
    """Return the time of the newest ``Received`` header that has one, or None.

    A Received header's time follows its last ``;`` (RFC 5322 3.6.7); each relay adds its
    header on top, so the first one in the message is the newest: the final delivery.
    The headers are tried from the top, and the first readable time in range is taken
    (the topmost one, not the latest, because a relay's clock can be hours off). A header
    without ``;`` has no time: nothing else in it is read as one (an IP address such as
    ``1.2.3.4`` would look like a date).
    """
    now = _now(now_ms)
    for value in values[:_MAX_RECEIVED]:
        _, sep, stamp = value.rpartition(";")
        if sep:
            ms = mail_date(stamp, now_ms=now)
            if ms is not None:
                return ms
    return None


def mail_date(value: str, *, now_ms: int | None = None) -> int | None:
    """Return the epoch milliseconds a mail's Date header means, or None when it has none.

    Read as RFC 5322 writes it, and as mailers write it otherwise:

    - the zone: a numeric offset (``+0100``, ``+01:00``, ``+1``), which wins over a name;
      ``GMT+1`` / ``UTC-05:30`` (the offset from UTC); a name from :data:`ZONES`, in any
      case, after the time or in a comment (``10:00:00 CET``, ``10:00 (MESZ)``, ``cet``).
      An unknown name, an offset out of range (past 14 hours) or no zone at all: the wall
      clock time is read as UTC, as RFC 5322 reads ``-0000`` ("no information about the
      local time zone"), never as the zone of the machine reading the mail, so the same
      mail has the same time everywhere.
    - the date: a day, a month name (English; the usual short forms of a few other
      languages, ``Mär``, ``okt``, ``déc``) and a year in any order; or numbers:
      ``2009-03-03``, ``3.3.2009`` (day first), ``3/4/2009`` (month first, as in the US,
      unless the first number cannot be a month). Two-digit years are 2000-2049 and
      1950-1999, three-digit years count from 1900 (RFC 5322 4.3), and ``19109`` (a
      ``"19" + years-since-1900`` bug) is 2009.
    - the time: ``10:00``, ``10:00:00``, ``10:00:00.250``, ``10.00``, with ``am``/``pm``;
      a day alone is its midnight.
    - anything else (a weekday in any language, trailing words, comments) is passed over.

    A time that cannot be a mail's is junk, read as None: before 1900, in 1970 (a zero time
    stamp, from a clock never set: ``Thu, 01 Jan 1970 00:00:00 +0000``), or more than two
    days past ``now_ms`` (the current time when not given: a year 2038 or 3609). So is a
    day that the month does not have, or an hour past 24.

    Example:
        >>> mail_date("Tue, 3 Mar 2009 10:00:00 CET")
        1236070800000
        >>> mail_date("Tue, 3 Mar 2009 10:00:00 +0100 (CET)")
        1236070800000
    """
    return _mail_date(value, _now(now_ms))[0]


def _mail_date(value: str, now: int) -> tuple[int | None, bool]:
    """Return what :func:`mail_date` does, and whether the value named its zone."""
    read = _read(value[:_LONGEST].replace("\x00", " "))
    if read is None or not _sane(read[0], now):
        return None, False
    return read


def _sane(ms: int, now: int) -> bool:
    """Tell whether ``ms`` can be a mail's time (see :func:`mail_date`)."""
    if not _EARLIEST_MS <= ms <= now + _AHEAD_MS:
        return False
    return not _EPOCH_JUNK[0] <= ms < _EPOCH_JUNK[1]


def _now(now_ms: int | None) -> int:
    return int(time.time() * 1000) if now_ms is None else now_ms


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


def _read(value: str) -> tuple[int, bool] | None:
    """Return the instant a date means (a wall clock time as UTC without a zone) and
    whether it named its zone."""
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
    return _MONTHS.get(word.lower().rstrip("."))


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
    a junk word (``out``): the month is the first word that touches a number (``3 Mar``,
    ``Mar 3``), an English one before another.
    """
    if len(months) == 1:
        return months[0][1]
    at = {i for i, _ in numbers}

    def score(entry: tuple[int, int]) -> int:
        i = entry[0]
        touches = (i - 1) in at or (i + 1) in at
        english = tokens[i].group(0).lower().rstrip(".") in _ENGLISH
        return 2 * touches + english

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
