"""Read documents (PDF, Office, OpenDocument, RTF, HTML, EPUB) as text, in a bounded worker."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from ._extract import MIME_TYPES
from ._oleguard import OLE_MAGIC
from ._records import document_at, read_document, shown_path
from ._sniff import content_format
from ._worker import DocumentReader, Extracted

__all__ = [
    "DOCUMENT_MAX_BYTES",
    "DOCUMENT_SUFFIXES",
    "MIME_TYPES",
    "DocumentReader",
    "Extracted",
    "content_format",
    "document_at",
    "document_limit",
    "is_document",
    "is_document_file",
    "read_document",
    "shown_path",
]

#: The file name endings read as documents (lower case, with the dot).
DOCUMENT_SUFFIXES = frozenset(MIME_TYPES)
#: Documents larger than this (64 MiB) are skipped with an error, whatever ``max_bytes`` is.
DOCUMENT_MAX_BYTES = 64 << 20


def is_document(name: str, data: bytes | None = None) -> bool:
    """Tell whether a file name, or a notes folder's file id, is one of the document formats
    (by its ending). Given the file's ``data``, a ``.msg`` that is not Outlook's (an OLE
    compound file) is not: a mail saved as text under that name is read as text."""
    suffix = PurePosixPath(shown_path(name)).suffix.lower()
    if suffix == ".msg" and data is not None and data[:8] != OLE_MAGIC:
        return False
    return suffix in DOCUMENT_SUFFIXES


# A note's endings (files._text.NOTE_SUFFIXES, which imports this package), and the bytes
# of one looked at: a PDF's header is in its first kilobyte.
_NOTE_NAMES = frozenset({".md", ".markdown", ".mdown", ".txt", ".text", ".rst", ".org", ".adoc"})
_HEAD = 1024


def is_document_file(path: Path) -> bool:
    """Tell whether a file is one of the document formats: by its ending, and for a ``.msg``
    by its first bytes (Outlook's, not a mail saved as text under that name); a file under
    a note's name (``notes.md``, ``report.txt``) by its bytes (a PDF, RTF, Office or
    OpenDocument file saved under the wrong name): read as what it is, as in a folder of
    notes."""
    suffix = path.suffix.lower()
    if suffix in _NOTE_NAMES:
        try:
            with path.open("rb") as f:
                start = f.read(_HEAD)
                if start[:8] == OLE_MAGIC or start[:4] == b"PK\x03\x04":
                    # a .doc or a .docx: told by its streams or parts, the whole file
                    if path.stat().st_size > DOCUMENT_MAX_BYTES:
                        return False
                    start += f.read()
        except OSError:
            return False  # unreadable: the notes import says why
        return content_format(start) is not None
    if suffix != ".msg":
        return is_document(path.name)
    try:
        with path.open("rb") as f:
            head = f.read(8)
    except OSError:
        head = None  # unreadable: by its name, and the import says why
    return is_document(path.name, head)


def document_limit(name: str, max_bytes: int) -> int:
    """Return the size limit for a file: ``DOCUMENT_MAX_BYTES`` for documents (PDFs are rarely
    under the 1 MB a text file may have), else ``max_bytes``."""
    return max(max_bytes, DOCUMENT_MAX_BYTES) if is_document(name) else max_bytes
