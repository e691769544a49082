"""Extract one document's text and metadata (runs inside the worker process).

Imports only the standard library, kreuzberg and its own siblings, so that the worker
starts without loading memtrails (the model runtime, the index).
"""

from __future__ import annotations

import importlib.util
import re
import struct
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

from ._docx import current_docx
from ._garbled import unreadable
from ._html import read_html
from ._msg import ATTACHMENT_HEADING, ReadDocument, mail_of
from ._msgparts import msg_parts
from ._notes import docx_notes, docx_without_notes, odt_notes
from ._odf import has_text_boxes, read_odf, read_ods, read_odt
from ._oleguard import OLE_MAGIC, OLE_SUFFIXES, Layout, encrypted, layout
from ._olemeta import WORD6_ENCRYPTED, summary_info, word6_text
from ._olenotes import doc_notes, ppt_comments
from ._pdffonts import unmapped_fonts
from ._pdfguard import stream_bomb
from ._pdfparts import embedded_files
from ._pptx import mark_hidden_slides
from ._sniff import described, plain_text, read_as
from ._xlsx import read_xlsx
from ._zipguard import NO_BODY, NOT_A_ZIP, ZIP_SUFFIXES, check_zip
from ._zipsalvage import salvage

__all__ = ["MIME_TYPES", "Failed", "extract"]

#: The file name endings read as documents, and the media type each is read as.
MIME_TYPES = {
    ".pdf": "application/pdf",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".docm": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ".pptm": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".xlsm": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".odt": "application/vnd.oasis.opendocument.text",
    ".ods": "application/vnd.oasis.opendocument.spreadsheet",
    ".odp": "application/vnd.oasis.opendocument.presentation",
    ".rtf": "application/rtf",
    ".html": "text/html",
    ".htm": "text/html",
    ".xhtml": "text/html",
    ".epub": "application/epub+zip",
    # Office 97-2003: OLE compound files, read by kreuzberg's own parsers (no zip inside)
    ".doc": "application/msword",
    ".dot": "application/msword",
    ".xls": "application/vnd.ms-excel",
    ".xlt": "application/vnd.ms-excel",
    ".ppt": "application/vnd.ms-powerpoint",
    ".pps": "application/vnd.ms-powerpoint",
    ".pot": "application/vnd.ms-powerpoint",
    # an Outlook message saved as a file (an OLE compound file too)
    ".msg": "application/vnd.ms-outlook",
}
# Read with the standard library, not kreuzberg: presentations in OpenDocument form (it has
# no reader for them), HTML (kreuzberg 4.10's text of a page with a heading or a <p> left
# out every <div>, <span> and <section>, and it ignored a <meta> charset), and spreadsheets
# (it gave no text for a sheet whose values lie far apart, and padded sparse ones with
# megabytes of spaces: see _xlsx).
_OWN_READERS: dict[str, Callable[[bytes], tuple[str, dict[str, Any]]]] = {
    ".txt": plain_text,  # set by read_as: a text table named .xls
    ".odp": read_odf,
    ".ods": read_ods,
    ".xlsx": read_xlsx,
    ".xlsm": read_xlsx,
    ".html": read_html,
    ".htm": read_html,
    ".xhtml": read_html,
}
_NOTES = {".docx": docx_notes, ".docm": docx_notes, ".odt": odt_notes, ".odp": odt_notes}
_NO_NAME = {"untitled", "anonymous", "unknown", "unspecified", ""}
#: The most characters of text one document gives (16 Mi). The importing process receives a
#: document's text whole, and a container may unpack to 512 MB of it; a record keeps far less
#: (``Limits.max_text_units``, 1,000,000 by default). A longer text is cut here, and its
#: ``meta["cut_from_chars"]`` says how long it was.
MAX_TEXT_CHARS = 16 << 20
# An OOXML file saved with a password is an OLE compound file holding these streams
# (MS-OFFCRYPTO), whatever its name: no zip, and no text without the password.
_OOXML_ENCRYPTED = {"EncryptedPackage", "EncryptionInfo"}
_SPREADSHEETS = {".xls", ".xlt"}
_WORD = {".doc", ".dot"}
_SLIDES = {".ppt", ".pps", ".pot"}
_SPACES = re.compile(r"[ \t]{2,}")
_BLANK_LINES = re.compile(r"\n{3,}")
_MIDNIGHT = re.compile(r"\b(\d{4}-\d{2}-\d{2}) 00:00:00\b")
_ENCRYPTED = "encrypted document: it opens only with its password (save a copy without one)"
_TRUNCATED = (
    "corrupt or unreadable document (a truncated PDF: the file stops before its end, as a "
    "download or copy that was cut short does)"
)
_GARBLED = (
    "text unreadable: fonts without a Unicode map ({why}: its fonts' codes come out as "
    "other characters, as Type3 and custom-encoded fonts without a ToUnicode map give them); "
    "run OCR on it (e.g. ocrmypdf --force-ocr), then import it"
)
_ZIP_CUT = (
    "corrupt file: a zip cut short (its table of contents, at its end, is missing: a "
    "download or copy that stopped early?), and {what}"
)
# The reasons that say a file is not the format its name says, which what it is completes.
_NOT_IT = (NOT_A_ZIP, "corrupt file: not a PDF", "corrupt file: not an Office 97-2003 file")
_PDF_TAIL = 1024  # where a PDF's %%EOF is (a few bytes may follow it), and a catalog's "obj"
#: How many Outlook messages deep a document inside one is read (a .msg attached to a .msg).
MAX_DEPTH = 3


