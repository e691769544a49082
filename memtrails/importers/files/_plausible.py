"""Tell text read in a legacy charset from bytes that decode by chance: a single-byte code
page reads any byte, so a few random bytes (a key, a truncated header, a small ``.bin``)
"decode" to ``Â(Jàµ*`` or ``ЊЧў6·``. Text's words that hold letters beyond ASCII are
words: letters of one script, maybe a number or a sign at either end, punctuation around
them; junk's are not."""

# ruff: noqa: RUF001, RUF003 (typographic quotes, dashes and East Asian punctuation on purpose)

from __future__ import annotations

import re
import unicodedata

from .._cjk_common import is_cjk_common

__all__ = ["reads_as_text"]

_SAMPLE = 8192  # characters looked at
_INNER = frozenset("'’-.,/")  # what a word holds between its letters: l’été, Jean-François
# What stands before and after a word: quotes, brackets, punctuation, a currency or a unit.
_BEFORE = frozenset("\"'([¿¡«„“‘‹—–-#@$€£¥±~")
_AFTER = frozenset("\"')].,;:!?»“”’›…%°€$£¥™®©-")
# What separates fields of data as white space separates words: CSV (;,"), key=value, tags.
# A unit's sign after a number (18°C, 5µm, 3‰), and numbers times or over numbers.
_UNITS = frozenset("°µ‰")
_PRODUCT = re.compile(r"[0-9]*(?:[×÷][0-9]+)+")
_SEPARATORS = re.compile(r'[;,|=:<>"]+')
_LATIN_RUN = re.compile(r"[A-Za-z]+")
_SPACE = frozenset("\t\n\r")  # white space (a form feed is junk; ESC: see below)
_AROUND = "\"'()[].,;:!?-"
_EAST_ASIAN = frozenset({"KATAKANA", "HIRAGANA", "KATAKANA-HIRAGANA", "CJK", "IDEOGRAPHIC"})


def _script(char: str) -> str:
    """The script of a letter, as the first word of its name (``LATIN``, ``CYRILLIC``,
    ``DEVANAGARI``), East Asian ones together; ``?`` for a letter with no name."""
    if char in "ªºµ":
        return "LATIN"
    first = unicodedata.name(char, "?").split(" ", 1)[0]
    return "CJK" if first in _EAST_ASIAN else first


