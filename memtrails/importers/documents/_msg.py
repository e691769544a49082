"""Shape what kreuzberg reads from an Outlook ``.msg`` file as a mail: its fields and body,
with the bodies and attachments :mod:`._msgparts` reads (runs inside the worker process:
standard library only)."""

from __future__ import annotations

import email.utils
import re
from collections.abc import Callable, Mapping
from pathlib import PurePosixPath
from typing import Any

from ._msgparts import MsgAttachment, MsgParts
from ._msgtext import first_id
from ._msgtext import message_id as msg_id

__all__ = ["ATTACHMENT_HEADING", "ReadDocument", "mail_of"]

#: Opens each attachment's text, as in a mail's record (``memtrails.items.ATTACHMENT_HEADING``:
#: a test holds the two equal), so a search says which attachment a passage lies in.
ATTACHMENT_HEADING = "\n[attachment: "
# kreuzberg 4.10 puts the headers it read above the body: "Subject: ...", "From: ...",
# "To: ...", "Cc: ...", "Date: ...", then a blank line. The record keeps them as fields.
_HEADER_LINE = re.compile(r"(?:Subject|From|To|Cc|Bcc|Date): .*")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f]+")
# kreuzberg writes each address as "Name" <address>; an Exchange one holds parentheses and
# slashes (</O=ORG/OU=EXCHANGE ADMINISTRATIVE GROUP (FYDIBOHF23SPDLT)/CN=...>) that the
# standard library's parser reads as a comment.
_NAMED = re.compile(r'"?([^"<>]*)"?\s*<([^<>]*)>')
# An S/MIME signed mail keeps its whole MIME form as an attachment: the body again, and a
# signature in base64.
_SIGNED = re.compile(r"(?im)^content-type:\s*multipart/signed")


def _address(value: Any) -> str | None:
    """``"Name" <addr>`` as a mail record writes it (``Name <addr>``); an Exchange address
    (``/O=ORG/OU=.../CN=NAME``), which is no mail address, gives the name alone."""
    if not isinstance(value, str) or not value.strip():
        return None
    found = _NAMED.fullmatch(value.strip())
    name, addr = found.groups() if found else email.utils.parseaddr(value)
    name = name.strip().strip("'\"").strip()
    if not addr or "@" not in addr or addr.startswith("/"):
        return name or value.strip()
    return f"{name} <{addr}>" if name and name != addr else addr


def _first(*values: Any) -> str:
    """The first of ``values`` that is a string of more than white space, stripped."""
    return next((v.strip() for v in values if isinstance(v, str) and v.strip()), "")


def _crlf(text: str) -> str:
    return text.replace("\r\n", "\n").strip()


def _body(content: str) -> str:
    lines = content.split("\n")
    n = 0
    while n < len(lines) and _HEADER_LINE.fullmatch(lines[n].rstrip("\r")):
        n += 1
    if n and (n == len(lines) or not lines[n].strip()):
        lines = lines[n:]
    return "\n".join(lines).strip()


#: A reader of one document's bytes: its text, or "" and why it cannot be read.
ReadDocument = Callable[[bytes, str], tuple[str, str | None]]
# Attachments read as plain text; a document (PDF, Office, another .msg) is read as one.
_TEXT_ENDINGS = {".txt", ".text", ".csv", ".tsv", ".log", ".md", ".json", ".xml", ".ics", ".vcf"}
_TEXT_BYTES = 4 << 20


def _plain(data: bytes) -> str:
    head = data[:_TEXT_BYTES]
    for bom, codec in (
        (b"\xef\xbb\xbf", "utf-8"),
        (b"\xff\xfe", "utf-16-le"),
        (b"\xfe\xff", "utf-16-be"),
    ):
        if head.startswith(bom):
            return head[len(bom) :].decode(codec, "replace")
    try:
        return head.decode("utf-8")
    except UnicodeDecodeError:
        return head.decode("cp1252", "replace")


def _attached(
    attachment: MsgAttachment, read: ReadDocument, documents: Mapping[str, str]
) -> tuple[str, dict[str, Any]]:
    """The text of one attachment and its entry (``name``, ``type``, ``chars`` or ``error``)."""
    name = _CONTROLS.sub(" ", attachment.name).strip() or "attachment"
    entry: dict[str, Any] = {"name": name}
    suffix = PurePosixPath(name.replace("\\", "/")).suffix.lower()
    if suffix not in documents and attachment.mime:  # a name without its ending: by type
        suffix = next((s for s, m in documents.items() if m == attachment.mime), suffix)
    plain = suffix in _TEXT_ENDINGS or attachment.mime.startswith("text/")
    kind = attachment.mime or documents.get(suffix) or ("text/plain" if plain else "")
    if kind:
        entry["type"] = kind
    data = attachment.data
    if attachment.message is not None:  # an attached message (a storage of its own)
        inner = attachment.message
        entry.setdefault("type", documents.get(".msg", ""))
        head = [f"Subject: {inner.subject}"] if inner.subject else []
        head += [f"From: {inner.sender}"] if inner.sender else []
        sections, _ = _sections(
            inner, _body_of(inner, (inner.plain or "").strip(), read), read, documents
        )
        text = "\n\n".join(s for s in ("\n".join(head), *sections) if s)
        entry["chars"] = len(text)
        return text, entry
    if data is None:  # no bytes: named
        return "", entry
    if suffix in documents:
        text, error = read(data, suffix)
    elif plain:
        text, error = _plain(data), None
    else:  # a picture, an archive, data: named
        return "", entry
    text = text.replace("\r\n", "\n").replace("\x00", "").strip()
    if error:
        entry["error"] = error
    elif _SIGNED.search(text[:2000]):
        entry["type"] = "multipart/signed"
        entry["error"] = "the signed form of this mail (its body and signature): not read again"
        text = ""
    else:
        entry["chars"] = len(text)
    return text, entry


