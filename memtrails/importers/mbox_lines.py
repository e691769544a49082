"""What the lines of an mbox look like: its separators, its escaped body lines, the blank line
before a separator, a file of messages run together without separators, and lines that end
in CR alone."""

from __future__ import annotations

import io
import re
from typing import IO, Any

from ._input import Input

__all__ = [
    "ESCAPED_FROM",
    "LINE_LIMIT",
    "MMDF",
    "RUN_TOGETHER_REASON",
    "GivenBack",
    "continues_body",
    "cr_only",
    "is_loose_separator",
    "is_separator",
    "lines_of",
    "looks_like_mbox",
    "message_bytes",
    "read_by_cr",
    "runs_together",
    "separator_time",
    "utf16_codec",
]

LINE_LIMIT = 1 << 20  # read at most 1 MiB per readline: a newline-free file stays bounded

# Names as any case writes them, whole or cut to three letters ("MON", "Monday", "Sept.").
_DAY = rb"(?i:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]{0,6}\.?)"
_MON = rb"(?i:(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]{0,6}\.?)"
_ZONE = rb"(?:[A-Z]{1,5}|[+-]\d{4})"
# A year as clocks gone wrong write it too: two digits, or five ("10000", a Y10K bug).
_YEAR = rb"\d{2,6}"
_ASCTIME = (
    rb"(?:" + _DAY + rb",?\s+)?" + _MON + rb"\s+\d{1,2}\s+\d{1,2}:\d\d(?::\d\d)?"
    rb"(?:\s+" + _ZONE + rb")?\s+" + _YEAR
)
_RFC2822 = (
    rb"(?:" + _DAY + rb",?\s+)?\d{1,2}\s+" + _MON + rb"\s+" + _YEAR + rb"\s+\d{1,2}:\d\d(?::\d\d)?"
)
# Mailman's ctime in the list's language (its i18n.ctime): day and month names translated
# ("Вт Апр  1 12:21:37 MSK 2003", "火 4月  1 ..."), any word each but a number.
_WORD = rb"(?!\d+\s)\S{1,24}"
_LOCAL = (
    rb"(?:" + _WORD + rb",?\s+)?" + _WORD + rb"\s+\d{1,2}\s+\d{1,2}:\d\d(?::\d\d)?"
    rb"(?:\s+\S{1,8})?\s+\d{4}"
)
_SEPARATOR = re.compile(
    rb"From (?:"
    # pipermail hides the sender as "user WORD host", WORD in the archive's language
    # (" at ", " em ", " en ", " chez ", " à ", " @ " in its charset); some translations
    # are two words (Basque " a bildua "), none (Portuguese "  ": "user  host") or lose a
    # space (Estonian " at": "user athost"); the shortest sender first, so that a day's
    # name stays the date's
    rb"\S*(?: {1,2}(?:(?:[^\s@]{1,24}|@) ){0,2}\S+)??\s+"
    rb"(?:(?P<date>" + _ASCTIME + rb"|" + _RFC2822 + rb")|" + _LOCAL + rb")(?:\s.*)?"
    rb"|-?[ \t]*"
    rb"|[^\s@]*@\S+[ \t]*"
    rb")\r?\n?",
)
ESCAPED_FROM = re.compile(rb"^>(>*From )", re.MULTILINE)
# A file with no separator at all whose body holds another header block: several messages
# run together (saved without From_ lines). Read as one, they would merge into one record.
_RUN_TOGETHER = re.compile(
    rb"^\n(?:[\w-]+:[^\n]*\n(?:[ \t][^\n]*\n)*){0,40}?(?:Return-Path|Received|Message-ID|Delivered-To):",
    re.IGNORECASE | re.MULTILINE,
)
RUN_TOGETHER_REASON = (
    "no 'From ' separator lines, and the text holds more than one message's headers: "
    "several messages run together, not an mbox; not imported as one merged record "
    "(give each message its own .eml file, or separate them with 'From ' lines)"
)


def is_separator(line: bytes) -> bool:
    """Tell whether an mbox line (with its line ending) is a message separator by shape."""
    return _SEPARATOR.fullmatch(line) is not None


# A "From " line with a time on it that no rule above reads ("From x 2024-01-01 10:00:00",
# "From "Jo Doe"@x Mon Jan 1 10:00:00 2024", a date in another order or language).
_LOOSE = re.compile(rb"From [ \t]*\S[^\n]{0,400}?\b\d{1,2}:\d\d\b[^\n]{0,400}\r?\n?")
# The headers a stored mail starts with (a body line "Note: ..." is not one of them).
_MAIL_HEADER = re.compile(
    rb"(?i:return-path|received|from|date|subject|to|cc|message-id|delivered-to|envelope-to"
    rb"|sender|reply-to|mime-version|content-type|status|references|in-reply-to|x-[\w-]+)"
    rb"[ \t]*:"
)
# The headers only a delivery writes, first in a stored mail: no text quotes them after a
# line of its own starting "From ".
_TRANSPORT_HEADER = re.compile(
    rb"(?i:return-path|received|delivered-to|envelope-to|x-original-to|message-id)[ \t]*:"
)


