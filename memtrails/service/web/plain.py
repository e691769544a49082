"""Record text made safe where markup cannot isolate it: bidi controls and control characters
neutralised, long text shortened without splitting a character, and the rest isolated."""

from __future__ import annotations

import unicodedata

__all__ = ["BIDI_CONTROLS", "isolated", "neutral", "shortened"]

BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""The embeddings, overrides and isolates (LRE RLE PDF LRO RLO, LRI RLI FSI PDI): what
reorders the text after them (Trojan Source); the marks (LRM, RLM, ALM) only weigh on what
is beside them, and stay."""

FSI, PDI = "\u2068", "\u2069"
ELLIPSIS = "\u2026"

_NEUTRAL: dict[int, str | None] = {ord(c): None for c in BIDI_CONTROLS}
# C0 and C1 controls show as the replacement character, so that they are seen; those that
# break a line or a paragraph (and so end a bidi isolate) become a space.
_NEUTRAL.update({c: "\ufffd" for c in [*range(0x20), *range(0x7F, 0xA0)]})
_NEUTRAL.update({ord(c): " " for c in "\t\n\v\f\r\x1c\x1d\x1e\x1f\x85\u2028\u2029"})


def neutral(text: str) -> str:
    """Return ``text`` without bidi embeddings, overrides and isolates, its control
    characters as U+FFFD and its line and paragraph breaks as spaces: for where no element
    can isolate it (an attribute, the page's title, an ``<option>``, an SVG ``<title>``).

    Joiners (U+200D in an emoji sequence), variation selectors, combining marks and the
    directional marks stay.
    """
    return text.translate(_NEUTRAL)


def _extends(char: str) -> bool:
    """Tell whether ``char`` belongs with the character before it (the same grapheme)."""
    code = ord(char)
    return (
        unicodedata.category(char) in ("Mn", "Me", "Mc")
        or code == 0x200D  # ZERO WIDTH JOINER
        or 0xFE00 <= code <= 0xFE0F  # variation selectors
        or 0xE0100 <= code <= 0xE01EF
        or 0x1F3FB <= code <= 0x1F3FF  # skin tones
        or 0xE0020 <= code <= 0xE007F  # tags (subdivision flags)
        or 0x1160 <= code <= 0x11FF  # Hangul vowels and finals
    )


def _regional(char: str) -> bool:
    return 0x1F1E6 <= ord(char) <= 0x1F1FF


def shortened(text: str, limit: int) -> str:
    """Return ``text`` cut to at most ``limit`` characters with an ellipsis, never inside a
    grapheme: not before a combining mark or a joined emoji, nor between a flag's halves."""
    if len(text) <= limit:
        return text
    cut = max(limit - 1, 0)
    while 0 < cut < len(text) and (_extends(text[cut]) or text[cut - 1] == "\u200d"):
        cut -= 1
    if 0 < cut < len(text) and _regional(text[cut]):
        run = 0
        while run < cut and _regional(text[cut - 1 - run]):
            run += 1
        cut -= run % 2  # an odd run before the cut: its last half belongs with the next
    return text[:cut] + ELLIPSIS


def isolated(text: str, limit: int | None = None) -> str:
    """Return ``text`` neutralised (:func:`neutral`), shortened to ``limit`` characters if
    given, between FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE: right-to-left text
    keeps its own order and cannot reorder what follows it in the same line."""
    plain = neutral(text)
    if limit is not None:
        plain = shortened(plain, limit)
    return FSI + plain + PDI
