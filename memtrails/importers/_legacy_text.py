"""Read text that is not valid UTF-8: in the legacy charset its letters show, on evidence.

A detector needs many 8-bit bytes to tell charsets apart; a short note or a JSON line holds
a handful (``Привет мир`` in Windows-1251 is ten bytes), and charset-normalizer then reads
KOI8-R as Shift_JIS or Greek as Korean. Each candidate charset here is tried on the words
that hold 8-bit bytes, and scored by what no language writes: a symbol or a control
character inside a word, two scripts in one word (``cafи``), a lower-case letter followed
by a capital (``рТЙЧЕФ``), a Latin word of accented letters only (``Ìîñêâà``: a Cyrillic
word read as Windows-1252). Windows-1252 (UTF-8, for text mostly in it) stands unless
another charset reads the words with clearly fewer such faults; between Cyrillic code pages
that read them equally well, the one whose letters are the more frequent in Russian.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

from ._cjk_common import is_cjk_common
from ._legacy_langs import LANGUAGES, language_score
from .mail.charsets import guess_charset

__all__ = [
    "DOUBLE_BYTE",
    "LEGACY_ORDER",
    "decode_as",
    "decode_legacy",
    "faulty_words",
    "letter_scripts",
    "lone_cr_as_lf",
    "reading",
    "readings",
    "utf8_first",
]

# The single-byte code pages text without a declared charset is most often in, in the
# order a tie goes: Western, Cyrillic (Windows, KOI8-R, DOS), Central European, Greek, Arabic.
_SINGLE_BYTE = ("cp1252", "cp1251", "koi8_r", "cp866", "cp1250", "cp1253", "cp1256")
# and, told from them by their words' language (see _legacy_langs), the rest of the family:
# Turkish, Baltic, Hebrew, Ukrainian KOI8, the ISO pages that differ from Windows' (Polish
# and Czech letters in ISO-8859-2 are symbols in Windows-1250), Mac Roman.
# Vietnamese in Windows-1258 writes a tone as a combining mark after its letter (Việt is
# Vi, ê, a combining dot below, t): read, it is composed (NFC), as it is typed.
_MORE_SINGLE = (
    *("cp1254", "cp1257", "cp1255", "koi8_u", "iso8859_2", "iso8859_7", "mac_roman"),
    "cp1258",
)
_COMPOSED = frozenset({"cp1258"})
# The double-byte charsets of Japanese, Korean and Chinese, after them: a reading in one is
# chosen only with fewer faults than every single-byte reading (a rare Han character or
# Hangul syllable is one, kana in a Chinese or Korean reading too: GB 2312 holds kana, but
# Chinese text does not use them); between them, the reading with the more kana or Hangul
# wins (Korean read as Chinese is common Han too), else the first: Chinese.
_DOUBLE_ORDER = ("gb18030", "big5", "cp932", "euc_jp", "cp949")
_DOUBLE_BYTE = frozenset(_DOUBLE_ORDER)
#: The double-byte charsets tried (Chinese, Japanese, Korean).
DOUBLE_BYTE = _DOUBLE_BYTE
#: The single-byte code pages tried, in the order text is most often written in them.
LEGACY_ORDER = (*_SINGLE_BYTE, *_MORE_SINGLE)
_NO_KANA = frozenset({"gb18030", "big5", "cp949"})
_UTF8 = "utf-8"
_ASCII_SIGNS = b"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~0123456789"
_MARGIN = 2  # the faults another charset must save over the default to be chosen
_SAMPLE = 256 * 1024  # bytes looked at
_MAX_WORDS = 4096
_MIN_DETECT = 16  # 8-bit bytes below which a detector's guess is not asked for
_SCRIPTS = {
    "LATIN": "Latin",
    "CYRILLIC": "Cyrillic",
    "GREEK": "Greek",
    "ARABIC": "Arabic",
    "HEBREW": "Hebrew",
    "HANGUL": "Hangul",
    "CJK": "CJK",
    "HIRAGANA": "CJK",
    "KATAKANA": "CJK",
}


@functools.lru_cache(maxsize=8192)
def _script(char: str) -> str | None:
    name = unicodedata.name(char, "")
    first = name.split(" ", 1)[0]
    if first == "HALFWIDTH" and "KATAKANA" in name:
        return "CJK"
    return _SCRIPTS.get(first)


def _utf8_mixed(data: bytes) -> str:
    """Decode UTF-8 whose stray bytes (not UTF-8) are Windows-1252, each on its own."""
    text = data.decode("utf-8", "surrogateescape")
    if not any("\udc80" <= c <= "\udcff" for c in text):
        return text
    return "".join(
        bytes([ord(c) - 0xDC00]).decode("cp1252", "replace") if "\udc80" <= c <= "\udcff" else c
        for c in text
    )


def _decode(data: bytes, codec: str) -> str:
    if codec == _UTF8:
        return _utf8_mixed(data)
    if codec in _COMPOSED:
        return unicodedata.normalize("NFC", data.decode(codec, "replace"))
    return data.decode(codec, "replace")


def _faults(word: str) -> int:
    """Count what no language writes in one word (a run of text between white space)."""
    faults = 0
    scripts: set[str] = set()
    run: list[str] = []  # the letters of the current run
    for k, char in enumerate(word):
        category = unicodedata.category(char)
        if category[0] in "LM":
            if category == "Lu" and run and unicodedata.category(run[-1]) == "Ll":
                faults += 1  # "рТЙЧЕФ": a capital after a small letter
            elif (
                category == "Ll"
                and len(run) > 1
                and not char.isascii()
                and all(unicodedata.category(c) == "Lu" for c in run[-2:])
            ):
                faults += 1  # "ПАЯАСЙЕУч": small after capitals (Greek read as KOI8-R)
            if char == "ς" and k + 1 < len(word) and word[k + 1].isalpha():
                faults += 1  # Greek final sigma inside a word: Cyrillic read as Greek
            if category[0] == "L":
                if char >= "\u3131" and (is_cjk_common(char) is False or char <= "\u318e"):
                    faults += 1  # a rare Han character or Hangul syllable, a lone jamo
                script = _script(char)
                if script is not None:
                    scripts.add(script)
                if script == "CJK" and "HALFWIDTH" in unicodedata.name(char, ""):
                    faults += 1  # what Japanese codecs make of 8-bit runs of other text
            run.append(char)
            continue
        faults += _latin_run(run)
        run = []
        if category in ("Cc", "Cn", "Co", "Cs") or char == "\ufffd":
            faults += 1  # a control character, or a byte the charset does not define
            if "\x80" <= char <= "\x9f":
                faults += 2  # a C1 control: Windows-1252's quotes and dashes read as ISO
        elif _UNIT.match(word, k):
            pass  # a unit after a number (18°C, 5\u00b5m, 50\u20ac) or a power (m², x³)
        elif not char.isascii() and char != "\u2019":  # an apostrophe: l\u2019été
            before = k > 0 and word[k - 1].isalpha()
            after = k + 1 < len(word) and word[k + 1].isalpha()
            faults += 2 if before and after else 1 if before or after else 0
            if k > 0 and not word[k - 1].isascii() and not word[k - 1].isalpha():
                faults += 1  # "╤╥╬╦": a run of symbols, where a word stood
    faults += _latin_run(run)
    if scripts & {"CJK", "Hangul"}:
        # Latin in Chinese or Japanese text (のですが、Python); Korean's Hanja apart from
        # Hangul (우아(優雅)한), not beside it: Chinese read as Korean (뭔膠헌데, 賈痰Python긍).
        faults += _han_beside_hangul(word)
        # and a Latin word in Chinese or Japanese, not a letter or two (d'a read as 誕)
        faults += 2 * sum(1 for run in _ASCII_LETTERS.findall(word) if len(run) < 3)
        scripts = (scripts - {"CJK", "Hangul", "Latin"}) | {"CJK"}
    return faults + 2 * max(0, len(scripts) - 1)


_ASCII_LETTERS = re.compile(r"[A-Za-z]+")
# A sign after an ASCII digit, then ASCII letters or nothing (18°C, 50€; a sign before a digit
# after it is no unit); a superscript digit after an ASCII letter (m², x³).
_UNIT = re.compile(
    r"(?<=[0-9])[\u00b0\u00b5\u20ac\u00a3\u00a5\u00a2\u2030\u00b2\u00b3\u00b9](?=[A-Za-z]*\b)"
    r"|(?<=[A-Za-z])[\u00b2\u00b3\u00b9](?![A-Za-z])"
)
_BRACKETS = re.compile("[()\uff08\uff09\\[\\]\u300c\u300d\u300e\u300f\u3010\u3011]")


def _han_beside_hangul(word: str) -> int:
    """Count where a Han character and a Hangul syllable follow each other in a word
    (other letters between them aside), but across a bracket."""
    count = 0
    for part in _BRACKETS.split(word):
        kinds = [_is_han(c) for c in part if _is_han(c) or _is_hangul(c)]
        count += sum(1 for a, b in itertools.pairwise(kinds) if a != b)
    return count


def _is_han(char: str) -> bool:
    # (Korean code pages read some Hanja as compatibility ideographs, U+F900 on)
    return "\u4e00" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff"


def _is_hangul(char: str) -> bool:
    return "\uac00" <= char <= "\ud7a3"


def _latin_run(run: Sequence[str]) -> int:
    """Fault a run of three or more Latin letters that are all accented (not ASCII)."""
    if len(run) < _LATIN_RUN or any(c.isascii() for c in run):
        return 0
    return 2 if all(_script(c) == "Latin" for c in run) else 0


# Accented letters alone, this many or more: a Cyrillic word read as Latin (``Ìîñêâà``); a
# shorter run (``àéè``, ``ìèð``) is told by its language (see _legacy_langs), not by its form.
_LATIN_RUN = 4


# How often each Cyrillic letter is in Russian text, per thousand letters: between Cyrillic
# code pages that read the words equally well (KOI8-R's small letters are Windows-1251's
# capitals), the one whose letters are the likelier ones is the one they were written in.
_FREQUENT = (
    "110 85 80 74 67 63 55 47 45 44 35 32 30 28 26 20 19 17 17 17 16 14 12 10 9 7 6 5 4 3 3 1 1"
)
_RUSSIAN = dict(zip("оеаинтсрвлкмдпуяыьгзбчйхжшюцщэфъё", map(int, _FREQUENT.split()), strict=True))
_CYRILLIC_PAGES = frozenset({"cp1251", "koi8_r", "cp866", "koi8_u"})


def _unlikely(text: str) -> float:
    """How unlikely ``text``'s Cyrillic letters are in Russian (more is less likely): each
    letter by its frequency, and a word in capitals only counted as less likely than one
    in small letters (text is mostly the latter)."""
    total = 0.0
    for word in text.split():
        letters = [c for c in word if _script(c) == "Cyrillic"]
        total += sum(math.log(1000 / _RUSSIAN.get(c.lower(), 1)) for c in letters)
        if len(letters) > 1 and all(c.isupper() for c in letters):
            total += 2.0
    return total


def _score(words: Sequence[bytes], codec: str) -> tuple[int, float]:
    """Return the faults of ``words`` read in ``codec``, and, to choose between Cyrillic
    code pages, how unlikely their letters are (:func:`_unlikely`)."""
    faults, unlikely = 0, 0.0
    for word in words:
        text = _decode(word, codec)
        faults += _faults(text)
        if codec in _NO_KANA:
            faults += sum(1 for c in text if "\u3041" <= c <= "\u30fa")
        unlikely += _unlikely(text)
    return faults, unlikely


def _word_faults(text: str, codec: str) -> int:
    faults = _faults(text)
    if codec in _NO_KANA:
        faults += sum(1 for c in text if "\u3041" <= c <= "\u30fa")
    return faults


def _east_asian_nats(text: str, codec: str) -> float:
    """What a double-byte reading's characters say for it, as :func:`language_score`
    says it for a single-byte one: ``_COMMON_NATS`` a common Han character or Hangul
    syllable (the few thousand text is written in, of some 30,000 two bytes may read
    as), and as much a kana where the charset's language writes them."""
    if len(text) < 2:
        return 0.0  # one character (two bytes) tells nothing
    nats = 0.0
    for char in text:
        if ("\u3041" <= char <= "\u30fa" and codec not in _NO_KANA) or _is_hangul(char):
            nats += _SYLLABLE_NATS if is_cjk_common(char) is not False else 0.0
        elif is_cjk_common(char):
            nats += _COMMON_NATS
    return nats


