"""Cut a very large mail down to the text its record can hold, before the parser sees it.

The stdlib parser holds a text body several times over (as lines, joined, as a string of
4 bytes a character when it holds 8-bit bytes, then decoded): a 50 MB mail of text took
0.7 to 1.2 GB to read, and all but its first million characters are cut from the record
afterwards (``Limits.max_text_units``). So the text bodies of a mail are kept up to a
budget of bytes, :data:`BYTES_PER_UNIT` per unit of that limit, all its text parts together,
every header line up to 1 MiB and a header block up to 2 MiB (past that, only the fields that
say what the mail is: its subject, addresses, date, ids, MIME headers); parts of other types
(attachments: a PDF, an image) are kept whole, as the attachment reader reads them.
"""

from __future__ import annotations

import re
from itertools import pairwise

__all__ = ["BYTES_PER_UNIT", "HEADER_BLOCK", "HEADER_LINE", "text_budget", "within_budget"]

#: Bytes of a text body kept per UTF-16 unit of the record's text limit: room for what
#: encoding and markup add (base64 4 bytes for 3, quoted-printable up to 3 for 1, HTML tags).
BYTES_PER_UNIT = 8
#: The longest header line kept (a real one is under 1,000 bytes; a References list of
#: 10,000 ids is 500 KB); a longer one keeps its first and last 512 KiB, a space between.
HEADER_LINE = 1 << 20
#: The largest header block kept (a part's or the mail's: a real one is under 100 KB); the
#: lines past it are cut.
HEADER_BLOCK = 2 << 20

# A line that starts with "--": a MIME delimiter, maybe (a signature's "-- " too, harmless).
_BORDER = re.compile(rb"[\r\n]--")
_EOL = re.compile(rb"\r\n|\n|\r")
# The parser ends a line at LF or at a lone CR.
_BLANK = re.compile(rb"(?:\n|\r\n?)(?:\n|\r\n?)")
_HEADER = re.compile(rb"[!-9;-~]+[ \t]*:")
_CTYPE = re.compile(rb"(?:\A|[\r\n])content-type[ \t]*:\s*([A-Za-z0-9!#$&^_.+-]*)", re.I)
_BASE64 = re.compile(rb"(?:\A|[\r\n])content-transfer-encoding[ \t]*:\s*base64", re.I)
_LONG = re.compile(rb"[^\r\n]{%d,}" % (HEADER_LINE + 1))
_TEXT_TYPES = (b"", b"text", b"message", b"multipart")  # a preamble is text too
#: Of a header block's lines past :data:`HEADER_BLOCK`, the fields kept, the first of each
#: name (a mail that put 2 MiB of junk lines before them lost its subject, and its MIME
#: type: its base64 body was read as text).
_WANTED_NAMES = 14
_WANTED = re.compile(
    rb"(?<=[\r\n])(subject|from|to|cc|date|message-id|in-reply-to|references|reply-to"
    rb"|sender|mime-version|content-type|content-transfer-encoding|content-disposition)"
    rb"[ \t]*:[^\r\n]*(?:\r\n|\n|\r)(?:[ \t][^\r\n]*(?:\r\n|\n|\r))*",
    re.IGNORECASE,
)


def text_budget(max_text_units: int) -> int:
    """Return how many bytes of text bodies a mail keeps for a record of ``max_text_units``."""
    return BYTES_PER_UNIT * max_text_units


