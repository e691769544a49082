"""Turn one raw RFC 5322 message into a mail MemoryRecord, or a RecordError saying why not."""

from __future__ import annotations

import binascii
import codecs
import email
import email.feedparser
import email.utils
import hashlib
import html
import quopri
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from email.message import Message
from html.parser import HTMLParser
from typing import IO, Any, TypeVar

import icu

from ..dates import parse_date
from ..records import At, MemoryRecord, RecordError

__all__ = [
    "MAX_MESSAGE_BYTES",
    "Closing",
    "decode_bytes",
    "decode_header",
    "html_to_text",
    "message_to_item",
    "strip_unixfrom",
]

#: Messages larger than this (64 MiB) are reported as a RecordError instead of parsed,
#: so one pathological message cannot blow the memory budget of a whole import.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024

_MAX_DEPTH = 32  # MIME nesting deeper than this is hostile or broken; stop descending
_DETECT_SAMPLE = 64 * 1024

T = TypeVar("T")


class Closing(Iterator[T]):
    """An iterator over a generator that also closes a file when closed or exhausted.

    ``iterate_in_thread`` closes what ``make()`` returns; a generator that was never started
    would not run its ``finally``, so the file is owned here instead. ``close()`` may be called
    from another thread while a worker is inside ``next()`` (a cancelled consumer): then the
    close is deferred to that worker, which closes the file as soon as its item is done,
    instead of failing with "generator already executing".
    """

    def __init__(self, gen: Iterator[T], file: IO[bytes] | None) -> None:
        self._gen = gen
        self._file = file
        self._lock = threading.Lock()
        self._running = False
        self._close_requested = False
        self._closed = False

    def __iter__(self) -> Closing[T]:
        return self

    def __next__(self) -> T:
        with self._lock:
            if self._closed or self._close_requested:
                raise StopIteration
            self._running = True
        try:
            item = next(self._gen)
        except BaseException:
            with self._lock:
                self._running = False
            self._finish()
            raise
        with self._lock:
            self._running = False
            deferred = self._close_requested
        if deferred:
            self._finish()
        return item

    def close(self) -> None:
        with self._lock:
            if self._running:
                self._close_requested = True
                return
        self._finish()

    def _finish(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        close = getattr(self._gen, "close", None)
        try:
            if close is not None:
                close()
        finally:
            if self._file is not None:
                self._file.close()
                self._file = None


# --------------------------------------------------------------------------- charsets

# Labels mail software writes, mapped to the Python codec that reads what they really send:
# supersets (cp1252 for latin-1, cp932 for Shift_JIS, ...) as browsers do (WHATWG Encoding).
_CHARSET_ALIASES = {
    "us-ascii": "ascii",
    "ascii": "ascii",
    "ansi_x3.4-1968": "ascii",
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "iso_8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "l1": "cp1252",
    "windows-1252": "cp1252",
    "shift_jis": "cp932",
    "shift-jis": "cp932",
    "sjis": "cp932",
    "x-sjis": "cp932",
    "windows-31j": "cp932",
    "iso-2022-jp": "iso2022_jp_2",
    "big5": "cp950",
    "x-big5": "cp950",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "euc-cn": "gb18030",
    "euc-kr": "cp949",
    "ks_c_5601-1987": "cp949",
    "ks_c_5601": "cp949",
    "x-windows-949": "cp949",
    "utf8": "utf-8",
    "unicode-1-1-utf-7": "utf-7",
    "tis-620": "cp874",
}
# Codecs Python has that are not text encodings a mailer could mean.
_NOT_MAIL_CODECS = {
    "undefined",
    "unicode-escape",
    "raw-unicode-escape",
    "idna",
    "punycode",
    "palmos",
}
_SINGLE_BYTE_LATIN = {"ascii", "cp1252", "iso8859-1", "iso8859-15"}  # codecs.lookup() names
_DECODE_ERRORS = (UnicodeError, LookupError, ValueError, TypeError)


def _codec(label: str | None) -> str | None:
    """Return the Python codec for a declared charset label, or None if it is unknown."""
    if not label:
        return None
    name = label.strip().strip("\"'").strip().lower()
    if name.startswith("charset="):  # seen in the wild: charset="charset=us-ascii"
        name = name[len("charset=") :].strip("\"'")
    name = _CHARSET_ALIASES.get(name, name)
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError, TypeError):
        return None
    if info.name in _NOT_MAIL_CODECS or not getattr(info, "_is_text_encoding", True):
        return None
    return info.name


