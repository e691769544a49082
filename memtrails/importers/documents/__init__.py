"""Read documents (PDF, Office, OpenDocument, RTF, HTML, EPUB) as text, in a bounded worker."""

from __future__ import annotations

from pathlib import PurePosixPath

from ._extract import MIME_TYPES
from ._records import document_at, read_document, shown_path
from ._worker import DocumentReader, Extracted

__all__ = [
    "DOCUMENT_MAX_BYTES",
    "DOCUMENT_SUFFIXES",
    "MIME_TYPES",
    "DocumentReader",
    "Extracted",
    "document_at",
    "document_limit",
    "is_document",
    "read_document",
    "shown_path",
]

#: The file name endings read as documents (lower case, with the dot).
DOCUMENT_SUFFIXES = frozenset(MIME_TYPES)
#: Documents larger than this (64 MiB) are skipped with an error, whatever ``max_bytes`` is.
DOCUMENT_MAX_BYTES = 64 << 20


def is_document(name: str) -> bool:
    """Tell whether a file name, or a notes folder's file id, is one of the document formats
    (by its ending)."""
    return PurePosixPath(shown_path(name)).suffix.lower() in DOCUMENT_SUFFIXES


def document_limit(name: str, max_bytes: int) -> int:
    """Return the size limit for a file: ``DOCUMENT_MAX_BYTES`` for documents (PDFs are rarely
    under the 1 MB a text file may have), else ``max_bytes``."""
    return max(max_bytes, DOCUMENT_MAX_BYTES) if is_document(name) else max_bytes