def is_loose_separator(line: bytes, following: bytes, after_text: bool = False) -> bool:
    """Tell whether a ``From `` line with a time on it that :func:`is_separator` does not
    take starts a message: ``following``, the line after it, is a mail header
    (``Received:``, ``From:``, ``X-...:``); where the line stands right after a line of text
    (``after_text``: no blank line before it), a header only a delivery writes
    (``Return-Path:``, ``Received:``, ``Delivered-To:``, ``Message-ID:``).

    So an odd separator (a date in another shape, a quoted sender with a space) starts its
    mail instead of the mail joining the text of the one before.
    """
    if _LOOSE.fullmatch(line) is None:
        return False
    header = _TRANSPORT_HEADER if after_text else _MAIL_HEADER
    return header.match(following) is not None or _same_sender(line, following)


# The address of a From: header: in angle brackets, else before a comment ("(Ann)").
_FROM_HEADER = re.compile(
    rb"From:[ \t]*(?:[^<\r\n]*<([^>\r\n]{1,200})>|([^(<\r\n]{1,200}?)[ \t]*(?:\(|\r?\n?$))"
)


def _same_sender(line: bytes, following: bytes) -> bool:
    """Tell whether ``following`` is a From: header naming the sender ``line``, a ``From ``
    line, starts with: a pipermail archive's (``From ann at example.org  <a date in the
    list's language>`` then ``From: ann at example.org (Ann)``), after a message whose
    text ends with no blank line."""
    found = _FROM_HEADER.match(following)
    address = (found.group(1) or found.group(2) or b"").strip() if found else b""
    if not address or not line.startswith(b"From " + address):
        return False
    return line[5 + len(address) : 6 + len(address)].isspace()


_BOM = b"\xef\xbb\xbf"
# MMDF (SCO, old MMDF and some Unix mail tools) opens and closes each message with a line
# of four Ctrl-A characters instead of a From_ line.
MMDF = b"\x01\x01\x01\x01"
_BLANK_LINES = re.compile(rb"(?:[ \t]*(?:\r\n|\n|\r))*")