def _detect(data: bytes) -> str | None:
    """Guess the charset of undeclared or mislabelled 8-bit text with ICU's detector."""
    sample = data[:_DETECT_SAMPLE]
    if sample.isascii() and b"\x1b" not in sample:
        return None
    try:
        match = icu.CharsetDetector(sample).detect()
        name, confidence = str(match.getName()), int(match.getConfidence())
    except Exception:  # why: ICU errors must not cost the message, guessing is optional
        return None
    if confidence < 30 or name.upper().startswith(("UTF-16", "UTF-32")):
        return None
    return _codec(name)


def decode_bytes(data: bytes, declared: str | None, *, guess: bool = True) -> str:
    """Decode text whose declared charset may be missing, unknown or wrong; never raise.

    Tries the declared charset (UTF-8 first when a Latin label covers valid UTF-8, a common
    lie), then UTF-8, then ICU's detector (when ``guess``), then cp1252, then Latin-1.
    """
    if not data:
        return ""
    codec = _codec(declared)
    order: list[str] = []
    if codec is not None:
        if codec in _SINGLE_BYTE_LATIN and not data.isascii():
            order.append("utf-8")
        order.append(codec)
    order.append("utf-8")
    for name in order:
        try:
            return data.decode(name)
        except _DECODE_ERRORS:
            continue
    if guess:
        detected = _detect(data)
        if detected is not None:
            try:
                return data.decode(detected)
            except _DECODE_ERRORS:
                pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _to_bytes(value: str) -> bytes:
    # The parser keeps undecodable bytes as lone surrogates; this gives back the wire bytes.
    return value.encode("utf-8", "surrogateescape")


# --------------------------------------------------------------------------- headers

_ENCODED_WORD = re.compile(r"=\?([^?\s]*)\?([QqBb])\?([^?]*)\?=")
_FOLD = re.compile(r"\r?\n(?=[ \t])")
_WS = re.compile(r"\s+")
_B64_JUNK = re.compile(rb"[^A-Za-z0-9+/=]")
_QP_HEX = re.compile(rb"=([0-9A-Fa-f]{2})")


def _b64(data: bytes) -> bytes:
    """Decode base64 leniently: junk skipped, padding repaired, concatenated blocks kept."""
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
        raw = _to_bytes(m.group(3))
        data = _b64(raw) if m.group(2) in "Bb" else _q(raw)
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
    text = _FOLD.sub("", str(value))
    raw = _to_bytes(text)
    if not raw.isascii():
        text = _decode_raw_header(raw, hint)
    text = _decode_words(text)
    return _WS.sub(" ", text.replace("\x00", "")).strip()


def _decode_raw_header(raw: bytes, hint: str | None) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    codec = _codec(hint)
    if codec is not None and codec not in ("ascii", "utf-8"):
        try:
            return raw.decode(codec)
        except _DECODE_ERRORS:
            pass
    return decode_bytes(raw, None, guess=len(raw) >= 16)


def _raw_header(msg: Message, name: str) -> str | None:
    """Return the first raw value of a header, without the compat32 Header wrapping."""
    lname = name.lower()
    for key, value in msg.raw_items():
        if key.lower() == lname:
            return str(value)
    return None


def _raw_headers(msg: Message, name: str) -> list[str]:
    lname = name.lower()
    return [str(v) for k, v in msg.raw_items() if k.lower() == lname]


_COMMENT_FORM = re.compile(r"^(\S+@\S+|\S+ at \S+)\s+\((.+)\)$")  # "jk at x.com (Jo)"


