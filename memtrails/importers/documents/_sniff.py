"""Tell what format a document's bytes are, whatever its name says (runs inside the worker).

Names lie: Word and Excel save HTML, RTF and the newer zip formats under the old endings,
a download saved as ``report.pdf`` may be the web page that came instead, a ``.docx`` may
be an old ``.doc`` or a PDF renamed. Each is read as what its first bytes (and, for a zip
or an OLE compound file, the names of its parts) say it is; ``meta.document.read_as``
then names that format.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any

from ._oleguard import OLE_MAGIC, OLE_SUFFIXES, layout
from ._zipparts import ZIP_READ_ERRORS

__all__ = ["SIGNATURES", "content_format", "described", "plain_text", "read_as"]

# An Office 97-2003 name on a file that is another format (Word and Excel save HTML, RTF
# and the newer zip formats under the old endings; exports name HTML tables ".xls").
_NEWER = {".doc": ".docx", ".dot": ".docx", ".xls": ".xlsx", ".xlt": ".xlsx"}
_NEWER |= {".ppt": ".pptx", ".pps": ".pptx", ".pot": ".pptx"}
_OLDER = {".docx": ".doc", ".docm": ".doc", ".xlsx": ".xls", ".xlsm": ".xls"}
_OLDER |= {".pptx": ".ppt", ".pptm": ".ppt"}
# The C0 control bytes but tab, line feed and carriage return: none is in a text table.
_TEXT_CONTROLS = bytes(b for b in range(32) if b not in (9, 10, 13))
_HTML_MARKS = (b"<html", b"<!doctype html", b"<table", b"<body", b"<head", b"<meta")
_SPREADSHEETS = {".xls", ".xlt"}
_HTML = frozenset({".html", ".htm", ".xhtml"})
# The part that names a zip's format, and the format (OOXML by its main part's name).
_ZIP_PARTS = (
    ("word/document.xml", ".docx"),
    ("xl/workbook.xml", ".xlsx"),
    ("ppt/presentation.xml", ".pptx"),
)
_ZIP_MIMETYPES = {
    b"application/vnd.oasis.opendocument.text": ".odt",
    b"application/vnd.oasis.opendocument.spreadsheet": ".ods",
    b"application/vnd.oasis.opendocument.presentation": ".odp",
    b"application/epub+zip": ".epub",
}
# An OLE compound file's format, by a stream only it holds.
_OLE_STREAMS = (
    ("WordDocument", ".doc"),
    ("Workbook", ".xls"),
    ("Book", ".xls"),
    ("PowerPoint Document", ".ppt"),
    ("EncryptedPackage", ".doc"),  # a password-protected OOXML file: refused as that
)


def read_as(data: bytes, suffix: str) -> str:
    """Return the ending a file is read as: its own, unless its bytes are another format.

    An Office 97-2003 name on a file that is not an OLE compound file is read as the
    format its bytes are (RTF, HTML, the zip formats, a table written as text); a newer
    Office name on an OLE compound file (a renamed .doc, or a password-protected file,
    which Office writes as one) as the older format; and any document name on a PDF, an
    OLE compound file, a zip of another format, RTF or HTML as what it is. Bytes that are
    none of these keep the name's format, whose reader then says what is wrong.
    """
    ole = data[:8] == OLE_MAGIC
    if suffix in _OLDER and ole:
        return _OLDER[suffix]
    if suffix in _NEWER and not ole:
        return _older_name(data, suffix)
    found = _format_of(data)
    if found is None and suffix not in _HTML and suffix != ".msg" and _text(data[:4096]):
        return ".txt"  # notes saved under a document's name
    if found is None or found == suffix or (suffix in _HTML and found == ".html"):
        return suffix
    if found == ".ole":
        return suffix if suffix in OLE_SUFFIXES else _ole_format(data) or suffix
    if found == ".zip":
        return _zip_format(data) or suffix
    return found


def content_format(data: bytes) -> str | None:
    """The document format a file's bytes are, whatever its name (``.pdf``, ``.rtf``, an
    Office or OpenDocument zip by the part that names it, an Office 97-2003 file by its
    streams), or None: for a notes folder's file under a note's name (``report.txt`` that
    is a PDF). HTML is not one here: under a note's name it is read as the text it is."""
    found = _format_of(data)
    if found == ".ole":
        return _ole_format(data)
    if found == ".zip":
        return _zip_format(data)
    return found if found in (".pdf", ".rtf") else None


def _older_name(data: bytes, suffix: str) -> str:
    head = data[:1024].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head[:5] == b"{\\rtf":
        return ".rtf"
    if head[:4] == b"PK\x03\x04":
        return _zip_format(data) or _NEWER[suffix]
    if head[:5] == b"%PDF-":
        return ".pdf"
    if head[:1] == b"<" and any(mark in head.lower() for mark in _HTML_MARKS):
        return ".html"
    if suffix in _SPREADSHEETS and _delimited_text(data[:4096]):
        return ".txt"  # a table exported as text (tabs or commas) under Excel's name
    return suffix


