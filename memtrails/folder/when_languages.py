"""Times named in other languages than English, written out in the English that when.py reads.

A question in Korean, Chinese, Japanese, Russian, Arabic, Hindi, German, French, Spanish,
Portuguese or Italian names its times its own way ("지난주", "2019年5月", "в прошлом году",
"पिछले महीने", "letzte Woche", "il y a trois jours", "en mayo"). Rather than a second parser, each
such phrase is rewritten as the English phrase it means ("last week", "May 2019", "last
year", "last month"), and :func:`memtrails.folder.when.query_windows` reads those beside the
query. Only unambiguous phrases are listed: Hindi "कल" is yesterday and tomorrow alike, and
Chinese "最近的" is "the nearest", so neither is read as a time.
"""

# ruff: noqa: RUF001, RUF002 (Cyrillic, Arabic and CJK text, with its own punctuation, on purpose)
from __future__ import annotations

import calendar
import re

from .when_phrases import NOT_BEFORE, PARTS_OF_YEAR, PHRASES

__all__ = ["READ_CHARS", "WHEN_WORDS", "times_in_english"]

#: How much of a question is read for its times (its head).
READ_CHARS = 2000

#: The word for "when" in Korean, Russian, Chinese, Japanese, Arabic, Hindi, German and
#: Spanish, anywhere in a question (their questions do not always start with it).
WHEN_WORDS = re.compile(
    # not "언제나"/"언제든" (always, any time) nor "いつも"/"いつか" (always, some day)
    r"언제(?!나|든)|(?<![\u0400-\u04ff])когда(?![\u0400-\u04ff])|什么时候|什麼時候|何时|何時|哪天"
    r"|几月|いつ(?![もか])"
    r"|متى|(?<![\u0900-\u097f])कब(?![\u0900-\u097f])"
    # German, Spanish; French, Portuguese and Italian "quand(o)" only first ("when" as a
    # conjunction comes later: "what did you do when ...")
    r"|\bwann\b|\bcuándo\b|^\W*(?:quand|quando)\b",
    re.I,
)

# Arabic-Indic, Eastern Arabic-Indic and Devanagari digits as ASCII (NFKC leaves them).
_DIGITS = str.maketrans(
    {
        **{chr(0x0660 + n): str(n) for n in range(10)},
        **{chr(0x06F0 + n): str(n) for n in range(10)},
        **{chr(0x0966 + n): str(n) for n in range(10)},
    }
)

# Chinese and Japanese numerals up to twelve, for months and counts ("五月", "三天前").
_HAN_NUMBERS = {
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
    "十": 10,
    "十一": 11,
    "十二": 12,
}
_HAN_NUMBER = "十二|十一|十|[一二两三四五六七八九]"


def _number(text: str) -> int:
    if text.isdigit():
        return int(text)
    return _HAN_NUMBERS.get(text) or _WORD_NUMBERS.get(text) or _EU_COUNT.get(text, 1)


# Small counts written as words ("два дня назад", "한 달 전").
_WORD_NUMBERS = {
    "один": 1,
    "одну": 1,
    "два": 2,
    "две": 2,
    "три": 3,
    "четыре": 4,
    "пять": 5,
    "шесть": 6,
    "한": 1,
    "두": 2,
    "세": 3,
    "네": 4,
}


def _month(n: int) -> str | None:
    return calendar.month_name[n] if 1 <= n <= 12 else None