def _addresses(values: list[str], hint: str | None) -> list[str]:
    """Format address headers as ``Name <addr>`` items, keeping whatever is readable.

    ``getaddresses`` loses text it cannot parse (``jk at example.com (Jo)`` becomes ``jk``),
    so a value whose parse looks lossy is kept as decoded text instead.
    """
    out: list[str] = []
    for value in values:
        unfolded = _FOLD.sub("", value)
        raw = _to_bytes(unfolded)
        text = _decode_raw_header(raw, hint) if not raw.isascii() else unfolded
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
            name = decode_header(name).strip().strip('"').strip()
            addr = _WS.sub("", decode_header(addr))
            out.append(f"{name} <{addr}>" if name and addr else name or addr)
    return out


_ANGLE_ID = re.compile(r"<([^<>]*)>")


def _msg_id(value: str | None) -> str:
    if not value:
        return ""
    value = _FOLD.sub("", value)
    m = _ANGLE_ID.search(value)
    found = (m.group(1) if m else value).strip()
    if not found:
        found = value.strip().strip("<>").strip()
    return decode_bytes(_to_bytes(found), None, guess=False).replace("\x00", "")


def _first_ref(value: str | None) -> str:
    if not value:
        return ""
    value = _FOLD.sub("", value)
    for m in _ANGLE_ID.finditer(value):
        if m.group(1).strip():
            return _msg_id(m.group(0))
    words = value.split()
    return _msg_id(words[0]) if words else ""


# --------------------------------------------------------------------------- HTML

_BLOCK = {
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "dd",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figure",
    "footer",
    "form",
    "header",
    "li",
    "main",
    "nav",
    "section",
    "table",
    "tbody",
    "thead",
    "tfoot",
    "tr",
    "caption",
}
_PARAGRAPH = {
    "p",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "pre",
    "blockquote",
    "table",
    "ul",
    "ol",
    "hr",
}
_SKIP = {"script", "style", "head", "title", "template", "noscript", "xml"}


class _HTMLText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0
        self.pre = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":
            self.skip = 0  # an unclosed <head> or <title> must not hide the whole body
        if tag in _SKIP:
            self.skip += 1
        elif tag == "br":
            self.out.append("\n")
        elif tag in _PARAGRAPH:
            self.out.append("\n\n")
        elif tag in _BLOCK:
            self.out.append("\n")
        elif tag in ("td", "th"):
            self.out.append(" ")
        if tag == "li":
            self.out.append("- ")
        if tag == "pre":
            self.pre += 1
            self.out.append(_PRE_START)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in _SKIP:  # <br/> and <hr/>; a self-closed <script/> has no content
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in _PARAGRAPH:
            self.out.append("\n\n")
        elif tag in _BLOCK and tag != "li":  # the next <li> or </ul> breaks the line
            self.out.append("\n")
        if tag == "pre" and self.pre:
            self.pre -= 1
            self.out.append(_PRE_END)

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.pre:
            self.out.append(data.replace("\xa0", " "))
        else:
            self.out.append(re.sub(r"[ \t\r\n\f\v]+", " ", data).replace("\xa0", " "))


_PRE_START, _PRE_END = "\x02", "\x03"  # marks preformatted text, whose spaces are kept
_PRE = re.compile("\x02(.*?)(?:\x03|$)", re.DOTALL)


def _strip_lines(text: str) -> str:
    return "\n".join(line.strip(" ") for line in text.split("\n"))


def _join_html(pieces: list[str]) -> str:
    text = "".join(pieces)
    out, pos = [], 0
    for m in _PRE.finditer(text):
        out.append(_strip_lines(text[pos : m.start()].replace(_PRE_END, "")))
        out.append(m.group(1).replace(_PRE_START, ""))
        pos = m.end()
    out.append(_strip_lines(text[pos:].replace(_PRE_END, "")))
    return "".join(out)


_TAG = re.compile(r"<[^>]*>")


def html_to_text(markup: str) -> str:
    """Turn HTML into readable plain text: no script/style, paragraph breaks kept.

    Example:
        >>> html_to_text("<p>Hi <b>there</b></p><p>Bye</p>")
        'Hi there\\n\\nBye'
    """
    parser = _HTMLText()
    try:
        parser.feed(markup)
        parser.close()
        text = _join_html(parser.out)
    except Exception:  # why: html.parser can still assert on hostile markup; strip tags then
        text = html.unescape(_TAG.sub(" ", markup))
    return _tidy(text)


