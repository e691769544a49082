"""Turn one raw RFC 5322 message into a mail MemoryRecord, or a RecordError saying why not."""

from __future__ import annotations

import csv
import hashlib
import itertools
import re
from collections.abc import Mapping
from dataclasses import replace
from email.message import Message
from pathlib import Path
from typing import Any

from ..._exceptions import SourceError
from ...limits import Limits
from ...records import At, MemoryRecord, RecordError
from .._input import open_input, read_file
from .._shared import bounded_name
from ..documents import DocumentReader
from ..documents._html import tidy
from .attachments import read_attachments
from .book import MailBook
from .charsets import python_codec, readable
from .dates import mail_time
from .headers import (
    addresses,
    decode_header,
    first_ref,
    fix_obsolete_names,
    fold_stray_lines,
    raw_header,
    raw_headers,
)
from .mime import Collected, parse, walk
from .parts import charset, content_type
from .sniff import utf16_codec
from .text_budget import text_budget, within_budget
from .threads import gmail_thread, named_ids, stamp
from .undeclared import undeclared_charset

__all__ = [
    "MAX_MESSAGE_BYTES",
    "MAX_RECIPIENTS",
    "CutMessage",
    "as_read",
    "cut_to_limit",
    "message_file",
    "message_to_item",
    "strip_unixfrom",
]

#: Messages larger than this (64 MiB) are reported as a RecordError instead of parsed,
#: so one pathological message cannot blow the memory budget of a whole import.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
_TEXT_UNITS = Limits().max_text_units
#: The most addresses of a To or a Cc kept in a record's meta (the rest counted).
MAX_RECIPIENTS = 1000


class CutMessage(bytes):
    """The first :data:`MAX_MESSAGE_BYTES` of a larger message (``size`` bytes in all, or
    None where only its compressed size is known): its headers and, before a big attachment,
    its text. Its record says it was cut (:func:`cut_to_limit`)."""

    size: int | None = None


def message_file(path: Path) -> bytes:
    """Return a message file's bytes; a :class:`CutMessage` of its first ones when it is
    larger than :data:`MAX_MESSAGE_BYTES` (no more is ever held).

    A compressed file (``x.eml.gz``, ``.bz2``, ``.xz``, or a Maildir's compressed message) is
    read as the message it holds; the limit is on the message, not on its compressed size.

    Raises:
        OSError: the file cannot be read, or its compressed data is damaged or cut short
            (``_input.DamagedInput``, whose words say which).
    """
    raw = read_file(path, MAX_MESSAGE_BYTES)
    if raw is not None:
        return raw
    try:
        with open_input(path) as stream:
            head = CutMessage(stream.file.read(MAX_MESSAGE_BYTES))
    except SourceError as exc:  # gone or changed since: as a read error
        raise OSError(str(exc)) from exc
    size = path.stat().st_size
    head.size = size if size > MAX_MESSAGE_BYTES else None
    return head


def cut_to_limit(
    item: MemoryRecord | RecordError, bytes_cut: int | None, why: str
) -> MemoryRecord | RecordError:
    """Say in ``item`` (made from a message's first bytes) that the rest was not read: a
    record's ``meta["defects"]`` gets ``TooLargeDefect`` and ``meta["bytes_cut"]`` the bytes
    left (where known); an error says ``why`` first."""
    if isinstance(item, RecordError):
        return RecordError(item.source, item.where, f"{why}; its first bytes: {item.reason}")
    meta = dict(item.meta)
    meta["defects"] = sorted({*meta.get("defects", ()), "TooLargeDefect"})
    if bytes_cut is not None:
        meta["bytes_cut"] = int(meta.get("bytes_cut") or 0) + bytes_cut
    return replace(item, meta=meta)


