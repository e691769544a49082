"""Tell a PDF's text that is no text: the letters or symbols of fonts without a Unicode map.

A PDF draws glyphs by codes its fonts define; a reader gives text only through the font's
``ToUnicode`` map or a known encoding. A font without either (a subset whose codes are its
glyphs' order, a Type3 font, a printer driver's own encoding) gives the codes as if they were
characters: the page reads ``Wkh txlfn eurzq ira`` (the alphabet shifted), other letters in
the places of the right ones, or runs of symbols and control characters. Stored, that text
is found by no search and shown as gibberish.

Two signs, each enough (on 40 visible characters or more):

- symbols: over half the visible characters are punctuation, symbols, control or private-use
  characters, or U+FFFD; a page of prose or tables has few. A page of formulas (8% of its
  visible characters or more mathematical operators, arrows, sub- and superscripts: signs
  a font without a Unicode map does not give) counts them, and the ASCII operators and
  brackets beside them, as its text.
- letters: the Latin letters (accents set aside) follow each other as no language's do.
  Each letter pair (a word's start and end count as letters) is weighed by how unlikely it is
  in ordinary prose, pooled over 18 Latin-script languages (:data:`_TABLE`, made by
  ``benchmarks/documents_garbled.py``, whose held-out languages give its figures); text
  whose pairs cost over :data:`_MAX_BITS` bits each on average is no language's. Random
  strings (base64, hashes, part numbers) would cost as much: they are told apart by their
  letters' shares, even (the five commonest under a third), where a code that stands for
  letters keeps prose's uneven ones (a third and more); and text whose words hold capitals
  inside (base64, identifiers) or are mostly capitals (codes, abbreviations) is not weighed.
"""

from __future__ import annotations

import collections
import itertools
import re
import unicodedata

__all__ = ["ALPHABET", "bits_per_pair", "pairs", "unreadable"]

#: A word's edge, then the letters: the rows and columns of :data:`_TABLE`.
ALPHABET = " abcdefghijklmnopqrstuvwxyz"
# -2 log2 P(b | a) for each pair a, b of ALPHABET, row by row, one base-36 digit each.
_TABLE = (
    "n8aa89aab9daa9898ga69aacgcc5bc99gdbcae9796ebg787bcgjfd75eff5geg7cf8cb7fg7dc8ffgag"
    "96hcg7hh56cadhd6hhaf9ahggbb55hi94gei6hedfc8fjcceafgide4ccbabdbeaeb8a6hcg688ddfdge"
    "66fgf78ef5dfafc5ggac9affgcg55fhe5gbe7fcceb8gh7cb8hchch56efe5ggg7edafc7gfaf99ebgag"
    "5ad997caeed98a6adga78edgfhc84efb4eee8eccec8cffbc7efffe65feg6hge7f9agd6gi9989fhidh"
    "56gga6fdf5de8dc8fjgbb9fdjbi65aff4gfh7ggdbf79igef9hfibh47hc87c7f6ddefb9ikj97afhkbh"
    "5fbb8bbageec986b9h68ab9bhhc84gfc6hef9he9eb6ai6abahhieh98ccacccc8ccacb8cccba3ccccc"
    "56eda5ece7fccbc8gidaa9eejcd38gbi7hga7h9cfeabkgc5affjcf55ihi5hfa6heghd8hk9cc8eehce"
    "69ccaadae9b9996e9g877efeihb74gfg4gge6ffdgb7ggcdfcggg9e75edb5fee6feed88dfacecfef6e"
    "679bb8bcc6ccc9cb8ccc7accbac58ca8c9cedfaa96aaga78cebfge84cdb6fce6edcc78bfcdd9cbf8f"
)
_COST = {
    a + b: int(_TABLE[i * len(ALPHABET) + j], 36) / 2
    for i, a in enumerate(ALPHABET)
    for j, b in enumerate(ALPHABET)
}
_WORD = re.compile(r"[a-z]+")
_WORD_CASED = re.compile(r"[^\W\d_]{2,}")
_MAX_MIXED = 0.1  # words with a capital inside (not all capitals): prose writes few
_MIN_VISIBLE = 40  # characters, before any sign is read
_MIN_PAIRS = 150  # letter pairs, before the letters' sign is read
_MAX_SYMBOLS = 0.5
_MAX_BITS = 4.4  # bits per letter pair: prose costs under 4.3 (fit), codes over 4.5
_MIN_TOP5 = 0.33  # the five commonest letters' share: prose over 0.38, random under 0.25
_LONGEST = 24  # letters: a longer run is no word (a key, a hash), not weighed
_SAMPLE = 200_000  # characters read, spread over the text


