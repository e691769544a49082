"""The text of a mail's small data-text attachments: invitations, contact cards, tables.

A document (PDF, Office) goes to the document reader; these are read here, from at most
:data:`MAX_INPUT` bytes of the attachment, into at most :data:`MAX_CHARS` characters, so a
hostile 10 MB invitation costs no more than a small one. Binary data (a NUL, many control
bytes), whatever its type says, stays named only.
"""

from __future__ import annotations

import csv
import io
from pathlib import PurePosixPath

from .attach_cards import calendar_text, card_text
from .charsets import decode_bytes

__all__ = ["MAX_CHARS", "MAX_INPUT", "attached_text", "text_kind"]

MAX_INPUT = 1 << 20  # bytes of one attachment read for its text
MAX_CHARS = 4000  # characters of text kept from one attachment
_ROWS = 20  # table rows kept after the header
_CALENDAR_TYPES = {"text/calendar", "text/x-vcalendar", "application/ics"}
_CARD_TYPES = {"text/vcard", "text/x-vcard", "text/directory"}
_TABLE_TYPES = {
    "text/csv",
    "text/x-csv",
    "text/comma-separated-values",
    "text/tab-separated-values",
}
_SUFFIXES = {
    ".ics": "calendar",
    ".ical": "calendar",
    ".ifb": "calendar",
    ".vcs": "calendar",
    ".vcf": "card",
    ".vcard": "card",
    ".csv": "table",
    ".tsv": "table",
}
_CONTROL = bytes(b for b in range(32) if b not in (9, 10, 12, 13, 27))


def text_kind(name: str | None, ctype: str) -> str | None:
    """Return how an attachment is read as text (``calendar``, ``card``, ``table``), or None
    when it is not one of those (a document, an image, a text file: those stay named)."""
    if ctype in _CALENDAR_TYPES:
        return "calendar"
    if ctype in _CARD_TYPES:
        return "card"
    if ctype in _TABLE_TYPES:
        return "table"
    by_name = _SUFFIXES.get(PurePosixPath(name or "").suffix.lower())
    if by_name is not None and (ctype.startswith("text/") or ctype == "application/octet-stream"):
        return by_name
    return None


def _binary(data: bytes) -> bool:
    head = data[:4096]
    if b"\x00" in head:
        return True
    control = len(head) - len(head.translate(None, _CONTROL))
    return control * 10 > len(head)


def attached_text(data: bytes, kind: str, declared: str | None) -> str | None:
    """Return the searchable text of a text attachment of ``kind`` (:func:`text_kind`), or
    None when it holds binary data.

    Args:
        data: the attachment's decoded bytes.
        kind: how it is read.
        declared: the charset its part declares, if any.
    """
    if _binary(data):
        return None
    cut = len(data) > MAX_INPUT
    head = _start(data) if cut else data
    text = decode_bytes(head, declared).replace("\x00", "")
    if kind == "calendar":
        said = calendar_text(text, cut)
    elif kind == "card":
        said = card_text(text, cut)
    else:
        said = _table(text)
    return _cut(said)


def _start(data: bytes) -> bytes:
    """Return the first :data:`MAX_INPUT` bytes of ``data``, cut at a line end near the limit,
    else between two characters (a UTF-8 character cut in two would read as another
    charset)."""
    head = data[:MAX_INPUT]
    end = head.rfind(b"\n", MAX_INPUT - (64 << 10))
    if end >= 0:
        return head[: end + 1]
    while head and 0x80 <= head[-1] < 0xC0:
        head = head[:-1]
    return head[:-1] if head and head[-1] >= 0xC0 else head


def _cut(text: str) -> str:
    if len(text) <= MAX_CHARS:
        return text
    cut = text[:MAX_CHARS]
    space = cut.rfind(" ", MAX_CHARS - 200)
    return (cut[:space] if space > 0 else cut).rstrip() + " ..."


def _table(text: str) -> str:
    """Return a table's header and first rows, one line each, cells joined by `` | ``."""
    head = text[: MAX_CHARS * 8]
    first = head.split("\n", 1)[0]
    delimiter = max(("\t", ";", ",", "|"), key=first.count) if first else ","
    rows: list[str] = []
    more = False
    try:
        for row in csv.reader(io.StringIO(head), delimiter=delimiter):
            cells = [c.strip() for c in row if c.strip()]
            if not cells:
                continue
            if len(rows) > _ROWS:
                more = True
                break
            rows.append(" | ".join(cells))
    except csv.Error:  # a field over the csv module's limit: what came before it is kept
        pass
    more = more or len(text) > len(head)
    return "\n".join(rows) + (f"\n(the first {len(rows) - 1} rows)" if more else "")
