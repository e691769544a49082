"""Read an Outlook ``.msg`` file's body and attachments from its OLE layout, as checked by
:func:`~._oleguard.layout` (runs inside the worker process: standard library only).

kreuzberg 4.10 gives a message's plain text body and nothing when it has only an HTML or
an RTF body (Outlook saves many so), and reads its attachments itself, past the OLE guard
every other Office file goes through. Here the HTML body (``PR_HTML``), the compressed
RTF body (``PR_RTF_COMPRESSED``, [MS-OXRTFCP]) and each attachment's bytes are read from
the streams the guard has walked.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from ._msgtext import HEADER_BYTES, Headers, codec_of, decode8, fixed_props, read_headers
from ._oleguard import Layout

__all__ = ["MAX_MESSAGES", "MsgAttachment", "MsgParts", "decompress_rtf", "msg_parts"]

_PREFIX = "__substg1.0_"
_ATTACH = "__attach_version1.0_#"
_RECIPIENT = "__recip_version1.0_#"
_FIXED = "__properties_version1.0"
# PR_MESSAGE_CODEPAGE, PR_INTERNET_CPID (PT_LONG): the code page of 8-bit strings
_CODEPAGES = (0x3FFD0003, 0x3FDE0003)
_RECIPIENT_TYPE = 0x0C150003  # 1: To, 2: Cc, 3: Bcc
#: The most recipients read of one message.
MAX_RECIPIENTS = 1000
_STORAGE, _STREAM = 1, 2
#: The most bytes of a body stream read (a body is text: more is no mail's).
BODY_BYTES = 16 << 20
# [MS-OXRTFCP] 2.1.3.1.1: the dictionary a compressed RTF stream starts from.
_RTF_DICT = (
    b"{\\rtf1\\ansi\\mac\\deff0\\deftab720{\\fonttbl;}{\\f0\\fnil \\froman \\fswiss "
    b"\\fmodern \\fscript \\fdecor MS Sans SerifSymbolArialTimes New RomanCourier"
    b"{\\colortbl\\red0\\green0\\blue0\r\n\\par \\pard\\plain\\f0\\fs20\\b\\i\\u\\tab\\tx"
)
_LZFU, _MELA = 0x75465A4C, 0x414C454D
#: How many messages deep attached messages are read (one attached to one attached ...).
MAX_MESSAGES = 3


@dataclass(slots=True)
class MsgAttachment:
    """One attachment: its file name, media type (as Outlook noted it, or empty) and bytes,
    or for an attached message (a storage of its own, not a file) its parts."""

    name: str
    mime: str
    data: bytes | None
    message: MsgParts | None = None


@dataclass(slots=True)
class MsgParts:
    """What :func:`msg_parts` found: the subject and sender, the bodies (the plain one as
    text, the others as stored, the RTF decompressed) and the attachments, in order."""

    subject: str = ""
    sender: str = ""
    to: list[str] = field(default_factory=list)
    cc: list[str] = field(default_factory=list)
    message_id: str = ""
    references: str = ""  # PR_INTERNET_REFERENCES, else PR_IN_REPLY_TO_ID
    headers: Headers = field(default_factory=Headers)
    plain: str | None = None
    html: bytes | str | None = None
    rtf: bytes | None = None
    attachments: list[MsgAttachment] = field(default_factory=list)


def decompress_rtf(data: bytes, most: int = BODY_BYTES) -> bytes | None:
    """Return the RTF of a ``PR_RTF_COMPRESSED`` stream ([MS-OXRTFCP]), at most ``most``
    bytes, or None when it is neither compressed (``LZFu``) nor stored (``MELA``)."""
    if len(data) < 16:
        return None
    size, raw_size, kind = struct.unpack_from("<III", data, 0)
    body = data[16 : 4 + size]
    if kind == _MELA:
        return body[: min(raw_size, most)]
    if kind != _LZFU:
        return None
    window = bytearray(_RTF_DICT.ljust(4096, b"\0"))
    write = len(_RTF_DICT)
    out = bytearray()
    at = 0
    limit = min(raw_size, most)
    while at < len(body) and len(out) < limit:
        control = body[at]
        at += 1
        for bit in range(8):
            if at >= len(body) or len(out) >= limit:
                break
            if not control >> bit & 1:
                byte = body[at]
                at += 1
                out.append(byte)
                window[write] = byte
                write = (write + 1) % 4096
                continue
            if at + 2 > len(body):
                return bytes(out)
            (token,) = struct.unpack_from(">H", body, at)
            at += 2
            offset, length = token >> 4, (token & 0xF) + 2
            if offset == write:  # the end marker
                return bytes(out)
            for n in range(length):
                byte = window[(offset + n) % 4096]
                out.append(byte)
                window[write] = byte
                write = (write + 1) % 4096
    return bytes(out[:limit])


#: A property's entry: its kind (stream or storage), first sector, length and number.
_Prop = tuple[int, int, int, int]


def _props(ole: Layout, storage: int) -> dict[str, _Prop]:
    """The property streams and storages of a storage: ``PPPPTTTT`` -> :data:`_Prop`."""
    found: dict[str, _Prop] = {}
    for at in ole.children(storage):
        name, kind, _, _, _, start, length = ole.tree[at]
        if name.startswith(_PREFIX):
            found.setdefault(name[len(_PREFIX) :].upper(), (kind, start, length, at))
    return found


def _fixed(ole: Layout, storage: int, header: int) -> dict[int, int]:
    """The fixed-size properties of a storage (see :func:`._msgtext.fixed_props`)."""
    for at in ole.children(storage):
        name, kind, _, _, _, start, length = ole.tree[at]
        if name == _FIXED and kind == _STREAM:
            return fixed_props(ole.read(start, length, 64 << 10), header)
    return {}


def _string(
    ole: Layout, props: dict[str, _Prop], tag: str, codec: str | None, most: int = 4096
) -> str | None:
    """A string property: Unicode (``001F``), else 8-bit (``001E``) in ``codec`` (the
    message's code page; None: UTF-8 where the bytes are that, else Windows-1252)."""
    entry = props.get(tag + "001F")
    if entry is not None and entry[0] == _STREAM:
        return ole.read(entry[1], entry[2], most).decode("utf-16-le", "replace").split("\0")[0]
    entry = props.get(tag + "001E")
    if entry is not None and entry[0] == _STREAM:
        return decode8(ole.read(entry[1], entry[2], most).split(b"\0")[0], codec)
    return None


def _short(ole: Layout, props: dict[str, _Prop], tag: str, codec: str | None) -> str:
    return (_string(ole, props, tag, codec) or "").strip()


def _attachment(
    ole: Layout, storage: int, most: int, depth: int, seen: set[int], codec: str | None
) -> MsgAttachment:
    props = _props(ole, storage)
    name = next(
        (n for n in (_short(ole, props, t, codec) for t in ("3707", "3704", "3001")) if n), ""
    )
    data = props.get("37010102")
    inner = props.get("3701000D")
    message = None
    # (a hostile file may name one storage from many places: each is read once)
    if inner is not None and inner[0] == _STORAGE and depth < MAX_MESSAGES and inner[3] not in seen:
        seen.add(inner[3])
        message = _parts(ole, inner[3], most, depth + 1, seen, codec)
    return MsgAttachment(
        name=name or (message.subject if message else "") or "attachment",
        mime=_short(ole, props, "370E", codec).lower(),
        data=ole.read(data[1], data[2], most) if data and data[0] == _STREAM else None,
        message=message,
    )


def _person(name: str, address: str) -> str:
    return f"{name} <{address}>" if name and address and name != address else name or address


def _sender(ole: Layout, props: dict[str, _Prop], codec: str | None) -> str:
    name = _short(ole, props, "0C1A", codec)
    found = (_short(ole, props, t, codec) for t in ("5D01", "0C1F"))
    return _person(name, next((a for a in found if "@" in a), ""))


def _recipients(ole: Layout, storage: int, parts: MsgParts, codec: str | None) -> None:
    """Fill in the message's To and Cc from its recipient storages (Bcc is left out, as a
    mail's headers leave it)."""
    found = [
        at
        for at in ole.children(storage)
        if ole.tree[at][1] == _STORAGE and ole.tree[at][0].startswith(_RECIPIENT)
    ]
    for at in sorted(found, key=lambda at: ole.tree[at][0])[:MAX_RECIPIENTS]:
        props = _props(ole, at)
        kind = _fixed(ole, at, 8).get(_RECIPIENT_TYPE, 1)
        name = _short(ole, props, "3001", codec)
        found_addresses = (_short(ole, props, t, codec) for t in ("39FE", "3003"))
        person = _person(name, next((a for a in found_addresses if "@" in a), ""))
        if person and kind in (1, 2):
            (parts.to if kind == 1 else parts.cc).append(person)


def _parts(
    ole: Layout, storage: int, most: int, depth: int, seen: set[int], codec: str | None
) -> MsgParts:
    props = _props(ole, storage)
    fixed = _fixed(ole, storage, 32 if depth == 0 else 24)
    codec = next((c for c in map(codec_of, map(fixed.get, _CODEPAGES)) if c), codec)
    parts = MsgParts(
        subject=_short(ole, props, "0037", codec),
        sender=_sender(ole, props, codec),
        message_id=_short(ole, props, "1035", codec),
        references=_short(ole, props, "1039", codec) or _short(ole, props, "1042", codec),
        plain=_string(ole, props, "1000", codec, BODY_BYTES),
    )
    _recipients(ole, storage, parts, codec)
    wide, narrow = props.get("007D001F"), props.get("007D001E")
    if wide is not None and wide[0] == _STREAM:
        text = ole.read(wide[1], wide[2], 2 * HEADER_BYTES).decode("utf-16-le", "replace")
        parts.headers = read_headers(text.encode("utf-8", "surrogatepass"), "utf-8")
    elif narrow is not None and narrow[0] == _STREAM:
        parts.headers = read_headers(ole.read(narrow[1], narrow[2], HEADER_BYTES), codec)
    html = props.get("10130102")
    if html is not None and html[0] == _STREAM:
        parts.html = ole.read(html[1], html[2], BODY_BYTES)
    else:
        parts.html = _string(ole, props, "1013", codec, BODY_BYTES)
    rtf = props.get("10090102")
    if rtf is not None and rtf[0] == _STREAM:
        parts.rtf = decompress_rtf(ole.read(rtf[1], rtf[2], BODY_BYTES))
    found = [
        at
        for at in ole.children(storage)
        if ole.tree[at][1] == _STORAGE and ole.tree[at][0].startswith(_ATTACH) and at not in seen
    ]
    seen.update(found)  # before reading any: a message inside names none of them again
    for at in sorted(found, key=lambda at: ole.tree[at][0]):
        parts.attachments.append(_attachment(ole, at, most, depth, seen, codec))
    return parts


def msg_parts(ole: Layout, most: int) -> MsgParts:
    """Return the subject, sender, bodies and attachments (each at most ``most`` bytes) of
    the message whose layout ``ole`` is; an attached message's too, at most
    :data:`MAX_MESSAGES` deep, each storage read once (a hostile file's tree may name one
    from many places, or its own ancestor)."""
    return _parts(ole, 0, most, 0, {0}, None)
