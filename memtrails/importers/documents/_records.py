"""Build a document's record (or its error) from what the worker extracted."""

from __future__ import annotations

import time
from pathlib import PurePosixPath
from typing import Any

from ...export_dates import is_zero_date, text_ms
from ...records import At, Item, MemoryRecord, RecordError, Seen
from .._shared import name_as_title
from ._pdfdates import pdf_dates
from ._worker import DocumentReader

__all__ = ["document_at", "read_document", "shown_path"]

_EARLIEST_MS = At.of("1980-01-01").ms  # before Office and PDF: a date never set
_YEAR_MS = 366 * 86_400_000
_NO_TEXT = (
    "no text: the document holds none (never filled in; pictures, shapes or empty cells "
    "only; a sheet's formulas never calculated, so no values saved): nothing to store or find"
)


def shown_path(rel: str) -> str:
    """Return a file id as the path it shows: without the ``//`` and hex that follow a name
    that is not UTF-8 (``importers.files.file_id``), whose ending then is the file's own."""
    return rel.split("//", 1)[0]  # a listed path never holds "//"


def document_at(meta: dict[str, Any]) -> At | None:
    """Return when the document says it was last modified (else created), or None.

    A date is read as every importer reads a text date (``export_dates.text_ms``): "0" and
    "0000-00-00" are no date (``Date.parse`` alone makes "0" the year 2000), and
    "20240503103200" is that day and time, not the year 2611 nor none. As for an Office
    97-2003 summary's dates (``_olemeta``), one before 1980 or over a year ahead is none:
    what writers put for a date never set (.NET's "0001-01-01T00:00:00Z", FILETIME zero's
    "1601-01-01", the epoch).
    """
    latest = time.time() * 1000 + _YEAR_MS
    for key in ("modified", "created"):
        value = meta.get(key)
        ms = text_ms(value) if isinstance(value, str) and not is_zero_date(value) else None
        if ms is not None and _EARLIEST_MS <= ms <= latest:
            return At(ms)
    return None


def _own_pdf_dates(doc: dict[str, Any], data: bytes) -> None:
    """Put a PDF's dates as its information dictionary writes them in place of the
    extractor's (which drops their offsets), dropping one that is malformed."""
    found = pdf_dates(data)
    for key, iso in (found or {}).items():
        if iso is None:
            doc.pop(key, None)
        else:
            doc[key] = iso


def _mail(
    text: str,
    doc: dict[str, Any],
    mail: dict[str, Any],
    *,
    rel: str,
    name: str,
    meta: dict[str, Any],
    source: str,
) -> MemoryRecord:
    """A saved Outlook message as a record of kind ``mail``: the subject its title, the
    sender its author, its date (else the file's mtime), ``to``, ``cc``, ``message_id`` and
    ``attachments`` in its meta as a mail importer writes them, the body and its attachments'
    text its text. Its id stays the file's path: the folder's file, updated and pruned with it."""
    fields: dict[str, Any] = {
        k: mail[k] for k in ("to", "cc", "message_id", "attachments") if k in mail
    }
    if not text and fields.get("attachments"):  # as an attachment-only mail's record says
        text = "Attachments: " + ", ".join(
            a.get("name") or "unnamed" for a in fields["attachments"]
        )
    return MemoryRecord(
        id=rel,
        text=text,
        kind="mail",
        title=mail.get("subject") or name,
        author=mail.get("from"),
        at=document_at(doc) or At(meta["mtime_ns"] // 1_000_000),
        source=source,
        thread=mail.get("thread") or mail.get("message_id"),
        meta={**meta, **fields, "document": doc},
    )


def read_document(
    reader: DocumentReader,
    data: bytes,
    *,
    rel: str,
    meta: dict[str, Any],
    saved: list[Any] | None,
    source: str,
) -> tuple[Item, str | None]:
    """Return a notes folder's document as a record (kind ``document``), ``Seen`` when its
    bytes are the ones read last run, or a RecordError; and the reason to save with its stamp
    (None for a record), so an unchanged bad file is not read again.

    ``meta`` holds the file's own fields (path, size, mtime_ns, sha256); the record's date is
    the document's own (modified, else created), else the file's mtime.
    """
    if saved is not None and saved[2] == meta["sha256"]:
        if len(saved) == 3:
            return Seen(source, rel), None
        return RecordError(source, rel, saved[3], id=rel), saved[3]
    shown = PurePosixPath(shown_path(rel))
    name = name_as_title(shown.name)
    got = reader.read(data, shown.suffix.lower())
    if isinstance(got, str):
        return RecordError(source, rel, got, id=rel), got
    doc = dict(got.meta)
    if b"%PDF-" in data[:1024]:
        _own_pdf_dates(doc, data)
    mail = doc.pop("mail", None)
    if isinstance(mail, dict):  # an Outlook .msg: a mail, as a mail importer gives one
        return _mail(got.text, doc, mail, rel=rel, name=name, meta=meta, source=source), None
    if not got.text.strip():
        # A new, never-filled document (Word's "New > Document" saved as is), slides or a
        # sheet of pictures only: an empty record would be found by nothing, and say nothing.
        # (An attachment's reader keeps reading such a file as no text: a mail lists it.)
        return RecordError(source, rel, _NO_TEXT, id=rel), _NO_TEXT
    authors = doc.get("authors") or []
    return (
        MemoryRecord(
            id=rel,
            text=got.text,
            kind="document",
            title=doc.get("title") or name,
            author=", ".join(authors) or None,
            at=document_at(doc) or At(meta["mtime_ns"] // 1_000_000),
            source=source,
            meta={**meta, "document": doc},
        ),
        None,
    )
