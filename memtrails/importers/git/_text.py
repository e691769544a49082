"""Decode what ``git log`` prints of a commit: UTF-8, or the legacy 8-bit text git passes on."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .._legacy_text import decode_as, decode_legacy
from .._shared import without_controls

__all__ = ["decode_commit", "decode_name", "without_controls"]


def _utf8(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def decode_name(raw: bytes) -> str:
    """Decode a short text with no charset of its own (a file name): UTF-8, else the legacy
    charset its words read in (Windows-1252 unless another reads them clearly better)."""
    text = _utf8(raw)
    return text if text is not None else decode_legacy(raw)[0]


def decode_commit(fields: Sequence[bytes]) -> list[str]:
    """Decode the fields of one commit (names, message) as ``git log`` printed them.

    git re-encodes a commit that names its encoding (an ``encoding`` header) to UTF-8; one
    that does not is printed as its bytes, in whatever charset its author's system used.
    Every field that is not valid UTF-8 is read in one charset, chosen from all of them
    together (a name alone is too short to tell): Windows-1252 (the usual undeclared
    Western charset, as browsers read it) unless another charset, or charset-normalizer's
    guess when there are enough 8-bit bytes, reads their words clearly better (see
    :mod:`.._legacy_text`: a short Cyrillic message is no Western mojibake, nor KOI8-R
    Japanese). Never U+FFFD for a byte some charset reads.
    """
    texts = [_utf8(raw) for raw in fields]
    legacy = [raw for raw, text in zip(fields, texts, strict=True) if text is None]
    if not legacy:
        return _latin1_converted([text or "" for text in texts])
    _, codec = decode_legacy(b"\n".join(legacy))
    return [
        decode_as(raw, codec) if text is None else text
        for raw, text in zip(fields, texts, strict=True)
    ]


def _latin1_converted(texts: list[str]) -> list[str]:
    """Undo git's own reading of a legacy message as Latin-1.

    ``git commit`` given a message that is not UTF-8 (and no ``i18n.commitEncoding``)
    stores it converted as though each 8-bit byte were a Latin-1 letter: a KOI8-R
    ``Собрание`` is stored, in UTF-8, as ``ÓÏÂÒÁÎÉÅ``. Text whose letters beyond ASCII are
    all Latin-1's (U+0080-U+00FF), with a C1 control or three of them in a row (Western
    text seldom has either), is read back to those bytes, and read in the charset their
    words are in where another reads them far better than Windows-1252 (a French
    ``Réunion``, a German ``äöü`` stay as they are).
    """
    joined = "\n".join(texts)
    if joined.isascii() or _BEYOND_LATIN1.search(joined) or not _CONVERTED.search(joined):
        return texts
    raw = [text.encode("latin-1") for text in texts]
    words = [word for word in b"\n".join(raw).split() if not word.isascii()][:_WORDS]
    if len(words) < _MIN_WORDS:
        return texts
    _, codec = decode_legacy(b"\n".join(words), margin=_MARGIN)
    if codec in ("cp1252", "latin-1", "utf-8"):
        return texts
    return [
        decode_as(data, codec) if not data.isascii() else text
        for data, text in zip(raw, texts, strict=True)
    ]


_BEYOND_LATIN1 = re.compile("[^\x00-\xff]")
_CONVERTED = re.compile("[\x80-\x9f]|[\x80-\xff]{3}")
_WORDS = 128  # words holding 8-bit bytes read: each costs a reading in some twenty charsets
# The text is valid UTF-8, as its author's: it is read otherwise only on more evidence than
# undeclared bytes need (German "Umlaute äöü und ÄÖÜ" is no Cyrillic "дць"), two words of
# it and eight faults fewer.
_MIN_WORDS = 2
_MARGIN = 8