_COMMON_NATS = 1.0
# A kana or a common Hangul syllable says more: Korean and Japanese bytes read as Chinese
# are common Han characters too, Chinese read as Korean mostly Hanja.
_SYLLABLE_NATS = 2.0


def _syllabic(words: Sequence[bytes], codec: str) -> int:
    """How many kana and Hangul syllables ``words`` read as in ``codec``."""
    count = 0
    for word in words:
        for char in _decode(word, codec):
            count += "\u3041" <= char <= "\u30fa" or "\uac00" <= char <= "\ud7a3"
    return count


def _words(data: bytes) -> list[bytes]:
    """The words of ``data`` that hold 8-bit bytes: only they tell charsets apart."""
    words = [word for word in data[:_SAMPLE].split() if not word.isascii()]
    return words[:_MAX_WORDS]


def decode_legacy(
    data: bytes, candidates: Sequence[str] = (), margin: int = _MARGIN
) -> tuple[str, str]:
    """Decode bytes that are not valid UTF-8; return ``(text, codec)``.

    UTF-8 when it is mostly that (its stray bytes read as Windows-1252), else Windows-1252,
    unless another charset (``candidates`` first, then the common single-byte ones and, for
    text with enough 8-bit bytes, charset-normalizer's guess) reads the words holding 8-bit
    bytes with clearly fewer faults (``margin`` fewer; 1: any fewer). Never raises; never a
    U+FFFD where cp1252 or latin-1 reads the byte.
    """
    words = _words(data)
    escaped = data[:_SAMPLE].decode("utf-8", "surrogateescape")
    stray = sum(1 for c in escaped if "\udc80" <= c <= "\udcff")
    valid = sum(1 for c in escaped if ord(c) > 0x7F) - stray  # characters UTF-8 reads
    default = _UTF8 if valid >= max(stray, 1) else "cp1252"
    order = [default, *candidates, *_SINGLE_BYTE, *_MORE_SINGLE, *_DOUBLE_ORDER]
    if sum(len(w.translate(None, bytes(range(128)))) for w in words) >= _MIN_DETECT:
        guessed = guess_charset(data[:_SAMPLE])
        if guessed is not None:
            order.append(guessed)
    order = list(dict.fromkeys(order))
    # A short text (a word or two) is read by its language in the double-byte charsets
    # too: two Han characters are four bytes that read as a word in many a code page.
    # (Only where each such word is 8-bit bytes alone, as East Asian text mostly is: a
    # Latin letter by accented ones, Zażółć, is a Latin word.)
    short = sum(len(w.translate(None, bytes(range(128)))) for w in words) < _MIN_DETECT and all(
        w.strip(_ASCII_SIGNS).translate(None, bytes(range(128, 256))) == b"" for w in words
    )
    later = frozenset() if short else _DOUBLE_BYTE.difference(candidates)
    scores = {codec: _score(words, codec) for codec in order if codec not in later}
    if min(fault for fault, _ in scores.values()) > 0:
        # A double-byte reading wins only with fewer faults than every one before it: none
        # to beat a clean one (the costliest to score, they are not scored then).
        scores |= {codec: _score(words, codec) for codec in order if codec in later}
    order = [codec for codec in order if codec in scores]
    cyrillic = min((k for k, c in enumerate(order) if c in _CYRILLIC_PAGES), default=0)
    double = min((k for k, c in enumerate(order) if c in _DOUBLE_BYTE), default=0)

    def rank(codec: str) -> tuple[int, int, float, int]:
        # The fewest faults; on a tie, the first in order, the Cyrillic pages ranked
        # together at the first of them and told apart by their letters, the double-byte
        # ones at theirs, by their kana and Hangul.
        k = order.index(codec)
        if codec in _CYRILLIC_PAGES:
            return scores[codec][0], cyrillic, scores[codec][1], k
        if codec in _DOUBLE_BYTE:
            return scores[codec][0], double, -_syllabic(words, codec), k
        return scores[codec][0], k, 0, k

    best = min(order, key=rank)
    codec = best if scores[default][0] - scores[best][0] >= margin else default
    if default == "cp1252" and (short or codec not in _DOUBLE_BYTE):
        codec = _by_language(words, order, codec, margin, short)
    if codec == "cp1252":
        try:
            return data.decode("cp1252"), "cp1252"
        except UnicodeDecodeError:  # the five bytes cp1252 leaves undefined
            return data.decode("latin-1"), "latin-1"
    return _decode(data, codec), codec