def _tidy(text: str) -> str:
    """Normalise newlines, drop NULs, trim line ends and runs of blank lines."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    lines = [line.rstrip() for line in text.split("\n")]
    text = "\n".join(lines)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip("\n").rstrip()


# --------------------------------------------------------------------------- bodies


@dataclass
class _Collected:
    plain: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)  # every text piece, in order
    attachments: list[dict[str, Any]] = field(default_factory=list)
    defects: set[str] = field(default_factory=set)

    def add_text(self, text: str, *, is_plain: bool) -> None:
        if text.strip():
            self.texts.append(text)
            if is_plain:
                self.plain.append(text)

    def merge(self, other: _Collected, *, text: bool = True) -> None:
        if text:
            self.plain.extend(other.plain)
            self.texts.extend(other.texts)
        self.attachments.extend(other.attachments)
        self.defects |= other.defects


def _safe(fn: Callable[[], T], default: T) -> T:
    try:
        return fn()
    except Exception:  # why: malformed parameters make the stdlib raise; degrade per field
        return default


_CTYPE = re.compile(r"[a-z0-9!#$&^_.+-]+/[a-z0-9!#$&^_.+-]+")


def _content_type(part: Message) -> str:
    ctype = _safe(part.get_content_type, "text/plain").lower()
    m = _CTYPE.match(ctype)  # "text/plain>" seen in the wild
    return m.group(0) if m else "application/octet-stream"


def _split_params(value: str) -> list[tuple[str, str]]:
    """Split ``type; a=1; b="x;y"`` into (name, value) pairs, as email.message does."""
    pairs: list[tuple[str, str]] = []
    rest = value
    while True:
        end = rest.find(";")
        while end > 0 and (rest.count('"', 0, end) - rest.count('\\"', 0, end)) % 2:
            end = rest.find(";", end + 1)
        chunk = rest if end < 0 else rest[:end]
        name, _, val = chunk.partition("=")
        pairs.append((name.strip().lower(), val.strip()))
        if end < 0:
            return pairs
        rest = rest[end + 1 :]


def _param(part: Message, name: str, header: str = "content-type") -> str | None:
    """Return a decoded header parameter (RFC 2231 and raw 8-bit aware), or None.

    The stdlib's ``get_param`` goes through compat32's header sanitiser, which turns raw
    8-bit bytes into U+FFFD; this reads the raw header instead.
    """
    raw = _raw_header(part, header)
    if not raw or "=" not in raw:
        return None

    def get() -> str | None:
        params = email.utils.decode_params(_split_params(_FOLD.sub("", raw)))
        for key, value in params[1:]:
            if key.rstrip("*") != name:
                continue
            if isinstance(value, tuple):
                charset, _, text = value
                data = email.utils.unquote(text).encode("raw-unicode-escape")
                return decode_bytes(data, charset or "utf-8", guess=False)
            return str(email.utils.unquote(value))
        return None

    return _safe(get, None)


def _filename(part: Message) -> str | None:
    name = _param(part, "filename", "content-disposition") or _param(part, "name")
    if not name:
        return None
    return decode_header(name) or None


def _disposition(part: Message) -> str | None:
    raw = _raw_header(part, "content-disposition")
    if not raw:
        return None
    value = raw.split(";", 1)[0].strip().lower()
    return value or None


_CTE_ALIASES = {
    "quoted printable": "quoted-printable",
    "qp": "quoted-printable",
    "quoted_printable": "quoted-printable",
    "x-uue": "x-uuencode",
    "uuencode": "x-uuencode",
    "uue": "x-uuencode",
}


def _cte(part: Message) -> str:
    cte = (_raw_header(part, "content-transfer-encoding") or "").split(";", 1)[0]
    cte = _WS.sub(" ", cte).strip().lower()
    return _CTE_ALIASES.get(cte, cte)


def _raw_payload(part: Message) -> bytes | None:
    # get_payload() decodes 8-bit bytes with errors="replace"; the stored payload keeps them
    # as lone surrogates, which give back the exact wire bytes.
    value = getattr(part, "_payload", None)
    return _to_bytes(value) if isinstance(value, str) else None


def _payload(part: Message) -> bytes:
    """Return a leaf part's decoded bytes; unknown transfer encodings give the raw bytes."""
    data = _raw_payload(part)
    if data is None:
        return b""
    cte = _cte(part)
    if cte == "base64":
        return _b64(data)
    if cte == "quoted-printable":
        return quopri.decodestring(data)
    if cte == "x-uuencode":
        return _uudecode(data)
    return data


