"""Read RFC 5322 mail: charsets, headers, HTML bodies, MIME trees, and the record they make."""

from __future__ import annotations

from ..documents._html import html_to_text
from .book import MailBook
from .charsets import decode_bytes
from .headers import decode_header
from .message import MAX_MESSAGE_BYTES, message_file, message_to_item, strip_unixfrom

__all__ = [
    "MAX_MESSAGE_BYTES",
    "MailBook",
    "decode_bytes",
    "decode_header",
    "html_to_text",
    "message_file",
    "message_to_item",
    "strip_unixfrom",
]