class Failed(Exception):
    """The document cannot be read; the message says why, for the import report."""


def _clean(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    value = value.strip()
    return None if value.lower() in _NO_NAME else value


def _authors(meta: dict[str, Any]) -> list[str]:
    found = meta.get("authors") or meta.get("author") or meta.get("initial_creator") or []
    names = [found] if isinstance(found, str) else list(found)
    return [n for n in (_clean(x) for x in names) if n]


def _summary(suffix: str, text: str, meta: dict[str, Any]) -> dict[str, Any]:
    """The few metadata fields memtrails keeps, under one set of names for every format."""
    out: dict[str, Any] = {"format": suffix.lstrip(".")}
    title = _clean(meta.get("title"))
    if title:
        out["title"] = title
    authors = _authors(meta)
    if authors:
        out["authors"] = authors
    for key, names in (
        ("created", ("created_at", "created")),
        ("modified", ("modified_at", "modified")),
    ):
        value = next((_clean(meta.get(n)) for n in names if _clean(meta.get(n))), None)
        if value:
            out[key] = value
    pages = meta.get("page_count") or meta.get("slide_count") or meta.get("sheet_count")
    if isinstance(pages, int) and pages > 0:
        out["pages"] = pages
    return {"text": text, "meta": out}


def _kreuzberg(data: bytes, suffix: str) -> tuple[str, dict[str, Any]]:
    try:
        import kreuzberg
    except ImportError as exc:
        if importlib.util.find_spec("kreuzberg") is None:
            raise Failed(
                "reading documents needs the documents extra: pip install 'memtrails[documents]'"
            ) from None
        raise Failed(
            f"the document reader cannot load kreuzberg within its memory limit ({exc})"
        ) from None
    # No cache folder, no OCR engine (none is packaged), no post-processing guesses.
    # (disable_ocr is accepted by 4.10 but missing from its type stub.)
    config = kreuzberg.ExtractionConfig(  # type: ignore[call-arg]
        use_cache=False, disable_ocr=True, enable_quality_processing=False
    )
    # A .msg file's attachments are read by ``_msgparts`` and :func:`extract`, past the OLE
    # and zip guards; kreuzberg read them itself, past neither.
    config.max_archive_depth = 0
    try:
        result = _unpanicked(kreuzberg.extract_bytes_sync, data, MIME_TYPES[suffix], config)
    except kreuzberg.KreuzbergError as exc:
        message = str(exc).split(": ", 1)[-1] or type(exc).__name__
        # PDFium's errors come back said twice over ("Invalid PDF: X: Invalid PDF: X").
        half = (len(message) - 2) // 2
        if message[half : half + 2] == ": " and message[:half] == message[half + 2 :]:
            message = message[:half]
        if "password" in message.lower() or "encrypt" in message.lower():
            raise Failed(_ENCRYPTED) from None
        if suffix in OLE_SUFFIXES and encrypted(data, suffix):
            raise Failed(_ENCRYPTED) from None  # kreuzberg reads the encrypted bytes as damage
        if "0xA5DC" in message:  # Word 6.0/95, whose header word6_text could not use
            raise Failed(
                "corrupt or unreadable document (a Word 6.0/95 file whose header gives no text)"
            ) from None
        raise Failed(f"corrupt or unreadable document ({message[:200]})") from None
    meta = dict(result.metadata) if isinstance(result.metadata, dict) else {}
    return str(result.content or ""), meta


def _unpanicked(read: Callable[..., Any], *args: Any) -> Any:
    """Call one of kreuzberg's readers; a panic in its Rust parsers (an assertion on a
    damaged .xls: ``PanicException``, which is no ``Exception`` and killed the worker) is
    a damaged document."""
    try:
        return read(*args)
    except BaseException as exc:
        if type(exc).__name__ != "PanicException":
            raise
        said = str(exc).split("\n", 1)[0][:120]
        raise Failed(f"corrupt or unreadable document (its parser stopped: {said})") from None


def _pdf(data: bytes) -> tuple[str, dict[str, Any]]:
    """Read a PDF; one cut short (a download or copy that stopped: no ``%%EOF`` at its end)
    is read again with a trailer naming its catalog, as far as its pages go, and says so
    (``truncated``); PDFium refuses a PDF whose trailer is gone."""
    try:
        return _kreuzberg(data, ".pdf")
    except Failed as exc:
        if b"%%EOF" in data[-_PDF_TAIL:] or not str(exc).startswith("corrupt"):
            raise
    catalog = data.rfind(b"/Catalog")
    start = data.rfind(b" obj", max(catalog - _PDF_TAIL, 0), catalog)
    ident = re.search(rb"(\d{1,10})\s+(\d{1,5})\s*\Z", data[max(start - 32, 0) : start])
    if catalog < 0 or start < 0 or ident is None:
        raise Failed(_TRUNCATED) from None
    trailer = b"\ntrailer\n<< /Root %s %s R >>\n%%%%EOF\n" % (ident.group(1), ident.group(2))
    try:
        text, meta = _kreuzberg(data + trailer, ".pdf")
    except Failed:
        raise Failed(_TRUNCATED) from None
    meta["truncated"] = True
    return text, meta


def _codepage(ole: Layout) -> int | None:
    try:
        value = summary_info(ole).get("codepage")
    except Exception:  # why: damage in the summary must not cost the document its text
        return None
    return value if isinstance(value, int) else None


def _own_summary(meta: dict[str, Any], ole: Layout) -> None:
    """Fill in what kreuzberg 4.10 leaves out of an Office 97-2003 file's metadata from its
    SummaryInformation: the dates (never given), the title and author (none for .xls; a
    title it decoded in the wrong code page, with U+FFFD, is replaced)."""
    try:
        info = summary_info(ole)
    except Exception:  # why: damage in the summary must not cost the document its text
        return
    title = _clean(meta.get("title"))
    if info.get("title") and (not title or "\ufffd" in title):
        meta["title"] = info["title"]
    if info.get("author") and not _authors(meta):
        meta["authors"] = [info["author"]]
    for key in ("created", "modified"):
        if info.get(key) and not (meta.get(f"{key}_at") or meta.get(key)):
            meta[key] = info[key]


def _ole_notes(ole: Layout, suffix: str) -> str:
    """An Office 97-2003 file's notes, comments, headers and footers (``_olenotes``)."""
    try:
        if suffix in _WORD:
            return doc_notes(ole)
        return ppt_comments(ole) if suffix in _SLIDES else ""
    except (struct.error, ValueError, IndexError):
        return ""  # why: the body is read (or refused) on its own; these parts are extra


def _boxed(data: bytes, suffix: str) -> Callable[[bytes], tuple[str, dict[str, Any]]] | None:
    """The reader of an OpenDocument text with text boxes: its own (kreuzberg 4.10 gives
    none of the text of a box inside another box)."""
    return read_odt if suffix == ".odt" and has_text_boxes(data) else None


def _reader(max_unpacked: int, depth: int) -> ReadDocument:
    """Read a document inside a .msg (an attachment, an HTML or RTF body) as :func:`extract`
    reads a file, through the same checks; at most :data:`MAX_DEPTH` messages deep."""

    def read(data: bytes, suffix: str) -> tuple[str, str | None]:
        if depth >= MAX_DEPTH:
            return "", f"not read: inside {depth} Outlook messages, one in another"
        try:
            return str(extract(data, suffix, max_unpacked, depth + 1)["text"]), None
        except Failed as exc:
            return "", str(exc)
        except Exception as exc:  # why: one damaged attachment must not cost the mail
            return "", f"corrupt or unreadable document ({type(exc).__name__})"

    return read


def _pdf_attachments(data: bytes, max_unpacked: int, depth: int) -> tuple[str, list[Any]]:
    """The text of the files a PDF embeds (a portfolio's documents, an invoice's data),
    each under ``[attachment: NAME]`` as a mail's, read as :func:`extract` reads a file;
    and an entry for each (``name``, ``chars`` or ``error``)."""
    read = _reader(max_unpacked, depth)
    sections: list[str] = []
    entries: list[Any] = []
    for part in embedded_files(data, max_unpacked):
        suffix = PurePosixPath(part.name).suffix.lower()
        why = part.why
        text = ""
        if part.data is None:
            pass
        elif suffix in MIME_TYPES or suffix in _OWN_READERS:
            text, why = read(part.data, suffix)
        elif b"\0" in part.data[:8192]:
            why = "not read: not a document nor text"
        else:
            text = plain_text(part.data)[0].strip()
        if text:
            sections.append(f"{ATTACHMENT_HEADING}{part.name}]\n\n{text}")
        entries.append(
            {"name": part.name, "chars": len(text)}
            if not why
            else {"name": part.name, "error": why}
        )
    return "".join(sections), entries


def extract(data: bytes, suffix: str, max_unpacked: int, depth: int = 0) -> dict[str, Any]:
    """Return ``{"text": ..., "meta": {format, title, authors, created, modified, pages}}``.

    ``depth``: how many Outlook messages the document is inside (an attachment's).

    Raises:
        Failed: the document is encrypted, corrupt, a zip bomb, or (a PDF) has no text layer.
    """
    if not data:  # Windows' New > Word Document makes these; a download that never came too
        raise Failed("empty file (0 bytes): there is no document in it")
    try:
        return _guarded(data, suffix, max_unpacked, depth)
    except Failed as exc:
        what = described(data) if str(exc).startswith(_NOT_IT) else None
        if what is None:
            raise
        raise Failed(f"{exc}: its bytes are {what}") from None


def _guarded(data: bytes, suffix: str, max_unpacked: int, depth: int) -> dict[str, Any]:
    """:func:`extract` for a file that is not empty."""
    named = suffix
    suffix = read_as(data, suffix)
    cut_zip = False
    if suffix in ZIP_SUFFIXES:
        why = check_zip(data, max_unpacked, suffix)
        if why and why.startswith(NOT_A_ZIP) and (whole := salvage(data, max_unpacked)):
            data, cut_zip = whole[0], True  # a download or copy cut short: what is whole
            why = check_zip(data, max_unpacked, suffix)
            if why and why.startswith(NO_BODY):
                why = _ZIP_CUT.format(what="the parts still whole hold none of its text")
        elif why and why.startswith(NOT_A_ZIP) and data[:4] == b"PK\x03\x04":
            why = _ZIP_CUT.format(what="no part of it is whole")
        if why:
            raise Failed(why)
    try:
        summary = _checked(data, named, suffix, max_unpacked, depth)
    except Failed as exc:
        if cut_zip and str(exc).startswith(("corrupt", "no text")):
            raise Failed(
                _ZIP_CUT.format(what="the parts still whole hold none of its text")
            ) from None
        raise
    if cut_zip:
        summary["meta"]["truncated"] = True
    return summary


def _checked(data: bytes, named: str, suffix: str, max_unpacked: int, depth: int) -> dict[str, Any]:
    """:func:`extract` for a file past the zip guard: ``named`` its own ending, ``suffix``
    the one it is read as."""
    if suffix == ".msg" and data[:8] != OLE_MAGIC:
        raise Failed(
            "not an Outlook message (no OLE compound file header): a mail saved as text "
            "is read as mail by `memtrails add FILE` (or --kind eml)"
        )
    ole: Layout | None = None
    if suffix in OLE_SUFFIXES:
        try:
            ole = layout(data)
        except ValueError as exc:
            raise Failed(str(exc)) from None
        if _OOXML_ENCRYPTED & {name for name, _, _, _ in ole.entries}:
            raise Failed(_ENCRYPTED)
    elif suffix == ".pdf" and b"%PDF-" not in data[:1024]:  # where readers look for it
        raise Failed("corrupt file: not a PDF (no %PDF- header)")
    elif suffix == ".pdf" and (bomb := stream_bomb(data)) is not None:
        raise Failed(bomb)
    word6 = word6_text(ole, _codepage(ole)) if ole is not None and suffix in _WORD else None
    if word6 == WORD6_ENCRYPTED:
        raise Failed(_ENCRYPTED)
    meta: dict[str, Any]
    if word6 is not None and ole is not None:  # Word 6.0/95, which kreuzberg 4.10 refuses
        text, meta = word6, {}
        _own_summary(meta, ole)
    elif (own := _OWN_READERS.get(suffix) or _boxed(data, suffix)) is not None:
        try:
            text, meta = own(data)
        except Exception as exc:  # why: any damage in the zip or its XML is one bad file
            raise Failed(f"corrupt or unreadable document ({type(exc).__name__}: {exc})") from None
    else:
        given = data
        if suffix in (".docx", ".docm"):
            data = current_docx(data)  # a box's anchor paragraph, moved-away text
            given = docx_without_notes(data)  # the notes follow, marked (_notes)
        elif suffix in (".pptx", ".pptm"):
            given = data = mark_hidden_slides(data)
        text, meta = _pdf(data) if suffix == ".pdf" else _kreuzberg(given, suffix)
        if suffix == ".msg" and ole is not None:
            parts = msg_parts(ole, len(data))
            read = _reader(max_unpacked, depth)
            text, meta["mail"] = mail_of(text, meta, parts, read, MIME_TYPES)
        elif ole is not None:
            _own_summary(meta, ole)
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    # footnotes, comments, headers and footers, after the body (kreuzberg reads the body)
    notes = _NOTES[suffix](data) if suffix in _NOTES else ""
    if ole is not None and word6 is None:  # kreuzberg 4.10 gives a .doc's body alone
        notes = _ole_notes(ole, suffix)
    text = f"{text}\n\n{notes}".strip() if notes else text
    if suffix == ".pdf":  # a portfolio's documents, a form's attachments
        garbled = unreadable(text)
        attached, meta["attachments"] = _pdf_attachments(data, max_unpacked, depth)
        if garbled and not attached:
            raise Failed(_GARBLED.format(why=garbled))
        text = "" if garbled else text  # the attachments' text alone is kept
        text = (text + "\n" + attached).strip() if attached else text
    if not text and suffix in OLE_SUFFIXES and encrypted(data, suffix):
        raise Failed(_ENCRYPTED)  # kreuzberg 4.10 gives an encrypted .ppt as no text
    if suffix in _SPREADSHEETS:
        # kreuzberg writes a sheet's empty cells as spaces: a 30 KB .xls gave 4 MB of them
        text = "\n".join(_SPACES.sub(" ", line).rstrip() for line in text.split("\n")).strip()
        # and a date as a date (kreuzberg gives every date cell a time): as .xlsx's are
        text = _MIDNIGHT.sub(r"\1", text)
        text = _BLANK_LINES.sub("\n\n", text)  # empty rows: hundreds of blank lines
    if not text and suffix == ".pdf":
        pages = meta.get("page_count")
        if unmapped_fonts(data):
            raise Failed(
                f"no readable text: its {pages or 'any'} page(s) draw their text in fonts that "
                "map no glyph to a character (Type3 or Identity-encoded fonts without a "
                "ToUnicode map: what some PDF printers write), so no reader can give it as "
                "text (run OCR on it, e.g. ocrmypdf --force-ocr, then import it)"
            )
        raise Failed(
            f"no text layer (scanned?): its {pages or 'any'} page(s) hold no text (a scan, or "
            "pictures), and no OCR engine is installed (run OCR on it first, e.g. ocrmypdf, "
            "then import it)"
        )
    summary = _summary(named, text[:MAX_TEXT_CHARS], meta)
    if isinstance(meta.get("mail"), dict):
        summary["meta"]["mail"] = meta["mail"]
    if meta.get("attachments") and suffix == ".pdf":
        summary["meta"]["attachments"] = meta["attachments"]
    if meta.get("truncated") is True:
        summary["meta"]["truncated"] = True
    if suffix != named:
        summary["meta"]["read_as"] = suffix.lstrip(".")
    if len(text) > MAX_TEXT_CHARS:
        summary["meta"]["cut_from_chars"] = len(text)
    return summary
