"""Damaged and hostile OLE compound files (.doc, .xls, .ppt, .msg): each is one named error
for that file, found before a parser trusts it, and the next file is read.

The damage is written into copies of Apache POI's test documents (tests/data/documents)."""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path

import pytest

from memtrails.importers.documents import DocumentReader
from memtrails.importers.documents._oleguard import check_ole

DATA = Path(__file__).parent / "data" / "documents"
FILES = {
    ".doc": ("SampleDoc.doc", "WordDocument"),
    ".xls": ("SampleSS.xls", "Workbook"),
    ".ppt": ("basic_test_ppt_file.ppt", "PowerPoint Document"),
}


def _shift(d: bytes) -> int:
    return int(struct.unpack_from("<H", d, 0x1E)[0])


def _sector(d: bytes, n: int) -> int:
    return (n + 1) << _shift(d)


def _fat_slot(d: bytes, n: int) -> int:
    """The file offset of sector ``n``'s FAT entry."""
    per = (1 << _shift(d)) // 4
    (fat_sector,) = struct.unpack_from("<I", d, 0x4C + 4 * (n // per))
    return _sector(d, fat_sector) + 4 * (n % per)


def _entry(d: bytes, name: str) -> int:
    """The file offset of a stream's directory entry (in the directory's first sector)."""
    at = d.find(name.encode("utf-16-le") + b"\0\0")
    (first,) = struct.unpack_from("<I", d, 0x30)
    assert at > 0 and (at - _sector(d, first)) % 128 == 0, name
    return at


def _huge_size(d: bytes, name: str) -> bytes:
    out = bytearray(d)
    struct.pack_into("<I", out, _entry(d, name) + 0x78, 0xFFFFFFF0)
    return bytes(out)


def _stream_loops(d: bytes, name: str) -> bytes:
    out = bytearray(d)
    (start,) = struct.unpack_from("<I", d, _entry(d, name) + 0x74)
    struct.pack_into("<I", out, _fat_slot(d, start), start)  # its first sector is its next
    return bytes(out)


def _directory_loops(d: bytes, name: str) -> bytes:
    out = bytearray(d)
    (first,) = struct.unpack_from("<I", d, 0x30)
    struct.pack_into("<I", out, _fat_slot(d, first), first)
    return bytes(out)


def _millions_of_fat_sectors(d: bytes, name: str) -> bytes:
    out = bytearray(d)
    struct.pack_into("<I", out, 0x2C, 0x7FFFFFFF)
    return bytes(out)


def _millions_of_mini_fat_sectors(d: bytes, name: str) -> bytes:
    out = bytearray(d)
    struct.pack_into("<I", out, 0x40, 808150272)
    return bytes(out)


def _cut_in_half(d: bytes, name: str) -> bytes:
    return d[: len(d) // 2]


def _cut_after_header(d: bytes, name: str) -> bytes:
    return d[:600]


DAMAGE: dict[str, Callable[[bytes, str], bytes]] = {
    "a stream declares 4 GB": _huge_size,
    "a stream's chain loops": _stream_loops,
    "the directory's chain loops": _directory_loops,
    "2^31 FAT sectors declared": _millions_of_fat_sectors,
    "808 million mini FAT sectors declared": _millions_of_mini_fat_sectors,
    "cut in half": _cut_in_half,
    "cut after the header": _cut_after_header,
}


@pytest.mark.parametrize("suffix", sorted(FILES))
def test_each_damage_is_one_named_error_and_the_next_file_is_read(suffix: str) -> None:
    name, stream = FILES[suffix]
    good = (DATA / name).read_bytes()
    assert check_ole(good) is None
    # A worker with no memory limit: the check, not the limit, must stop each file.
    with DocumentReader(memory_bytes=0, timeout_s=60) as reader:
        for what, damage in DAMAGE.items():
            bad = damage(good, stream)
            why = check_ole(bad)
            assert why is not None and why.startswith("corrupt file:"), (what, why)
            got = reader.read(bad, suffix)
            assert got == why, (what, got)
        after = reader.read(good, suffix)
    assert not isinstance(after, str) and after.text


def test_excel_reader_is_not_given_a_directory_that_loops() -> None:
    """kreuzberg 4.10's XLS reader allocated until the worker's 2 GiB limit killed it (SIGABRT)
    on a directory chain that loops, and on 2^31 declared FAT sectors."""
    good = (DATA / "SampleSS.xls").read_bytes()
    with DocumentReader() as reader:
        for damage in (_directory_loops, _millions_of_fat_sectors):
            got = reader.read(damage(good, "Workbook"), ".xls")
            assert isinstance(got, str) and got.startswith("corrupt file: a damaged OLE"), got


def test_an_outlook_message_with_damage_is_one_error() -> None:
    good = (DATA / "quick.msg").read_bytes()
    with DocumentReader() as reader:
        for damage in (_directory_loops, _millions_of_fat_sectors, _cut_in_half):
            got = reader.read(damage(good, ""), ".msg")
            assert isinstance(got, str) and got.startswith("corrupt file:"), got
        assert not isinstance(reader.read(good, ".msg"), str)


def test_a_file_that_is_not_ole_is_refused_by_name() -> None:
    assert (check_ole(b"\0" * 4096) or "").startswith("corrupt file: not an Office 97-2003 file")
    head = (DATA / "SampleDoc.doc").read_bytes()[:512]
    assert (check_ole(head) or "").startswith("corrupt file: a truncated OLE compound file")


def test_a_parser_panic_is_a_named_error() -> None:
    """SampleSS.xls cut at 17,041 bytes passes the OLE check, and kreuzberg's XLS parser
    (calamine) then fails an assertion: a Rust panic, PanicException, which is no
    Exception, so the worker died of it ('the document reader exited (1) ...: it needs
    more than 2048 MiB'). It is a damaged document now, and the worker lives on."""
    from memtrails.importers.documents._extract import Failed, extract

    cut = (DATA / "SampleSS.xls").read_bytes()[:17041]
    with pytest.raises(Failed, match=r"^corrupt or unreadable document \(its parser stopped: "):
        extract(cut, ".xls", 512 << 20)
