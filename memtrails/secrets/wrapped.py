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
#: the "> " of a quoted mail reply; or a string literal's line concatenated in code
#: ("eyJ...eyJ." then "+" or nothing, then "..." on the next line; rule set 10).
BREAK: Final = (
    r"(?:(?:\\|=)?\r?\n[ \t]*(?:>[ \t]*)*"
    r"|[\"'][ \t]*\+?[ \t]*\r?\n[ \t]*\+?[ \t]*[\"'])"
)
_BREAK: Final = re2.compile(BREAK.encode())
_SHORTEST: Final = 43  # characters in the shortest signature in use (HS256's)
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


def _algorithm(header: bytes) -> str | None:
    """Return the algorithm a JWT header names, or None if it names none."""
    try:
        plain = base64.urlsafe_b64decode(header + b"=" * (-len(header) % 4))
        alg = json.loads(plain).get("alg")
    except (binascii.Error, ValueError, AttributeError, RecursionError):
        return None
    return alg if isinstance(alg, str) else None


def _line_start(buf: bytes, at: int) -> int:
    """Return where the text of the line holding ``at`` starts: after its indentation and
    the "> " of a quoted mail reply (as after a BREAK)."""
    start = buf.rfind(b"\n", 0, at) + 1
    while start < at and buf[start] in b" \t>":
        start += 1
    return start


def _width(buf: bytes, vs: int, dot: int) -> int:
    """Return the width of a wrapped token's lines: that of its first line ending in a plain
    line break before the signature (from the line's text, as every line's, quoting left
    out), or -1 when none does."""
    first = _BREAK.search(buf, vs, dot)
    if first is None or buf[first.start()] in b"\\=":
        return -1
    end: int = first.start()
    return end - _line_start(buf, end)


def jwt_end(buf: bytes, vs: int, ve: int) -> int:
    """Return where the JWT matched at ``buf[vs:ve]`` ends.

    Its header and payload end at their dots, whatever line breaks stand inside them. The
    signature runs over a line break only as far as the header's algorithm says it is long
    (43 characters for HS256, 342 for RS256 with a 2048-bit key, ...; past a length an RSA
    key of fewer bits would give only where that line is full and the next one is too or
    ends the longer length). When the header names
    no algorithm this module knows (a key-wrapping one, a private one), over a
    continuation ("\\" or "=") and over a plain line break that ends a line as wide as the
    token's wrapped lines before it (text wrapped at a width fills every line but its last):
    a wrapped token's last line is shorter, and the next line of text is not read on. A
    signature that starts on the line after the payload's dot goes with the token when that
    dot ends a full line.
    """
    dot = buf.find(b".", buf.find(b".", vs, ve) + 1, ve)
    if dot < 0:
        return ve
    header = _BREAK.sub(b"", buf[vs : buf.find(b".", vs, ve)])
    alg = _algorithm(header)
    lengths = _SIGNATURE.get(alg) if alg else None
    width = _width(buf, vs, dot)
    pos, size = dot + 1, 0
    line = _line_start(buf, dot)
    while True:
        brk = _BREAK.search(buf, pos, ve)
        run_end = ve if brk is None else brk.start()
        size += run_end - pos
        if brk is None:
            return ve
        plain = buf[brk.start()] not in b"\\="
        if size == 0 and alg == "none":
            return run_end  # an unsecured JWT: no signature
        if width < 0 and size < _SHORTEST and plain:
            # The token's first line break comes right after the payload's dot or a few
            # characters on, fewer than any signature has: the line is full, the signature
            # goes on on the next one, and that line tells the token's width.
            width = run_end - line
        full = not plain or run_end - line == width
        if lengths is not None:
            if size >= max(lengths) or (
                size in lengths and not _longer(buf, brk.end(), ve, size, lengths, full, width)
            ):
                return run_end
        elif not full:
            return run_end  # a plain break after a line not full
        pos = brk.end()
        line = pos


def _longer(
    buf: bytes, pos: int, ve: int, size: int, lengths: set[int], full: bool, width: int
) -> bool:
    """Tell whether a signature ``size`` long, a length its algorithm allows, goes on at
    ``pos`` after a line break: its line was full, and the next run fills its line too or
    ends at a longer length the algorithm allows."""
    if not full:
        return False
    brk = _BREAK.search(buf, pos, ve)
    run_end = ve if brk is None else brk.start()
    more = size + run_end - pos
    return more in lengths or (brk is not None and run_end - pos == width and more < max(lengths))