_B64_TEXT = re.compile(r"[A-Za-z0-9+/\s]*=*\s*")  # clean base64: padding only at the end


def _payload_size(part: Message) -> int:
    """Return the decoded size of a leaf part; clean base64 is measured without decoding."""
    value = getattr(part, "_payload", None)
    if not isinstance(value, str):
        return 0
    if _cte(part) == "base64" and _B64_TEXT.fullmatch(value):
        # Counting in place: a 50 MB attachment then costs no copy of its bytes.
        blanks = sum(value.count(c) for c in " \t\r\n\f\v")
        return (len(value) - blanks - value.count("=")) * 3 // 4
    return len(_payload(part))


def _uudecode(data: bytes) -> bytes:
    out = []
    lines = iter(data.splitlines())
    for line in lines:
        if line.startswith(b"begin "):
            break
    else:
        return data
    for line in lines:
        if line.strip() == b"end":
            break
        try:
            out.append(binascii.a2b_uu(line))
        except binascii.Error:
            # Workaround for broken uuencoders by /Fredrik Lundh (as in the stdlib)
            nbytes = (((line[0] - 32) & 63) * 4 + 5) // 3 if line else 0
            try:
                out.append(binascii.a2b_uu(line[:nbytes]))
            except binascii.Error:
                continue
    return b"".join(out)


def _charset(part: Message) -> str | None:
    return _param(part, "charset")


def _walk(part: Message, out: _Collected, depth: int) -> None:
    if depth > _MAX_DEPTH:
        out.defects.add("TooDeeplyNestedDefect")
        return
    out.defects.update(type(d).__name__ for d in getattr(part, "defects", ()))
    ctype = _content_type(part)
    maintype, subtype = ctype.split("/", 1)
    if part.is_multipart():
        children = [c for c in part.get_payload() if isinstance(c, Message)]
        if ctype == "message/rfc822" or (maintype == "message" and subtype in ("global", "news")):
            for inner in children[:1]:
                _nested(inner, out, depth)
            return
        if maintype == "message":  # delivery-status, disposition-notification: header blocks
            blocks = [
                "\n".join(f"{k}: {decode_header(v)}" for k, v in c.raw_items()) for c in children
            ]
            out.add_text("\n\n".join(b for b in blocks if b), is_plain=False)
            return
        if subtype == "alternative":
            _alternative(children, out, depth)
            return
        for child in children:
            _walk(child, out, depth + 1)
        return
    _leaf(part, ctype, out, depth)


def _alternative(children: list[Message], out: _Collected, depth: int) -> None:
    """Keep the text/plain alternative if there is one, else the richest one that has text."""
    subs = []
    for child in children:
        sub = _Collected()
        _walk(child, sub, depth + 1)
        subs.append(sub)
    chosen = next((s for s in subs if s.plain), None)
    if chosen is None:
        chosen = next((s for s in reversed(subs) if s.texts), None)
    for sub in subs:
        out.merge(sub, text=sub is chosen)


# text/* that are data files mail clients show as attachments; other text/* subtypes, even
# unknown ones, are read as plain text (RFC 2046 4.1.4).
_DATA_TEXT = {
    "calendar",
    "x-vcalendar",
    "vcard",
    "x-vcard",
    "directory",
    "rtf",
    "csv",
    "x-csv",
    "comma-separated-values",
    "tab-separated-values",
}