def within_budget(data: bytes, budget: int) -> tuple[bytes, int]:
    """Return a mail (LF or CR line ends) cut to ``budget`` bytes of text, and bytes cut.

    The mail is read as the runs of lines between lines that start with ``--`` (its MIME
    parts, as the parser will find them); each run's header block names its type. A run
    of text (``text/*``, ``message/*``, a preamble, no type, or no headers at all) keeps
    what is left of the budget, cut at its last line end when it has one; every other run
    is kept whole. A header block keeps at most 2 MiB, each line 1 MiB (its first and last
    512 KiB), and of its lines past 2 MiB the first of each field that says what the mail
    is (its subject, addresses, date, ids, MIME headers). What is kept is unchanged; a mail with nothing to cut is returned as it is.
    """
    if len(data) <= min(budget, HEADER_LINE):
        return data, 0
    view = memoryview(data)
    borders = [0, *(m.start() + 1 for m in _BORDER.finditer(data)), len(data)]
    pieces: list[bytes | memoryview] = []
    left, cut = budget, 0
    for start, stop in pairwise(borders):
        body = _body_start(data, start, stop)
        head = data[start:body]
        kept_head, head_cut = _capped_head(head)
        pieces.append(kept_head if head_cut else view[start:body])
        cut += head_cut
        size = stop - body
        match = _CTYPE.search(head)
        if match is not None and match.group(1).split(b"/")[0].lower() not in _TEXT_TYPES:
            pieces.append(view[body:stop])  # an attachment: whole
            continue
        keep = min(size, left)
        if keep < size:
            keep = _line_end(data, body, keep, _BASE64.search(head) is not None)
            pieces.append(view[body : body + keep])
            if keep and stop < len(data) and data[body + keep - 1] not in b"\r\n":
                pieces.append(b"\n")  # the next delimiter still starts a line
            cut += size - keep
        else:
            pieces.append(view[body:stop])
        left -= keep
    if not cut:
        return data, 0
    return b"".join(pieces), cut


def _body_start(data: bytes, start: int, stop: int) -> int:
    """Return where the body of the run ``data[start:stop]`` starts, past its header block.

    A run after the first starts with its delimiter line. The header block is the lines
    that look like headers, up to the first blank line; a run whose first line is no header
    has none (the text goes on after a ``-- `` line), one with no blank line is all header.
    """
    at = start
    if start:
        eol = _EOL.search(data, start, stop)
        at = eol.end() if eol is not None else stop
    if at >= stop:
        return stop
    if data[at] in b"\r\n":  # a blank line first: no headers
        eol = _EOL.match(data, at)
        return eol.end() if eol is not None else at
    if _HEADER.match(data, at) is None:
        return at
    blank = _BLANK.search(data, at, stop)
    return blank.end() if blank is not None else stop


def _capped_head(head: bytes) -> tuple[bytes, int]:
    """Return a header block with each line cut to 1 MiB (its middle left out) and the
    whole to 2 MiB."""
    cut = 0
    if len(head) > HEADER_LINE:
        kept: list[bytes] = []
        at = 0
        half = HEADER_LINE // 2
        for long in _LONG.finditer(head):  # its start and its end: a References list's
            kept += [head[at : long.start() + half], b" "]  # first id and its last ones
            cut += long.end() - long.start() - 2 * half
            at = long.end() - half
        if cut:
            head = b"".join([*kept, head[at:]])
    if len(head) > HEADER_BLOCK:
        end = max(head.rfind(b"\n", 0, HEADER_BLOCK), head.rfind(b"\r", 0, HEADER_BLOCK)) + 1
        # Of the lines cut, the fields that say what the mail is (past 2 MiB of junk lines).
        kept_fields = _wanted(head, end)
        cut += len(head) - end - len(kept_fields)
        head = head[:end] + kept_fields + b"\n"  # the blank line that ends it
    return head, cut


def _wanted(head: bytes, start: int) -> bytes:
    """Return the wanted fields of a header block from ``start`` on, each with its folded
    lines and line end: the first of each name (the one the parser reads) that is no longer
    than :data:`HEADER_LINE`."""
    kept: dict[bytes, bytes] = {}
    for field in _WANTED.finditer(head, start):
        name = field.group(1).lower()
        if name not in kept and len(field.group()) <= HEADER_LINE:
            kept[name] = field.group()
            if len(kept) == _WANTED_NAMES:
                break
    return b"".join(kept.values())


def _line_end(data: bytes, body: int, keep: int, base64: bool) -> int:
    """Return ``keep`` moved back to the last line end before it, if any; in one line of
    base64, to a whole number of its 4-character groups."""
    end = max(data.rfind(b"\n", body, body + keep), data.rfind(b"\r", body, body + keep))
    if end >= body:
        return end + 1 - body
    return keep - keep % 4 if base64 else keep
