"""The parts of a private key's PEM block whose first line is elsewhere (rule sets 9, 10).

A key pasted into a chat over two messages, or cut at a mail's size limit, leaves a text that
starts inside the block: base64 lines, then ``-----END ... PRIVATE KEY-----``, with no BEGIN
line before them. The private-key rule starts at the BEGIN line; this finds the lines that
end at an END line with none (``pem_tails``), and a block's middle with neither line
(``pem_middles``: a message split twice, a reply that quoted only part of it).
"""

from __future__ import annotations

from typing import Final

import re2

from .passes import OPTIONS
from .rules import PEM_BEGIN, PEM_END
from .spans import Span

__all__ = ["pem_middles", "pem_tails"]

_END: Final = re2.compile(PEM_END, OPTIONS)
_BEGIN: Final = re2.compile(PEM_BEGIN, OPTIONS)
# A line of a block's body: base64 (the last perhaps short), perhaps after the "> " of a
# quoted reply; or a header of an encrypted key ("Proc-Type: 4,ENCRYPTED", "DEK-Info: ...").
_BODY_LINE: Final = re2.compile(
    rb"[ \t]*(?:>[ \t]*)*(?:[A-Za-z0-9+/]+={0,2}|(?:Proc-Type|DEK-Info|Comment):[^\r\n]*)[ \t]*\r?",
    OPTIONS,
)
_KEY_LINE: Final = re2.compile(rb"[A-Za-z0-9+/]{40,}")
_MOST_LINES: Final = 200  # an 8192-bit RSA key has about 100 lines of 64 characters


def pem_tails(buf: bytes) -> list[Span]:
    """Return the spans of the body lines and the END line of each private key's PEM block in
    UTF-8 ``buf`` that has no BEGIN line: kind ``private-key``."""
    if b"-----END" not in buf and b"---- END" not in buf:
        return []
    spans: list[Span] = []
    pos = 0
    while (m := _END.search(buf, pos)) is not None:
        end_s, end_e = m.span()
        pos = end_e
        line_start = buf.rfind(b"\n", 0, end_s) + 1
        if buf[line_start:end_s].strip(b" \t>"):
            continue  # the END line holds more before its dashes: the private-key rule's
        start, keyed = line_start, False
        for _ in range(_MOST_LINES):
            if start == 0:
                break
            prev = buf.rfind(b"\n", 0, start - 1) + 1
            line = buf[prev : start - 1]
            if not line.strip(b" \t>\r") or _BODY_LINE.fullmatch(line) is None:
                break
            keyed = keyed or _KEY_LINE.search(line) is not None
            start = prev
        before = buf[max(start - 200, 0) : start]
        if keyed and _BEGIN.search(before) is None and not _covers(spans, start):
            spans.append((start, end_e, "private-key"))
    return spans


def _covers(spans: list[Span], at: int) -> bool:
    """Tell whether the last of ``spans`` reaches past ``at``."""
    return bool(spans) and spans[-1][1] > at


# A block's middle: 3+ lines of exactly 64 base64 characters (RFC 7468's width; OpenSSH's 70),
# perhaps quoted with "> ", then perhaps a shorter last line. A mail's base64 attachment is
# written 76 wide (RFC 2045) and reaches the scrubber decoded anyway; its headers are checked
# for all the same, as is a BEGIN line before the run (a certificate's, a PGP signature's:
# public) and an END line after it (the rules above take a key's).
_LINE = rb"[ \t]*(?:>[ \t]*)*(?:[A-Za-z0-9+/]{64}|[A-Za-z0-9+/]{70})[ \t]*\r?\n"
_MIDDLE: Final = re2.compile(
    rb"(?m)^" + _LINE + rb"(?:" + _LINE + rb"){2,}(?:[ \t]*(?:>[ \t]*)*[A-Za-z0-9+/]{1,70}={0,2}"
    rb"[ \t]*(?:\r?\n|\z))?",
    OPTIONS,
)
_LOOK_BACK: Final = 8192  # bytes before a run searched for its block's BEGIN line
_MIME_HEADERS: Final = (b"content-transfer-encoding", b"content-type", b"content-disposition")


def pem_middles(buf: bytes) -> list[Span]:
    """Return the spans of runs of a private key's base64 body lines in UTF-8 ``buf`` that
    have neither a BEGIN nor an END line around them: kind ``private-key``."""
    spans: list[Span] = []
    for m in _MIDDLE.finditer(buf):
        start, end = m.span()
        before = buf[max(start - _LOOK_BACK, 0) : start]
        begin = max(before.rfind(b"-----BEGIN"), before.rfind(b"---- BEGIN"))
        if begin >= 0 and b"-----END" not in before[begin:] and b"---- END" not in before[begin:]:
            continue  # inside a block that has its BEGIN line
        if any(h in before[-1024:].lower() for h in _MIME_HEADERS):
            continue  # a MIME part's base64
        after = buf[end : end + 80].lstrip(b" \t>")
        if after.startswith((b"-----END", b"---- END", b"=")):
            continue  # a tail (pem_tails) or an armor's checksum (a PGP signature's "=AbCd")
        run = m.group()
        lines = [line.strip(b" \t>\r") for line in run.splitlines()]
        if all(_random(line) for line in lines[:-1]):
            lead = len(run) - len(run.lstrip(b" \t>"))
            spans.append((start + lead, start + len(run.rstrip()), "private-key"))
    return spans


def _random(line: bytes) -> bool:
    """Tell whether a base64 line holds upper and lower case letters and a digit."""
    return line.lower() != line and line.upper() != line and any(c in b"0123456789" for c in line)
