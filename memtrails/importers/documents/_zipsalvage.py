"""Read what is left of a zip container cut short, and see through sizes a zip lies about.

A zip's table of contents (its central directory) is at its end, so a download or copy
that stopped early leaves a file no zip reader opens, though each part before the cut is
whole and says its own name and sizes (a local header). :func:`salvage` writes a new table
of contents for the whole parts, so the document is read as far as it goes.

A zip bomb may also declare small sizes and inflate to gigabytes: :func:`inflated_over`
inflates each part as far as one byte past the size it declares, no further.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["inflated_over", "salvage"]

_LOCAL = b"PK\x03\x04"
_CENTRAL = b"PK\x01\x02"
_END = b"PK\x05\x06"
_DESCRIPTOR = b"PK\x07\x08"
_LOCAL_FIXED = struct.Struct("<4sHHHHHIIIHH")  # signature ... name and extra lengths
_DEFLATED = 8
_STORED = 0
_CHUNK = 1 << 16
_MAX_PARTS = 20_000  # as many as the zip guard lets through


@dataclass(frozen=True)
class _Part:
    offset: int
    header: tuple[int, ...]  # version, flags, method, time, date
    crc: int
    packed: int
    size: int
    name: bytes


def _inflate(data: bytes, start: int, limit: int) -> tuple[int, int, int] | None:
    """Inflate a raw deflate stream from ``start``: its packed length, unpacked size and
    CRC-32; None where it does not end before the data does or unpacks past ``limit``."""
    inflater = zlib.decompressobj(-15)
    crc = size = 0
    at = start
    pending = b""
    try:
        while not inflater.eof:
            if not pending:
                pending = data[at : at + _CHUNK]
                at += len(pending)
                if not pending:
                    return None  # cut inside this part
            out = inflater.decompress(pending, _CHUNK)
            pending = inflater.unconsumed_tail
            size += len(out)
            if size > limit:
                return None
            crc = zlib.crc32(out, crc)
    except zlib.error:
        return None
    return at - len(pending) - len(inflater.unused_data) - start, size, crc


def _parts(data: bytes, limit: int) -> Iterator[_Part]:
    """The whole parts from the start of ``data`` on, as their local headers give them."""
    at = 0
    total = 0
    for _ in range(_MAX_PARTS):
        if data[at : at + 4] != _LOCAL or at + _LOCAL_FIXED.size > len(data):
            return
        _, version, flags, method, time, date, crc, packed, size, nlen, xlen = (
            _LOCAL_FIXED.unpack_from(data, at)
        )
        name = data[at + 30 : at + 30 + nlen]
        start = at + 30 + nlen + xlen
        if 0xFFFFFFFF in (packed, size) or flags & 1:
            return  # Zip64 or encrypted: not rebuilt
        end = start + packed
        if flags & 8:  # the sizes follow the data, in a descriptor
            if method != _DEFLATED:
                return
            found = _inflate(data, start, limit - total)
            if found is None:
                return
            packed, size, crc = found
            end = start + packed
            end += 16 if data[end : end + 4] == _DESCRIPTOR else 12
        elif method not in (_STORED, _DEFLATED):
            return
        if end > len(data) or start > len(data):
            return  # cut inside this part
        total += size
        if total > limit:
            return
        yield _Part(at, (version, flags, method, time, date), crc, packed, size, name)
        at = end


def salvage(data: bytes, limit: int) -> tuple[bytes, int] | None:
    """Return a zip cut short (no table of contents at its end) made readable: the whole
    parts before the cut with a new central directory, and how many parts that is; None
    when ``data`` does not start as a zip or no part is whole. Parts that would unpack to
    more than ``limit`` bytes in all are left out with those after them."""
    if not data.startswith(_LOCAL):
        return None
    parts = list(_parts(data, limit))
    if not parts:
        return None
    body_end = _end_of(data, parts[-1])
    directory = bytearray()
    for part in parts:
        version, flags, method, time, date = part.header
        directory += struct.pack(
            "<4sHHHHHHIIIHHHHHII",
            _CENTRAL,
            version,
            version,
            flags,
            method,
            time,
            date,
            part.crc,
            part.packed,
            part.size,
            len(part.name),
            0,
            0,
            0,
            0,
            0,
            part.offset,
        )
        directory += part.name
    end = struct.pack("<4sHHHHIIH", _END, 0, 0, len(parts), len(parts), len(directory), body_end, 0)
    return data[:body_end] + bytes(directory) + end, len(parts)


def _end_of(data: bytes, part: _Part) -> int:
    """Where a whole part ends (past its data descriptor, if it has one)."""
    nlen, xlen = (int(n) for n in struct.unpack_from("<HH", data, part.offset + 26))
    end = part.offset + 30 + nlen + xlen + part.packed
    if part.header[1] & 8:
        end += 16 if data[end : end + 4] == _DESCRIPTOR else 12
    return end


def inflated_over(data: bytes, offset: int, packed: int, size: int) -> bool:
    """Tell whether the deflated part whose local header is at ``offset`` (``packed``
    bytes) unpacks to more than the ``size`` its directory declares: inflated only as far
    as one byte past it."""
    if data[offset : offset + 4] != _LOCAL:
        return False  # the zip reader says what is wrong with it
    nlen, xlen = (int(n) for n in struct.unpack_from("<HH", data, offset + 26))
    start = offset + 30 + nlen + xlen
    inflater = zlib.decompressobj(-15)
    produced = 0
    stream = memoryview(data)[start : start + packed]
    try:
        for at in range(0, len(stream), _CHUNK):
            tail = bytes(stream[at : at + _CHUNK])
            while tail and produced <= size:
                produced += len(inflater.decompress(tail, size + 1 - produced))
                tail = inflater.unconsumed_tail
            if produced > size or inflater.eof:
                break
    except zlib.error:
        return False  # damage, not a bomb: the reader says what is wrong
    return produced > size