def _body_of(parts: MsgParts, plain: str, read: ReadDocument) -> str:
    """A message's plain body, else the text of its HTML body, else of its RTF body."""
    if not plain and parts.html:
        html = parts.html if isinstance(parts.html, bytes) else parts.html.encode("utf-8")
        plain = read(html, ".html")[0].strip()
    if not plain and parts.rtf:
        plain = read(parts.rtf, ".rtf")[0].replace("\x00", "").strip()
    return plain


def _sections(
    parts: MsgParts, body: str, read: ReadDocument, documents: Mapping[str, str]
) -> tuple[list[str], list[dict[str, Any]]]:
    """A message's body and its attachments' texts (each under its heading), and the
    attachments' entries."""
    sections = [body]
    entries: list[dict[str, Any]] = []
    for attachment in parts.attachments:
        text, entry = _attached(attachment, read, documents)
        if text:
            sections.append(f"{ATTACHMENT_HEADING}{entry['name']}]\n\n{text}")
        entries.append(entry)
    return sections, entries


def mail_of(
    content: str,
    meta: dict[str, Any],
    parts: MsgParts,
    read: ReadDocument,
    documents: Mapping[str, str],
) -> tuple[str, dict[str, Any]]:
    """Return the mail's text (its body, then each attachment's text under a line
    ``[attachment: NAME]``) and its fields: ``subject``, ``from``, ``to``, ``cc``,
    ``message_id`` (without its angle brackets, as a mail importer makes it the id),
    ``thread`` (as a mail importer finds it) and ``attachments`` (``name``, ``type``,
    ``chars`` or ``error``), where it has them.

    ``content`` is kreuzberg's text of the message (its plain body); a message without one
    gets the text of its HTML body, else of its RTF body, read by ``read`` (which reads a
    document's bytes as the file ending it is given says). Each attachment whose name
    ends in one of ``documents`` (file ending -> media type) is read by ``read`` too, and
    so through the checks every document goes through (the OLE and zip guards); a text
    file is decoded; an attached message gives its subject, sender, body and attachments;
    the rest is named.
    """
    # The message's own properties first (their 8-bit strings read in its code page, which
    # kreuzberg 4.10 reads as Windows-1252 where PR_MESSAGE_CODEPAGE does not name it),
    # then what kreuzberg read, then the headers the mail came with.
    head = parts.headers
    fields: dict[str, Any] = {}
    subject = _first(parts.subject, meta.get("subject"), head.subject)
    if subject:
        fields["subject"] = subject
    sender = _address(parts.sender) or _address(meta.get("from_email"))
    sender = sender or _address(meta.get("from_name")) or _address(head.sender)
    if sender:
        fields["from"] = sender
    for key, name, own, headed in (
        ("to_emails", "to", parts.to, head.to),
        ("cc_emails", "cc", parts.cc, head.cc),
    ):
        given = own or meta.get(key) or headed
        found = list(dict.fromkeys(a for a in map(_address, given) if a))
        if found:
            fields[name] = found
    # As the mail importers hold it (the same mail's id in an mbox, without brackets), and
    # its thread as theirs: the first id its References (else In-Reply-To) name, else its own.
    message_id = msg_id(_first(parts.message_id, meta.get("message_id"), head.message_id))
    if message_id:
        fields["message_id"] = message_id
    named = _first(parts.references, head.references, head.in_reply_to)
    thread = first_id(named) or message_id
    if thread:
        fields["thread"] = thread
    # Without a plain body (or with an empty one), kreuzberg 4.10 gives the compressed
    # RTF's bytes as the text.
    plain = (parts.plain or "").strip()
    body = _body(content) if plain else ""
    if "\x00" in body or _crlf(body) != _crlf(plain):
        body = plain  # (an 8-bit body kreuzberg read in another code page than the message's)
    body = _body_of(parts, body, read)
    sections, attachments = _sections(parts, body, read, documents)
    if attachments:
        fields["attachments"] = attachments
    return "\n\n".join(s for s in sections if s), fields