# Month names by language, January first.
_RU_MONTHS_IN = "январе феврале марте апреле мае июне июле августе сентябре октябре ноябре декабре"
_RU_MONTHS_OF = "января февраля марта апреля мая июня июля августа сентября октября ноября декабря"
_AR_MONTHS = [
    ("يناير", "كانون الثاني"),
    ("فبراير", "شباط"),
    ("مارس", "آذار"),
    ("أبريل|ابريل|إبريل", "نيسان"),
    ("مايو", "أيار"),
    ("يونيو", "حزيران"),
    ("يوليو", "تموز"),
    ("أغسطس|اغسطس", "آب"),
    ("سبتمبر", "أيلول"),
    ("أكتوبر|اكتوبر", "تشرين الأول"),
    ("نوفمبر", "تشرين الثاني"),
    ("ديسمبر", "كانون الأول"),
]
_HI_MONTHS = [
    "जनवरी",
    "फ़रवरी|फरवरी",
    "मार्च",
    "अप्रैल",
    "मई",
    "जून",
    "जुलाई",
    "अगस्त",
    "सितंबर|सितम्बर",
    "अक्टूबर",
    "नवंबर|नवम्बर",
    "दिसंबर|दिसम्बर",
]


def _alternatives(names: list[str]) -> str:
    # Longest first, so that "تشرين الثاني" is not read as its first word.
    return "|".join(sorted((n for name in names for n in name.split("|")), key=len, reverse=True))


def _index_of(names: list[str]) -> dict[str, int]:
    return {n: i + 1 for i, name in enumerate(names) for n in name.split("|")}


# The Russian names by case, one word a month; the Arabic ones as both calendars name them.
_RU_IN = _index_of(_RU_MONTHS_IN.split(" "))
_RU_OF = _index_of(_RU_MONTHS_OF.split(" "))
_AR = _index_of(["|".join(pair) for pair in _AR_MONTHS])
_HI = _index_of(_HI_MONTHS)
_AR_MONTH = _alternatives(list(_AR))
_HI_MONTH = _alternatives(_HI_MONTHS)
_RU_MONTH_IN = _alternatives(list(_RU_IN))
_RU_MONTH_OF = _alternatives(list(_RU_OF))


def _date(year: str | None, month: int | None, day: str | None = None) -> str | None:
    name = _month(month) if month is not None else None
    if name is None:
        return f"in {year}" if year else None
    if year and day:
        return f"{int(day)} {name} {year}"
    if year:
        return f"{name} {year}"
    return f"in {name}"


# Dates with their parts in Korean, Chinese and Japanese order (year, month, day markers).
_CJK_DATE = re.compile(
    rf"(?:(\d{{4}})\s*[년年]\s*)?(?:(\d{{1,2}}|{_HAN_NUMBER})\s*[월月](?:\s*(\d{{1,2}})\s*[일日号號])?)"
    r"|(\d{4})\s*[년年]"
)


def _ago(n: int, unit: str) -> str:
    return f"{n} {unit}{'s' if n != 1 else ''} ago"


def _cjk_date(m: re.Match[str]) -> str | None:
    year, month, day, year_alone = m.groups()
    if year_alone:
        return f"in {year_alone}"
    return _date(year, _number(month), day)


# "3 мая 2019", "мае 2019", "в мае", "в 2019 году".
_RU_DAY = re.compile(rf"(\d{{1,2}})\s+({_RU_MONTH_OF})\s+(\d{{4}})", re.I)
_RU_MONTH_YEAR = re.compile(rf"\b({_RU_MONTH_IN}|{_RU_MONTH_OF})\s+(\d{{4}})", re.I)
_RU_IN_MONTH = re.compile(rf"\bв\s+({_RU_MONTH_IN})\b", re.I)
_AR_MONTH_YEAR = re.compile(rf"({_AR_MONTH})\s+(?:عام\s+|سنة\s+)?(\d{{4}})")
_AR_IN_MONTH = re.compile(rf"في\s+(?:شهر\s+)?({_AR_MONTH})")
_HI_DAY = re.compile(rf"(\d{{1,2}})\s+({_HI_MONTH})\s+(\d{{4}})")
_HI_MONTH_YEAR = re.compile(rf"({_HI_MONTH})\s+(\d{{4}})")
_HI_IN_MONTH = re.compile(rf"({_HI_MONTH})\s+(?:के\s+महीने\s+)?में")