def _is_word(word: str, signs: bool) -> bool | None:
    """Tell whether one white-space-separated run reads as a word (see the module); None
    for a number or a sign alone (``€``, ``±5``, ``½``: neither a word nor junk);
    ``signs``: a sign beyond ASCII may stand inside it (``A→B``, ``x≠y``: UTF-8 text)."""
    start, end = 0, len(word)
    while start < end and word[start] in _BEFORE:
        start += 1
    while end > start and word[end - 1] in _AFTER:
        end -= 1
    core = word[start:end]
    if "\ufffd" in word and not signs:
        return False  # a byte the charset does not define (in UTF-8 it was written so)
    if all(unicodedata.category(char) == "Cc" for char in word):
        return None  # control characters alone: counted on their own
    if not core:
        return None  # a sign or punctuation alone: €, —, «
    if start == 0 and end == len(word) and len(core) == 1 and not core.isalnum():
        return None if unicodedata.category(core)[0] in "PS" and core.isprintable() else False
    number = core
    while core and unicodedata.category(core[0])[0] == "N":
        core = core[1:]  # 12€, 3ème
    if core != number and core[:1] in _UNITS:
        core = core[1:]  # 18°C, 5µm
    if _PRODUCT.fullmatch(core):
        return None  # 3×4, 10÷2: a number
    while core and unicodedata.category(core[-1])[0] == "N":
        core = core[:-1]  # m³, 1ª
    if not core:
        return None  # a number: 12, ½
    scripts: set[str] = set()
    previous = ""
    capitals = east_asian = rare = 0
    for char in core:
        category = unicodedata.category(char)
        if category[0] in "LM":
            if category[0] == "L":
                scripts.add(_script(char))
                common = is_cjk_common(char)
                if common is not None:
                    east_asian += 1
                    rare += not common
            if not (char + previous).isascii():
                if category == "Lu" and previous.islower():
                    return False  # a capital after a small letter: ìÒó
                if category == "Ll" and capitals >= 2:
                    return False  # capitals, then small letters: ÎÌªìkâ (not ÉTÉ, Été)
            capitals = capitals + 1 if category == "Lu" else 0
        elif not (
            char in _INNER
            or "\u3000" <= char <= "\u303f"  # East Asian punctuation: 。、「」
            or "\uff01" <= char <= "\uff65"  # full-width forms: ：！（）
            or category == "Nd"  # a digit: told below
            or (signs and category[0] == "S" and not char.isascii())
        ):
            return False  # a sign, a control or a digit inside a word: Â(Jà, ž0Æ
        previous = char
    if len(core) == 1 and core.isalpha() and len(word) == 1:
        return None  # a letter alone: à, и (or a byte of junk)
    if any(c.isdigit() for c in core) and not scripts <= {"CJK", "HANGUL"}:
        return False  # a digit inside a word written with spaces: ž0Æ (not 明日10時)
    if rare * 3 > east_asian:
        return False  # rare Han characters or Hangul syllables: junk read as them
    if scripts & {"CJK", "HANGUL"}:
        # A Latin word in East Asian text (のですが、Python), not a letter or two of junk
        if "LATIN" in scripts and not all(map(_latin_word, _LATIN_RUN.findall(core))):
            return False
        scripts -= {"CJK", "HANGUL", "LATIN"}  # and Hanja in Korean: 우아(優雅)한
    return len(scripts) <= 1 and "?" not in scripts


def _latin_word(run: str) -> bool:
    """Tell whether ASCII letters in East Asian text are a word: three letters or more, in
    small letters, capitals, or capitalised (Python, API; not IHdS)."""
    return len(run) > 2 and (run.islower() or run.isupper() or run.istitle())


def reads_as_text(text: str, utf8: bool = False, clean: bool = False) -> bool:
    """Tell whether text decoded in a legacy charset (or short UTF-8: ``utf8``) reads as
    text: its junk (control characters but white space, words that hold a character
    beyond ASCII and read as junk, see :func:`_is_word`) is a third of what it holds at
    most, beside its words (those, and ASCII words of letters); ``clean``: no junk at all,
    and a word of three letters or more, one beyond ASCII, or a word of two alone."""
    sample = text[:_SAMPLE].replace("\ufeff", "")  # a byte order mark inside: dropped
    junk = sum(1 for char in sample if unicodedata.category(char) == "Cc" and char not in _SPACE)
    junk -= sample.count("\x1b[")  # an ANSI colour's ESC is no junk
    good = 0
    beyond_ascii = long_word = False
    words = _SEPARATORS.sub(" ", sample).split()
    for word in words:
        if word.isascii():
            letters = word.strip(_AROUND)
            good += (
                len(letters) > 2
                and letters.isalpha()
                and (letters.islower() or letters.isupper() or letters.istitle())
            )
        else:
            beyond_ascii = True
            read = _is_word(word, utf8)
            good += read is True
            junk += read is False
            long_word |= read is True and sum(c.isalpha() for c in word) > 2
    # Legacy text holds a word where it holds a letter beyond ASCII (not signs alone: ¹|;).
    if clean:
        # A note of one word of two letters (ёж, 学习: 2 to 4 bytes) is that word: no data
        # file is kept that short, and random bytes of 6 or more read as one word of three
        # characters at least (or as junk).
        one_word = len(words) == 1 and sum(c.isalpha() for c in words[0]) == 2 and good == 1
        return junk <= 0 and (long_word or one_word)
    return junk * 2 <= good and (good > 0 or utf8 or not beyond_ascii)