def as_read(item: MemoryRecord | RecordError, raw: bytes) -> MemoryRecord | RecordError:
    """Return ``item``, made from ``raw`` (:func:`message_file`'s), saying it was cut where
    ``raw`` is the first bytes of a larger message (:func:`cut_to_limit`)."""
    if not isinstance(raw, CutMessage):
        return item
    held = f"{raw.size} bytes" if raw.size is not None else "once decompressed"
    why = f"message is larger than {MAX_MESSAGE_BYTES} bytes ({held})"
    return cut_to_limit(item, raw.size - len(raw) if raw.size is not None else None, why)


_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_OUTLOOK_FILE = (
    "an Outlook message file (.msg), not a message saved as text: name it with the ending "
    ".msg and add it (or its folder), and it is read as mail"
)
_UNIXFROM = re.compile(rb"\A(?:\xef\xbb\xbf)?From (?![ \t]*:)[^\n]*\n")


_UTF8_BOM = b"\xef\xbb\xbf"
# Byte order marks of "Unicode" text (Windows' name for UTF-16), UTF-32 first: its LE mark
# starts with UTF-16's.
_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)


def strip_unixfrom(raw: bytes) -> bytes:
    """Drop what a saved message file wraps the message in: a leading mbox ``From `` line,
    a UTF-8 byte order mark; text saved as UTF-16 or UTF-32 (with its mark, as Windows
    saves "Unicode" text) is read as the same text in UTF-8.

    ``From  : x`` (obsolete header syntax, whitespace before the colon) is a header, kept.
    A BOM hid the first header from the parser: the mail had no header block, an error.
    """
    for bom, codec in _WIDE_BOMS:
        if raw.startswith(bom):
            try:
                raw = raw.decode(codec).encode("utf-8")
            except UnicodeError:
                return raw  # not text in that form after all: read as it is
            break
    return _UNIXFROM.sub(b"", raw, count=1).removeprefix(_UTF8_BOM)


def message_to_item(
    raw: bytes,
    *,
    source: str,
    where: str,
    meta: Mapping[str, Any] | None = None,
    book: MailBook | None = None,
    documents: DocumentReader | None = None,
    stored: str | None = None,
    max_text_units: int = _TEXT_UNITS,
) -> MemoryRecord | RecordError:
    """Convert one raw message into a mail record, or a RecordError at ``where``; never raise.

    The text of attached documents (PDF, Office, ...) follows the mail's own, each under an
    ``[attachment: NAME]`` line; ``documents`` reads them (else a reader is started for a
    message that has one).

    The id is the Message-ID without brackets, or ``sha256:`` + the SHA-256 of the message's
    bytes with CRLF turned into LF (so the same message saved by different tools hashes alike).
    With ``book`` (one per pass over a source), the thread is found over every message the
    pass has met (see :class:`MailBook`); ids are made distinct by ``book.place``.

    The time is the Date header's, read as mailers write it (:func:`.dates.mail_time`: zone
    names; no zone read as UTC, or in the zone the newest ``Received`` time shows, and then
    ``meta["date_from"]`` is ``"date, zone from received"``; a 1970 or far-future date is
    junk); else the newest ``Received`` header's (``meta["date_from"]`` is ``"received"``);
    else the date of the mbox separator line it was stored after, ``stored``
    (``meta["date_from"]`` is ``"separator"``); else none. A Date header that gave no time is
    kept as written in ``meta["date_raw"]``.

    A mail larger than its record can hold (the record's text is cut at ``max_text_units``,
    ``Limits.max_text_units``) is cut before it is parsed, so that its size does not
    multiply in memory: its text bodies to :data:`.text_budget.BYTES_PER_UNIT` bytes a unit
    of that limit, all together, each header line to 1 MiB; its other parts are kept whole.
    Such a record says so: ``TooLargeDefect`` in ``meta["defects"]`` and the bytes cut in
    ``meta["bytes_cut"]``.
    """
    budget = text_budget(max_text_units)
    try:
        return _convert(raw, source, where, meta or {}, book, documents, stored, budget)
    except RecursionError:
        pass
    except Exception as exc:  # why: one bad message must never stop an import
        return RecordError(source, where, f"cannot read message: {type(exc).__name__}: {exc}")
    # Parts inside each other deeper than the parser recurses: read with the deeper ones as
    # text, which the reading never reaches (it stops at its own depth and says so).
    flat = _flattened(raw)
    if flat is not None:
        try:
            return _convert(flat, source, where, meta or {}, book, documents, stored, budget)
        except RecursionError:
            pass
        except Exception as exc:  # why: one bad message must never stop an import
            why = f"cannot read message: {type(exc).__name__}: {exc}"
            return RecordError(source, where, why)
    return RecordError(source, where, "message is nested too deeply to read")


