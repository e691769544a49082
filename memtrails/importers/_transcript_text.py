"""How a transcript file is encoded, and its lines as UTF-8 with their lengths in the file.

A session saved again by a Windows editor or tool may be UTF-16 or UTF-32 (with a byte
order mark, or without one), UTF-8 with a BOM, or a legacy charset (Windows-1252 most
often). UTF-16 and UTF-32 lines are split on the code unit of a newline (never on a byte of
another character) and keep their lengths in the file's own bytes, so that a re-run goes on
from the same offset.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, BinaryIO

from ._legacy_text import decode_legacy

__all__ = ["file_lines", "line_text", "sniff", "strip_bom"]

_BOMS = {  # UTF-32's first: its little-endian mark starts as UTF-16's does
    b"\xff\xfe\x00\x00": "utf-32-le",
    b"\x00\x00\xfe\xff": "utf-32-be",
    b"\xef\xbb\xbf": "utf-8",
    b"\xff\xfe": "utf-16-le",
    b"\xfe\xff": "utf-16-be",
}
_CHUNK = 1 << 16
# Without a byte order mark, UTF-16 text that is mostly ASCII (JSON's punctuation and keys
# are) has a NUL in every other byte: this share of code units with one at the same place.
_NUL_SHARE = 0.3


def sniff(head: bytes) -> tuple[str, int]:
    """Return a file's encoding from its first bytes, and the length of its byte order mark.

    ``"utf-8"`` (lines that are not valid UTF-8 are read in the charset they look like, see
    :func:`line_text`), ``"utf-16-le"``, ``"utf-16-be"``, ``"utf-32-le"`` or
    ``"utf-32-be"``.
    """
    for bom, codec in _BOMS.items():
        if head.startswith(bom):
            return codec, len(bom)
    # Without a mark, UTF-32 text that is mostly ASCII has three NULs in each code unit.
    quads = len(head) // 4
    if quads:
        low = sum(1 for k in range(0, 4 * quads, 4) if head[k + 1 : k + 4] == b"\0\0\0")
        high = sum(1 for k in range(0, 4 * quads, 4) if head[k : k + 3] == b"\0\0\0")
        if low >= _NUL_SHARE * quads and all(head[k + 3] == 0 for k in range(0, 4 * quads, 4)):
            return "utf-32-le", 0
        if high >= _NUL_SHARE * quads and all(head[k] == 0 for k in range(0, 4 * quads, 4)):
            return "utf-32-be", 0
    units = len(head) // 2
    if units:
        even = sum(1 for k in range(0, 2 * units, 2) if head[k] == 0)
        odd = sum(1 for k in range(1, 2 * units, 2) if head[k] == 0)
        if odd >= _NUL_SHARE * units and even == 0:
            return "utf-16-le", 0
        if even >= _NUL_SHARE * units and odd == 0:
            return "utf-16-be", 0
    return "utf-8", 0


def strip_bom(raw: bytes) -> bytes:
    """Drop a UTF-8 byte order mark from the start of a line."""
    return raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw


def line_text(raw: bytes) -> Any:
    """Parse one line as JSON: UTF-8, or (not valid UTF-8) the charset its words read in,
    Windows-1252 unless another reads them clearly better (a short line gives a detector
    too little to go on, see :mod:`._legacy_text`); never a line lost to one byte (``json``
    errors as ``json.loads``)."""
    try:
        return json.loads(raw)
    except UnicodeDecodeError:
        return json.loads(decode_legacy(raw)[0])


def _find_unit(held: bytes, unit: bytes, start: int) -> int:
    """Return where the code unit ``unit`` is in ``held``, at an offset that is a multiple
    of its length (a whole code unit), or -1."""
    at = held.find(unit, start)
    while at >= 0 and at % len(unit):
        at = held.find(unit, at + 1)
    return at


def file_lines(f: BinaryIO, codec: str, limit: int) -> Iterator[tuple[bytes, int]]:
    """Yield each line of a UTF-16 or UTF-32 file from where ``f`` is, as UTF-8 (at most
    about ``limit`` bytes of it, an LF at its end when it ended), with its length in the file.

    A line longer than ``2 * limit`` bytes in the file is not held: its length is counted
    and ``b"\\n"`` (or ``b""`` at the end of the file) stands for it, as
    :func:`~memtrails.importers._jsonl_source.bounded_lines` does.
    """
    newline = "\n".encode(codec)
    width = len(newline)  # of a code unit: 2 bytes in UTF-16, 4 in UTF-32
    held = b""
    passing = 0  # bytes of an over-long line read past so far
    while True:
        end = _find_unit(held, newline, 0)
        if end >= 0:
            line, held = held[: end + width], held[end + width :]
            if passing:
                yield b"\n", passing + len(line)
                passing = 0
            else:
                yield line.decode(codec, "replace").lstrip("\ufeff").encode("utf-8"), len(line)
            continue
        if len(held) > 2 * limit + width:
            keep = len(held) - len(held) % width
            passing += keep
            held = held[keep:]
        chunk = f.read(_CHUNK)
        if not chunk:
            if passing:
                yield b"", passing + len(held)
            elif held:
                yield held.decode(codec, "replace").lstrip("\ufeff").encode("utf-8"), len(held)
            return
        held += chunk
