"""Which writing systems a text is written in, to tell when a query and a passage share none."""

from __future__ import annotations

import bisect
import re

__all__ = [
    "MAIN_SHARE",
    "MIN_LETTERS",
    "SCRIPTS",
    "main_scripts",
    "prose_scripts",
    "share_a_script",
]

# A script counts as one a text is written in when it holds at least this share of the
# text's letters: a Korean note that names "restic" and "NAS" is written in Hangul, not in
# Latin, while a Korean question about "Qdrant 백업" is written in both.
MAIN_SHARE = 0.25

# A text of fewer letters is written in no script in particular: too short to tell ("すみません。",
# "OK"), and a multilingual model finds such short texts close to every query anyway.
MIN_LETTERS = 24

# (first code point, last code point, script), sorted; letters outside these ranges are
# "other" (a script of its own, so two texts in it still share it).
_RANGES: list[tuple[int, int, str]] = sorted(
    [
        (0x0041, 0x005A, "latin"),
        (0x0061, 0x007A, "latin"),
        (0x00C0, 0x024F, "latin"),
        (0x1E00, 0x1EFF, "latin"),
        (0x0370, 0x03FF, "greek"),
        (0x1F00, 0x1FFF, "greek"),
        (0x0400, 0x052F, "cyrillic"),
        (0x1C80, 0x1C8F, "cyrillic"),
        (0x2DE0, 0x2DFF, "cyrillic"),
        (0xA640, 0xA69F, "cyrillic"),
        (0x0530, 0x058F, "armenian"),
        (0x0590, 0x05FF, "hebrew"),
        (0x0600, 0x06FF, "arabic"),
        (0x0750, 0x077F, "arabic"),
        (0x08A0, 0x08FF, "arabic"),
        (0xFB50, 0xFDFF, "arabic"),
        (0xFE70, 0xFEFF, "arabic"),
        (0x0900, 0x097F, "devanagari"),
        (0x0980, 0x09FF, "bengali"),
        (0x0A00, 0x0A7F, "gurmukhi"),
        (0x0A80, 0x0AFF, "gujarati"),
        (0x0B80, 0x0BFF, "tamil"),
        (0x0C00, 0x0C7F, "telugu"),
        (0x0C80, 0x0CFF, "kannada"),
        (0x0D00, 0x0D7F, "malayalam"),
        (0x0E00, 0x0E7F, "thai"),
        (0x0E80, 0x0EFF, "lao"),
        (0x1000, 0x109F, "myanmar"),
        (0x10A0, 0x10FF, "georgian"),
        (0x1100, 0x11FF, "hangul"),
        (0x3130, 0x318F, "hangul"),
        (0xA960, 0xA97F, "hangul"),
        (0xAC00, 0xD7AF, "hangul"),
        (0x1200, 0x139F, "ethiopic"),
        (0x1780, 0x17FF, "khmer"),
        (0x3040, 0x309F, "kana"),
        (0x30A0, 0x30FF, "kana"),
        (0x31F0, 0x31FF, "kana"),
        (0xFF66, 0xFF9F, "kana"),
        (0x3400, 0x4DBF, "han"),
        (0x4E00, 0x9FFF, "han"),
        (0xF900, 0xFAFF, "han"),
        (0x20000, 0x3FFFF, "han"),
    ]
)
_STARTS = [r[0] for r in _RANGES]
# Every script a text can be found written in.
SCRIPTS = frozenset({r[2] for r in _RANGES} | {"other"})
_NOT_ASCII_LETTERS = bytes(b for b in range(128) if not chr(b).isalpha())
_NOT_ASCII = re.compile(r"[^\x00-\x7f]")


def _script(char: str) -> str | None:
    """Return the script of a letter, None for what is not a letter (digits, marks, symbols)."""
    if not char.isalpha():
        return None
    code = ord(char)
    i = bisect.bisect_right(_STARTS, code) - 1
    if i >= 0 and code <= _RANGES[i][1]:
        return _RANGES[i][2]
    return "other"


