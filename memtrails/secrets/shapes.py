"""Shape checks of what the rules match: a PEM block's parts, a token's randomness, base64."""

from __future__ import annotations

import base64
import binascii
from typing import Final

import re2

from .formats import is_random_short, is_random_string, is_random_tail
from .passes import OPTIONS, Spans
from .rules import PEM_BEGIN, PEM_END

__all__ = [
    "has_digit_and_letter",
    "is_basic_credential",
    "pem_groups",
    "rstrip_separators",
    "shaped",
]

_PEM_BEGIN = re2.compile(PEM_BEGIN, OPTIONS)
_PEM_END = re2.compile(PEM_END, OPTIONS)
_SEPARATORS: Final = (b"\\\\r\\\\n", b"\\r\\n", b"\\\\n", b"\\n", b"\r\n", b"\n")  # longest first


_DIGITS: Final = b"0123456789"
_LETTERS: Final = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_NOT_DIGITS: Final = bytes(c for c in range(256) if c not in _DIGITS)
_NOT_LETTERS: Final = bytes(c for c in range(256) if c not in _LETTERS)


def pem_groups(buf: bytes, ms: int, me: int, spans: Spans, groups: dict[str, int]) -> None:
    """Set the private-key rule's groups (hdr, body, end) of its match ``buf[ms:me]``.

    RE2 would extract them with its NFA, whose cost over a long match (a key, or a header
    line that runs on for a megabyte) is many times the scan's; the rule's shape fixes them:
    the header line starts the match; an END line (after a line break and the quoting
    characters of a mail reply, which no body line can end in) ends it when there is one;
    else the body runs to the end of the text or up to the final line break.
    """
    header = _PEM_BEGIN.match(buf, ms, me)
    hdr_e = me if header is None else header.end()  # never None: the rule starts so
    body_e = me
    es = max(buf.rfind(b"-----END", hdr_e, me), buf.rfind(b"---- END", hdr_e, me))
    if es >= 0 and _PEM_END.fullmatch(buf, es, me) is not None and buf[es - 1 : es] == b" ":
        body_e = es - 1  # "... lastline -----END": RE2's greedy body stops at the last space
        spans[groups["end"]] = (es, me)
    elif es >= 0 and _PEM_END.fullmatch(buf, es, me) is not None:
        lead = buf[hdr_e:es].rstrip(b" \t>")
        for sep in _SEPARATORS:
            if lead.endswith(sep):
                body_e = hdr_e + len(lead) - len(sep)
                spans[groups["end"]] = (es, me)
                break
    if spans[groups["end"]][0] < 0 and me < len(buf):
        body_e = me - next((len(s) for s in _SEPARATORS if buf.endswith(s, hdr_e, me)), 0)
    spans[groups["hdr"]] = (ms, hdr_e)
    spans[groups["body"]] = (hdr_e, body_e)


def rstrip_separators(buf: bytes, start: int, end: int) -> int:
    """Return ``end`` moved back over trailing blank lines, so they stay in the text."""
    while end > start:
        if buf[end - 1] in b" \t\r\n":
            end -= 1
        elif buf[end - 2 : end] == b"\\n" and end - 2 >= start:
            end -= 2
        else:
            break
    return end


def shaped(value: bytes, check: str) -> bool:
    """Tell whether a token's value has the randomness its rule's check asks for."""
    if check == "random":
        return is_random_tail(value)
    if check == "random_string":
        return is_random_string(value)
    if check == "short_prefixed":  # "s." + 24, "YC" + 38: random, not a name of words
        return is_random_short(value)
    if check == "alnum":  # bytes.translate deletes in C: no Python loop over a long value
        return bool(value.translate(None, _NOT_DIGITS)) and bool(
            value.translate(None, _NOT_LETTERS)
        )
    if check == "recovery":  # a list of backup codes: a digit in it ("well-known" is none)
        return bool(value.translate(None, _NOT_DIGITS))
    return value.lower() != value and value.upper() != value  # "mixed", "aws"


def has_digit_and_letter(value: str) -> bool:
    """Tell whether ``value`` holds a digit and a letter (``str.isdigit``, ``str.isalpha``)."""
    if value.isascii():
        raw = value.encode("ascii")
        return bool(raw.translate(None, _NOT_DIGITS)) and bool(raw.translate(None, _NOT_LETTERS))
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def is_basic_credential(value: bytes) -> bool:
    """Tell whether base64 ``value`` decodes to printable ``user:password``."""
    try:
        plain = base64.b64decode(value + b"=" * (-len(value) % 4), validate=True)
        text = plain.decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    _user, colon, password = text.partition(":")
    return bool(colon and password) and text.isprintable() and len(text) >= 3
