"""One text file that is no archive (notes.md, a script), given on its own: one note.

Detection (``importers.detect``) reads folders of notes, not a lone note; a file it finds
no kind for is read here when its bytes are text, as the notes importer would read it
inside a folder (encoding, title from its first heading, kind ``note`` for prose and
``file`` for the rest), under the source of its resolved path. ``memtrails add`` and the
service's imports both take it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..._exceptions import SourceError
from ...records import At, MemoryRecord
from . import DEFAULT_MAX_FILE_BYTES, NOTE_SUFFIXES
from ._doubt import doubt
from ._entries import too_large
from ._text import decode, format_of, title_of

__all__ = ["note_of"]

_SNIFF = 8192  # bytes enough to tell text from binary


def note_of(path: Path, max_bytes: int | None = None) -> MemoryRecord | None:
    """Return the one record a lone text file makes, or None when it is not text.

    Raises:
        SourceError: it is text, but larger than ``max_bytes`` (``Limits.max_file_bytes``;
            None: 1 MB): the message gives both sizes and how to raise the limit; or text in
            a legacy charset that cannot be told (see ``_doubt``): the message says so.
    """
    limit = max_bytes or DEFAULT_MAX_FILE_BYTES
    try:
        info = path.stat()
        if not path.is_file():
            return None
        if info.st_size > limit:
            with path.open("rb") as f:
                head = f.read(_SNIFF)
            if decode(head) is None:
                return None
            raise SourceError(str(path), too_large(info.st_size, limit))
        data = path.read_bytes()
    except OSError:
        return None
    decoded = decode(data) if format_of(data) is None else None  # a PDF named .txt
    if decoded is None:
        return None
    text, encoding = decoded
    why = doubt(data, encoding)
    if why is not None:
        raise SourceError(str(path), why)
    suffix = path.suffix.lower()
    return MemoryRecord(
        id=path.name,
        text=text,
        kind="note" if suffix in NOTE_SUFFIXES else "file",
        title=title_of(text, path.name, suffix),
        at=At(info.st_mtime_ns // 1_000_000),
        source=os.path.abspath(path),
        meta={
            "path": os.path.abspath(path),
            "size": info.st_size,
            "mtime_ns": info.st_mtime_ns,
            "encoding": encoding,
            "sha256": hashlib.sha256(data).hexdigest(),
        },
    )