def _by_language(
    words: Sequence[bytes], order: Sequence[str], chosen: str, margin: int, east_asian: bool
) -> str:
    """Choose among the single-byte readings (and, for a short text all in 8-bit bytes,
    ``east_asian``, the double-byte ones: :func:`_east_asian_nats`) by faults and language
    together; a text of one letter alone stays as ``chosen``. Each
    reading's words (the first ``_LANGUAGE_WORDS``, each distinct one weighed once per time
    it is there) weighed by the likeliest language of its code page
    (:func:`language_score`, ``_NATS`` of it as much as a fault), less a code page's
    rarity (``_RARER``). Windows-1252 stands unless another reads clearly better
    (``margin * _SWITCH`` apart); of those within ``_WITHIN`` of the best, with no more
    faults, the first in ``order``."""
    if all(len(w) < 2 for w in words[:_LANGUAGE_WORDS]):
        return chosen  # letters alone (à, è, ß) are words in many a language
    pages = [c for c in order if c in LANGUAGES or (east_asian and c in _DOUBLE_BYTE)]
    value, faults = _values(words, pages)
    if "cp1252" not in value:
        return chosen
    best = max(value, key=lambda c: (value[c], -pages.index(c)))
    if value[best] - value["cp1252"] < margin * _SWITCH:
        return "cp1252"
    # Near the best, without more faults, the code page more text is written in (the first
    # in order): two capitals read as Cyrillic or as Greek (РФ, ΠΤ) are likelier Cyrillic.
    return next(c for c in pages if value[c] >= value[best] - _WITHIN and faults[c] <= faults[best])


