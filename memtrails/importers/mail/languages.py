"""Rank charset guesses by the languages that use them: kept tables, no hand list.

charset-normalizer offers the decodings of undeclared 8-bit text that read as text at all,
but ranks single-byte code pages that decode alike by its own order: Portuguese came out in
cp1250 (``ã`` -> ``ă``), Polish in ISO-8859-14, Lithuanian in Central European. Three kept
tables tell them apart:

- which legacy charset each language's locale used: the X11 ``locale.alias`` table Python
  keeps as :data:`locale.locale_alias` (``cs_CZ.ISO8859-2``, ``lt_LT.ISO8859-13``,
  ``pt_PT.ISO8859-1``, ...), each ISO charset with the Windows code page that holds its
  letters (found by decoding both, not listed);
- the letters each language writes: CLDR's exemplar characters, through ICU (PyICU);
- the decodings themselves, from charset-normalizer.

A decoding scores the share of its non-ASCII letters that some language using its charset
writes; the best score wins, ties going to charset-normalizer's own order.
"""

from __future__ import annotations

import codecs
import locale
from collections import Counter
from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Any

__all__ = ["by_language", "languages_using", "letters_of"]

_WESTERN = frozenset({"cp1252", "latin_1"})
_WINDOWS = tuple(f"cp{n}" for n in range(1250, 1259))
# A Windows code page stands in for an ISO charset when it holds this share of its letters
# (cp1253 lacks two rare Greek signs of ISO-8859-7).
_SIBLING_SHARE = 0.9


def _codec(name: str) -> str | None:
    try:
        return codecs.lookup(name).name
    except (LookupError, ValueError):
        return None


@cache
def _windows_sibling(iso: str) -> str | None:
    """Return the Windows code page holding (nearly) every letter of a single-byte charset."""
    try:
        upper = bytes(range(0xA0, 0x100)).decode(iso, "ignore")
    except (LookupError, ValueError):
        return None
    letters = [c for c in upper if c.isalpha()]
    if not letters:
        return None

    def held(page: str) -> int:
        return sum(1 for c in letters if c.encode(page, "ignore"))

    page = max(_WINDOWS, key=held)
    return page if held(page) >= _SIBLING_SHARE * len(letters) else None


@lru_cache(maxsize=1)
def _languages_by_codec() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for value in locale.locale_alias.values():
        head, _, charset = value.partition(".")
        language = head.split("_", 1)[0]
        codec = _codec(charset.split("@", 1)[0]) if charset else None
        if not language or codec is None:
            continue
        for name in (codec, _windows_sibling(codec)):
            if name is not None:
                table.setdefault(name, set()).add(language)
    return {codec: frozenset(langs) for codec, langs in table.items()}


def languages_using(codec: str) -> frozenset[str]:
    """Return the languages (ISO 639 codes) whose locales used ``codec`` or its Windows twin.

    Example:
        >>> sorted(languages_using("iso8859-13"))
        ['lt', 'lv']
    """
    name = _codec(codec)
    return _languages_by_codec().get(name, frozenset()) if name else frozenset()


@cache
def letters_of(language: str) -> frozenset[str]:
    """Return the letters a language writes (CLDR's standard exemplar characters)."""
    import icu

    try:
        exemplars = icu.LocaleData(language).getExemplarSet(
            0, icu.ULocaleDataExemplarSetType.ES_STANDARD
        )
    except icu.ICUError:
        return frozenset()
    return frozenset(c for c in exemplars if len(c) == 1)


def _score(text: str, codecs_: Sequence[str]) -> float:
    letters = Counter(c for c in text.lower() if ord(c) > 127 and c.isalpha())
    total = sum(letters.values())
    if not total:
        return 0.0
    languages: set[str] = set()
    for codec in codecs_:
        languages |= languages_using(codec)
    best = 0.0
    for language in languages:
        known = letters_of(language)
        best = max(best, sum(n for c, n in letters.items() if c in known) / total)
    return best


def by_language(matches: Sequence[Any]) -> Any | None:
    """Return the charset-normalizer match a language would have written, or None.

    Only single-byte decodings are ranked (multi-byte ones carry their own evidence); the
    best share of letters some language using the charset writes wins, then the lower
    chaos, then cp1252, then charset-normalizer's order.
    """
    ranked = []
    for order, match in enumerate(matches):
        if match.multi_byte_usage > 0:
            continue
        names = [match.encoding, *match.could_be_from_charset]
        score = _score(str(match), names)
        # A tie goes to cp1252, the browsers' default for undeclared Western text.
        western = match.encoding in _WESTERN
        ranked.append((round(score, 3), -match.chaos, western, -order, match))
    if not ranked:
        return None
    best = max(ranked, key=lambda r: r[:4])
    return best[4] if best[0] > 0 else None
