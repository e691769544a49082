"""Read a mail's document attachments (PDF, Office, ...) into the text of the mail's record."""

from __future__ import annotations

import re
from collections.abc import Iterator
from email.message import Message
from pathlib import PurePosixPath
from typing import Any

from ...items import ATTACHMENT_HEADING
from ..documents import MIME_TYPES, DocumentReader
from .attach_plain import is_plain_text, plain_text
from .attach_text import attached_text, text_kind
from .parts import charset, content_type, disposition, filename, payload, payload_size

__all__ = ["read_attachments"]

_MAX_DEPTH = 32
_MAX_BYTES = 64 << 20
_MAX_TEXT = 20_000  # characters of a mail's small text attachments, all together
_TEXT_SUFFIX = {"calendar": ".ics", "card": ".vcf", "table": ".csv", "plain": ".txt"}
# Types mailers give a card, an invitation or a table they do not type as text (Outlook's
# CSV is a spreadsheet): the file's ending then says how it is read, as for untyped data.
_UNTYPED_AS = dict.fromkeys(
    (
        "application/vcard",
        "application/x-vcard",
        "application/directory",
        "application/calendar",
        "application/x-ical",
        "application/csv",
        "application/x-csv",
        "application/vnd.ms-excel",
        "application/excel",
        "application/x-excel",
        "application/x-msexcel",
    ),
    "application/octet-stream",
)
_DOCUMENT_TEXT = {"text/html", "text/rtf", "text/richtext", "text/enriched"}  # markup, not text
_CONTROLS = re.compile(r"[\x00-\x1f\x7f]+")
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


def _entry(
    pool: list[dict[str, Any]], name: str | None, ctype: str, part: Message | None = None
) -> dict[str, Any] | None:
    """Take the ``meta.attachments`` entry of a part from ``pool`` (None: the part is none).

    Given the ``part``, an entry of its size is taken first: two unnamed text files of one
    type are then told apart.
    """
    same = [a for a in pool if a.get("name") == name and a.get("type") == ctype]
    size = payload_size(part) if part is not None and len(same) > 1 else None
    entry = next((a for a in same if a.get("size") == size), same[0] if same else None)
    if entry is not None:
        pool.remove(entry)
    return entry


def _plain(part: Message, name: str | None, ctype: str) -> bool:
    """Tell whether a part is a text file to read: a plain-text type or name, and (for a
    text/* type) named or sent as an attachment, as the mail's own text never is."""
    if ctype in _DOCUMENT_TEXT or not is_plain_text(name, ctype):
        return False
    return not ctype.startswith("text/") or name is not None or disposition(part) == "attachment"


def _text_section(
    data: bytes, declared: str | None, kind: str, entry: dict[str, Any], room: int
) -> str | None:
    """Return the text of a small text attachment (an invitation, a card, a table, a text
    file), noting its length or why it was left out in ``entry``; None when it gives none."""
    if room <= 0:
        entry["error"] = f"left out: the mail's attachments gave {_MAX_TEXT} characters already"
        return None
    if kind == "plain":
        got = plain_text(data, declared, room)
    else:
        got = attached_text(data, kind, declared)
    if got is None:
        entry["error"] = "binary data, not text"
        return None
    got = got[:room]
    entry["chars"] = len(got)
    return got or None


