"""Read Outlook's TNEF wrapping (``winmail.dat``, ``application/ms-tnef``): the message body
and the files inside, by a small bounded reader ([MS-OXTNEF]).

No TNEF reader on PyPI fits: ``tnefparse`` is LGPL-3.0 and unreleased since 2021. This one
reads what a mail record needs (the plain, HTML or compressed RTF body, each file's name,
type and bytes) and nothing else; it never raises on damage and never reads past its
input: every length is checked against the bytes left, a file is a slice of the input, and
each step moves forward, so a hostile stream costs at most one pass over its own bytes.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from ..documents._msgparts import BODY_BYTES, decompress_rtf
from ..documents._msgtext import codec_of, decode8

__all__ = ["MAX_FILES", "Tnef", "TnefFile", "read_tnef"]

_SIGNATURE = 0x223E9F78
_MESSAGE, _ATTACHMENT = 1, 2
# Attributes: id in the low word, type in the high one ([MS-OXTNEF] 2.1.3.3).
_OEM_CODEPAGE = 0x00069007
_BODY = 0x0002800C
_MAPI_PROPS = 0x00069003
_ATTACH_REND_DATA = 0x00069002  # starts an attachment
_ATTACH_TITLE = 0x00018010
_ATTACH_DATA = 0x0006800F
_ATTACHMENT_PROPS = 0x00069005
#: The most files read out of one TNEF stream.
MAX_FILES = 500
_MAX_ATTRIBUTES = 100_000
# MAPI property types and the bytes of a fixed-size value (2-byte ones padded to 4).
_FIXED = {
    0x0001: 4,
    0x0002: 4,
    0x0003: 4,
    0x0004: 4,
    0x0005: 8,
    0x0006: 8,
    0x0007: 8,
    0x000A: 4,
    0x000B: 4,
    0x0014: 8,
    0x0040: 8,
    0x0048: 16,
}
_STRING8, _UNICODE, _BINARY, _OBJECT = 0x001E, 0x001F, 0x0102, 0x000D
_MULTI = 0x1000


class _Damaged(Exception):
    """The stream ends or says something impossible here."""


@dataclass(slots=True)
class TnefFile:
    """One file inside: its name, media type (as Outlook noted it, or empty) and bytes."""

    name: str
    mime: str = ""
    data: bytes = b""


@dataclass(slots=True)
class Tnef:
    """What :func:`read_tnef` found: the bodies (the RTF decompressed), the files, and why
    the stream could not be read to its end (None: it was)."""

    plain: str = ""
    html: bytes | None = None
    rtf: bytes | None = None
    files: list[TnefFile] = field(default_factory=list)
    error: str | None = None


class _Reader:
    def __init__(self, data: bytes | memoryview, at: int = 0) -> None:
        self.data = memoryview(data)
        self.at = at

    def take(self, n: int) -> memoryview:
        if n < 0 or n > len(self.data) - self.at:
            raise _Damaged(f"a length of {n} bytes at byte {self.at}, past the end")
        got = self.data[self.at : self.at + n]
        self.at += n
        return got

    def u16(self) -> int:
        return int(struct.unpack("<H", self.take(2))[0])

    def u32(self) -> int:
        return int(struct.unpack("<I", self.take(4))[0])


#: A MAPI property's id and type -> its values (bytes; a fixed-size one's raw bytes).
_Props = dict[tuple[int, int], list[bytes]]


def _mapi(data: memoryview) -> _Props:
    """Read a MAPI property block ([MS-OXTNEF] 2.1.3.4) into :data:`_Props`."""
    reader = _Reader(data)
    found: _Props = {}
    for _ in range(reader.u32()):
        kind, tag = reader.u16(), reader.u16()
        if tag >= 0x8000:  # a named property: its GUID, then a number or a name
            reader.take(16)
            if reader.u32() == 0:
                reader.take(4)
            else:
                size = reader.u32()
                reader.take(size + (-size % 4))
        base = kind & ~_MULTI
        values: list[bytes] = []
        if base in (_STRING8, _UNICODE, _BINARY, _OBJECT):
            for _ in range(reader.u32()):
                size = reader.u32()
                values.append(bytes(reader.take(size)))
                reader.take(-size % 4)
        elif base in _FIXED:
            for _ in range(reader.u32() if kind & _MULTI else 1):
                values.append(bytes(reader.take(_FIXED[base])))
        else:
            raise _Damaged(f"a property of unknown type 0x{kind:04X}")
        found.setdefault((tag, base), values)
    return found


def _text(props: _Props, tag: str, codec: str | None) -> str:
    number = int(tag, 16)
    wide = props.get((number, _UNICODE))
    if wide:
        return wide[0].decode("utf-16-le", "replace").split("\0")[0].strip()
    narrow = props.get((number, _STRING8))
    return decode8(narrow[0].split(b"\0")[0], codec).strip() if narrow else ""


def _string(data: memoryview, codec: str | None) -> str:
    return decode8(bytes(data).split(b"\0")[0], codec).strip()


def _attachment_props(file: TnefFile, props: _Props, codec: str | None) -> None:
    name = next((n for n in (_text(props, t, codec) for t in ("3707", "3704", "3001")) if n), "")
    file.name = name or file.name
    file.mime = _text(props, "370E", codec).lower() or file.mime
    data = props.get((0x3701, _BINARY))
    if data and not file.data:
        file.data = data[0]


def _message_props(out: Tnef, props: _Props, codec: str | None) -> None:
    out.plain = out.plain or _text(props, "1000", codec)
    html = props.get((0x1013, _BINARY))
    if html:
        out.html = html[0]
    elif _text(props, "1013", codec):
        out.html = _text(props, "1013", codec).encode("utf-8")
    rtf = props.get((0x1009, _BINARY))
    if rtf:
        got = decompress_rtf(rtf[0], BODY_BYTES)
        out.rtf = got.replace(b"\0", b"") if got else None


def read_tnef(data: bytes) -> Tnef:
    """Read a TNEF stream's bodies and files; on damage, what came before it, and the
    damage in ``error``. Never raises."""
    out = Tnef()
    reader = _Reader(data)
    codec: str | None = None
    file: TnefFile | None = None
    try:
        if reader.u32() != _SIGNATURE:
            raise _Damaged("no TNEF signature")
        reader.u16()  # the legacy key
        for _ in range(_MAX_ATTRIBUTES):
            if reader.at == len(reader.data):
                return out
            level, attribute, size = reader.take(1)[0], reader.u32(), reader.u32()
            value = reader.take(size)
            if len(reader.data) - reader.at >= 2:  # (some writers leave the last one out)
                reader.u16()  # the checksum: damage shows in the values read
            if attribute == _OEM_CODEPAGE and size >= 4:
                codec = codec_of(struct.unpack_from("<I", value)[0]) or codec
            elif attribute == _ATTACH_REND_DATA:
                if len(out.files) >= MAX_FILES:
                    out.error = f"more than {MAX_FILES} files inside: the rest are not read"
                    return out
                file = TnefFile(name=f"attachment-{len(out.files) + 1}")
                out.files.append(file)
            elif level == _ATTACHMENT and file is not None:
                if attribute == _ATTACH_TITLE:
                    file.name = _string(value, codec) or file.name
                elif attribute == _ATTACH_DATA:
                    file.data = bytes(value)
                elif attribute == _ATTACHMENT_PROPS:
                    _attachment_props(file, _mapi(value), codec)
            elif level == _MESSAGE and attribute == _BODY:
                out.plain = decode8(bytes(value), codec).split("\0")[0]
            elif level == _MESSAGE and attribute == _MAPI_PROPS:
                _message_props(out, _mapi(value), codec)
        out.error = f"more than {_MAX_ATTRIBUTES} attributes: the rest are not read"
    except (_Damaged, struct.error, ValueError, IndexError) as exc:
        out.error = f"damaged or cut short ({exc})"
    return out
