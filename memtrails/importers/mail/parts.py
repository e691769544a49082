"""Read one MIME part: its type, parameters, transfer encoding and decoded bytes."""

from __future__ import annotations

import binascii
import email.utils
import quopri
import re
from collections.abc import Callable
from email.message import Message
from typing import TypeVar

from .charsets import decode_bytes, to_bytes
from .headers import (
    FOLD,
    WS,
    b64,
    decode_header,
    decode_raw_header,
    plain_not_base64,
    raw_header,
)

__all__ = [
    "charset",
    "content_type",
    "cte",
    "disposition",
    "filename",
    "is_utf8",
    "param",
    "payload",
    "payload_size",
    "raw_payload",
    "safe",
    "uudecode",
]

T = TypeVar("T")


def safe(fn: Callable[[], T], default: T) -> T:
    """Return ``fn()``, or ``default`` when the stdlib raises on a malformed value."""
    try:
        return fn()
    except Exception:  # why: malformed parameters make the stdlib raise; degrade per field
        return default


_CTYPE = re.compile(r"[a-z0-9!#$&^_.+-]+/[a-z0-9!#$&^_.+-]+")


def content_type(part: Message) -> str:
    """Return a part's ``type/subtype``, lower case; junk after it dropped."""
    ctype = safe(part.get_content_type, "text/plain").lower()
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


def param(
    part: Message, name: str, header: str = "content-type", hint: str | None = None
) -> str | None:
    """Return a decoded header parameter (RFC 2231 and raw 8-bit aware), or None.

    The stdlib's ``get_param`` goes through compat32's header sanitiser, which turns raw
    8-bit bytes into U+FFFD; this reads the raw header instead. An RFC 2231 value that names
    no charset (``filename*=''%CE%F2...``) is UTF-8 where it is valid UTF-8, else in
    ``hint`` (the charset the mail declares for its text), as a raw 8-bit one is. Given
    both (``filename="resume.pdf"; filename*=utf-8''r%C3%A9sum%C3%A9.pdf``, as mailers
    write a fallback), the RFC 2231 value wins, as RFC 6266 says.
    """
    raw = raw_header(part, header)
    if not raw or "=" not in raw:
        return None

    def get() -> str | None:
        params = email.utils.decode_params(_split_params(FOLD.sub("", raw)))
        plain = None
        for key, value in params[1:]:
            if key.rstrip("*") != name:
                continue
            if isinstance(value, tuple):
                charset, _, text = value
                data = email.utils.unquote(text).encode("raw-unicode-escape")
                if not charset:  # UTF-8, else the mail's charset, else its words' own
                    return decode_raw_header(data, hint)
                return decode_bytes(data, charset, guess=False)
            plain = str(email.utils.unquote(value)) if plain is None else plain
        return plain

    return safe(get, None)


def is_utf8(data: bytes) -> bool:
    """Tell whether ``data`` is valid UTF-8."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def filename(part: Message, hint: str | None = None) -> str | None:
    """Return a part's file name (Content-Disposition, else Content-Type's name), decoded.

    A name in raw 8-bit bytes (neither RFC 2231 nor RFC 2047 encoded: Outlook Express,
    old webmail) is read as UTF-8 where it is valid UTF-8, else in ``hint``, the charset the
    mail declares for its text (the mailer wrote both in its own code page).
    """
    name = param(part, "filename", "content-disposition", hint) or param(part, "name", hint=hint)
    if not name:
        return None
    return decode_header(name, hint) or None


def disposition(part: Message) -> str | None:
    """Return a part's disposition (``inline``, ``attachment``), or None."""
    raw = raw_header(part, "content-disposition")
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


def cte(part: Message) -> str:
    """Return a part's transfer encoding, with common misspellings mapped to the real name."""
    cte = (raw_header(part, "content-transfer-encoding") or "").split(";", 1)[0]
    cte = WS.sub(" ", cte).strip().lower()
    return _CTE_ALIASES.get(cte, cte)


def raw_payload(part: Message) -> bytes | None:
    """Return a leaf part's undecoded wire bytes, or None for a multipart."""
    # get_payload() decodes 8-bit bytes with errors="replace"; the stored payload keeps them
    # as lone surrogates, which give back the exact wire bytes.
    value = getattr(part, "_payload", None)
    return to_bytes(value) if isinstance(value, str) else None


def payload(part: Message) -> bytes:
    """Return a leaf part's decoded bytes; unknown transfer encodings give the raw bytes."""
    data = raw_payload(part)
    if data is None:
        return b""
    encoding = cte(part)
    if encoding == "base64":
        return data if plain_not_base64(data) else b64(data)
    if encoding == "quoted-printable":
        return quopri.decodestring(data)
    if encoding == "x-uuencode":
        return uudecode(data)
    return data


_B64_TEXT = re.compile(r"[A-Za-z0-9+/\s]*=*\s*")  # clean base64: padding only at the end


def payload_size(part: Message) -> int:
    """Return the decoded size of a leaf part; clean base64 is measured without decoding."""
    value = getattr(part, "_payload", None)
    if not isinstance(value, str):
        return 0
    if cte(part) == "base64" and _B64_TEXT.fullmatch(value):
        # Counting in place: a 50 MB attachment then costs no copy of its bytes.
        blanks = sum(value.count(c) for c in " \t\r\n\f\v")
        return (len(value) - blanks - value.count("=")) * 3 // 4
    return len(payload(part))


def uudecode(data: bytes) -> bytes:
    """Decode the first uuencoded block (``begin ... end``) of ``data``; data without one is returned as is."""
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


def charset(part: Message) -> str | None:
    """Return a part's declared charset label, or None."""
    return param(part, "charset")
