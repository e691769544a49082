"""Refuse a note whose legacy charset is a guess: a wrong one would be kept, unseen."""

from __future__ import annotations

from .._legacy_langs import known_words
from .._legacy_text import (
    DOUBLE_BYTE,
    decode_as,
    faulty_words,
    letter_scripts,
    reading,
    readings,
)

__all__ = ["doubt"]

# Words beyond ASCII, and the share of them with faults, from which a reading is junk:
# the right reading of a note has a fault in one word of ten at most (a name, a symbol).
_FEW_WORDS, _FAULTY_SHARE = 3, 0.4


def doubt(data: bytes, encoding: str) -> str | None:
    """Why the text :func:`._text.decode` read in ``encoding`` is not read: a short note in a
    legacy charset that another one reads as well, in another script (see
    :func:`_rival`), or a longer one whose best reading
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
    other = _rival(data, encoding)
    if other is None:
        return None
    ours, theirs = decode_as(data, encoding).strip(), other[1].strip()
    return (
        f"its encoding cannot be told: too short ({ours[:40]!r} in {encoding}, "
        f"{theirs[:40]!r} in {other[0]}); save it as UTF-8"
    )


def _rival(data: bytes, codec: str) -> tuple[str, str] | None:
    """Another reading of short legacy text (too few 8-bit bytes for a detector) that is
    about as likely as ``codec``'s (within ``_UNSURE`` of it, as ``_legacy_text`` weighs
    readings, with no more faults) and in another script: ``(codec, text)``, else None.
    Two letters are ``ок`` in KOI8-R and ``ПЛ`` in Windows-1251, two Han characters
    Hangul in EUC-KR: no evidence tells which was written. Readings in one script (Latin
    ``è`` or ``č``, Han in GB18030 or EUC-JP) or with a sign (``m³``, ``mł``) are left to
    the order text is most often written in and the languages; so is an 8-bit word among
    Latin words, read as Latin, and a reading with less evidence for it than its code
    page's rarity (but two Han characters against two Hangul syllables)."""
    weighed = readings(data)
    codec = "cp1252" if codec == "latin-1" else codec
    if weighed is None or codec not in weighed[0]:
        return None
    pages, value, faults = weighed
    chosen = reading(data, codec)
    scripts = letter_scripts(chosen)
    # Latin words around an 8-bit one (Ricordarsi ... è alle undici): it is Latin too.
    among_latin = scripts == {"Latin"} and any(
        w.isascii() and sum(chr(b).isalpha() for b in w) > 1 for w in data[:_SAMPLE].split()
    )
    for other in sorted(pages, key=lambda c: -value[c]):
        if other == codec or faults[other] > faults[codec]:
            continue
        if other == "cp1252":
            # The first guess, clean (accented letters, àéè, fewer than a fault's run):
            # a rival to a reading in another script that its languages' letters do not
            # make clearly likelier (by ``_UNSURE_FIRST``), unless that one's words are
            # words its languages' prose writes (да, за; not айи, вко).
            if value[codec] - value[other] >= _UNSURE_FIRST or known_words(chosen, codec):
                continue
        elif value[codec] - value[other] >= (
            _UNSURE_FIRST if (codec in DOUBLE_BYTE) != (other in DOUBLE_BYTE) else _UNSURE
        ):
            # (a double-byte reading against a single-byte one: two weights of unlike
            # evidence, common characters and a language's letters, told apart less well)
            continue
        elif value[other] <= 0 and (
            (other in DOUBLE_BYTE and codec not in DOUBLE_BYTE)
            or (
                other not in DOUBLE_BYTE
                and sum(c.isalpha() and not c.isascii() for c in reading(data, other)) < 3
            )
        ):
            # Less evidence than its code page's rarity, in common Han characters (any
            # two bytes of a Cyrillic word read so: ПРИВЕТ is 闲嚷乓 in GB18030) or in two
            # letters (ёж is Έζ in Windows-1253): none.
            continue
        text = reading(data, other)
        theirs = letter_scripts(text)
        if text == chosen or theirs == scripts or "symbol" in theirs | scripts:
            continue  # the same script, or a sign (m³ or mł): the language model's to tell
        if among_latin and theirs != {"Latin"}:
            continue
        if other in DOUBLE_BYTE and sum(not c.isascii() for c in text) < 2:
            continue  # one character of two bytes tells nothing
        return other, text
    return None


# How much likelier (in faults) the chosen reading must be than one in another script;
# than Windows-1252's, the first guess, and than one of the other kind (double-byte
# against single-byte: βιβλίο in Windows-1253 is 砠硅熄 in EUC-JP).
_UNSURE = 0.75
_UNSURE_FIRST = 3.0
_SAMPLE = 256 * 1024  # bytes looked at for Latin words