def utf16_codec(head: bytes) -> str | None:
    """Return ``utf-16-le`` or ``utf-16-be`` when ``head`` (a file's first bytes) is text in
    UTF-16, as some Windows tools save mail: with its byte order mark, or ASCII with a NUL
    beside each character (a message starts with ASCII headers); else None."""
    if head[:4] in (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff"):  # UTF-32's marks
        return None
    if head[:2] == b"\xff\xfe":
        return "utf-16-le"
    if head[:2] == b"\xfe\xff":
        return "utf-16-be"
    sample = head[:64]
    if len(sample) < 16 or len(sample) % 2:
        sample = sample[: len(sample) - len(sample) % 2]
        if len(sample) < 16:
            return None
    even, odd = sample[0::2], sample[1::2]
    if not odd.strip(b"\x00") and b"\x00" not in even and even.isascii():
        return "utf-16-le"
    if not even.strip(b"\x00") and b"\x00" not in odd and odd.isascii():
        return "utf-16-be"
    return None


def looks_like_mbox(head: bytes) -> bool:
    """Tell from a file's first bytes whether it is an mbox, as the reader splits one.

    Its first line that is not blank, after a UTF-8 BOM, is a separator (by shape, or a
    ``From `` line with a time that a mail header follows, or MMDF's line of four Ctrl-A
    that a mail header follows); blank lines before it (LF, CRLF,
    or CR alone when the head has no LF) are passed over, as the reader passes over them.
    """
    codec = utf16_codec(head)
    if codec is not None:  # saved as UTF-16 text: an mbox still (the reader says to convert it)
        head = head[: len(head) - len(head) % 2].decode(codec, "replace").encode()
    text = head.removeprefix(_BOM)
    if cr_only(text):
        text = text.replace(b"\r", b"\n")
    start = _BLANK_LINES.match(text)
    at = start.end() if start is not None else 0
    first, _, rest = text[at:].partition(b"\n")
    first += b"\n"
    if first.rstrip(b"\r\n") == MMDF:  # MMDF's opening line, a header after it
        return bool(_HEADER_LINE.match(rest.split(b"\n", 1)[0]))
    if not first.startswith(b"From "):
        return False
    return is_separator(first) or is_loose_separator(first, rest.split(b"\n", 1)[0])


_HEADER_LINE = re.compile(rb"[ \t]*[!-9;-~]+[ \t]*:")


def continues_body(following: bytes) -> bool:
    """Tell whether a separator-like line between a body line with text on it and
    ``following`` (the line after it) is body text: a ``From_`` line quoted in a mail.

    A separator starts a message, and a message starts with its headers: ``following`` has
    text and is no header (a space before its name allowed). Another separator-like line is
    no header either: quoted lines in a row stay in the text, up to the one a header follows.
    A blank ``following`` tells nothing (a message with no headers, or an empty header
    block): the line separates, as does every separator after a blank line, or at the end.
    """
    return bool(following.strip()) and _HEADER_LINE.match(following) is None


def separator_time(line: bytes) -> str | None:
    """Return the date a separator line carries (``Tue Mar  3 10:00:00 2009``), or None.

    It is the time the mail was stored, in the storing machine's clock and as a rule with
    no zone: a mail's time of last resort (:func:`.mail.dates.mail_time`).
    """
    found = _SEPARATOR.fullmatch(line)
    date = found.group("date") if found is not None else None
    return date.decode("ascii") if date is not None else None


def runs_together(raw: bytes) -> bool:
    """Tell whether a message without a separator holds another message's header block.

    A forward inside a MIME multipart has headers too, so only a non-multipart message is
    looked at; an inline forward (``From:``, ``Sent:``, ``To:``) lacks the transport
    headers looked for here.
    """
    data = raw.replace(b"\r\n", b"\n")
    end = data.find(b"\n\n")
    if end < 0 or b"multipart/" in data[:end].lower():
        return False
    return _RUN_TOGETHER.search(data, end + 2) is not None


def message_bytes(held: io.BytesIO) -> bytes:
    """Return the message ``held`` holds, less the blank line before the next separator (the
    mbox's, not the message's); ``getvalue`` hands over the buffer itself, not a copy."""
    size = held.tell()
    with held.getbuffer() as view:
        tail = bytes(view[max(0, size - 4) :])
    if tail.endswith(b"\n\n"):
        held.truncate(size - 1)
    elif tail.endswith(b"\r\n\r\n"):
        held.truncate(size - 2)
    return held.getvalue()


_CR_TO_LF = bytes.maketrans(b"\r", b"\n")


def cr_only(head: bytes) -> bool:
    """Tell whether a file's first bytes end their lines with CR alone (classic Mac OS mail).

    Read by LF, such a file is one line: its first ``From `` line swallows every message.
    A CR in a file that has an LF is part of its line (or of a CRLF), as ever.
    """
    return b"\r" in head and b"\n" not in head


def lines_of(stream: Input) -> IO[bytes]:
    """Return what the splitter reads: the file itself, or, when its lines end in CR alone
    (classic Mac OS mail archives), the file with each CR read as LF; its first 64 KiB tell."""
    try:
        head = stream.head()
    except (OSError, ValueError):
        return stream.file  # reading meets the same trouble and says where
    return read_by_cr(stream.file) if cr_only(head) else stream.file


def read_by_cr(file: IO[bytes]) -> IO[bytes]:
    """Return ``file`` read with each CR as an LF, buffered, seekable where ``file`` is."""
    return io.BufferedReader(_CrAsLf(file))


class _CrAsLf(io.RawIOBase):
    """A file's bytes with each CR handed out as LF: one byte for one, so every offset (a
    position saved, a resume) is the file's own, and the file is never held whole."""

    def __init__(self, file: IO[bytes]) -> None:
        super().__init__()
        self._file = file

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return self._file.seekable()

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return self._file.seek(offset, whence)

    def tell(self) -> int:
        return self._file.tell()

    def readinto(self, buffer: Any) -> int:
        data = self._file.read(len(buffer)).translate(_CR_TO_LF)
        buffer[: len(data)] = data
        return len(data)


class GivenBack:
    """Lines read ahead and given back, in one buffer: a list of short lines costs ~120
    bytes a line (a 60 MB body of 8M lines read ahead took 3 GB)."""

    __slots__ = ("_at", "_data")

    def __init__(self, at: int, data: bytes) -> None:
        self._at = at
        self._data = io.BytesIO(data)

    def readline(self) -> tuple[int, bytes]:
        """Return the next line given back and where it starts (empty: none left)."""
        at, line = self._at, self._data.readline(LINE_LIMIT)
        self._at += len(line)
        return at, line
