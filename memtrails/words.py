"""Word splitting (ICU) and keyword (sparse) vectors, computed the way JavaScript does."""

from __future__ import annotations

import unicodedata
from collections import Counter

import icu

from .js import fnv1a32, utf16_len

__all__ = ["keyword_vector", "words"]

_MIN_UNITS, _MAX_UNITS = 2, 60


def words(text: str) -> list[str]:
    """Return the word-like segments of ``text``: NFKC, lower case, 2..60 UTF-16 units each."""
    breaker = icu.BreakIterator.createWordInstance(icu.Locale.getRoot())
    utext = icu.UnicodeString(text)
    breaker.setText(utext)
    out: list[str] = []
    start = breaker.first()
    for end in breaker:
        status = breaker.getRuleStatus()
        # UBRK_WORD_NONE is [0, 100): spaces and punctuation; everything above is word-like.
        if status >= 100:
            w = unicodedata.normalize("NFKC", str(utext[start:end])).lower()
            if _MIN_UNITS <= utf16_len(w) <= _MAX_UNITS:
                out.append(w)
        start = end
    return out


def keyword_vector(text: str) -> dict[int, float]:
    """Return term id (32-bit FNV-1a of the word) -> weight (occurrences in ``text``)."""
    counts: Counter[int] = Counter(fnv1a32(w) for w in words(text))
    return {term: float(n) for term, n in sorted(counts.items())}