# German, French, Spanish, Portuguese and Italian month names, January first.
_EU_MONTHS = [
    "januar|janvier|enero|janeiro|gennaio",
    "februar|février|febrero|fevereiro|febbraio",
    "märz|mars|marzo|março",
    "april|avril|abril|aprile",
    "mai|mayo|maio|maggio",
    "juni|juin|junio|junho|giugno",
    "juli|juillet|julio|julho|luglio",
    "august|août|agosto",
    "september|septembre|septiembre|setembro|settembre",
    "oktober|octobre|octubre|outubro|ottobre",
    "november|novembre|noviembre|novembro",
    "dezember|décembre|diciembre|dezembro|dicembre",
]
_EU = _index_of(_EU_MONTHS)
_EU_MONTH = _alternatives(_EU_MONTHS)
# "im Mai", "en mai", "en mayo", "em maio"; Italian "a maggio", "in maggio" with its own
# names only ("a mars bar" is no month)
_IT_MONTH = (
    "gennaio|febbraio|marzo|aprile|maggio|giugno|luglio|agosto|settembre|ottobre|novembre|dicembre"
)
_EU_IN_MONTH = re.compile(
    rf"\b(?:(?:im|en|em)\s+({_EU_MONTH})|(?:a|ad|in|nel|di)\s+({_IT_MONTH}))\b", re.I
)
# "3. Mai 2019", "3 mai 2019", "3 de mayo de 2019", "3 maggio 2019"
_EU_DAY = re.compile(rf"\b(\d{{1,2}})\.?\s+(?:de\s+)?({_EU_MONTH})\s+(?:de\s+)?(\d{{4}})\b", re.I)
_EU_MONTH_YEAR = re.compile(rf"\b({_EU_MONTH})\s+(?:de\s+)?(\d{{4}})\b", re.I)

# "vor drei Wochen", "il y a trois semaines", "hace tres semanas", "há três semanas",
# "tre settimane fa": the count, then the unit, each language's words for them.
_EU_COUNT = {
    "ein": 1,
    "einem": 1,
    "einer": 1,
    "un": 1,
    "une": 1,
    "una": 1,
    "um": 1,
    "uma": 1,
    "zwei": 2,
    "deux": 2,
    "dos": 2,
    "dois": 2,
    "duas": 2,
    "due": 2,
    "drei": 3,
    "trois": 3,
    "tres": 3,
    "três": 3,
    "tre": 3,
    "vier": 4,
    "quatre": 4,
    "cuatro": 4,
    "quatro": 4,
    "quattro": 4,
    "fünf": 5,
    "cinq": 5,
    "cinco": 5,
    "cinque": 5,
}
_EU_UNIT = {
    **dict.fromkeys(
        ["tag", "tagen", "jour", "jours", "día", "días", "dia", "dias", "giorno", "giorni"], "day"
    ),
    **dict.fromkeys(
        ["woche", "wochen", "semaine", "semaines", "semana", "semanas", "settimana", "settimane"],
        "week",
    ),
    **dict.fromkeys(["monat", "monaten", "mois", "mes", "meses", "mês", "mese", "mesi"], "month"),
    **dict.fromkeys(
        [
            "jahr",
            "jahren",
            "an",
            "ans",
            "année",
            "années",
            "año",
            "años",
            "ano",
            "anos",
            "anno",
            "anni",
        ],
        "year",
    ),
}
_EU_COUNTS = "|".join(sorted(_EU_COUNT, key=len, reverse=True))
_EU_UNITS = "|".join(sorted(_EU_UNIT, key=len, reverse=True))
_EU_AGO = [
    re.compile(rf"\b(?:vor|il\s+y\s+a|hace|há)\s+(\d+|{_EU_COUNTS})\s+({_EU_UNITS})\b", re.I),
    re.compile(rf"\b(\d+|{_EU_COUNTS})\s+({_EU_UNITS})\s+fa\b", re.I),
]