def main_scripts(text: str, limit: int = 600, least: int = MIN_LETTERS) -> frozenset[str]:
    """Return the scripts holding at least MAIN_SHARE of the letters of ``text`` (its first
    ``limit`` characters); empty when it has fewer than ``least`` letters (a number, an
    address, a greeting; a query passes 1: a short question is still written in a script).

    Example:
        >>> sorted(main_scripts("서버 백업은 매일 새벽 세 시에 restic으로 NAS에 저장되고 삼십 일 동안 보관된다"))
        ['hangul']
    """
    chunk = text[:limit]
    # ASCII letters are Latin: counted by a regex, and only the rest one by one.
    counts: dict[str, int] = {}
    latin = len(chunk.encode("ascii", "ignore").translate(None, _NOT_ASCII_LETTERS))
    if latin:
        counts["latin"] = latin
    if not chunk.isascii():
        for char in _NOT_ASCII.findall(chunk):
            script = _script(char)
            if script is not None:
                counts[script] = counts.get(script, 0) + 1
    return _main(counts, least)


def _main(counts: dict[str, int], least: int) -> frozenset[str]:
    """The scripts holding MAIN_SHARE of the letters counted, none under ``least`` letters."""
    letters = sum(counts.values())
    if letters < max(1, least):
        return frozenset()
    return frozenset(s for s, n in counts.items() if n >= MAIN_SHARE * letters)


# A word of the text: a run of letters, digits, marks and the joiners of identifiers.
_WORD = re.compile(r"[\w.'\u2019-]+")
# A word of Latin prose: lower-case letters only, an apostrophe or a hyphen between them.
_LATIN_PROSE = re.compile(
    r"[a-z\u00df-\u00ff\u0100-\u024f]+(?:['\u2019-][a-z\u00df-\u00ff\u0100-\u024f]+)*\.?"
)

# The same in ASCII text, found in one pass: lower-case letters between what ends a word.
_ASCII_PROSE = re.compile(r"(?<![\w.'-])[a-z]+(?:['-][a-z]+)*(?=\.?(?![\w.'-]))")


def prose_scripts(text: str, limit: int = 600, least: int = MIN_LETTERS) -> frozenset[str]:
    """Return the scripts the prose of ``text`` is written in: as :func:`main_scripts`, but
    Latin letters count only in words of lower-case letters.

    Developers writing Korean (or Russian, or Chinese) keep the names of their tools in
    Latin letters ("Redis가", "cert-manager를", "TTL 300초"): by letters such a note is
    half Latin, yet no English word of a question can be in it. A capitalised or
    upper-case word, one with digits or underscores, or one joined to another script's
    letters is a name here; the first word of an English sentence is lost to the count,
    the rest of the sentence is not.

    Example:
        >>> sorted(prose_scripts("Redis가 가득 차서 maxmemory-policy를 바꾸고 TTL을 건다", least=1))
        ['hangul']
        >>> sorted(prose_scripts("Sessions were lost when Redis filled up and evicted their keys"))
        ['latin']
    """
    chunk = text[:limit]
    if chunk.isascii():  # most passages: one regex pass instead of a word-by-word loop
        return _main({"latin": sum(len(w) for w in _ASCII_PROSE.findall(chunk))}, least)
    counts: dict[str, int] = {}
    for word in _WORD.findall(chunk):
        if _LATIN_PROSE.fullmatch(word):
            counts["latin"] = counts.get("latin", 0) + sum(c.isalpha() for c in word)
        elif not word.isascii():  # an ASCII word that is no prose is a name
            for char in word:
                script = _script(char)
                if script is not None and script != "latin":
                    counts[script] = counts.get(script, 0) + 1
    return _main(counts, least)


def share_a_script(a: frozenset[str], b: frozenset[str]) -> bool:
    """Tell whether two texts' main scripts meet; a text without enough letters to tell meets
    every text."""
    return not a or not b or not a.isdisjoint(b)
