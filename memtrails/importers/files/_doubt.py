"""Refuse a note whose legacy charset is a guess: a wrong one would be kept, unseen."""

from __future__ import annotations

from .._legacy_text import decode_as, faulty_words, rival

__all__ = ["doubt"]

# Words beyond ASCII, and the share of them with faults, from which a reading is junk:
# the right reading of a note has a fault in one word of ten at most (a name, a symbol).
_FEW_WORDS, _FAULTY_SHARE = 3, 0.4


def doubt(data: bytes, encoding: str) -> str | None:
    """Why the text :func:`._text.decode` read in ``encoding`` is not read: a short note in a
    legacy charset that another one reads as well, in another script (see
    :func:`~memtrails.importers._legacy_text.rival`), or a longer one whose best reading
    still has words no language writes (``ъчГьрзпБп``: a code page not tried); a wrong
    guess would be kept as the note's words, unseen. None when the reading stands."""
    if encoding.startswith(("utf-", "ascii")):
        return None
    faulty, words = faulty_words(data, encoding)
    if words >= _FEW_WORDS and faulty >= words * _FAULTY_SHARE:
        return (
            f"its encoding cannot be told: read as {encoding}, {faulty} of its {words} "
            "words beyond ASCII are no language's; save it as UTF-8"
        )
    other = rival(data, encoding)
    if other is None:
        return None
    ours, theirs = decode_as(data, encoding).strip(), other[1].strip()
    return (
        f"its encoding cannot be told: too short ({ours[:40]!r} in {encoding}, "
        f"{theirs[:40]!r} in {other[0]}); save it as UTF-8"
    )