def _values(
    words: Sequence[bytes], pages: Sequence[str]
) -> tuple[dict[str, float], dict[str, int]]:
    """Each page's reading of ``words`` weighed as :func:`_by_language` weighs it, and its
    faults."""
    counts = Counter(words[:_LANGUAGE_WORDS])
    value: dict[str, float] = {}
    faults: dict[str, int] = {}
    for codec in pages:
        fault, nats = 0, 0.0
        for word, count in counts.items():
            text = _decode(word, codec)
            fault += _word_faults(text, codec) * count
            if codec in _DOUBLE_BYTE:
                nats += _east_asian_nats(text, codec) * count
            else:
                nats += (language_score([text], codec) or 0.0) * count
        faults[codec] = fault
        value[codec] = nats / _NATS - fault - _RARER.get(codec, 0.0)
    return value, faults


_LANGUAGE_WORDS = 1024
_NATS = 3.0  # a language's evidence, in nats (natural log), that weighs as one fault
# Code pages less text is written in need more evidence (in faults): a French sentence's
# "à" and "è" are Lithuanian "ą" and "č" in Windows-1257, and two words tell little.
_RARER = {"koi8_r": 0.25, "cp1250": 0.25, "cp1253": 0.25, "cp866": 0.5, "cp1254": 0.25}
_RARER |= dict.fromkeys(("cp1256", "cp1257", "cp1255", "koi8_u", "iso8859_2"), 1.0)
_RARER |= {"iso8859_7": 1.0, "mac_roman": 2.0, "cp1258": 1.0}
_RARER |= dict.fromkeys(_DOUBLE_ORDER, 1.0)
_WITHIN = 0.5
_SWITCH = 0.5


