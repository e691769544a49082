"""Read header values: RFC 2047 words, raw 8-bit bytes, addresses, message ids."""

from __future__ import annotations

import binascii
import contextlib
import email.utils
import re
from collections import Counter
from email.message import Message

from .charsets import DECODE_ERRORS, decode_bytes, python_codec, readable, to_bytes

__all__ = [
    "FOLD",
    "MAX_ID_CHARS",
    "WS",
    "addresses",
    "b64",
    "decode_header",
    "decode_raw_header",
    "first_ref",
    "fix_obsolete_names",
    "fold_stray_lines",
    "msg_id",
    "plain_not_base64",
    "raw_header",
    "raw_headers",
    "refs",
]

_ENCODED_WORD = re.compile(r"=\?([^?\s]*)\?([QqBb])\?([^?]*)\?=")
FOLD = re.compile(r"\r?\n(?=[ \t])")
WS = re.compile(r"\s+")
_B64_JUNK = re.compile(rb"[^A-Za-z0-9+/=]")
_QP_HEX = re.compile(rb"=([0-9A-Fa-f]{2})")


_B64_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="


def _junk_lines_dropped(data: bytes) -> bytes:
    """Return base64 text without its lines that hold a character base64 does not use.

    A list footer or a disclaimer appended after a base64 body (``____``, ``list@host``,
    ``http://...``) is such a line. Its letters, read as base64, added garbage bytes that
    made the whole body fail its charset (UTF-8 text came out as ``wÃ¶rld``); dropping the
    line instead of its odd characters also keeps the lines after it aligned. Text with no
    clean line at all is returned as it is (then only odd characters are skipped).

    A line inside the body (a whole line of base64 before it, a line of base64 after it)
    with a few odd characters in it is damage in transit, not a footer: it is repaired, not
    dropped with the 57 bytes it holds (see :func:`_repaired`).
    """
    lines = data.splitlines()
    stripped = [line.strip() for line in lines]
    is_clean = [not line.translate(None, _B64_CHARS) for line in stripped]
    if all(is_clean) or not any(line for line, ok in zip(stripped, is_clean, strict=True) if ok):
        return data
    widths = Counter(len(line) for line, ok in zip(stripped, is_clean, strict=True) if ok and line)
    width = widths.most_common(1)[0][0]
    kept: list[bytes] = []
    for k, (line, ok) in enumerate(zip(stripped, is_clean, strict=True)):
        if ok:
            kept.append(line)
            continue
        inside = (
            width >= 16
            and k > 0
            and is_clean[k - 1]
            and len(stripped[k - 1]) == width
            and k + 1 < len(lines)
            and is_clean[k + 1]
            and stripped[k + 1] != b""
        )
        fixed = _repaired(line, width) if inside else None
        if fixed is not None:
            kept.append(fixed)
    return b"\n".join(kept)


def _repaired(line: bytes, width: int) -> bytes | None:
    """Return a body line of base64 with its odd characters mended, or None when it is not
    one: characters inserted (without them it is as wide as its neighbours) are left out;
    characters put in the place of others (it is as wide, a few of them odd) read as zero
    bits, so only the bytes they stood in are lost and the lines after stay aligned."""
    if b" " in line or b"\t" in line:  # words: a line of text, not damaged base64
        return None
    without = _B64_JUNK.sub(b"", line)
    if len(without) == width:
        return without
    odd = len(line) - len(without)
    if len(line) == width and odd * 8 <= width:
        return _B64_JUNK.sub(b"A", line)
    return None


def plain_not_base64(data: bytes) -> bool:
    """Tell whether a body labelled base64 is plain text: no line of it is base64 (each
    holds a character base64 does not use) and most of its lines hold words (a space
    between them). A list or gateway that decoded a body and kept its header leaves one;
    decoded as base64 it is bytes of noise."""
    if not data.translate(None, _B64_CHARS + b" \t\r\n"):
        return False  # nothing but base64's own characters
    lines = [line.strip() for line in data.splitlines()]
    lines = [line for line in lines if line]
    if any(not line.translate(None, _B64_CHARS) for line in lines):
        return False  # a line of base64: junk around it is dropped (b64)
    return sum(b" " in line or b"\t" in line for line in lines) * 2 >= len(lines)


