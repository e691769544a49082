"""Secrets inside encoded text: percent-encoded URLs and forms, base64-wrapped text.

A secret percent-encoded into a URL (``redirect=https%3A%2F%2Fapp%2Fcb%3Ftoken%3DV``, a
form's ``password%3DV``) has no boundary or operator the rules can see: ``%3D`` is letters
and digits. Text wrapped in base64 (a Kubernetes Secret's ``config.json:`` entry, a
webhook URL in a ``data:`` field) hides a whole config file. Both are decoded and scanned
with the same rules; what is found there is replaced in the original text: the encoded
bytes of each secret found in a percent-encoded line, the stretch of base64 lines that
encodes it.

Only lines that hold an encoded delimiter (``%3D``, ``%3A``, ``%2F``, ``%40``, ``%26``, a
space, a quote, ...) are decoded: other escapes hide nothing the rules would not see. Base64
is decoded a block of lines at a time (a MIME part, a wrapped blob) or a run inside a line,
24+ characters, outside what the rules already replaced or kept, and only when it decodes
to text (UTF-8 without control characters). Every decoded text of a record is scanned in
one call, each apart from the next; decoded text is shorter than its encoding, so scanning
it again (a secret percent-encoded inside base64) costs less than the text itself.
"""

from __future__ import annotations

import base64
import binascii
from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import Final
from urllib.parse import unquote_to_bytes

import re2

from .passes import leftmost

__all__ = ["encoded_spans", "wrapped_kind"]

_Span = tuple[int, int, str]
Find = Callable[[bytes], list[_Span]]

# A line holding a percent-escape of a delimiter: a space, a quote, & + , / : ; = ? @ [ ] { },
# a line break. The whole line is decoded (one match and one decoding per line, however
# many encoded words it holds); what the rules find in it twice is replaced once.
_PERCENT_LINE: Final = leftmost(
    r"[^\r\n]*%(?:2[02-7BbCcFf]|3[AaBbDdFf]|40|5[BbDd]|7[BbDd]|0[AaDd])[^\r\n]*"
)
_ESCAPE: Final = re2.compile(rb"%([0-9A-Fa-f]{2})")
# Lines of standard base64 one after another (a MIME part, a wrapped blob), or one run inside
# a line (a Kubernetes Secret's value), 24+ characters, padded or not. One match per block,
# not per line: a match costs a Python step, and the lines of a MIME part are many.
_BASE64_BLOCK: Final = leftmost(r"[A-Za-z0-9+/]{24,}={0,2}(?:\r?\n[A-Za-z0-9+/]{4,}={0,2})*")
_GLUED: Final = b"-_"  # a URL-safe token's tail, which the rules read as a whole
# Between the texts of several blocks, scanned as one: a line no rule reads across.
_BETWEEN: Final = b"\n\x00\n"
# Bytes that text does not hold: control characters other than tab and line breaks.
_CONTROL: Final = bytes([*range(9), 11, 12, *range(14, 32), 127])
_LONGEST_BASE64: Final = 1 << 22  # longer lines of base64 are not decoded


def _covered(starts: Sequence[int], spans: Sequence[_Span], s: int, e: int) -> bool:
    """Tell whether [s, e) overlaps one of ``spans`` (sorted, without overlaps)."""
    i = bisect_right(starts, s) - 1
    if i >= 0 and spans[i][1] > s:
        return True
    return i + 1 < len(spans) and spans[i + 1][0] < e


class _Percent:
    """A percent-encoded run in ``buf`` and what it decodes to."""

    def __init__(self, buf: bytes, s: int, e: int) -> None:
        self.buf, self.s, self.e = buf, s, e
        self.plain: bytes | None = unquote_to_bytes(buf[s:e])
        self.starts: list[int] = []  # per decoded byte, where it starts and ends in ``buf``
        self.ends: list[int] = []

    def span(self, ds: int, de: int, kind: str) -> _Span:
        """Return the run's stretch that encodes the decoded bytes [ds, de)."""
        starts, ends = self.starts, self.ends
        if not starts:
            last = self.s
            for m in _ESCAPE.finditer(self.buf, self.s, self.e):
                a, b = m.span()
                starts.extend(range(last, a))
                ends.extend(range(last + 1, a + 1))
                starts.append(a)
                ends.append(b)
                last = b
            starts.extend(range(last, self.e))
            ends.extend(range(last + 1, self.e + 1))
        return (starts[ds], ends[de - 1], kind)


