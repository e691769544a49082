"""Tell a saved message from other text by its first bytes, whatever the file is named."""

from __future__ import annotations

import re

__all__ = ["looks_like_message"]

_HEADER = re.compile(rb"^([A-Za-z][A-Za-z0-9-]*):[ \t]", re.MULTILINE)
_MAIL_HEADERS = {b"from", b"date", b"subject", b"message-id", b"to", b"received", b"return-path"}


def looks_like_message(head: bytes) -> bool:
    """Tell whether bytes start with a mail header block (three or more known headers)."""
    block = head.replace(b"\r\n", b"\n").split(b"\n\n", 1)[0]
    if not _HEADER.match(block):
        return False
    names = {m.group(1).lower() for m in _HEADER.finditer(block)}
    return len(names & _MAIL_HEADERS) >= 3
