"""Decode what ``git log`` prints of a commit: UTF-8, or the legacy 8-bit text git passes on."""

from __future__ import annotations

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
        return [text or "" for text in texts]
    _, codec = decode_legacy(b"\n".join(legacy))
    return [
        decode_as(raw, codec) if text is None else text
        for raw, text in zip(fields, texts, strict=True)
    ]