def _leaf(part: Message, ctype: str, out: _Collected, depth: int) -> None:
    maintype, subtype = ctype.split("/", 1)
    if maintype == "multipart":
        # Declared multipart, but the parser found no usable boundary.
        out.defects.add("MissingBoundaryDefect")
        if _recover_multipart(part, out, depth):
            return
        maintype, subtype, ctype = "text", "plain", "text/plain"
    filename = _filename(part)
    disposition = _disposition(part)
    is_attachment = (
        disposition == "attachment"
        or (maintype == "text" and filename is not None and disposition != "inline")
        or maintype not in ("text", "message")
        or (maintype == "text" and subtype in _DATA_TEXT)
    )
    if is_attachment:
        out.attachments.append({"name": filename, "type": ctype, "size": _payload_size(part)})
        return
    data = _payload(part)
    if maintype == "message":
        if subtype in ("rfc822", "global", "news") and data.strip():
            _nested(_parse(data.replace(b"\r\n", b"\n")), out, depth)
        else:
            out.add_text(decode_bytes(data, _charset(part)), is_plain=False)
        return
    text = decode_bytes(data, _charset(part))
    if subtype == "html":
        out.add_text(html_to_text(text), is_plain=False)
    else:
        out.add_text(_tidy(text), is_plain=subtype == "plain")


_BOUNDARY_PARAM = re.compile(r"""boundary\s*=\s*(?:"([^"]+)"|([^\s;"]+))""", re.IGNORECASE)
_DASH_LINE = re.compile(rb"^--([^\s]{1,200}?)(--)?[ \t]*$", re.MULTILINE)


def _recover_multipart(part: Message, out: _Collected, depth: int) -> bool:
    """Split a multipart whose boundary the parser could not use, if one can be found.

    The boundary is taken from the raw Content-Type header if present, else from the first
    ``--token`` line in the body that occurs at least twice.
    """
    body = _raw_payload(part)
    if body is None:
        return False
    boundary: bytes | None = None
    m = _BOUNDARY_PARAM.search(_FOLD.sub("", _raw_header(part, "content-type") or ""))
    if m:
        boundary = _to_bytes(m.group(1) or m.group(2))
    if boundary is None or body.count(b"--" + boundary) == 0:
        lines = [d.group(1) for d in _DASH_LINE.finditer(body)]
        boundary = next((b for b in lines if lines.count(b) >= 2), None)
    if not boundary:
        return False
    delimiter = re.compile(rb"^--" + re.escape(boundary) + rb"(--)?[ \t]*\r?$", re.MULTILINE)
    marks = list(delimiter.finditer(body))
    if not marks:
        return False
    out.defects.add("BoundaryRecovered")
    for start, end in zip(marks, [*marks[1:], None], strict=True):
        if start.group(1):  # the closing delimiter: what follows is the epilogue
            break
        chunk = body[start.end() : end.start() if end else len(body)]
        chunk = chunk[1:] if chunk.startswith(b"\n") else chunk
        if chunk.strip():
            _walk(_parse(chunk), out, depth + 1)
    return True


_FORWARD_HEADERS = ("From", "Date", "Subject", "To", "Cc")


def _nested(inner: Message, out: _Collected, depth: int) -> None:
    """Append an enclosed message: its main headers, then its text, like a forward."""
    sub = _Collected()
    _walk(inner, sub, depth + 1)
    hint = _charset(inner)
    lines = ["---------- Forwarded message ----------"]
    for name in _FORWARD_HEADERS:
        values = _raw_headers(inner, name)
        if not values:
            continue
        if name in ("From", "To", "Cc"):
            shown = ", ".join(_addresses(values, hint))
        else:
            shown = decode_header(values[0], hint)
        if shown:
            lines.append(f"{name}: {shown}")
    body = "\n\n".join(sub.texts)
    text = "\n".join(lines) + ("\n\n" + body if body else "")
    out.texts.append(text)
    out.plain.append(text)
    out.merge(sub, text=False)


# --------------------------------------------------------------------------- records

_UNIXFROM = re.compile(rb"\A(?:\xef\xbb\xbf)?From (?![ \t]*:)[^\n]*\n")


