"""Tell a saved message from other text by its first bytes, whatever the file is named."""

from __future__ import annotations

import re

from ..mbox_lines import cr_only, utf16_codec

__all__ = ["looks_like_message", "may_be_saved_message", "utf16_codec"]

_HEADER = re.compile(rb"^([A-Za-z][A-Za-z0-9-]*)[ \t]*:", re.MULTILINE)
_HEADER_LINE = re.compile(rb"[!-9;-~]+[ \t]*:.*|[ \t].*")  # a field, or a folded line
_MAIL_HEADERS = {
    b"from",
    b"sender",
    b"reply-to",
    b"date",
    b"subject",
    b"message-id",
    b"in-reply-to",
    b"references",
    b"to",
    b"cc",
    b"received",
    b"return-path",
    b"delivered-to",
    b"mime-version",
    b"content-type",
    b"content-transfer-encoding",
    b"x-mailer",
    b"user-agent",
}
# Headers only mail has (a note or a CSV may well have a "Date:" or "Subject:" line).
_TELLING = {b"from", b"sender", b"message-id", b"received", b"return-path", b"mime-version"}
# Endings under which mail clients and people save one message: none (Maildir, MH),
# .txt, .msg (a text .msg; Outlook's binary .msg has no header block and is not taken),
# .mail, .email, .message, .out; and Maildir names with flags (``1234.host:2,S``).
_SAVED_SUFFIXES = {"", ".txt", ".msg", ".mail", ".email", ".message", ".out", ".mime"}


def may_be_saved_message(name: str) -> bool:
    """Tell whether a file of this name is worth a look for a saved message."""
    lower = name.lower()
    if ":2," in lower or lower.rsplit(".", 1)[-1].isdigit():
        return True
    dot = lower.rfind(".")
    return (lower[dot:] if dot > 0 else "") in _SAVED_SUFFIXES


def looks_like_message(head: bytes) -> bool:
    """Tell whether bytes start with a mail header block, whatever the file is named.

    Blank lines and a UTF-8 BOM before the headers are allowed; an mbox ``From `` line is
    not (an mbox may hold many messages). Lines may end in LF, CRLF, or CR alone when the
    bytes hold no LF (classic Mac OS mail, saved as MH's ``1234`` or piped in), the mbox
    reader's rule (:func:`~memtrails.importers.mbox_lines.cr_only`).
    It is a message when the block holds three known mail headers, or when every line of
    it is a header field (or a folded continuation) and two of them are known mail headers,
    one of which only mail has (``From``, ``Message-ID``, ``Received``, ...).
    """
    codec = utf16_codec(head)
    if codec is not None:  # saved as UTF-16 text by a Windows tool: read as such
        head = head[: len(head) - len(head) % 2].decode(codec, "replace").encode()
    if cr_only(head):
        head = head.replace(b"\r", b"\n")
    data = head.replace(b"\r\n", b"\n").removeprefix(b"\xef\xbb\xbf").lstrip(b"\n \t")
    if data.startswith(b"From ") and not _HEADER.match(data):
        # an mbox separator: the file may hold many messages, which one message's reader
        # would merge; the mbox importer's own look decides
        return False
    block = data.split(b"\n\n", 1)[0]
    if not _HEADER.match(block):
        return False
    names = {m.group(1).lower() for m in _HEADER.finditer(block)}
    known = names & _MAIL_HEADERS
    if len(known) >= 3:
        return True
    lines = block.split(b"\n")[:200]
    if len(block) == len(data) and len(lines) > 1:
        lines.pop()  # no blank line in the head: its last line may be cut short
    return (
        len(known) >= 2
        and bool(known & _TELLING)
        and all(_HEADER_LINE.fullmatch(line) for line in lines if line)
    )
