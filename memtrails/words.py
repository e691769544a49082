"""Word splitting (ICU) and keyword (sparse) vectors, computed the way JavaScript does."""

from __future__ import annotations

import importlib
import threading
import unicodedata
from collections import Counter
from functools import lru_cache
from types import ModuleType
from typing import TYPE_CHECKING

from .portable import fnv1a32, utf16_len

if TYPE_CHECKING:
    import icu

__all__ = [
    "ICU_WORD_RULES",
    "KEYWORD_AVG_WORDS",
    "KEYWORD_B",
    "KEYWORD_CHUNK_WORDS",
    "KEYWORD_K1",
    "bare_word",
    "keyword_vector",
    "passage_keywords",
    "question_terms",
    "words",
]

_MIN_UNITS, _MAX_UNITS = 2, 60

# Intl.Segmenter's isWordLike: rule status in UBRK_WORD_NUMBER .. UBRK_WORD_IDEO_LIMIT, i.e.
# numbers [100,200), letters [200,300), kana [300,400), ideographs [400,500). Spaces,
# punctuation and symbols are UBRK_WORD_NONE [0,100).
_WORD_LIKE = range(100, 500)


# Characters whose Word_Break value changed after Unicode 15 (ICU 72), as Node's ICU sees them:
# the prepended concatenation marks went from Format to Numeric, CEDILLA became a letter, and
# two vertical presentation forms stopped being MidNum (found by comparing every assigned code
# point's segmentation in several contexts against Node).
_PREPENDED_MARKS = r"\u0600-\u0605\u06DD\u070F\u0890\u0891\u08E2\U000110BD\U000110CD"
_RULE_EDITS = [
    # CLDR 42's tailorings, absent from Node's ICU: "@" as a letter, ":" not MidLetter.
    (r"$ALetter=[\p{Word_Break=ALetter}@];", r"$ALetter=[\p{Word_Break=ALetter}];"),
    (r"$ALetter=[\p{Word_Break=ALetter}];", r"$ALetter=[\p{Word_Break=ALetter}\u00B8];"),
    (
        r"$MidLetter=[\p{Word_Break=MidLetter}-[\:\uFE55\uFF1A]];",
        r"$MidLetter=[\p{Word_Break=MidLetter}];",
    ),
    (
        r"$Format=[\p{Word_Break=Format}];",
        rf"$Format=[\p{{Word_Break=Format}}-[{_PREPENDED_MARKS}]];",
    ),
    (
        r"$Numeric=[\p{Word_Break=Numeric}];",
        rf"$Numeric=[\p{{Word_Break=Numeric}}[{_PREPENDED_MARKS}]];",
    ),
    (r"$MidNum=[\p{Word_Break=MidNum}];", r"$MidNum=[\p{Word_Break=MidNum}-[\uFE10\uFE14]];"),
]


def _word_rules() -> str:
    """Return the root word-break rules of the ICU PyICU runs on, brought in line with Node's.

    The reference is the ICU that Node bundles (78 when this was written). CLDR 42 (ICU 72)
    tailored root word breaks: ``@`` counted as a letter (so ``ana@example.com`` was one word)
    and ``:`` was taken out of MidLetter (so ``foo:bar`` was two); and Unicode 16 moved a few
    characters to other Word_Break classes. Each edit applies only where the installed ICU's
    rules have the old definition, and on a newer ICU the edited sets mean the same thing, so
    the rules there are what ICU ships.
    """
    icu = _icu()
    rules = str(icu.BreakIterator.createWordInstance(icu.Locale.getRoot()).getRules())
    for old, new in _RULE_EDITS:
        rules = rules.replace(old, new)
    return rules


@lru_cache(maxsize=1)
def _icu() -> ModuleType:
    # On first use, not at import: the folder's small files (its manifest's keyword scheme)
    # import this module, and `memtrails status`, which segments no text, should not pay
    # for loading ICU and reading its rules (~6-10 ms of its start).
    return importlib.import_module("icu")


_word_rules_once = lru_cache(maxsize=1)(_word_rules)
ICU_WORD_RULES: str  # the word-break rules in use: read on first use (module __getattr__)


def __getattr__(name: str) -> str:
    # ICU_WORD_RULES, read from ICU on first use (see _icu).
    if name == "ICU_WORD_RULES":
        return _word_rules_once()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_local = threading.local()


def _breaker() -> icu.RuleBasedBreakIterator:
    # Compiling the rules takes ~7 ms and a break iterator is not thread-safe (PyICU cannot
    # clone one), so each thread compiles its own once and keeps it.
    breaker = getattr(_local, "breaker", None)
    if breaker is None:
        breaker = _local.breaker = _icu().RuleBasedBreakIterator(_word_rules_once())
    return breaker


def _normalise(segment: str) -> str:
    # NFKC then lower case, as `segment.normalize("NFKC").toLowerCase()`; ASCII is NFKC already.
    if segment.isascii():
        return segment.lower()
    return unicodedata.normalize("NFKC", segment).lower()


