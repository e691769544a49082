"""Decode what ``git log`` prints of a commit: UTF-8, or the legacy 8-bit text git passes on."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .._legacy_text import decode_as, decode_legacy

__all__ = ["decode_commit", "decode_name", "without_controls"]

# A terminal's escape sequences: CSI (colours, cursor moves), OSC (window titles, links) up
# to its BEL or ST, and the two-character ones; then every other control character (C0 but
# tab, line feed and carriage return; DEL; C1).
_ESCAPES = re.compile(
    r"\x1b\[[0-?]{0,64}[ -/]{0,8}[@-~]"
    r"|\x1b\][^\x07\x1b]{0,2048}(?:\x07|\x1b\\)?"
    r"|\x1b[ -/]{0,4}[0-~]?"
)
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]+")
_BREAKS = re.compile("[\t\n\r]+")


def without_controls(text: str, one_line: bool = False) -> str:
    """Return ``text`` without terminal escapes and control characters (a message pasted
    from a coloured terminal, a name crafted to retitle a window): what it reads as. With
    ``one_line`` (a name), tabs and line breaks are spaces too."""
    if "\x1b" in text:
        text = _ESCAPES.sub("", text)
    text = _CONTROLS.sub("", text)
    return _BREAKS.sub(" ", text) if one_line else text


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