# "last Friday": the weekday's English name (calendar.day_name) from each language's, Monday
# first.
_LAST_WEEKDAY: list[tuple[re.Pattern[str], list[str]]] = [
    (
        re.compile(r"\b(?:letzten|vergangenen|vorigen)\s+(\w+tag|mittwoch)\b", re.I),
        ["montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag"],
    ),
    (
        re.compile(r"\b(\w+di|dimanche)\s+dernier\b", re.I),
        ["lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"],
    ),
    (
        re.compile(r"\bel\s+(\w+)\s+pasado\b", re.I),
        ["lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"],
    ),
    (
        re.compile(r"\b(\w+)(?:-feira)?\s+passad[ao]\b", re.I),
        ["segunda", "terça", "quarta", "quinta", "sexta", "sábado", "domingo"],
    ),
    (
        re.compile(r"\b(\w+)\s+scors[oa]\b", re.I),
        ["lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato", "domenica"],
    ),
    (
        re.compile(r"в\s+прошл(?:ый|ую|ое)\s+(\w+)", re.I),
        ["понедельник", "вторник", "среду", "четверг", "пятницу", "субботу", "воскресенье"],
    ),
    (re.compile(r"지난\s*(\w)요일"), ["월", "화", "수", "목", "금", "토", "일"]),
]

# "N units ago" in each language: (pattern with the count first, the unit's English name).
_AGO: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"(\d+|{_HAN_NUMBER})\s*(?:天|日)前"), "day"),
    (re.compile(rf"(\d+|{_HAN_NUMBER})\s*(?:周|週間|個星期|个星期|星期)前"), "week"),
    (re.compile(rf"(\d+|{_HAN_NUMBER})\s*(?:个月|個月|[かヶケカ]月)前"), "month"),
    (re.compile(rf"(\d+|{_HAN_NUMBER})\s*年前"), "year"),
    (re.compile(r"(\d+|[한두세네])\s*일\s*전"), "day"),
    (re.compile(r"(\d+|[한두세네])\s*주\s*전"), "week"),
    (re.compile(r"(\d+|[한두세네])\s*(?:달|개월)\s*전"), "month"),
    (re.compile(r"(\d+|[한두세네])\s*년\s*전"), "year"),
    (re.compile(r"(\d+|один|два|три|четыре|пять|шесть)\s+(?:день|дня|дней)\s+назад", re.I), "day"),
    (re.compile(r"(\d+|одну|две|три|четыре|пять|шесть)\s+(?:недел[юиь])\s+назад", re.I), "week"),
    (re.compile(r"(\d+|один|два|три|четыре|пять|шесть)\s+(?:месяц[аев]*)\s+назад", re.I), "month"),
    (re.compile(r"(\d+|один|два|три|четыре|пять|шесть)\s+(?:год[а]?|лет)\s+назад", re.I), "year"),
    (re.compile(r"(\d+)\s+(?:दिन)\s+पहले"), "day"),
    (re.compile(r"(\d+)\s+(?:हफ़्ते|हफ्ते|सप्ताह)\s+पहले"), "week"),
    (re.compile(r"(\d+)\s+(?:महीने|महीना)\s+पहले"), "month"),
    (re.compile(r"(\d+)\s+(?:साल|वर्ष)\s+पहले"), "year"),
]
# A unit ago with no count: "неделю назад", "일주일 전", "한 달 전" (one), "이틀 전" (two).
_ONE_AGO: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bнеделю\s+назад", re.I), "1 week ago"),
    (re.compile(r"\bмесяц\s+назад", re.I), "1 month ago"),
    (re.compile(r"\bгод\s+назад", re.I), "1 year ago"),
    (re.compile(r"일주일\s*전"), "1 week ago"),
    (re.compile(r"이틀\s*전"), "2 days ago"),
    (re.compile(r"사흘\s*전"), "3 days ago"),
]