def words(text: str) -> list[str]:
    """Return the word-like segments of ``text``: NFKC, lower case, 2..60 UTF-16 units each.

    This is what ``Intl.Segmenter(undefined, {granularity: "word"})`` yields with
    ``isWordLike`` true, each ``segment.normalize("NFKC").toLowerCase()``, kept when its
    ``length`` is 2..60.

    Example:
        >>> words("Crème brûlée, s'il vous plaît! 東京")
        ['crème', 'brûlée', "s'il", 'vous', 'plaît', '東京']
    """
    if not text:
        return []
    breaker = _breaker()
    utext = _icu().UnicodeString(text)
    breaker.setText(utext)
    # ICU positions are UTF-16 units; without astral characters they index `text` directly.
    bmp = len(utext) == len(text)
    out: list[str] = []
    start = breaker.first()
    for end in breaker:
        if breaker.getRuleStatus() in _WORD_LIKE:
            w = _normalise(text[start:end] if bmp else str(utext[start:end]))
            n = len(w) if w.isascii() else utf16_len(w)
            if _MIN_UNITS <= n <= _MAX_UNITS:
                out.append(w)
        start = end
    return out


# Words repeat (Zipf), so most term ids come from this cache instead of the FNV loop.
_term_id = lru_cache(maxsize=1 << 16)(fnv1a32)


def keyword_vector(text: str) -> dict[int, float]:
    """Return term id (32-bit FNV-1a of the word) -> weight (occurrences in ``text``), ids ascending."""
    counts: Counter[int] = Counter(map(_term_id, words(text)))
    return {term: float(n) for term, n in sorted(counts.items())}


def bare_word(word: str) -> str:
    """Return ``word`` without an English possessive's "'s" ("biscuit's" -> "biscuit").

    Passages are indexed by their words as written (the same in every language of memtrails),
    and a question asks about "Biscuit's dose" where the turns that answer write "Biscuit":
    the search's confidence reads a possessive as its bare word too (:func:`question_terms`).

    Example:
        >>> bare_word("biscuit's"), bare_word("kofi\u2019s"), bare_word("is"), bare_word("'s")
        ('biscuit', 'kofi', 'is', "'s")
    """
    if len(word) > 3 and word[-2:] in ("'s", "\u2019s"):
        return word[:-2]
    return word


def question_terms(text: str) -> list[int]:
    """Return the term ids of a question's words, a possessive's bare word's too, once each.

    Example:
        >>> question_terms("Rui's teacher") == [_term_id(w) for w in ("rui's", "rui", "teacher")]
        True
    """
    out: dict[int, None] = {}
    for word in words(text):
        out[_term_id(word)] = None
        out[_term_id(bare_word(word))] = None
    return list(out)


# A passage's stored keyword weights saturate (BM25's k1) with little length normalisation
# (b), the index applying IDF at query time. Chosen on the dev set (benchmarks/README.md):
# plain counts let one word repeated ten times outweigh three different query words, and
# textbook length normalisation (b=0.75) penalised long, on-topic passages. Passages are cut
# to the model's window, so their length varies little: a fixed average stands in for the
# index's own, which keeps a point's weights independent of what else is stored.
KEYWORD_K1 = 1.2
KEYWORD_B = 0.1
KEYWORD_AVG_WORDS = 76.0


# A passage longer than this (the span past an embedded record's window bound, see
# embedding.MAX_WINDOWS) is weighed in equal chunks of at most this many words, each word
# keeping its best chunk's weight: one word of a 600 KB tail weighs what it would in a
# passage of its own, not 1/150th of it. A window of the model holds fewer words than this,
# so an ordinary passage is one chunk and its weights are unchanged.
KEYWORD_CHUNK_WORDS = 512


def passage_keywords(text: str) -> dict[int, float]:
    """Return a passage's stored keyword vector: term id -> saturated count, ids ascending.

    Each count ``tf`` becomes ``tf * (k1 + 1) / (tf + k1 * (1 - b + b * n / avg))`` where
    ``n`` is the passage's number of words; the query side stays :func:`keyword_vector`.
    A passage of more than ``KEYWORD_CHUNK_WORDS`` words is weighed chunk by chunk, each
    term taking its highest chunk weight.

    Example:
        >>> round(next(iter(passage_keywords("tea tea tea").values())), 3)
        1.616
    """
    ids = list(map(_term_id, words(text)))
    if len(ids) <= KEYWORD_CHUNK_WORDS:
        return _saturated(Counter(ids))
    parts = -(-len(ids) // KEYWORD_CHUNK_WORDS)
    size = -(-len(ids) // parts)
    best: dict[int, float] = {}
    for at in range(0, len(ids), size):
        for term, weight in _saturated(Counter(ids[at : at + size])).items():
            if weight > best.get(term, 0.0):
                best[term] = weight
    return dict(sorted(best.items()))


def _saturated(counts: Counter[int]) -> dict[int, float]:
    n = sum(counts.values())
    norm = KEYWORD_K1 * (1 - KEYWORD_B + KEYWORD_B * n / KEYWORD_AVG_WORDS)
    return {term: tf * (KEYWORD_K1 + 1) / (tf + norm) for term, tf in sorted(counts.items())}
