"""Read an Office 97-2003 file's own dates, title and author from its SummaryInformation
property set (kreuzberg 4.10 gives no dates for .doc/.xls/.ppt, and no title or author for
.xls). Standard library only: it runs in the document worker, on a file ``layout`` checked."""

from __future__ import annotations

import codecs
import struct
from datetime import UTC, datetime, timedelta
from typing import Any

from ._oleguard import Layout

__all__ = ["WORD6_ENCRYPTED", "summary_info", "word6_text"]

_STREAM = "\x05SummaryInformation"
_MOST = 64 << 10  # a real summary is a few hundred bytes
_VT_I2, _VT_LPSTR, _VT_LPWSTR, _VT_FILETIME = 0x02, 0x1E, 0x1F, 0x40
_TITLE, _AUTHOR, _CREATED, _SAVED = 2, 4, 12, 13
_EPOCH = datetime(1601, 1, 1, tzinfo=UTC)
_EARLIEST = datetime(1980, 1, 1, tzinfo=UTC)  # before Office: a zero or a duration
_WESTERN = (1200, 1252, 65001)  # what a summary says on a Western system, or of itself
_HIGH = bytes(range(0xC0, 0x100))
_ASCII_LETTERS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _when(ticks: int) -> str | None:
    """A FILETIME (100 ns since 1601) as ISO 8601 UTC, or None for none or a nonsense one."""
    try:
        at = _EPOCH + timedelta(microseconds=ticks // 10)
    except OverflowError:
        return None
    if at < _EARLIEST or at > datetime.now(UTC) + timedelta(days=366):
        return None
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def _text(raw: bytes, codepage: int) -> str | None:
    """A summary string in the summary's code page; an 8-bit one that is not in it (a
    Western system's 1252 or UTF-8 around Russian text) in the code page its bytes show."""
    raw = raw.split(b"\0", 1)[0] if codepage != 1200 else raw
    name = {1200: "utf-16-le", 65001: "utf-8"}.get(codepage, f"cp{codepage}")
    try:
        codecs.lookup(name)
        if codepage in _WESTERN and codepage != 1200:
            raw.decode(name)  # strict: bytes UTF-8 does not read are no UTF-8
            if name != "utf-8" and _mostly_high(raw):
                raise ValueError(name)
    except (LookupError, ValueError):
        name = _by_bytes(raw)
    value = raw.decode(name, "replace").split("\0", 1)[0].strip()
    return value or None


def summary_info(ole: Layout) -> dict[str, Any]:
    """Return ``{created, modified, title, author, codepage}`` where the file's summary has
    them."""
    data = ole.stream(_STREAM, _MOST)
    if not data or len(data) < 48:
        return {}
    try:
        (offset,) = struct.unpack_from("<I", data, 44)  # the first section
        _, count = struct.unpack_from("<II", data, offset)
        props: dict[int, int] = {}
        for i in range(min(count, 256)):
            pid, at = struct.unpack_from("<II", data, offset + 8 + 8 * i)
            props[pid] = offset + at
        codepage = 1252
        out: dict[str, Any] = {}
        if 1 in props and struct.unpack_from("<I", data, props[1])[0] == _VT_I2:
            codepage = struct.unpack_from("<H", data, props[1] + 4)[0]
            out["codepage"] = codepage
        for pid, key in ((_CREATED, "created"), (_SAVED, "modified")):
            if pid in props and struct.unpack_from("<I", data, props[pid])[0] == _VT_FILETIME:
                when = _when(struct.unpack_from("<Q", data, props[pid] + 4)[0])
                if when:
                    out[key] = when
        for pid, key in ((_TITLE, "title"), (_AUTHOR, "author")):
            if pid not in props:
                continue
            kind, length = struct.unpack_from("<II", data, props[pid])
            start = props[pid] + 8
            if kind == _VT_LPSTR:
                value = _text(data[start : start + min(length, 4096)], codepage)
            elif kind == _VT_LPWSTR:
                value = _text(data[start : start + 2 * min(length, 4096)], 1200)
            else:
                continue
            if value:
                out[key] = value
    except (struct.error, ValueError):
        return {}
    return out


WORD6_ENCRYPTED = "encrypted"
_WORD6 = b"\xdc\xa5"
# Word's marks in its text: paragraph and cell ends, line and page breaks, fields.
_MARKS = str.maketrans(
    {"\r": "\n", "\x07": "\t", "\x0b": "\n", "\x0c": "\n", "\x1e": "-", "\x1f": ""}
)


def _unfield(text: str) -> str:
    """Keep a field's result, drop its code: ``\x13 code \x14 result \x15`` (or
    ``\x13 code \x15`` with no result). Nested fields are unwound from the inside out."""
    out: list[str] = []
    stack: list[bool] = []  # per open field: whether its result has begun
    in_code = 0  # open fields still in their code: their characters are left out
    for ch in text:
        if ch == "\x13":
            stack.append(False)
            in_code += 1
        elif ch == "\x14" and stack and not stack[-1]:
            stack[-1] = True
            in_code -= 1
        elif ch == "\x15" and stack:
            in_code -= not stack.pop()
        elif not in_code:
            out.append(ch)
    return "".join(out)


# The code page of a Word 6.0/95 document's text by the language of the Word that saved it
# (the FIB's lid): its primary language, or for a few, the language and region.
_BY_LANGUAGE = {
    **dict.fromkeys((0x02, 0x19, 0x22, 0x23, 0x2F, 0x3F, 0x40, 0x44, 0x50), 1251),
    **dict.fromkeys((0x05, 0x0E, 0x15, 0x18, 0x1A, 0x1B, 0x1C, 0x24), 1250),
    **dict.fromkeys((0x01, 0x20, 0x29), 1256),
    **dict.fromkeys((0x25, 0x26, 0x27), 1257),
    0x08: 1253,
    0x0D: 1255,
    0x1E: 874,
    0x1F: 1254,
    0x2A: 1258,
    0x04: 936,
    0x11: 932,
    0x12: 949,
}
_BY_LOCALE = {0x0C1A: 1251, 0x1C1A: 1251, 0x0404: 950, 0x0C04: 950, 0x1404: 950}


def _mostly_high(raw: bytes) -> bool:
    """Whether more of the bytes are 0xC0-0xFF (Cyrillic letters in Windows-1251, accented
    ones in Windows-1252) than are ASCII letters: Cyrillic text, not Western."""
    high = len(raw) - len(raw.translate(None, _HIGH))
    return high > len(raw) - len(raw.translate(None, _ASCII_LETTERS))


def _by_bytes(raw: bytes) -> str:
    return "cp1251" if _mostly_high(raw) else "cp1252"


def _text_codepage(raw: bytes, codepage: int | None, lid: int) -> str:
    """The code page a Word 6.0/95 text is in: the summary's, unless it is the Western
    one a Western system writes whatever the text; else the one of the language of the Word
    that saved it; else, for text whose letters are mostly bytes 0xC0-0xFF (Cyrillic in
    Windows-1251: a Russian text saved by a Western Word), Windows-1251; else Windows-1252."""
    if codepage and codepage not in _WESTERN:
        page = codepage
    elif (by_lid := _BY_LOCALE.get(lid) or _BY_LANGUAGE.get(lid & 0x3FF)) is not None:
        page = by_lid
    else:
        return _by_bytes(raw)
    name = f"cp{page}"
    try:
        codecs.lookup(name)
    except LookupError:
        return "cp1252"
    return name


def word6_text(ole: Layout, codepage: int | None) -> str | None:
    """Return the text of a Word 6.0/95 document (FIB ident 0xA5DC, which kreuzberg 4.10
    refuses), :data:`WORD6_ENCRYPTED` for an encrypted one, or None for any other file.

    Its text is the 8-bit run from ``fcMin`` to ``fcMac`` of the WordDocument stream, in the
    code page :func:`_text_codepage` tells: the summary's, the saving Word's language's
    (Russian Word: Windows-1251), else by its bytes (Windows-1251 or -1252). A fast-saved file keeps later edits
    elsewhere: this run then is its text as last saved in full.
    """
    stream = ole.stream("WordDocument", 64 << 20)
    if not stream or len(stream) < 0x20 or stream[:2] != _WORD6:
        return None
    nfib, _, lid, _, flags = struct.unpack_from("<HHHHH", stream, 2)
    if not 0x65 <= nfib <= 0x68:
        return None
    if flags & 0x0100:
        return WORD6_ENCRYPTED
    start, end = struct.unpack_from("<II", stream, 0x18)
    if not 0 < start <= end <= len(stream):
        return None
    raw = stream[start:end]
    text = _unfield(raw.decode(_text_codepage(raw, codepage, lid), "replace")).translate(_MARKS)
    return "".join(c for c in text if c >= " " or c in "\n\t")