#: Parts that hold parts (multipart/*, message/*): past this many, the parser's recursion
#: is not risked (each costs it a few frames) and the reading stops well before (32 deep).
_CONTAINERS_KEPT = 128
_CONTAINER = re.compile(rb"(?im)^content-type:[ \t]*(?:multipart|message)/")


def _flattened(raw: bytes) -> bytes | None:
    """Return ``raw`` with the Content-Type of each part that holds parts, after the first
    :data:`_CONTAINERS_KEPT` of them, made ``text/x-nested``; None if there are no more."""
    found = list(itertools.islice(_CONTAINER.finditer(raw), _CONTAINERS_KEPT, None))
    if not found:
        return None
    pieces: list[bytes] = []
    at = 0
    for match in found:
        pieces += [raw[at : match.start()], b"Content-Type: text/x-nested-"]
        at = match.end()
    pieces.append(raw[at:])
    return b"".join(pieces)


#: A message with more MIME delimiter lines than this is cut after the last one kept: the
#: parser holds every part in memory (a 60 MB mail of tiny parts took 1.3 GB and 93 s),
#: and no real mail has thousands of parts. The record keeps what came before the cut, and
#: its ``meta["defects"]`` names it (``TooManyPartsDefect``).
MAX_PARTS = 2000

# A line starts after LF or after a lone CR: the parser ends lines at either (CRLF is LF by
# now), so a mail of CR-only lines has as many parts as one of LF lines.
_DELIMITER = re.compile(rb"[\r\n]--")


def _cut_parts(data: bytes) -> tuple[bytes, bool]:
    """Return the message cut before its ``MAX_PARTS``-th ``--`` line, and whether it was cut."""
    if data.count(b"\n--") + data.count(b"\r--") <= MAX_PARTS:
        return data, False
    found = _DELIMITER.finditer(data)
    at = 0
    for _ in range(MAX_PARTS):
        at = next(found).start()
    return data[: at + 1], True


def _gmail_labels(value: str | None, hint: str | None) -> list[str]:
    """Return Gmail's labels (``X-GM-LABELS: Inbox,"Work, old",Opened``) as a list."""
    text = decode_header(value, hint)
    if not text:
        return []
    labels = next(csv.reader([text], skipinitialspace=True), [])
    return [label.strip() for label in labels if label.strip()]


def _text_charset(msg: Message, parts: int = 16) -> str | None:
    """Return the charset a multipart mail declares for its first text parts (not ASCII):
    the mailer's, which its raw 8-bit headers and file names are written in too."""
    for part in itertools.islice(msg.walk(), parts):
        if not part.is_multipart() and content_type(part).startswith("text/"):
            label = charset(part)
            if python_codec(label) not in (None, "ascii"):
                return label
    return None


