"""The Chinese, Japanese and Korean characters text is mostly written in, from the charsets'
own first levels: what tells East Asian text from bytes that decode as Han by chance.

Random bytes read as UTF-16 or as a double-byte charset land anywhere in the 20,992 Han
characters or the 11,172 Hangul syllables; text uses the few thousand common ones, which
each national charset puts first: GB 2312 level 1 (3,755 characters), Big5's frequently
used characters (5,401), JIS X 0208 level 1 (2,965), and KS X 1001's 2,350 syllables.
The sets are built once, when first asked, by decoding those rows with Python's codecs.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

__all__ = ["common_han", "common_hangul", "is_cjk_common"]

_HIGH = range(0xA1, 0xFF)


def _rows(codec: str, leads: Iterable[int], trails: Iterable[int]) -> frozenset[str]:
    trail = list(trails)
    found: set[str] = set()
    for lead in leads:
        for byte in trail:
            try:
                found.add(bytes((lead, byte)).decode(codec))
            except UnicodeDecodeError:
                continue
    return frozenset(found)


@functools.cache
def common_han() -> frozenset[str]:
    """The Han characters in GB 2312 level 1, Big5's frequent block or JIS X 0208 level 1."""
    return (
        _rows("gb2312", range(0xB0, 0xD8), _HIGH)
        | _rows("big5", range(0xA4, 0xC7), [*range(0x40, 0x7F), *_HIGH])
        | _rows("euc_jp", range(0xB0, 0xD0), _HIGH)
    )


@functools.cache
def common_hangul() -> frozenset[str]:
    """The 2,350 Hangul syllables of KS X 1001 (what EUC-KR holds)."""
    return _rows("euc_kr", range(0xB0, 0xC9), _HIGH)


def is_cjk_common(char: str) -> bool | None:
    """Tell whether a Han character or Hangul syllable is a common one; None for any other
    character (kana, punctuation, other scripts)."""
    if (
        "\u4e00" <= char <= "\u9fff"
        or "\u3400" <= char <= "\u4dbf"
        or "\U00020000" <= char <= "\U0003ffff"
    ):
        return char in common_han()
    if "\uac00" <= char <= "\ud7a3":
        return char in common_hangul()
    return None
