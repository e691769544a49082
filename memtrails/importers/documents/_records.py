"""Build a document's record (or its error) from what the worker extracted."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from ...dates import parse_date
from ...records import At, Item, MemoryRecord, RecordError, Seen
from ._worker import DocumentReader

__all__ = ["document_at", "read_document", "shown_path"]


def shown_path(rel: str) -> str:
    """Return a file id as the path it shows: without the ``//`` and hex that follow a name
    that is not UTF-8 (``importers.files.file_id``), whose ending then is the file's own."""
    return rel.split("//", 1)[0]  # a listed path never holds "//"


def document_at(meta: dict[str, Any]) -> At | None:
    """Return when the document says it was last modified (else created), or None."""
    for key in ("modified", "created"):
        value = meta.get(key)
        ms = parse_date(value) if isinstance(value, str) else None
        if ms is not None:
            try:
                return At(ms)
            except ValueError:
                continue
    return None


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
    name = shown.name
    got = reader.read(data, shown.suffix.lower())
    if isinstance(got, str):
        return RecordError(source, rel, got, id=rel), got
    doc = got.meta
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