def b64(data: bytes) -> bytes:
    """Decode base64 leniently: junk lines and characters skipped, padding repaired,
    concatenated blocks kept."""
    if data.translate(None, _B64_CHARS + b" \t\r\n"):  # anything else: junk somewhere
        data = _junk_lines_dropped(data)
    pad = data.find(b"=")
    if pad < 0 or not data[pad:].strip(b"= \t\r\n"):
        # Fast path: binascii skips line breaks and junk itself, but stops at the first
        # padding, so it is only used when nothing follows the padding.
        try:
            return binascii.a2b_base64(data)
        except binascii.Error:
            pass
    out = []
    for block in re.split(rb"=+", _B64_JUNK.sub(b"", data)):
        if len(block) % 4 == 1:
            block = block[:-1]  # a lone trailing sextet carries no whole byte
        if block:
            try:
                out.append(binascii.a2b_base64(block + b"=" * (-len(block) % 4)))
            except binascii.Error:
                continue
    return b"".join(out)


def _q(data: bytes) -> bytes:
    return _QP_HEX.sub(lambda m: bytes([int(m.group(1), 16)]), data.replace(b"_", b" "))


def _decode_words(text: str) -> str:
    """Decode RFC 2047 encoded-words, joining adjacent ones before decoding their charset.

    Joining first matters: mailers split multi-byte characters across words.
    """
    if "=?" not in text:
        return text
    pieces: list[str] = []
    pending: list[bytes] = []
    pending_charset: str | None = None
    pos = 0

    def flush() -> None:
        nonlocal pending_charset
        if pending:
            pieces.append(decode_bytes(b"".join(pending), pending_charset))
            pending.clear()
        pending_charset = None

    after_word = False
    for m in _ENCODED_WORD.finditer(text):
        gap = text[pos : m.start()]
        # RFC 2047 6.2: whitespace between two encoded-words is not part of the text.
        if gap and not (after_word and gap.isspace()):
            flush()
            pieces.append(gap)
        charset = m.group(1).split("*", 1)[0]  # RFC 2231 language suffix: utf-8*en
        raw = to_bytes(m.group(3))
        data = b64(raw) if m.group(2) in "Bb" else _q(raw)
        if pending and charset.lower() != (pending_charset or "").lower():
            flush()
        pending_charset = charset
        pending.append(data)
        pos = m.end()
        after_word = True
    flush()
    pieces.append(text[pos:])
    return "".join(pieces)


def decode_header(value: str | None, hint: str | None = None) -> str:
    """Return a header value as readable text: unfolded, 8-bit bytes and RFC 2047 decoded.

    Args:
        value: the raw value as the parser stored it (lone surrogates stand for 8-bit bytes).
        hint: a charset to try for raw 8-bit bytes after UTF-8 (the message's body charset).
    """
    if not value:
        return ""
    text = FOLD.sub("", str(value))
    raw = to_bytes(text)
    if not raw.isascii():
        text = decode_raw_header(raw, hint)
    # A name or subject crafted with terminal escapes (to retitle a window, hide the real
    # sender) or control characters reads as what it shows, on one line.
    text = readable(_decode_words(text), one_line=True)
    return WS.sub(" ", text).strip()


def decode_raw_header(raw: bytes, hint: str | None) -> str:
    """Decode a header's raw 8-bit bytes: UTF-8, else the message's charset unless another
    reads the header's words with fewer signs of the wrong charset, else the charset its
    words read in.

    A header is too short for a detector (``Счёт`` in KOI8-R is four bytes, and
    charset-normalizer read such subjects as Shift_JIS): each likely charset is tried on
    its words instead, and a reading is judged by what no language writes (see
    :func:`~memtrails.importers._legacy_text.decode_legacy`). The message's charset (``hint``:
    its body's, declared or guessed from the whole message) stands unless another reading
    has fewer such faults and reads every byte: a KOI8-R subject in a Windows-1251 mail
    reads as KOI8-R.
    """
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    # imported here: _legacy_text reads this package's charsets module
    from .._legacy_text import _score, _words, decode_as, decode_legacy

    codec = python_codec(hint)
    hinted = None
    if codec is not None and codec not in ("ascii", "utf-8"):
        with contextlib.suppress(*DECODE_ERRORS):
            hinted = raw.decode(codec)
    # The words are judged apart from the signs between them (``отчёт.txt`` is no word
    # of two scripts); no double-byte charset has these bytes inside a character.
    spaced = _SIGNS.sub(b" ", raw)
    _, chosen = decode_legacy(spaced, (codec,) if hinted is not None and codec else ())
    if hinted is None:
        return decode_as(raw, chosen)
    words = _words(spaced)
    if chosen == codec or _score(words, chosen)[0] >= _score(words, str(codec))[0]:
        return hinted
    try:
        return raw.decode(chosen)
    except DECODE_ERRORS:
        return hinted


