"""An .eml file that holds several messages, each after its own ``From `` line (an mbox
saved or concatenated under an .eml name): each message is read as its own, as the mbox
reader splits them, instead of the messages after the first being read as its text."""

from __future__ import annotations

import dataclasses
import io
import re
from collections.abc import Iterator

from ..limits import Limits
from ..records import MemoryRecord, RecordError
from .documents import DocumentReader
from .mail import MailBook
from .mbox_lines import MMDF, is_separator, looks_like_mbox
from .mbox_split import split

__all__ = ["holds_several", "read_several"]

# A From_ line, and the line after it (CRLF or LF).
_LATER_SEPARATOR = re.compile(rb"\n(From [^\n]*\n)([^\n]*)")
_HEADER = re.compile(rb"[!-9;-~]+[ \t]*:")
_LOOKED_AT = 64 * 1024


def holds_several(raw: bytes) -> bool:
    """Tell whether a message file is an mbox of more than one message: it starts with a
    ``From `` separator, and a later one has a header after it (a ``From `` line quoted in
    a text, followed by more text, is no separator). An MMDF mailbox (its messages between
    lines of four Ctrl-A) is one too, of one message or more: those lines are no mail's."""
    if raw[:_LOOKED_AT].lstrip(b"\xef\xbb\xbf\r\n").startswith(MMDF):
        return looks_like_mbox(raw[:_LOOKED_AT])
    if not raw.startswith((b"From ", b"\xef\xbb\xbf", b"\n", b"\r")) or b"\nFrom " not in raw:
        return False
    if not looks_like_mbox(raw[:_LOOKED_AT]):
        return False
    first = raw.find(b"From ")  # the first separator (after a BOM, blank lines)
    return any(
        is_separator(found.group(1)) and _HEADER.match(found.group(2)) is not None
        for found in _LATER_SEPARATOR.finditer(raw, first + 1)
    )


def read_several(
    raw: bytes,
    source: str,
    rel: str,
    book: MailBook,
    documents: DocumentReader | None = None,
    units: int = Limits().max_text_units,
    planning: bool = False,
) -> Iterator[MemoryRecord | RecordError]:
    """Yield the messages of the file ``rel`` (:func:`holds_several`), split as an mbox:
    records carry ``meta["path"]``, errors say the file and the message in it. With
    ``planning``, only show ``book`` their thread headers (the first pass)."""
    for item in split(
        io.BytesIO(raw), source, book=book, documents=documents, units=units, planning=planning
    ):
        if isinstance(item, MemoryRecord):
            yield dataclasses.replace(item, meta={**item.meta, "path": rel})
        elif isinstance(item, RecordError):
            yield RecordError(source, f"{rel}: {item.where}", item.reason, id=item.id)
