"""A JSON document's text as exporters write it: in pieces (Telegram's entities, Hangouts'
segments, content blocks), as HTML (Microsoft Graph's bodies), or as UTF-8 bytes each
escaped as a character (Facebook's and Instagram's exports)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from .documents._html import html_to_text

__all__ = ["PIECE_KEYS", "document_text", "is_html", "mojibake_hook", "plain_text"]

# A key whose list of pieces is a message's text (Hangouts' ``message_content.segment``);
# a string there is something else (a customer's segment).
PIECE_KEYS = ("segment", "segments")
# Keys beside a text that say it is HTML (Graph's ``contentType``, Teams' ``messagetype``
# "RichText/Html", a ``format`` or ``body_type`` of "html").
_FORMAT_KEYS = (
    "contentType", "content_type", "format", "body_type", "bodyType", "messagetype",
    "messageType", "mime_type", "mimeType", "type",
)  # fmt: skip
# A piece that is a line's part, not a block of its own: Hangouts' segments (TEXT, LINK,
# LINE_BREAK) and Telegram's entities (plain, bold, link, mention ...).
_LINE_BREAK = frozenset({"LINE_BREAK", "line_break", "linebreak", "br"})
_ENTITY = frozenset({"plain", "bold", "italic", "link", "text_link", "mention", "code", "pre"})
# Facebook escapes each byte of UTF-8 as a character of its own: "é" is "\u00c3\u00a9".
_ESCAPED_UTF8 = re.compile(r"\\u00[cCdDeEfF][0-9a-fA-F]\\u00[89aAbB][0-9a-fA-F]")
# A character past U+FFFF (an emoji) in UTF-8: one in a text makes Python hold every
# character of it in 4 bytes.
_ASTRAL = re.compile(rb"[\xf0-\xf4][\x80-\xbf]{3}")


def is_html(obj: Mapping[str, Any]) -> bool:
    """Whether an object says its text is HTML (``{"contentType": "html", "content": ..}``)."""
    for key in _FORMAT_KEYS:
        value = obj.get(key)
        if isinstance(value, str) and "html" in value.lower():
            return True
    return False


def plain_text(value: Any) -> str | None:
    """Return a text given as a list of pieces as one string, or None when it is not one.

    Telegram writes a formatted message as strings and entity objects
    (``["see ", {"type": "link", "text": "example.org"}, "!"]``): pieces of one line,
    joined as they are, as are Hangouts' segments (a ``LINE_BREAK`` one a new line). A list
    of objects alone (content blocks) is one block each, a blank line apart. A list of
    strings alone is left to ``from_jsonl`` (paragraphs). An object says its text, HTML
    (Graph's ``{"contentType": "html", "content": ..}``) as plain text.
    """
    if isinstance(value, dict):
        # A message's content as ChatGPT writes it, {"content_type": "text", "parts": [..]}.
        parts = value.get("parts")
        if isinstance(parts, list):
            return "\n\n".join(p for p in parts if isinstance(p, str) and p.strip())
        text = value.get("text", value.get("content"))
        if not isinstance(text, str):
            return None
        return html_to_text(text) if is_html(value) else text
    if not isinstance(value, list) or not value:
        return None
    pieces: list[str] = []
    objects = 0
    inline = False
    for piece in value:
        if isinstance(piece, str):
            pieces.append(piece)
            continue
        if not isinstance(piece, dict):
            return None
        objects += 1
        kind = piece.get("type")
        if kind in _LINE_BREAK or kind in _ENTITY or (isinstance(kind, str) and kind.isupper()):
            inline = True
        if kind in _LINE_BREAK:
            pieces.append("\n")
        elif isinstance(piece.get("text"), str):
            pieces.append(piece["text"])
        # else: a picture or a tool call among the blocks: no words
    if not objects:
        return None
    if inline or objects < len(value):
        return "".join(pieces)
    return "\n\n".join(p for p in pieces if p)


def _repaired(text: str) -> str:
    """``text`` read again as the UTF-8 its characters' codes spell, where they spell some."""
    if text.isascii():
        return text
    try:
        return text.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text  # a real "é", or a character past U+00FF: written as it is


def mojibake_hook(text: str) -> Callable[[list[tuple[str, Any]]], dict[str, Any]] | None:
    """An ``object_pairs_hook`` that repairs a Facebook-style document's strings (each
    byte of UTF-8 escaped as a character: "Ren\\u00c3\\u00a9" is "René"), or None when
    ``text`` writes no such escape."""
    if _ESCAPED_UTF8.search(text) is None:
        return None

    def value(v: Any) -> Any:
        if isinstance(v, str):
            return _repaired(v)
        if isinstance(v, list):
            return [_repaired(x) if isinstance(x, str) else x for x in v]
        return v

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        return {_repaired(k): value(v) for k, v in pairs}

    return hook


def _escaped(m: re.Match[bytes]) -> bytes:
    code = ord(m[0].decode("utf-8")) - 0x10000
    return b"\\u%04x\\u%04x" % (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF))


def document_text(data: bytes) -> str:
    """A JSON document's bytes as text to parse, in its encoding (UTF-8, UTF-16 or UTF-32,
    a byte order mark or none, as ``json.loads`` tells them).

    A UTF-8 document's emoji are written as the JSON escapes they stand for: one emoji
    would make the whole text take 4 bytes a character, where the parsed strings hold them
    the same.

    Raises:
        UnicodeDecodeError: the bytes are not text in that encoding.
    """
    encoding = json.detect_encoding(data)
    if encoding in ("utf-8", "utf-8-sig") and _ASTRAL.search(data) is not None:
        data = _ASTRAL.sub(_escaped, data)
    return data.decode(encoding, "surrogatepass")