# ASCII signs, the bytes 21-2F and 3A-3F, that no double-byte charset has inside a
# character (its second bytes are 40 and above; GB18030's four-byte ones hold digits).
_SIGNS = re.compile(rb"[!-/:-?]")


def raw_header(msg: Message, name: str) -> str | None:
    """Return the first raw value of a header, without the compat32 Header wrapping."""
    lname = name.lower()
    for key, value in msg.raw_items():
        if key.lower() == lname:
            return str(value)
    return None


def raw_headers(msg: Message, name: str) -> list[str]:
    """Return every raw value of a header, in order."""
    lname = name.lower()
    return [str(v) for k, v in msg.raw_items() if k.lower() == lname]


_COMMENT_FORM = re.compile(r"^(\S+@\S+)\s+\((.+)\)$")  # "jk@x.com (Jo)"
# Mailman's archives write "jk at example.com" to hide addresses from harvesters, the word
# in the archive's language ("jk em example.com", "jk chez example.fr", "jk à ..."): any
# one word of letters between a local part and a dotted host name.
_OBFUSCATED = re.compile(
    r"(?<![\w.+-])([\w.+-]+) [^\W\d_]{1,12} ((?:[\w-]+\.)+[A-Za-z]{2,})(?![\w.-])"
)


def addresses(values: list[str], hint: str | None) -> list[str]:
    """Format address headers as ``Name <addr>`` items, keeping whatever is readable.

    Mailman's obfuscated ``jk at example.com (Jo)`` is read as ``Jo <jk@example.com>``, in
    any of its languages (``jk em example.com``, ``jk chez example.fr``).
    ``getaddresses`` loses text it cannot parse, so a value whose parse looks lossy is kept
    as decoded text instead.
    """
    out: list[str] = []
    for value in values:
        unfolded = FOLD.sub("", value)
        raw = to_bytes(unfolded)
        text = decode_raw_header(raw, hint) if not raw.isascii() else unfolded
        # Each side undone alone: the comment may hold a real address ("jk at x (jk@y)").
        head, paren, comment = text.partition("(")
        if "@" not in head:
            head = _OBFUSCATED.sub(r"\1@\2", head)
        if "@" not in comment:
            comment = _OBFUSCATED.sub(r"\1@\2", comment)
        text = head + paren + comment
        try:
            pairs = email.utils.getaddresses([text])
        except Exception:  # why: the stdlib address parser has crashed on hostile input
            pairs = []
        good = [(n, a) for n, a in pairs if (a and "@" in a.strip("@")) or (n and not a)]
        lossy = not good or any(a and "@" not in a for _, a in pairs)
        if lossy:
            readable = decode_header(text)
            m = _COMMENT_FORM.match(readable)
            if m:
                readable = f"{m.group(2).strip()} <{m.group(1)}>"
            if readable:
                out.append(readable)
            continue
        for name, addr in good:
            name = decode_header(name).strip()
            if len(name) > 1 and name[0] == name[-1] == '"':
                # quotes the parser left (an encoded-word inside them): a pair only, so
                # the quotes of a name such as 'O'Neil "Bob"' stay
                name = name[1:-1].strip()
            addr = WS.sub("", decode_header(addr))
            if name.lower() == addr.lower():
                name = ""  # "jo@x.org <jo@x.org>" says it once
            out.append(f"{name} <{addr}>" if name and addr else name or addr)
    return out


_ANGLE_ID = re.compile(r"<([^<>]*)>")

#: A message id longer than this is no id: RFC 5322 ids fit on one 998-character line, and a
#: record whose id or thread is over a megabyte is refused whole, so a 1 MB ``References``
#: entry (or Message-ID) would lose its mail. Read as absent instead; 2 KB ids still count.
MAX_ID_CHARS = 16 * 1024


def msg_id(value: str | None) -> str:
    """Return a Message-ID without its angle brackets (empty when there is none, or it is
    longer than :data:`MAX_ID_CHARS`)."""
    if not value:
        return ""
    value = FOLD.sub("", value)
    m = _ANGLE_ID.search(value)
    found = (m.group(1) if m else value).strip()
    if not found:
        found = value.strip().strip("<>").strip()
    if len(found) > MAX_ID_CHARS:
        return ""
    return decode_bytes(to_bytes(found), None, guess=False).replace("\x00", "")