def _convert(
    raw: bytes,
    source: str,
    where: str,
    extra: Mapping[str, Any],
    book: MailBook | None,
    documents: DocumentReader | None = None,
    stored: str | None = None,
    budget: int = text_budget(_TEXT_UNITS),
) -> MemoryRecord | RecordError:
    # Blank lines before the headers (a saved message whose first line is empty) would
    # read as an empty header block and the headers as body; so would the NULs a crash
    # leaves where a write stopped; so would a UTF-8 BOM before them (an editor's save).
    codec = utf16_codec(raw[:64])
    if codec is not None:  # a message some Windows tool saved as UTF-16 text: read as it is
        raw = raw.decode(codec, "replace").removeprefix("\ufeff").encode()
    data = raw.replace(b"\r\n", b"\n").lstrip(b"\n\x00").removeprefix(_UTF8_BOM)
    if not data or data.isspace():  # not strip(): that copies the whole message
        return RecordError(source, where, "empty message")
    if raw[:8] == _OLE_MAGIC:
        return RecordError(source, where, _OUTLOOK_FILE)
    data, cut = _cut_parts(data)
    whole = data  # its hash is the id of a mail without Message-ID, whatever is cut
    data, bytes_cut = within_budget(data, budget)
    msg = parse(fold_stray_lines(fix_obsolete_names(data)))
    if len(msg) == 0:
        return RecordError(source, where, "no mail headers found: not an RFC 5322 message")
    hint = charset(msg)
    if python_codec(hint) in (None, "ascii"):  # none declared, or us-ascii on 8-bit text
        head = data.split(b"\n\n", 1)[0]
        hint = _text_charset(msg) or undeclared_charset(msg, head) or hint
    subject = decode_header(raw_header(msg, "subject"), hint) or None
    authors = addresses(raw_headers(msg, "from") or raw_headers(msg, "sender"), hint)
    body = Collected(hint=hint)
    walk(msg, body, 0)
    # Colours and cursor moves of a pasted terminal session are no words; nor are controls.
    text = tidy(readable("\n\n".join(body.texts)))
    if not text and not subject and not body.attachments:
        return RecordError(source, where, "message has no subject, text or attachments")

    meta: dict[str, Any] = dict(extra)
    own_id, named = named_ids(msg)
    if not own_id:
        own_id = "sha256:" + hashlib.sha256(whole).hexdigest()
        meta["message_id_missing"] = True
    gmail = gmail_thread(raw_header(msg, "x-gm-thrid"))
    thread = (
        gmail
        or first_ref(raw_header(msg, "references"))
        or first_ref(raw_header(msg, "in-reply-to"))
        or own_id
    )
    if book is not None and not gmail:
        own = "" if meta.get("message_id_missing") else own_id
        said = stamp(raw_header(msg, "date"), raw_header(msg, "subject"))
        thread = book.thread(own, named, thread, said)

    date_raw = decode_header(raw_header(msg, "date"), hint)
    ms, found = mail_time(date_raw, raw_headers(msg, "received"), stored=stored)
    at = At(ms) if ms is not None else None
    if date_raw and found != "date":
        meta["date_raw"] = date_raw  # the Date header as written, when it is no time
    if found not in (None, "date"):  # "received", "separator", "date, zone from received"
        meta["date_from"] = found
    for name in ("to", "cc"):
        values = addresses(raw_headers(msg, name), hint)
        if len(values) > MAX_RECIPIENTS:
            # A list of tens of thousands (a mass mailing's To) would be over
            # Limits.max_field_bytes and left out whole: the first ones are kept, counted.
            meta[f"{name}_left_out"] = len(values) - MAX_RECIPIENTS
            values = values[:MAX_RECIPIENTS]
        if values:
            meta[name] = values
    if body.attachments:
        meta["attachments"] = body.attachments
        attached = read_attachments(msg, body.attachments, documents, hint, body.files)
        if attached:  # one record per mail: a sentence in its PDF finds the mail itself
            text = f"{text}\n\n{attached}" if text else attached.lstrip()
        if not text:  # an attachment-only mail: a record that names what it carried
            text = "Attachments: " + ", ".join(
                a.get("name") or a.get("type") or "unnamed" for a in body.attachments
            )
    labels = _gmail_labels(raw_header(msg, "x-gm-labels"), hint)
    if labels:
        meta["tags"] = labels
    if cut:
        body.defects.add("TooManyPartsDefect")
    if bytes_cut:
        body.defects.add("TooLargeDefect")
        meta["bytes_cut"] = bytes_cut
    if body.defects:
        meta["defects"] = sorted(body.defects)
    return MemoryRecord(
        id=own_id,
        text=text,
        kind="mail",
        author=bounded_name(", ".join(authors)) or None,
        title=subject,
        at=at,
        source=source,
        thread=thread,
        meta=meta,
    )