def wrapped_kind(value: bytes, find: Find) -> str:
    """Return the kind of the token that base64 ``value`` decodes to, whole ("" if none):
    ``find`` is the token pass."""
    try:
        plain = base64.b64decode(value + b"=" * (-len(value) % 4), validate=True).strip()
    except (binascii.Error, ValueError):
        return ""
    spans = find(plain)
    covered = sum(e - s for s, e, kind in spans if kind)
    return spans[0][2] if spans and covered >= len(plain) - 3 else ""


def _base64_text(run: bytes) -> bytes | None:
    """Return the text that base64 ``run`` decodes to, or None when it is no text."""
    body = run.rstrip(b"=")
    if len(body) % 4 == 1:
        return None
    try:
        plain = base64.b64decode(body + b"=" * (-len(body) % 4), validate=True)
        plain.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    if len(plain) < 12 or len(plain.translate(None, _CONTROL)) != len(plain):
        return None
    return plain


class _Block:
    """Lines of base64 in ``buf`` and what they decode to."""

    def __init__(self, buf: bytes, s: int, e: int) -> None:
        last = buf.rfind(b"\n", s, e)
        if last >= 0 and e < len(buf) and buf[e] not in b"\r\n":
            e = last  # the last line runs on into other text: not base64
        self.buf, self.s, self.e = buf, s, e
        self.plain = _base64_text(buf[s:e].replace(b"\r", b"").replace(b"\n", b""))
        self.runs: list[tuple[int, int]] = []
        self.ends: list[int] = []

    def span(self, ds: int, de: int, kind: str) -> _Span:
        """Return the lines' stretch that encodes the decoded bytes [ds, de)."""
        runs, ends = self.runs, self.ends
        if not runs:
            s = self.s
            for line in self.buf[self.s : self.e].split(b"\n"):
                stop = s + len(line.rstrip(b"\r"))
                runs.append((s, stop))  # each line's base64, in ``buf``
                ends.append((ends[-1] if ends else 0) + stop - s)  # its end, the lines joined
                s += len(line) + 1

        def at(c: int) -> int:  # the offset in ``buf`` of ``c``-th character of the lines
            i = bisect_right(ends, c)
            return runs[i][0] + c - (ends[i - 1] if i else 0)

        cs, ce = 4 * (ds // 3), min(4 * -(-de // 3), ends[-1])
        return (at(cs), at(ce - 1) + 1, kind)


def _decoded_spans(pieces: Sequence[_Percent | _Block], find: Find) -> list[_Span]:
    """Return the secrets in the decoded texts of ``pieces``, scanned as one text."""
    owners = [p for p in pieces if p.plain is not None]
    texts = [p.plain for p in owners if p.plain is not None]
    starts: list[int] = []
    at = 0
    for text in texts:
        starts.append(at)
        at += len(text) + len(_BETWEEN)
    out: list[_Span] = []
    for ds, de, kind in find(_BETWEEN.join(texts)) if texts else ():
        i = bisect_right(starts, ds) - 1
        end = min(de, starts[i] + len(texts[i]))  # a span never runs into the next text
        if kind and end > ds:
            out.append(owners[i].span(ds - starts[i], end - starts[i], kind))
    return out


def encoded_spans(buf: bytes, spans: Sequence[_Span], find: Find) -> list[_Span]:
    """Return the secrets that percent-encoding or base64 hides in ``buf``, found by ``find``.

    ``spans``: what the rules found in ``buf`` itself (sorted, without overlaps); a base64
    run that overlaps one is not decoded (a data URI kept, a token already replaced).
    """
    size = len(buf)
    pieces: list[_Percent | _Block] = []
    pos = 0
    while b"%" in buf and (line := _PERCENT_LINE(buf, pos, size)) is not None:
        ((s, e),) = line
        pieces.append(_Percent(buf, s, e))
        pos = e
    starts = [s for s, _, _ in spans]
    pos = 0
    while (found := _BASE64_BLOCK(buf, pos, size)) is not None:
        ((s, e),) = found
        pos = e
        if (
            e - s > _LONGEST_BASE64
            or (s and buf[s - 1] in _GLUED)
            or (e < size and buf[e] in _GLUED)
            or (s and buf[s - 1 : s].isalnum())
            or _covered(starts, spans, s, e)
        ):
            continue
        pieces.append(_Block(buf, s, e))
    out = _decoded_spans(pieces, find)
    out.sort()
    return out
