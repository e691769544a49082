"""Tokens wrapped over lines: where a JWT split by line breaks ends."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Final

import re2

__all__ = ["BREAK", "jwt_end"]

#: A line break inside a wrapped token: a plain one (text wrapped at a width), a shell's "\"
#: continuation, a quoted-printable soft break ("="), then the next line's indentation and
#: the "> " of a quoted mail reply.
BREAK: Final = r"(?:(?:\\|=)?\r?\n[ \t]*(?:>[ \t]*)*)"
_BREAK: Final = re2.compile(BREAK.encode())
_RSA: Final = frozenset({171, 342, 512, 683, 1366})  # 1024- to 8192-bit keys
# The length of a signature in base64url, by the algorithm its header names (RFC 7518, 8037).
_SIGNATURE: Final = {
    "HS256": {43},
    "HS384": {64},
    "HS512": {86},
    "ES256": {86},
    "ES256K": {86},
    "ES384": {128},
    "ES512": {176},
    "EdDSA": {86, 152},
    "Ed25519": {86},
    "Ed448": {152},
    **{f"{kind}{bits}": set(_RSA) for kind in ("RS", "PS") for bits in (256, 384, 512)},
}


def _lengths(header: bytes) -> set[int] | None:
    """Return the signature lengths a JWT header's algorithm allows, or None if unknown."""
    try:
        plain = base64.urlsafe_b64decode(header + b"=" * (-len(header) % 4))
        alg = json.loads(plain).get("alg")
    except (binascii.Error, ValueError, AttributeError, RecursionError):
        return None
    return _SIGNATURE.get(alg) if isinstance(alg, str) else None


def _line_start(buf: bytes, at: int) -> int:
    """Return where the text of the line holding ``at`` starts: after its indentation and
    the "> " of a quoted mail reply (as after a BREAK)."""
    start = buf.rfind(b"\n", 0, at) + 1
    while start < at and buf[start] in b" \t>":
        start += 1
    return start


def jwt_end(buf: bytes, vs: int, ve: int) -> int:
    """Return where the JWT matched at ``buf[vs:ve]`` ends.

    Its header and payload end at their dots, whatever line breaks stand inside them. The
    signature runs over a line break only as far as the header's algorithm says it is long
    (43 characters for HS256, 342 for RS256 with a 2048-bit key, ...). When the header names
    no algorithm this module knows ("none", a key-wrapping one, a private one), over a
    continuation ("\\" or "=") and over a plain line break that ends a line as wide as the
    token's wrapped lines before it (text wrapped at a width fills every line but its last):
    a wrapped token's last line is shorter, and the next line of text is not read on.
    """
    dot = buf.find(b".", buf.find(b".", vs, ve) + 1, ve)
    if dot < 0:
        return ve
    header = _BREAK.sub(b"", buf[vs : buf.find(b".", vs, ve)])
    lengths = _lengths(header)
    # The width of the token's wrapped lines: its first line ending in a plain line break
    # before the signature (from the line's text, as every line's, quoting left out).
    width = -1
    if lengths is None:
        first = _BREAK.search(buf, vs, dot)
        if first is not None and buf[first.start()] not in b"\\=":
            width = first.start() - _line_start(buf, first.start())
    pos, size = dot + 1, 0
    line = _line_start(buf, dot)
    while True:
        brk = _BREAK.search(buf, pos, ve)
        run_end = ve if brk is None else brk.start()
        size += run_end - pos
        if brk is None:
            return ve
        if lengths is not None:
            if size in lengths or size >= max(lengths):
                return run_end
        elif size == 0 or (buf[brk.start()] not in b"\\=" and run_end - line != width):
            return run_end  # nothing of it yet, or a plain break after a line not full
        pos = brk.end()
        line = pos