def letter_scripts(text: str) -> set[str]:
    """The scripts of ``text``'s characters beyond ASCII (``symbol`` for any not a letter)."""
    beyond = (c for c in text if not c.isascii() and not c.isspace())
    return {(_script(c) or "other") if c.isalpha() else "symbol" for c in beyond}


def faulty_words(data: bytes, codec: str) -> tuple[int, int]:
    """How many of the words holding 8-bit bytes (of the first ``_MAX_WORDS``) read in
    ``codec`` as what no language writes (:func:`_faults`), and how many there are."""
    words = _words(data)
    codec = "cp1252" if codec == "latin-1" else codec
    faulty = 0
    for word in words:
        # each part of a compound on its own: Wi-Fi-роутер, USB-кабель are no mojibake
        parts = _COMPOUND.split(_PUNCTUATION.sub("", _decode(word, codec)))
        read = (_EDGE_SIGNS.sub("", part) for part in parts if not part.isascii())
        faulty += any(part and _word_faults(part, codec) for part in read)
    return faulty, len(words)


# Quotes and dashes around a word («déjà vu», —) are no fault of its reading, nor are signs
# at its start or end (ACME™, 18°C, 20€, ±0,5, x²): inside it (sumok¹inio), they are.
_PUNCTUATION = re.compile(r"[\u00ab\u00bb\u2010-\u201f\u2026\u2039\u203a\u00bf\u00a1]")
_COMPOUND = re.compile(r"[-/\u2010\u2011]")
_SIGN = r"[^\w\s\x00-\x9f\ufffd]"  # (not a byte no code page defines, U+FFFD)
_EDGE_SIGNS = re.compile(rf"^{_SIGN}+|{_SIGN}+$|(?<=\d){_SIGN}(?=[A-Za-z]$)")


