"""Read a mail's document attachments (PDF, Office, ...) into the text of the mail's record."""

from __future__ import annotations

from collections.abc import Iterator
from email.message import Message
from pathlib import PurePosixPath
from typing import Any

from ...items import ATTACHMENT_HEADING
from ..documents import MIME_TYPES, DocumentReader
from .parts import content_type, filename, payload

__all__ = ["read_attachments"]

_MAX_DEPTH = 32
_MAX_BYTES = 64 << 20
# A part without a usable file name is known by its type.
_SUFFIX_OF = {mime: suffix for suffix, mime in reversed(MIME_TYPES.items())} | {
    "application/msword-template": ".docx",
    "application/x-pdf": ".pdf",
    "application/vnd.ms-word.document.macroenabled.12": ".docm",
}


def _leaves(part: Message, depth: int = 0) -> Iterator[Message]:
    if depth > _MAX_DEPTH:
        return
    if part.is_multipart():
        for child in part.get_payload():
            if isinstance(child, Message):
                yield from _leaves(child, depth + 1)
    else:
        yield part


def _suffix(name: str | None, ctype: str) -> str | None:
    suffix = PurePosixPath(name or "").suffix.lower()
    if suffix in MIME_TYPES:
        return suffix
    # Mail clients send PDFs as application/octet-stream with a name, or typed with none.
    return _SUFFIX_OF.get(ctype) if ctype != "text/html" else None


def read_attachments(
    msg: Message, attachments: list[dict[str, Any]], reader: DocumentReader | None
) -> str:
    """Extract the text of each document attached to ``msg``; return it as sections.

    Each section starts with a line ``[attachment: NAME]`` (:data:`ATTACHMENT_HEADING`), so a
    search can tell which attachment a passage came from. The matching entry of
    ``attachments`` (the mail's ``meta.attachments``) gets ``chars`` (the text's length) or
    ``error`` (why it could not be read). ``reader`` is used if given; else one is started
    for this message only when it has a document, and closed before returning.
    """
    found = []
    for part in _leaves(msg):
        ctype = content_type(part)
        name = filename(part)
        if ctype.startswith("text/") and not name:
            continue  # the mail's own text and HTML body
        suffix = _suffix(name, ctype)
        if suffix is not None:
            found.append((part, name or f"attachment{suffix}", suffix, name, ctype))
    if not found:
        return ""
    own = reader is None
    reader = reader or DocumentReader()
    sections = []
    try:
        unmatched = list(attachments)
        for part, shown, suffix, name, ctype in found:
            entry = next(
                (a for a in unmatched if a.get("name") == name and a.get("type") == ctype), None
            )
            if entry is not None:
                unmatched.remove(entry)
            data = payload(part)
            got: Any = (
                f"larger than {_MAX_BYTES} bytes" if len(data) > _MAX_BYTES else None
            ) or reader.read(data, suffix)
            if isinstance(got, str):
                if entry is not None:
                    entry["error"] = got
                continue
            if entry is not None:
                entry["chars"] = len(got.text)
            if got.text:
                sections.append(f"{ATTACHMENT_HEADING}{shown}]\n\n{got.text}")
    finally:
        if own:
            reader.close()
    return "\n\n".join(sections)