_CYRILLIC, _ARABIC, _DEVANAGARI = "\u0400-\u04ff", "\u0600-\u06ff", "\u0900-\u097f"
# Arabic letters and marks, not its punctuation ("؟", "،", "؛" come before U+0620).
_ARABIC_LETTERS = "\u0620-\u065f\u066e-\u06ff"


def _phrase_pattern(phrase: str) -> re.Pattern[str]:
    """Match a phrase as words of its script: Korean particles and Arabic prefixes attach
    ("지난주에", "والأسبوع الماضي"), but "вчера" is not in "позавчера" nor "أمس" in "أمسية"."""
    quoted = re.escape(phrase)
    first = phrase[0]
    if re.match(f"[{_CYRILLIC}]", first):
        return re.compile(rf"(?<![{_CYRILLIC}]){quoted}(?![{_CYRILLIC}])", re.I)
    if re.match(f"[{_ARABIC}]", first):
        return re.compile(rf"{quoted}(?![{_ARABIC_LETTERS}])")
    if re.match(f"[{_DEVANAGARI}]", first):
        return re.compile(rf"(?<![{_DEVANAGARI}]){quoted}(?![{_DEVANAGARI}])")
    if re.match(r"[a-zà-ÿ]", first):
        # Latin script: whole words, and "l'année" with either apostrophe
        quoted = quoted.replace("'", "['\u2019]")
        return re.compile(rf"(?<![\w'\u2019-]){quoted}(?![\w-])", re.I)
    if phrase in NOT_BEFORE:
        return re.compile(rf"{quoted}(?!{NOT_BEFORE[phrase]})")
    return re.compile(quoted)


_PHRASE_PATTERNS = [(_phrase_pattern(phrase), english) for phrase, english in PHRASES]
_PART_PATTERNS = [(re.compile(pattern, re.I), part) for pattern, part in PARTS_OF_YEAR]
# The words of German, French, Spanish, Portuguese and Italian times that are no phrase of
# their own ("vor 3 Tagen", "hace 2 días", "il y a", "há 2 dias"), written once for both
# `_LATIN_WORDS` and the words `_latin_time_words` looks for first: the plain words, and the
# patterns with their first word.
_LATIN_TIME_WORDS = (
    *("vor", "letzten", "vergangenen", "vorigen", "dernier", "hace", "pasado", "fa"),
    *("passado", "passada", "scorso", "scorsa"),
    # the parts of a year (when_phrases.PARTS_OF_YEAR)
    *("anfang", "beginn", "mitte", "ende", "ersten", "erste", "zweiten", "zweite", "mi"),
    *("milieu", "fin", "principios", "comienzos", "inicio", "comeco", "mediados", "meados"),
    *("finales", "fines", "final", "fim", "inizio", "fine"),
)
_LATIN_TIME_PATTERNS = {r"y\s+a": "y", "h[aá]": "ha"}
# An ASCII text is German, French, Spanish, Portuguese or Italian at most: most are English,
# and one search for any of those languages' words spares them the rest (82 -> 20 us).
_LATIN_WORDS = re.compile(
    r"\b(?:"
    + "|".join(re.escape(p).replace("'", "['\u2019]") for p, _ in PHRASES if p.isascii())
    + f"|{_EU_MONTH}|"
    + "|".join((*_LATIN_TIME_WORDS, *_LATIN_TIME_PATTERNS))
    + r")\b",
    re.I,
)


# The same question asked word by word: the first word of each of those phrases, and the
# words of the rest. A set lookup per word of a text costs a fraction of the alternation's
# search, which a long passage (names_a_time reads every candidate's) paid in full; the
# alternation still decides, only for texts holding one of the words.
_LETTERS = re.compile(r"[^\W\d_]+")
_LATIN_FIRST_WORDS = frozenset(
    [_LETTERS.findall(p.lower())[0] for p, _ in PHRASES if p.isascii() and _LETTERS.search(p)]
    + [n for name in _EU_MONTHS for n in name.split("|") if n.isascii()]
    + [*_LATIN_TIME_WORDS, *_LATIN_TIME_PATTERNS.values()]
)