def readings(data: bytes) -> tuple[list[str], dict[str, float], dict[str, int]] | None:
    """For short legacy text (too few 8-bit bytes for a detector): the code pages its
    language can be weighed in, each one's weight as :func:`_by_language` gives it, and
    its faults; None for longer text."""
    words = _words(data)
    if not words or sum(len(w.translate(None, bytes(range(128)))) for w in words) >= _MIN_DETECT:
        return None
    pages = [c for c in (*LEGACY_ORDER, *_DOUBLE_ORDER) if c in LANGUAGES or c in _DOUBLE_BYTE]
    value, faults = _values(words, pages)
    return pages, value, faults


def reading(data: bytes, codec: str) -> str:
    """``data`` read in ``codec`` as :func:`decode_legacy` reads it (Windows-1258 composed)."""
    return _decode(data, codec)


def decode_as(data: bytes, codec: str) -> str:
    """Decode ``data`` in ``codec`` (as :func:`decode_legacy` chose it for a text ``data``
    is part of); bytes it does not read are read as Windows-1252, else latin-1."""
    if codec == _UTF8:
        return _utf8_mixed(data)
    try:
        text = data.decode(codec)
    except (UnicodeError, LookupError):
        pass
    else:
        return unicodedata.normalize("NFC", text) if codec in _COMPOSED else text
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def utf8_first(data: bytes) -> tuple[str, str]:
    """Decode text with no declared charset: UTF-8 when it is, else :func:`decode_legacy`."""
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return decode_legacy(data)


_LONE_CR = re.compile(r"\r(?!\n)")
_DOUBLED_CR = re.compile(r"\r\r+\n")


def lone_cr_as_lf(text: str) -> str:
    """Return ``text`` with each carriage return that ends a line on its own (classic Mac OS
    files, some exports) made a line feed, so that line-based reading (a title, a commit's
    summary, the lines shown) sees its lines; Windows' CR LF is left as it is. CR CR LF (a
    Windows line end converted again, as a transfer in text mode does) is one CR LF, and
    LF CR line ends (every CR after an LF: RISC OS, some exports) are LF: each was a blank
    line after every line."""
    if "\r" not in text:
        return text
    text = _DOUBLED_CR.sub("\r\n", text)
    if text.count("\n\r") == text.count("\r") and "\r\n" not in text:
        text = text.replace("\n\r", "\n")
    return _LONE_CR.sub("\n", text)
