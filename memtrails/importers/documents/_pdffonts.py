"""Tell why a PDF whose pages are drawn gives no text: its fonts carry no Unicode mapping.

A PDF's text is glyphs of its fonts; a reader turns them into characters through the
font's encoding or its ``/ToUnicode`` map. A Type3 font (glyphs drawn as pictures, named
``/g1``, ``/g2``) or a CID font with ``/Identity-H`` encoding (glyph numbers, as many PDF
printers and "save as PDF" tools write subset fonts) without a ``/ToUnicode`` map has no
characters to give: PDFium gives none (or control characters, dropped), and the file read
as "no text layer (scanned?)", though it is no scan. The font dictionaries are looked for
in the file's bytes and in its compressed object streams (PDF 1.5), each inflated to a
bound.
"""

from __future__ import annotations

import re
import zlib

__all__ = ["object_streams", "unmapped_fonts"]

_OBJECT_STREAM = re.compile(rb"/Type\s*/ObjStm\b")
_STREAM = re.compile(rb"stream\r?\n")
_MAX_STREAMS = 256
_MAX_INFLATED = 8 << 20  # bytes of object streams inflated in all
_UNMAPPED = (b"/Type3", b"/Identity-H", b"/Identity-V")


def object_streams(data: bytes) -> list[bytes]:
    """The inflated contents of the file's object streams (a bounded number and size)."""
    found: list[bytes] = []
    budget = _MAX_INFLATED
    for match in _OBJECT_STREAM.finditer(data):
        if len(found) >= _MAX_STREAMS or budget <= 0:
            break
        start = _STREAM.search(data, match.end(), match.end() + 4096)
        if start is None:
            continue
        inflate = zlib.decompressobj()
        try:
            body = inflate.decompress(data[start.end() : start.end() + budget], budget)
        except zlib.error:
            continue
        budget -= len(body)
        found.append(body)
    return found


def unmapped_fonts(data: bytes) -> bool:
    """Tell whether the PDF ``data`` draws with a Type3 or Identity-encoded font and holds
    no ``/ToUnicode`` map at all (in its bytes or its object streams)."""
    parts = [data, *object_streams(data)]
    if any(b"/ToUnicode" in part for part in parts):
        return False
    return any(mark in part for part in parts for mark in _UNMAPPED)
