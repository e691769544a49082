"""The text of an Office 97-2003 document that is not its body: a ``.doc``'s footnotes,
endnotes, comments, headers and footers, a ``.ppt``'s comments.

kreuzberg 4.10 gives a ``.doc``'s main text only: a word in a footnote, a comment or a
footer was not in the memory. A Word 97 file keeps all its text as one run of characters
(the main text, then the footnotes, the headers and footers, the comments, the endnotes,
each as long as the FIB says), stored in pieces the piece table (``Clx``, in the table
stream) places: each piece 8-bit (Windows-1252) or UTF-16. These are read here and follow
the body under the headings the ``.docx`` notes have (see ``_notes``).

A ``.ppt``'s comments (``Comment10`` records: the author and the remark, each a
``CString``), which kreuzberg 4.10 leaves out too, follow its slides under ``[comments]``.
"""

from __future__ import annotations

import struct

from ._notes import HEADINGS
from ._oleguard import Layout
from ._olemeta import _MARKS, _unfield

__all__ = ["doc_notes", "ppt_comments"]

_WORD97 = b"\xec\xa5"
_MOST = 64 << 20
_LIMIT = 4 << 20  # characters read, all kinds together: as for a .docx's notes
_CLX_INDEX = 33  # fcClx's place among the FIB's (fc, lcb) pairs
# The FIB's character counts, from fibRgLw97's fourth field: the main text, footnotes,
# headers (and footers), the macro text (unused), comments, endnotes.
_COUNTS = 3
# Word's own characters that stand for a thing, not text: a footnote or comment mark,
# a picture, a drawn object, a separator between notes and the text.
_OBJECTS = str.maketrans(dict.fromkeys("\x01\x02\x03\x04\x05\x08", ""))


def _pieces(table: bytes, at: int, size: int) -> list[tuple[int, int, int, bool]]:
    """The piece table at ``at`` in the table stream: ``(first cp, last cp, offset,
    8-bit)`` for each piece (the offset in the WordDocument stream)."""
    end = min(at + size, len(table))
    while at < end and table[at] == 1:  # a Prc (formatting): skipped
        (grpprl,) = struct.unpack_from("<H", table, at + 1)
        at += 3 + grpprl
    if at + 5 > end or table[at] != 2:
        return []
    (lcb,) = struct.unpack_from("<I", table, at + 1)
    at += 5
    count = (lcb - 4) // 12
    if count <= 0 or at + lcb > len(table):
        return []
    cps = struct.unpack_from(f"<{count + 1}I", table, at)
    pieces = []
    for k in range(count):
        (fc,) = struct.unpack_from("<I", table, at + 4 * (count + 1) + 8 * k + 2)
        compressed = bool(fc & 0x40000000)
        offset = (fc & 0x3FFFFFFF) // 2 if compressed else fc & 0x3FFFFFFF
        pieces.append((cps[k], cps[k + 1], offset, compressed))
    return pieces


def _text(stream: bytes, pieces: list[tuple[int, int, int, bool]], start: int, end: int) -> str:
    """The characters ``start`` to ``end`` of the document's run."""
    out: list[str] = []
    for first, last, offset, compressed in pieces:
        a, b = max(first, start), min(last, end)
        if a >= b:
            continue
        if compressed:
            out.append(stream[offset + a - first : offset + b - first].decode("cp1252", "replace"))
        else:
            raw = stream[offset + 2 * (a - first) : offset + 2 * (b - first)]
            out.append(raw.decode("utf-16-le", "replace"))
    return "".join(out)


def _lines(text: str) -> list[str]:
    """The non-empty lines of a run of Word's text: fields by their results, marks as
    line ends, the objects it marks left out."""
    clean = _unfield(text).translate(_MARKS).translate(_OBJECTS)
    lines = (" ".join(line.split()) for line in clean.split("\n"))
    return [line for line in lines if line and any(c.isalnum() for c in line)]