def read_attachments(
    msg: Message,
    attachments: list[dict[str, Any]],
    reader: DocumentReader | None,
    hint: str | None = None,
    files: list[tuple[dict[str, Any], bytes]] | None = None,
) -> str:
    """Extract the text of each document and small text file attached to ``msg``; return it as
    sections.

    Each section starts with a line ``[attachment: NAME]`` (:data:`ATTACHMENT_HEADING`), so a
    search can tell which attachment a passage came from. The matching entry of
    ``attachments`` (the mail's ``meta.attachments``) gets ``chars`` (the text's length) or
    ``error`` (why it could not be read). A calendar invitation gives its events (what,
    when, where, who), a contact card its names and addresses, a table its first rows
    (:mod:`.attach_text`), a text file (a patch, a log, source code, JSON, a delivery
    report) its first lines (:mod:`.attach_plain`); binary data is only named. These small
    texts share :data:`_MAX_TEXT` characters a mail. A text the mail already holds (the same
    invitation inline and attached) is given once. ``hint`` is the mail's charset, as the
    walk that made ``attachments`` read 8-bit file names in it; ``files`` are the files the
    walk lifted out of the mail's text (uuencoded), each with its entry of ``attachments``
    and its bytes: each is read as the same file attached would be (a document, a text
    file, a table, a card or an invitation). ``reader`` is
    used if given; else one is started for this message only when it has a document, and
    closed before returning.
    """
    found: list[tuple[Message | bytes, str, str, str | None, str, dict[str, Any] | None]] = []
    lifted = {id(entry) for entry, _ in files or ()}
    pool = [a for a in attachments if id(a) not in lifted]
    for part in _leaves(msg):
        ctype = content_type(part)
        name = filename(part, hint or charset(part))
        suffix = _suffix(name, ctype)
        kind = text_kind(name, _UNTYPED_AS.get(ctype, ctype))
        if kind is None and suffix is None and _plain(part, name, ctype):
            kind = "plain"
        if kind is not None:
            # Only parts the walk took as attachments: a named text part it read as the
            # mail's text has no entry.
            entry = _entry(pool, name, ctype, part)
            if entry is not None:
                shown = _CONTROLS.sub(" ", name or f"attachment{_TEXT_SUFFIX[kind]}")
                found.append((part, shown, kind, name, ctype, entry))
            continue
        if ctype.startswith("text/") and not name:
            continue  # the mail's own text and HTML body
        if suffix is not None:
            shown = _CONTROLS.sub(" ", name or f"attachment{suffix}")
            found.append((part, shown, suffix, name, ctype, None))
    for entry, data in files or ():  # uuencoded in the text: read as one attached
        name, ctype = entry.get("name"), str(entry.get("type") or "")
        kind = text_kind(name, _UNTYPED_AS.get(ctype, ctype))
        document = _suffix(name, ctype)
        if kind is None and document is None and ctype not in _DOCUMENT_TEXT:
            kind = "plain" if is_plain_text(name, ctype) else None
        kind = kind or document
        if kind is not None:
            found.append((data, _CONTROLS.sub(" ", name or "attachment"), kind, name, ctype, entry))
    if not found:
        return ""
    own = reader is None and any(how.startswith(".") for _, _, how, *_ in found)
    sections: list[str] = []
    said: set[str] = set()
    room = _MAX_TEXT
    try:
        unmatched = [a for a in attachments if id(a) not in lifted]
        for held, shown, how, name, ctype, taken in found:
            data = payload(held) if isinstance(held, Message) else held
            if not how.startswith("."):  # a small text file
                assert taken is not None
                declared = charset(held) if isinstance(held, Message) else hint
                text = _text_section(data, declared, how, taken, room)
                if text is not None and text not in said:
                    said.add(text)
                    room -= len(text)
                    sections.append(f"{ATTACHMENT_HEADING}{shown}]\n\n{text}")
                continue
            entry = taken if taken is not None else _entry(unmatched, name, ctype)
            reader = reader or DocumentReader()
            got: Any = (
                f"larger than {_MAX_BYTES} bytes" if len(data) > _MAX_BYTES else None
            ) or reader.read(data, how)
            if isinstance(got, str):
                if entry is not None:
                    entry["error"] = got
                continue
            if entry is not None:
                entry["chars"] = len(got.text)
            if got.text:
                sections.append(f"{ATTACHMENT_HEADING}{shown}]\n\n{got.text}")
    finally:
        if own and reader is not None:
            reader.close()
    return "\n\n".join(sections)