def _latin_time_words(text: str) -> bool:
    """Whether an ASCII ``text`` may name a time in German, French, Spanish, Portuguese or
    Italian (``_LATIN_WORDS`` finds one)."""
    return not _LATIN_FIRST_WORDS.isdisjoint(_LETTERS.findall(text.lower())) and bool(
        _LATIN_WORDS.search(text)
    )


def times_in_english(query: str) -> str:
    """Return the times ``query`` names in another language, as English phrases; "" if none.

    Dates first (a day, a month of a year, a month, a year), then a count of units ago, then
    the fixed relative phrases: the first of each form, in that order, joined by " ; ". Only
    the first READ_CHARS characters are read: a question longer than that is pasted text,
    and a hostile one must not cost seconds.

    Example:
        >>> times_in_english("지난주에 무엇을 배포했나요?")
        'last week'
        >>> times_in_english("2019年5月去了哪里？")
        'May 2019'
        >>> times_in_english("Что мы решили в прошлом году?")
        'last year'
    """
    query = query[:READ_CHARS]
    if query.isascii() and not _latin_time_words(query):
        return ""
    text = query.translate(_DIGITS)
    found: list[str] = []

    def add(phrase: str | None) -> None:
        if phrase and phrase not in found:
            found.append(phrase)

    if (m := _CJK_DATE.search(text)) is not None:
        add(_cjk_date(m))
    if (m := _RU_DAY.search(text)) is not None:
        add(_date(m.group(3), _RU_OF[m.group(2).lower()], m.group(1)))
    if (m := _RU_MONTH_YEAR.search(text)) is not None:
        name = m.group(1).lower()
        add(_date(m.group(2), _RU_IN.get(name) or _RU_OF[name]))
    if (m := _RU_IN_MONTH.search(text)) is not None:
        add(_date(None, _RU_IN[m.group(1).lower()]))
    if (m := _AR_MONTH_YEAR.search(text)) is not None:
        add(_date(m.group(2), _AR[m.group(1)]))
    if (m := _AR_IN_MONTH.search(text)) is not None:
        add(_date(None, _AR[m.group(1)]))
    if (m := _HI_DAY.search(text)) is not None:
        add(_date(m.group(3), _HI[m.group(2)], m.group(1)))
    if (m := _HI_MONTH_YEAR.search(text)) is not None:
        add(_date(m.group(2), _HI[m.group(1)]))
    if (m := _HI_IN_MONTH.search(text)) is not None:
        add(_date(None, _HI[m.group(1)]))
    if (m := _EU_DAY.search(text)) is not None:
        add(_date(m.group(3), _EU[m.group(2).lower()], m.group(1)))
    if (m := _EU_MONTH_YEAR.search(text)) is not None:
        add(_date(m.group(2), _EU[m.group(1).lower()]))
    if (m := _EU_IN_MONTH.search(text)) is not None:
        add(_date(None, _EU[(m.group(1) or m.group(2)).lower()]))
    for pattern in _EU_AGO:
        if (m := pattern.search(text)) is not None:
            add(_ago(_number(m.group(1).lower()), _EU_UNIT[m.group(2).lower()]))
    for pattern, names in _LAST_WEEKDAY:
        for m in pattern.finditer(text):
            if (day := m.group(1).lower()) in names:
                add(f"last {calendar.day_name[names.index(day)]}")
                break
    for pattern, unit in _AGO:
        if (m := pattern.search(text)) is not None:
            add(_ago(_number(m.group(1).lower()), unit))
    for pattern, phrase in _ONE_AGO:
        if pattern.search(text):
            add(phrase)
    for pattern, english in _PHRASE_PATTERNS:
        if pattern.search(text):
            add(english)
    for pattern, part in _PART_PATTERNS:
        if (m := pattern.search(text)) is not None:
            add(f"{part} {m.group('year')}")
    return " ; ".join(found)