def _format_of(data: bytes) -> str | None:
    """The format a file's first bytes say (``.ole`` and ``.zip`` for containers)."""
    head = data[:1024].lstrip(b"\xef\xbb\xbf \t\r\n\x00")
    if data[:8] == OLE_MAGIC:
        return ".ole"
    if data[:4] == b"PK\x03\x04":
        return ".zip"
    if head[:5] == b"%PDF-" or (head[:1] != b"<" and b"%PDF-" in data[:1024]):
        return ".pdf"  # PDF readers take a header anywhere in the first kilobyte
    if head[:5] == b"{\\rtf":
        return ".rtf"
    if head[:1] == b"<" and any(mark in head[:512].lower() for mark in _HTML_MARKS):
        return ".html"
    return None


def _zip_format(data: bytes) -> str | None:
    """The zip format a container is, by the part that names it; None if not known."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            names = z.NameToInfo
            for part, suffix in _ZIP_PARTS:
                if part in names:
                    return suffix
            if "mimetype" in names and names["mimetype"].file_size < 256:
                return _ZIP_MIMETYPES.get(z.read("mimetype").strip())
    except ZIP_READ_ERRORS:  # damage: the zip guard names it
        return None
    return None


def _ole_format(data: bytes) -> str | None:
    """The Office 97-2003 format an OLE compound file is, by its streams; None if not
    known (or the file is damaged: the OLE check says why, under the name's format)."""
    try:
        names = {name for name, _, _, _ in layout(data).entries}
    except ValueError:
        return ".doc"  # damaged: the OLE check names the damage
    for stream, suffix in _OLE_STREAMS:
        if stream in names:
            return suffix
    if any(name.startswith("__substg1.0_") for name in names):
        return ".msg"
    return None


def _text(head: bytes) -> bool:
    """Tell whether a file's first bytes are text: UTF-8 (a character cut at the end
    aside) with no control byte but tab, form feed and line ends, and a letter in it."""
    if head.translate(None, _TEXT_CONTROLS.replace(b"\x0c", b"")) != head:
        return False
    try:
        text = head.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:
            return False
        text = head[: exc.start].decode("utf-8-sig", "replace")
    return any(c.isalpha() for c in text)


# What a file's first bytes say it is: one table, one wording, for the reason a document
# is not read (a picture, an archive, a program saved under a document's name) and for
# the reason a notes folder's file is not text (a PDF or a picture saved as .md). The
# last field: a signature of printable ASCII that a text file may start with too
# ("MZ", "ID3"): it names binary data, but does not make it so.
SIGNATURES: tuple[tuple[bytes, str, bool], ...] = (
    (b"%PDF-", "a PDF document", True),
    (OLE_MAGIC, "an Office 97-2003 file (.doc, .xls, .ppt, .msg)", True),
    (b"{\\rtf", "an RTF document", True),
    (b"PK\x03\x04", "a zip archive", True),
    (b"\x89PNG", "a PNG image", True),
    (b"\xff\xd8\xff", "a JPEG image", True),
    (b"GIF8", "a GIF image", True),
    (b"II*\x00", "a TIFF image", True),
    (b"MM\x00*", "a TIFF image", True),
    (b"\x1f\x8b", "gzip-compressed data", True),
    (b"BZh", "bzip2-compressed data", False),
    (b"\xfd7zXZ\x00", "xz-compressed data", True),
    (b"7z\xbc\xaf\x27\x1c", "a 7z archive", True),
    (b"Rar!\x1a\x07", "a RAR archive", True),
    (b"\x7fELF", "a program (ELF)", True),
    (b"MZ", "a Windows program", False),
    (b"SQLite format 3\x00", "an SQLite database", True),
    (b"%!PS", "PostScript", False),
    (b"ID3", "MP3 audio", False),
)


def described(data: bytes, sure: bool = False) -> str | None:
    """Say what bytes are, where their first bytes tell (``a PNG image``), else None;
    ``sure``: only by a signature no text starts with (not ``MZ``, ``ID3``)."""
    for magic, what, binary in SIGNATURES:
        if data.startswith(magic) and (binary or not sure):
            return what
    if data[4:8] == b"ftyp" and (data[:2] == b"\x00\x00" or not sure):  # a box's size first
        return "a video or audio file (MP4, MOV, M4A)"
    if data[:4] == b"RIFF" and data[8:12] in (b"WEBP", b"WAVE", b"AVI "):
        return {b"WEBP": "a WebP image", b"WAVE": "WAV audio"}.get(data[8:12], "an AVI video")
    if not sure and data and data.strip(b"\x00") == b"":
        return "NUL bytes only (a file whose writing never finished, or zeroed)"
    return None


def _delimited_text(head: bytes) -> bool:
    """Tell whether a file's first bytes are a table written as text: no NUL, no other
    control byte than tab and line ends, and a tab or comma on its first line."""
    if not head or head.translate(None, _TEXT_CONTROLS) != head:
        return False
    first = head.split(b"\n", 1)[0]
    return b"\t" in first or b"," in first or b";" in first


def plain_text(data: bytes) -> tuple[str, dict[str, Any]]:
    """A text file's text: UTF-8 (after a BOM), else Windows-1252 as exports write it."""
    try:
        return data.decode("utf-8-sig"), {}
    except UnicodeDecodeError:
        return data.decode("cp1252", "replace"), {}