def first_ref(value: str | None) -> str:
    """Return the first message id of a References or In-Reply-To value (the thread root)."""
    if not value:
        return ""
    value = FOLD.sub("", value)
    for m in _ANGLE_ID.finditer(value):
        if m.group(1).strip():
            found = msg_id(m.group(0))
            if found:  # an id too long to be one is passed over, not taken as the root
                return found
    words = value.split()
    return msg_id(words[0]) if words else ""


def refs(value: str | None) -> list[str]:
    """Return every message id of a References or In-Reply-To value, in order."""
    if not value:
        return []
    value = FOLD.sub("", value)
    found = [msg_id(m.group(0)) for m in _ANGLE_ID.finditer(value) if m.group(1).strip()]
    if not found and value.split():
        found = [msg_id(value.split()[0])]
    return [f for f in found if f]


_OBS_NAME = re.compile(rb"^([!-9;-~]+)[ \t]+:", re.MULTILINE)


def fix_obsolete_names(data: bytes) -> bytes:
    """Remove RFC 2822 obsolete whitespace before a header's colon (``Subject  : hi``).

    The stdlib parser takes such a line for the start of the body and loses every header.
    """
    head, sep, body = data.partition(b"\n\n")
    if not _OBS_NAME.search(head):
        return data
    return _OBS_NAME.sub(rb"\1:", head) + sep + body


_NAMED = re.compile(rb"[!-9;-~]+:")
# The headers a stray line is read on to: ones every stored mail has, not a body's "Note:".
_KNOWN = re.compile(
    rb"(?i:return-path|received|from|date|subject|to|cc|bcc|message-id|in-reply-to"
    rb"|references|reply-to|sender|mime-version|content-[\w-]+|delivered-to|envelope-to"
    rb"|status|x-[\w-]+|list-[\w-]+|precedence|organization|user-agent|thread-[\w-]+"
    rb"|importance|priority|errors-to|resent-[\w-]+|dkim-signature|authentication-results"
    rb"|arc-[\w-]+|received-spf|return-receipt-to|disposition-notification-to|keywords"
    rb"|comments|lines|path|newsgroups|xref|followup-to|approved|nntp-posting-[\w-]+):"
)
_LONE_CR = re.compile(rb"\r(?!\n)")
_STRAY_RUN = 3  # lines in a row with no header name that are read on past; more: the body


def fold_stray_lines(data: bytes) -> bytes:
    """Read a line with no header name in the header block (LF line ends) as the header
    before it continued, where a mail header follows within :data:`_STRAY_RUN` lines: a
    long value a mailer wrapped without indenting, or a stray line.

    A CR alone inside the header block of a mail whose lines end in LF is read as a space.

    The stdlib parser takes such a line for the start of the body: every header after it
    (Message-ID, Date, References) was lost and read as text. Mail tools read on (Dovecot
    keeps it as a broken header). Lines with no header after them are the body, as before
    (a mail whose blank line after the headers is missing).
    """
    end = data.find(b"\n\n")
    head = data[: end + 1] if end >= 0 else data
    if b"\r" in head and b"\n" in head:
        # A CR alone inside a value (lines end in LF here; CRLF was made LF): the parser
        # takes it for a line end, and the rest of the value for the body's first line.
        head = _LONE_CR.sub(b" ", head)
        data = head + data[len(head) :]
    if _NAMED.match(head) is None:
        return data  # no header block to read on in (or a From_ line first: left as it is)
    # Line by line, not split into a list: a large mail with no blank line is not held
    # again as its lines.
    folded: list[int] = []  # where the lines read on as continuations start
    run: list[int] = []  # where the lines in a row with no header name start
    strays = 0  # how many in that row
    at = 0
    while at < len(head):
        stop = head.find(b"\n", at)
        stop = len(head) if stop < 0 else stop
        if stop > at and head[at] not in b" \t" and _NAMED.match(head, at) is None:
            strays += 1
            if strays <= _STRAY_RUN:
                run.append(at)
        else:
            if run and strays <= _STRAY_RUN and _KNOWN.match(head, at) is not None:
                folded += run
            run, strays = [], 0
        at = stop + 1
    if not folded:
        return data
    pieces = [head[: folded[0]]]
    for start, end in zip(folded, [*folded[1:], len(head)], strict=True):
        pieces += [b" ", head[start:end]]
    return b"".join(pieces) + data[len(head) :]
