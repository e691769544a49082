"""Decode an Outlook ``.msg`` file's 8-bit strings and read its transport headers (runs
inside the worker process: standard library only).

A string property of type ``001E`` (PT_STRING8) holds bytes in the message's code page:
``PR_MESSAGE_CODEPAGE`` (``3FFD``), else ``PR_INTERNET_CPID`` (``3FDE``), both fixed-size
properties in the storage's ``__properties_version1.0`` stream ([MS-OXMSG] 2.4). A message
that names neither was written by an Outlook that used the system's code page: its bytes
are read as UTF-8 where they are that, else as Windows-1252. ``PR_TRANSPORT_MESSAGE_HEADERS``
(``007D``) holds the headers the mail came with; a message whose properties lack a
subject, a sender, recipients or a Message-ID has them there.
"""

from __future__ import annotations

import codecs
import email.header
import email.parser
import email.utils
import re
import struct
from dataclasses import dataclass, field

__all__ = [
    "HEADER_BYTES",
    "Headers",
    "codec_of",
    "decode8",
    "first_id",
    "fixed_props",
    "message_id",
    "read_headers",
]

#: The most bytes of a message's transport headers read.
HEADER_BYTES = 256 << 10
# Windows code pages whose Python codec is not named cp<N>.
_NAMED = {
    65001: "utf-8",
    20127: "ascii",
    20866: "koi8-r",
    21866: "koi8-u",
    50220: "iso2022-jp",
    50221: "iso2022-jp",
    50222: "iso2022-jp",
    51932: "euc-jp",
    51949: "euc-kr",
    52936: "hz",
    54936: "gb18030",
    10000: "mac-roman",
    1200: "utf-16-le",
    1201: "utf-16-be",
}
_NAMED.update({28590 + n: f"iso8859-{n}" for n in range(1, 16)})


def codec_of(codepage: int | None) -> str | None:
    """The Python codec of a Windows code page, or None when it names none Python has."""
    if not codepage:
        return None
    name = _NAMED.get(codepage, f"cp{codepage}")
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def decode8(data: bytes, codec: str | None) -> str:
    """Decode 8-bit string bytes in ``codec``; without one, as UTF-8 where they are that,
    else as Windows-1252. Never raises."""
    if codec is not None:
        return data.decode(codec, "replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", "replace")


def fixed_props(stream: bytes, header: int) -> dict[int, int]:
    """The fixed-size properties of a ``__properties_version1.0`` stream whose header is
    ``header`` bytes (32 a message's, 24 an attached message's, 8 an attachment's or a
    recipient's): tag -> the value's low 32 bits."""
    found: dict[int, int] = {}
    for at in range(header, len(stream) - 15, 16):
        tag, _, value = struct.unpack_from("<IIQ", stream, at)
        found.setdefault(tag, value & 0xFFFFFFFF)
    return found


@dataclass(slots=True)
class Headers:
    """What a message's transport headers say: its subject, sender, recipients and id."""

    subject: str = ""
    sender: str = ""
    to: list[str] = field(default_factory=list)
    cc: list[str] = field(default_factory=list)
    message_id: str = ""
    references: str = ""
    in_reply_to: str = ""


def _words(value: str) -> str:
    """A header's value with its RFC 2047 encoded words decoded and its folds joined."""
    value = " ".join(value.split())
    try:
        return str(email.header.make_header(email.header.decode_header(value)))
    except (LookupError, ValueError, UnicodeError):
        return value


def _people(values: list[str]) -> list[str]:
    found = []
    for name, address in email.utils.getaddresses([" ".join(v.split()) for v in values]):
        name = _words(name).strip()
        if address and "@" in address:
            found.append(f"{name} <{address}>" if name and name != address else address)
        elif name:
            found.append(name)
    return list(dict.fromkeys(found))


def read_headers(data: bytes, codec: str | None) -> Headers:
    """Read transport headers (the bytes of a ``001E`` property, in ``codec``; or of a
    ``001F`` one, already text, passed encoded as UTF-8 with ``codec`` ``"utf-8"``)."""
    data = data[:HEADER_BYTES].split(b"\0", 1)[0]
    try:  # raw 8-bit headers are UTF-8 more often than in the message's code page
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = decode8(data, codec)
    text = text.replace("\r\n", "\n").lstrip("\n")
    try:
        head = email.parser.HeaderParser().parsestr(text.split("\n\n", 1)[0] + "\n\n")
    except Exception:  # why: damaged headers are no reason to lose the message
        return Headers()

    def first(name: str) -> str:
        found = head.get_all(name) or []
        return " ".join(str(found[0]).split()) if found else ""

    return Headers(
        subject=_words(str(head.get("subject") or "")).strip(),
        sender=next(iter(_people(head.get_all("from") or [])), ""),
        to=_people(head.get_all("to") or []),
        cc=_people(head.get_all("cc") or []),
        message_id=first("message-id"),
        references=first("references"),
        in_reply_to=first("in-reply-to"),
    )


_ANGLED = re.compile(r"<([^<>]*)>")
#: A message id longer than this is none (as the mail importers hold it).
MAX_ID_CHARS = 16 << 10


def message_id(value: str) -> str:
    """A Message-ID as the mail importers make it a mail's id: without its angle brackets
    and white space; empty for none, or one longer than :data:`MAX_ID_CHARS`."""
    value = "".join(value.split())
    found = _ANGLED.search(value)
    value = found.group(1) if found else value.strip("<>")
    return value if len(value) <= MAX_ID_CHARS else ""


def first_id(value: str) -> str:
    """The first message id a References or In-Reply-To value names (the thread root)."""
    for found in _ANGLED.finditer(value):
        got = message_id(found.group(0))
        if got:
            return got
    return message_id(value.split()[0]) if value.split() else ""