# The blocks of mathematical signs: sub- and superscripts, letterlike symbols, arrows,
# operators, technical and geometric signs, the supplemental operators and arrows. A font
# without a Unicode map gives its codes as ASCII, Latin-1, control or private-use
# characters, not as these: where they are many, the page is formulas, not garble.
_MATH = (
    (0x2070, 0x209F),
    (0x2100, 0x23FF),
    (0x25A0, 0x25FF),
    (0x27C0, 0x27FF),
    (0x2900, 0x2AFF),
    (0x1D400, 0x1D7FF),
)
_MIN_MATH = 0.08  # of the visible characters, for a page to be formulas
# Signs that stand with formulas' own: ASCII operators and brackets, Latin-1's plus-minus,
# times, division, not, middle dot, degree and superscripts (Greek letters are letters).
_BESIDE_MATH = frozenset(
    "+-=<>/()[]{}|^*.,:;!'~" + "\u00b1\u00d7\u00f7\u00ac\u00b7\u00b0\u00b2\u00b3\u00b9"
)


def _is_math(char: str) -> bool:
    point = ord(char)
    return any(low <= point <= high for low, high in _MATH) and not char.isalpha()


def _sample(text: str) -> str:
    if len(text) <= _SAMPLE:
        return text
    step = len(text) // 8
    return "".join(text[i : i + _SAMPLE // 8] for i in range(0, len(text), step)[:8])


def _letters(text: str) -> list[str]:
    folded = unicodedata.normalize("NFD", text.lower())
    plain = "".join(c for c in folded if not unicodedata.combining(c))
    return [w for w in _WORD.findall(plain) if len(w) <= _LONGEST]


def pairs(text: str) -> collections.Counter[str]:
    """The letter pairs of ``text``'s words (Latin letters, accents set aside; a word's
    start and end as a space)."""
    counts: collections.Counter[str] = collections.Counter()
    for word in _letters(text):
        edged = f" {word} "
        counts.update(edged[i : i + 2] for i in range(len(edged) - 1))
    return counts


def bits_per_pair(text: str) -> float:
    """How unlikely ``text``'s letter pairs are in prose, in bits per pair on average."""
    counts = pairs(text)
    total = sum(counts.values())
    return sum(_COST[p] * n for p, n in counts.items()) / total if total else 0.0


def unreadable(text: str) -> str | None:
    """Say why ``text`` (a PDF's) is no text, or None when it reads as text (or is too
    short to tell)."""
    text = _sample(text)
    # a run of one character once: a table of contents' dot leaders, a line of dashes
    visible = [c for c, _ in itertools.groupby(text) if not c.isspace()]
    if len(visible) < _MIN_VISIBLE:
        return None
    odd = sum(c == "\ufffd" or unicodedata.category(c)[0] in "PSC" for c in visible)
    if sum(map(_is_math, visible)) >= _MIN_MATH * len(visible):
        # A page of formulas: its operators, arrows and the signs around them are its text.
        odd -= sum(_is_math(c) or c in _BESIDE_MATH for c in visible)
    if odd > _MAX_SYMBOLS * len(visible):
        return "it is mostly symbols and control characters"
    counts = pairs(text)
    total = sum(counts.values())
    if total < _MIN_PAIRS:
        return None
    words = _WORD_CASED.findall(text)
    if sum(not (w[1:].islower() or w.isupper()) for w in words) > _MAX_MIXED * len(words):
        return None  # capitals inside words: base64, identifiers (a code keeps prose's)
    if sum(w.isupper() for w in words) * 2 > len(words):
        return None  # mostly capitals: codes and abbreviations (ISO codes, part numbers)
    letters = collections.Counter(c for w in _letters(text) for c in w)
    top5 = sum(n for _, n in letters.most_common(5)) / max(sum(letters.values()), 1)
    cost = sum(_COST[p] * n for p, n in counts.items()) / total
    if cost > _MAX_BITS and top5 >= _MIN_TOP5:
        return "its letters follow each other as in no language (other letters in their places)"
    return None