def doc_notes(ole: Layout) -> str:
    """Return a Word 97-2003 document's footnotes, endnotes, comments, headers and footers
    under their headings (each distinct header or footer line once), or "" when it has
    none, is not a Word 97 file, or cannot be read."""
    stream = ole.stream("WordDocument", _MOST)
    if not stream or len(stream) < 0x1A2 + 8 or stream[:2] != _WORD97:
        return ""
    (flags,) = struct.unpack_from("<H", stream, 0x0A)
    if flags & 0x0100:
        return ""  # encrypted: refused elsewhere
    try:
        (csw,) = struct.unpack_from("<H", stream, 32)
        at = 34 + 2 * csw
        (cslw,) = struct.unpack_from("<H", stream, at)
        counts = struct.unpack_from("<6i", stream, at + 2 + 4 * _COUNTS)
        pairs = at + 2 + 4 * cslw + 2
        fc_clx, lcb_clx = struct.unpack_from("<II", stream, pairs + 8 * _CLX_INDEX)
    except struct.error:
        return ""
    table = ole.stream("1Table" if flags & 0x0200 else "0Table", _MOST)
    if not table or any(n < 0 for n in counts):
        return ""
    try:
        pieces = _pieces(table, fc_clx, lcb_clx)
    except struct.error:
        return ""
    text_n, footnotes, headers, macros, comments, endnotes = counts
    bounds = {}
    start = text_n
    for name, length in (
        ("footnotes", footnotes),
        ("headers", headers),
        ("macros", macros),
        ("comments", comments),
        ("endnotes", endnotes),
    ):
        bounds[name] = (start, start + min(length, _LIMIT))
        start += length
    sections = []
    for heading, name in (
        (HEADINGS[0], "footnotes"),
        (HEADINGS[1], "endnotes"),
        (HEADINGS[2], "comments"),
        (HEADINGS[3], "headers"),
    ):
        lines = _lines(_text(stream, pieces, *bounds[name]))
        if name == "headers":
            lines = list(dict.fromkeys(lines))
        if lines:
            sections.append(f"{heading}\n" + "\n".join(lines))
    return "\n\n".join(sections)[:_LIMIT]


_COMMENT = 0x2EE0  # a Comment10 container
_CSTRING = 0x0FBA
_AUTHOR, _REMARK = 0, 1  # a CString's instance in a comment
_COMMENT_HEAD = struct.pack("<HH", 0x000F, _COMMENT)
_MAX_COMMENTS = 100_000


def ppt_comments(ole: Layout) -> str:
    """Return a PowerPoint 97-2003 file's comments under ``[comments]`` (each
    ``Author: remark``, each distinct one once: a file saved over keeps older copies of its
    records), or "" when it has none or cannot be read."""
    stream = ole.stream("PowerPoint Document", _MOST)
    if not stream:
        return ""
    remarks: dict[str, None] = {}
    # Found by their headers, not by walking the record tree: PowerPoint 2002 and later
    # keep them inside a binary tag's data (PP10), which the tree calls an atom.
    at = stream.find(_COMMENT_HEAD)
    while at >= 0 and len(remarks) < _MAX_COMMENTS:
        (length,) = struct.unpack_from("<I", stream, at + 4) if at + 8 <= len(stream) else (0,)
        said = _comment(stream, at + 8, min(at + 8 + length, len(stream)))
        if said:
            remarks[said] = None
        at = stream.find(_COMMENT_HEAD, at + 4)
    if not remarks:
        return ""
    return (f"{HEADINGS[2]}\n" + "\n".join(remarks))[:_LIMIT]


def _comment(stream: bytes, at: int, end: int) -> str:
    """One comment's ``Author: remark`` from the records of its container."""
    parts: dict[int, str] = {}
    while at + 8 <= end:
        head, kind, length = struct.unpack_from("<HHI", stream, at)
        if kind == _CSTRING:
            raw = stream[at + 8 : min(at + 8 + length, end)]
            parts[head >> 4] = " ".join(raw.decode("utf-16-le", "replace").split())
        at += 8 + length
    remark = parts.get(_REMARK, "")
    author = parts.get(_AUTHOR, "")
    return f"{author}: {remark}" if author and remark else remark
