"""A JSON Lines file compressed in a format memtrails does not unpack (zstd, lz4), an
archive, or gzip inside gzip is a SourceError saying what it is and how to unpack it, not
one "not JSON" error per line of its bytes; gzip, bzip2 and xz are read."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tarfile
import zipfile
from pathlib import Path

import pytest

from memtrails import from_jsonl
from memtrails._exceptions import SourceError
from memtrails.records import MemoryRecord

LINES = b'{"id": 1, "text": "one"}\n{"id": 2, "text": "two"}\n'


def _zip() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("a.jsonl", LINES)
    return out.getvalue()


def _tar() -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as t:
        info = tarfile.TarInfo("a.jsonl")
        info.size = len(LINES)
        t.addfile(info, io.BytesIO(LINES))
    return out.getvalue()


@pytest.mark.parametrize(
    ("name", "data", "says"),
    [
        ("a.jsonl.zst", b"\x28\xb5\x2f\xfd" + b"\x00" * 40, "zstd-compressed"),
        ("a.jsonl.lz4", b"\x04\x22\x4d\x18" + b"\x00" * 40, "lz4-compressed"),
        ("a.jsonl.zip", _zip(), "zip archive"),
        ("a.jsonl.tar", _tar(), "tar archive"),
        ("a.jsonl.gz", gzip.compress(gzip.compress(LINES, mtime=0), mtime=0), "compressed twice"),
    ],
    ids=lambda value: value if isinstance(value, str) and "." in value else "",
)
async def test_a_format_not_unpacked_is_said_so(
    tmp_path: Path, name: str, data: bytes, says: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(SourceError, match=says):
        _ = [item async for item in from_jsonl(path)]


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("a.jsonl", LINES),
        ("a.jsonl.gz", gzip.compress(LINES, mtime=0)),
        ("a.jsonl.bz2", bz2.compress(LINES)),
        ("a.jsonl.xz", lzma.compress(LINES)),
        ("empty.jsonl", b""),
    ],
    ids=lambda value: value if isinstance(value, str) and "." in value else "",
)
async def test_what_is_read_is_still_read(tmp_path: Path, name: str, data: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    items = [item async for item in from_jsonl(path)]
    ids = [item.id for item in items if isinstance(item, MemoryRecord)]
    assert ids == (["1", "2"] if data else [])