def strip_unixfrom(raw: bytes) -> bytes:
    """Drop a leading mbox ``From `` line (and a UTF-8 BOM before it) from a saved message.

    ``From  : x`` (obsolete header syntax, whitespace before the colon) is a header, kept.
    """
    return _UNIXFROM.sub(b"", raw, count=1)


def message_to_item(
    raw: bytes, *, source: str, where: str, meta: Mapping[str, Any] | None = None
) -> MemoryRecord | RecordError:
    """Convert one raw message into a mail record, or a RecordError at ``where``; never raise.

    The id is the Message-ID without brackets, or ``sha256:`` + the SHA-256 of the message's
    bytes with CRLF turned into LF (so the same message saved by different tools hashes alike).
    """
    try:
        return _convert(raw, source, where, meta or {})
    except RecursionError:
        return RecordError(source, where, "message is nested too deeply to read")
    except Exception as exc:  # why: one bad message must never stop an import
        return RecordError(source, where, f"cannot read message: {type(exc).__name__}: {exc}")


def _parse(data: bytes) -> Message:
    """Parse a message like ``email.message_from_bytes`` (compat32), in 64 KiB pieces.

    message_from_bytes wraps the whole text in a StringIO, whose buffer takes 4 bytes per
    character: 4x the message's size, on top of the parse itself.
    """
    parser = email.feedparser.BytesFeedParser()
    view = memoryview(data)
    for at in range(0, len(data), 1 << 16):
        parser.feed(bytes(view[at : at + (1 << 16)]))
    return parser.close()


_OBS_NAME = re.compile(rb"^([!-9;-~]+)[ \t]+:", re.MULTILINE)


def _fix_obsolete_names(data: bytes) -> bytes:
    """Remove RFC 2822 obsolete whitespace before a header's colon (``Subject  : hi``).

    The stdlib parser takes such a line for the start of the body and loses every header.
    """
    head, sep, body = data.partition(b"\n\n")
    if not _OBS_NAME.search(head):
        return data
    return _OBS_NAME.sub(rb"\1:", head) + sep + body


def _convert(
    raw: bytes, source: str, where: str, extra: Mapping[str, Any]
) -> MemoryRecord | RecordError:
    data = raw.replace(b"\r\n", b"\n")
    if not data.strip():
        return RecordError(source, where, "empty message")
    msg = _parse(_fix_obsolete_names(data))
    if len(msg) == 0:
        return RecordError(source, where, "no mail headers found: not an RFC 5322 message")
    hint = _charset(msg)
    subject = decode_header(_raw_header(msg, "subject"), hint) or None
    authors = _addresses(_raw_headers(msg, "from") or _raw_headers(msg, "sender"), hint)
    body = _Collected()
    _walk(msg, body, 0)
    text = _tidy("\n\n".join(body.texts))
    if not text and not subject and not body.attachments:
        return RecordError(source, where, "message has no subject, text or attachments")

    meta: dict[str, Any] = dict(extra)
    own_id = _msg_id(_raw_header(msg, "message-id"))
    if not own_id:
        own_id = "sha256:" + hashlib.sha256(data).hexdigest()
        meta["message_id_missing"] = True
    thread = (
        _first_ref(_raw_header(msg, "references"))
        or _first_ref(_raw_header(msg, "in-reply-to"))
        or own_id
    )

    at: At | None = None
    date_raw = decode_header(_raw_header(msg, "date"), hint)
    if date_raw:
        ms = parse_date(date_raw)
        if ms is not None:
            try:
                at = At(ms)
            except ValueError:
                at = None
        if at is None:
            meta["date_raw"] = date_raw
    for name in ("to", "cc"):
        values = _addresses(_raw_headers(msg, name), hint)
        if values:
            meta[name] = values
    if body.attachments:
        meta["attachments"] = body.attachments
    if body.defects:
        meta["defects"] = sorted(body.defects)
    return MemoryRecord(
        id=own_id,
        text=text,
        kind="mail",
        author=", ".join(authors) or None,
        title=subject,
        at=at,
        source=source,
        thread=thread,
        meta=meta,
    )
