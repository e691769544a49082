"""The tail of a private key's PEM block whose first line is elsewhere (rule set 9).

A key pasted into a chat over two messages, or cut at a mail's size limit, leaves a text that
starts inside the block: base64 lines, then ``-----END ... PRIVATE KEY-----``, with no BEGIN
line before them. The private-key rule starts at the BEGIN line; this finds the lines that
end at an END line with none.
"""

from __future__ import annotations

from typing import Final

import re2

from .passes import OPTIONS
from .rules import PEM_BEGIN, PEM_END
from .spans import Span

__all__ = ["pem_tails"]

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
