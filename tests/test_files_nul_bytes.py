"""Notes with NUL bytes in them: the zeros a crash or a full disk leaves where a note's last
blocks were never written, a C string's end, fields padded with zeros. Before, any NUL made
the whole note a 'binary file'; now its text is read without them. Binary files that hold
NULs (pictures, programs, random bytes) stay binary."""

from __future__ import annotations

import hashlib
import struct
import zlib

import pytest

from memtrails.importers.files._text import decode

_NOTE = "Groceries: eggs, flour, milk.\nCall Anna about the café on Friday.\n"


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (_NOTE.encode() + b"\0" * 4096, _NOTE),  # its last block never written
        (b"\0" * 512 + _NOTE.encode(), _NOTE),
        (_NOTE.encode() + b"\0", _NOTE),  # a C string's end
        (b"name\0\0\0\0city\0\0\0\0\nAnna\0\0\0\0Oslo\0\0\0\0\n", "name city\nAnna Oslo\n"),
    ],
    ids=["zeroed-tail", "zeroed-head", "terminator", "padded-fields"],
)
def test_a_note_with_nul_bytes_is_read_without_them(data: bytes, text: str) -> None:
    assert decode(data) == (text, "utf-8")


def _png() -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    pixels = zlib.compress(b"\0" + b"\xff\0\0" * 16)
    ihdr = struct.pack(">IIBBBBB", 16, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def test_binary_files_with_nul_bytes_stay_binary() -> None:
    samples = [_png(), struct.pack("<8I", *range(8)) * 32, b"\x7fELF\x02\x01\x01" + b"\0" * 64]
    samples += [hashlib.sha256(str(k).encode()).digest() * 4 + b"\0" * 64 for k in range(50)]
    assert [data[:8] for data in samples if decode(data) is not None] == []
