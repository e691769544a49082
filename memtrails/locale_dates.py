"""Days and clocks as some locales write them and ``Date.parse`` misreads or reads not at all,
rewritten as it reads them: "AM"/"PM" (or "下午", "오후", Amharic's "ከሰዓት") before a clock,
Albanian's "m.d." and "p.d." (or Amharic's words) after one, Canadian French's "10 h 30 min
15 s", Korean's short day ("24. 5. 3.", year first), a year written first with its word for
"year" ("2024. gada 3. maijs", "2024 m. gegužės 3 d."), Indic forms' words around a day
("3 मई 2024 को 10:30 am बजे"), and Vietnamese days ("ngày 3 tháng 5 năm 2024").

``world_dates.plain_date_text`` applies :func:`locale_forms` to every value first; the
result is read as any other (local time where no zone is written).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["locale_forms"]

# "PM 10:13:20" (Korean's Latin forms) and "下午10:13" (Taiwan's, after a slashed day) were
# read as 10:13 in the morning: Date.parse takes a meridiem only after the clock.
_HALF_FIRST = re.compile(
    r"(?:\b([AaPp])\.?[Mm]\.?|(上午|凌晨|早上|中午|下午|晚上|午前|午後|오전|오후|ጥዋት|ከሰዓት))\s*"
    r"(\d{1,2}:\d\d(?::\d\d)?)(?![\d:])"
)
# Assamese's forenoon and afternoon before a dotted clock ("অপৰাহ্ন 11.40": 23:40).
_ASSAMESE_HALF = re.compile(r"(পূৰ্বাহ্ন|অপৰাহ্ন)\s*(\d{1,2})\.(\d\d)(?![\d.:])")
# Welsh's "am" (at) between the year and the clock ("20 Mehefin 2001 am 12:16"), not "a.m.".
_WELSH_AT = re.compile(r"(?<=\d{4}) am(?=\s+\d{1,2}:\d\d)")
_AFTERNOON = frozenset({"中午", "下午", "晚上", "午後", "오후", "ከሰዓት"})
# After a clock: Albanian's pasdite and paradite, Amharic's morning and afternoon.
_HALF_AFTER = re.compile(r"(?<=\d)\s*(m\.d\.|p\.d\.|ጥዋት|ከሰዓት)(?!\w)")
_CLOCK_UNITS = re.compile(r"(?<![\d:])(\d{1,2}) h (\d\d) min(?: (\d\d) s)?(?!\w)")
# Korean's short day, year first and two digits ("24. 5. 3."; Serbian writes "3. 5. 2024."):
# it was read day first, 24 May 2003.
_KOREAN_SHORT = re.compile(r"\s*(\d\d)\. (\d{1,2})\. (\d{1,2})\.(?![\d.])(.*)", re.S | re.A)

# Vietnamese: "tháng" is month, "thg" its abbreviation, "năm" year, "ngày" day; a weekday
# ("Thứ Sáu", "Chủ Nhật": "năm" is five in "Thứ Năm", Thursday) and "lúc" ("at") are passed
# over; "SA"/"CH" after a clock are before and after noon.
_VI_SIGN = re.compile(r"th(?:áng|g)\b|ngày", re.I)
_VI_WEEKDAY = re.compile(r"(?:th[ứu]\s+(?:hai|ba|tư|năm|sáu|bảy)|chủ\s+nhật)\s*,?", re.I)
_VI_AT = re.compile(r"\b(?:vào\s+)?lúc\b|\bvào\b", re.I)
_VI_DAY = re.compile(
    r"(?:ngày\s*)?(\d{1,2})\s*(?:th(?:áng|g)\.?\s*(\d{1,2})\s*(?:,|\s+năm|\s)\s*(\d{4})"
    r"|/(\d{1,2})/(\d{4}))(?!\d)",
    re.I,
)
_VI_MONTH = re.compile(r"th(?:áng|g)\.?\s*(\d{1,2})\s*(?:,|\s+năm|\s)\s*(\d{4})(?!\d)", re.I)
# Indic forms' words around a day and a clock: Hindi's "को" (on) and "बजे" (o'clock),
# Marathi's "रोजी", "वाजता", Kannada's "ರಂದು", "ಸಮಯಕ್ಕೆ", a case ending on "AM" (Telugu's "AMకి",
# Malayalam's "AM-ന്"), a weekday after the day (Telugu's "3, మే 2024, శుక్రవారం"): the day and
# the clock are read without them.
_INDIC_SIGN = re.compile(r"[\u0900-\u0d7f]")
_INDIC_WORDS = re.compile(
    r"(?<!\S)(?:को|बजे|रोजी|वाजता|ರಂದು|ಸಮಯಕ್ಕೆ|\S*(?:वार|बार|বার|বাৰ|ਵਾਰ|વાર|ବାର|వారం|ವಾರ|ാഴ്ച)"
    r"|ஞாயிறு|திங்கள்|செவ்வாய்|புதன்|வியாழன்|வெள்ளி|சனி)(?!\S)|(?<=[AaPp][Mm])-?[\u0900-\u0d7f]+"
)
# A year written first with its word for "year" (Latvian's "2024. gada 3. maijs", Lithuanian's
# "2024 m. gegužės 3 d.", Kazakh's "2024 ж. 3 мамыр", Armenian's "2024 թ. մայիսի 3", Basque's
# "2024(e)ko maiatzaren 3(a)") goes after its day, as the month readers take it; Armenian's
# "3 մայիսի, 2024 թ." loses the word. Basque writes the clock in brackets: "(10:30)", and as
# people write it, its year's and day's endings without them ("2024ko maiatzaren 5a", "5ean").
# A weekday after the day and a comma goes ("2024 m. gegužės 5 d., ketvirtadienis").
_YEAR_WORD = re.compile(
    r"(?<!\d)(\d{4})(?:\.\s*(?:gada|g\.)|\s*(?:m\.|ж\.|թ[.\u2024])|\(e\)ko|-?e?ko)(?!\w)"
)
_DAY_END = re.compile(
    r"(?<=\d)(?:\s*d\.|\(a\)|(?:a|e?an|n)(?![^\W\d_]))|\((\d{1,2}:\d\d(?::\d\d)?)\)"
)
_WEEKDAY_AFTER = re.compile(r"\s*[^\W\d_]+\.?\s*")
_VI_HALF = re.compile(r"(?<=\d)\s*\b(SA|CH)\b", re.I)
_CLOCK_LEFT = re.compile(r"[\d:.\s]*(?:[ap]m)?\s*", re.I)


def locale_forms(value: str) -> str:
    """Return ``value`` with the forms above as ``Date.parse`` reads them ("10:13 pm",
    "2024/05/03"), or as it is.

    Example:
        >>> locale_forms("ngày 3 tháng 5 năm 2024 lúc 10:30"), locale_forms("24. 5. 3.")
        ('2024/05/03 10:30', '2024/05/03')
    """
    if "ৰাহ্ন" in value:
        value = _ASSAMESE_HALF.sub(
            lambda h: f"{h[2]}:{h[3]} {'a' if h[1][0] == 'প' else 'p'}m", value
        )
    if ":" in value or " h " in value:
        value = _HALF_FIRST.sub(_half_last, _WELSH_AT.sub("", value))
        value = _HALF_AFTER.sub(lambda h: " pm" if h[1] in ("m.d.", "ከሰዓት") else " am", value)
        value = _CLOCK_UNITS.sub(lambda c: f"{c[1]}:{c[2]}:{c[3] or '00'}", value)
    if (k := _KOREAN_SHORT.fullmatch(value)) is not None:
        year = int(k[1]) + (2000 if int(k[1]) < 50 else 1900)  # Date.parse's two-digit years
        return f"{year}/{int(k[2]):02d}/{int(k[3]):02d}{k[4]}"
    if (y := _YEAR_WORD.search(value)) is not None:
        head, comma, tail = value[y.end() :].partition(",")
        day = _day_end(f"{value[: y.start()]}{head}").strip()
        if _WEEKDAY_AFTER.fullmatch(tail):  # ", šeštadienis", ", շաբաթ", ", larunbata"
            comma = tail = ""
        value = f"{day} {y[1]}{comma}{_day_end(tail)}"
    if not value.isascii():
        value = unicodedata.normalize("NFC", value)
        if _INDIC_SIGN.search(value):
            value = value.replace("\u200c", "").replace("\u200d", "").replace("\u0970", ".")
            value = _INDIC_WORDS.sub("", value)  # "\u0970": Devanagari's abbreviation sign
            value = " ".join(value.replace(" ,", ",").split()).strip(" ,")
    return (_VI_SIGN.search(value) and _vietnamese(value)) or value


def _day_end(text: str) -> str:
    """``text`` without Lithuanian's "d." and Basque's "(a)" after a day, a clock in brackets
    without its brackets."""
    return _DAY_END.sub(lambda c: f" {c[1]}" if c[1] else "", text)


def _half_last(m: re.Match[str]) -> str:
    half = m[1].lower() if m[1] else "p" if m[2] in _AFTERNOON else "a"
    return f"{m[3]} {half}m"


def _vietnamese(value: str) -> str | None:
    """A Vietnamese day (its clock after it), or None when ``value`` holds more than a day
    and a clock: a word left over is not guessed at."""
    text = _VI_AT.sub(" ", _VI_WEEKDAY.sub(" ", value))
    if (m := _VI_DAY.search(text)) is not None:
        month, year = (m[2], m[3]) if m[2] else (m[4], m[5])
        day = f"{year}/{int(month):02d}/{int(m[1]):02d}"
    elif (m := _VI_MONTH.search(text)) is not None:
        day = f"{m[2]}/{int(m[1]):02d}/01"
    else:
        return None
    rest = f"{text[: m.start()]} {text[m.end() :]}"
    rest = _VI_HALF.sub(lambda h: " am" if h[1].lower() == "sa" else " pm", rest)
    rest = " ".join(rest.replace(",", " ").split())
    if not _CLOCK_LEFT.fullmatch(rest):
        return None
    return f"{day} {rest}".strip()
