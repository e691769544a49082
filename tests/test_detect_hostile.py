"""Kind detection on hostile or odd inputs: what a file of no kind is said to hold, links that
lead nowhere, and a gzip bomb, whose detection decompresses a bounded head only."""

from __future__ import annotations

import gzip
import io
import tarfile
import tracemalloc
import zipfile
import zlib
from pathlib import Path

import pytest
from helpers import collect, errors

from memtrails._exceptions import SourceError
from memtrails.importers.detect import detect_kind, open_part, plan


def _reason(path: Path) -> str:
    with pytest.raises(SourceError) as caught:
        detect_kind(path)
    return caught.value.reason


def _tar_gz() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        info = tarfile.TarInfo("notes.jsonl")
        data = b'{"id": 1, "text": "x"}\n'
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("notes.jsonl", '{"id": 1, "text": "x"}\n')
    return buf.getvalue()


@pytest.mark.parametrize(
    ("name", "data", "said", "kind_reads"),
    [
        ("nothing.gz", gzip.compress(b""), "gzip-compressed and holds nothing", False),
        ("export.zst", b"\x28\xb5\x2f\xfd\x24\x05\x29\x00\x00hello", "zstd-compressed", False),
        ("frames.lz4", b"\x04\x22\x4d\x18\x64\x40\xa7hello", "lz4-compressed", False),
        ("twice.gz", gzip.compress(gzip.compress(b'{"a": 1}\n')), "compressed twice", False),
        ("backup.tgz", _tar_gz(), "gzip-compressed tar archive", False),
        ("bundle.dat", _zip(), "zip archive", False),
        ("nuls", b"\x00" * 100_000, "binary data", True),
        ("photos.gz", gzip.compress(bytes(range(256)) * 64), "gzip-compressed binary", True),
        ("log.bz2.gz", gzip.compress(b"plain words, no mail\n" * 50), "compressed text", True),
    ],
    ids=lambda value: value if isinstance(value, str) and "." in value else "",
)
def test_a_file_of_no_kind_is_said_to_hold_what_it_holds(
    tmp_path: Path, name: str, data: bytes, said: str, kind_reads: bool
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    reason = _reason(path)
    assert reason.startswith("not a kind memtrails reads") and said in reason
    # --kind is offered where it can help; an archive or an unknown compression is unpacked
    assert ("--kind reads it as jsonl, mbox, eml" in reason) is kind_reads
    if said.endswith("-compressed"):
        assert f"-dc {name} | memtrails add -" in reason


def test_compressed_content_is_told_by_what_it_holds_whatever_its_name(tmp_path: Path) -> None:
    mail = b"From: a@example.com\nTo: b@example.com\nSubject: hi\nMessage-ID: <1@x>\n\nhi\n"
    mbox = b"From a@example.com Tue Apr  1 12:21:37 2003\n" + mail
    for name, data, kind in [
        ("data.gz", b'{"id": 1, "text": "x"}\n', "jsonl"),
        ("dump.gz", mbox, "mbox"),
        ("saved.gz", mail, "eml"),
        # A .json is a JSON document's name (the json importer reads JSON Lines in one too).
        ("export.json.gz", b'\xef\xbb\xbf\n{"id": 1}\n', "json"),
    ]:
        (tmp_path / name).write_bytes(gzip.compress(data))
        assert detect_kind(tmp_path / name) == kind, name


def test_links_that_lead_nowhere_say_so(tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    assert "symbolic link that loops" in _reason(loop)
    a, b = tmp_path / "a.mbox", tmp_path / "b.mbox"
    a.symlink_to(b)
    b.symlink_to(a)
    assert "loops" in _reason(a)
    dangling = tmp_path / "gone.jsonl"
    dangling.symlink_to(tmp_path / "moved-away.jsonl")
    assert "moved-away.jsonl, which does not exist" in _reason(dangling)
    assert _reason(tmp_path / "never.jsonl") == "no such file or folder"


def test_a_folder_named_like_a_file_kind_is_a_folder(tmp_path: Path) -> None:
    box = tmp_path / "old.mbox"
    box.mkdir()
    (box / "readme.txt").write_text("notes about the old mailbox\n")
    assert detect_kind(box) == "files"
    with pytest.raises(SourceError, match="is a folder; --kind mbox reads a file"):
        plan(box, kind="mbox")


async def test_a_folder_says_what_its_compressed_file_of_no_kind_holds(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# Notes\n")
    (tmp_path / "backup.tar.gz").write_bytes(_tar_gz())
    (tmp_path / "export.gz").write_bytes(gzip.compress(b"one line of plain text\n"))
    (notes,) = plan(tmp_path)
    said = {e.where: e.reason for e in errors(await collect(open_part(notes)))}
    assert "tar archive of files: unpack it and add the folder" in said["backup.tar.gz"]
    assert "text" in said["export.gz"] and "--kind" in said["export.gz"]


def test_detecting_a_gzip_bomb_decompresses_a_bounded_head(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.gz"
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip framing
    zeros = b"\x00" * (1 << 20)
    with bomb.open("wb") as out:
        for _ in range(512):  # 512 MiB of NULs in about 500 KiB
            out.write(packer.compress(zeros))
        out.write(packer.flush())
    tracemalloc.start()
    try:
        reason = _reason(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "gzip-compressed binary data" in reason
    assert peak < 8 << 20  # the head read to tell its kind, not the 512 MiB inside


async def test_a_folder_says_what_its_archives_and_unread_compressions_hold(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes.md").write_text("# Notes\n")
    (tmp_path / "export.zst").write_bytes(b"\x28\xb5\x2f\xfd\x24\x05\x29\x00\x00hello")
    (tmp_path / "bundle.zip").write_bytes(_zip())
    with tarfile.open(tmp_path / "plain.tar", "w") as tar:
        tar.add(tmp_path / "notes.md", arcname="notes.md")
    (notes,) = plan(tmp_path)
    said = {e.where: e.reason for e in errors(await collect(open_part(notes)))}
    assert "zstd-compressed" in said["export.zst"] and "zstd -dc export.zst" in said["export.zst"]
    assert (
        said["bundle.zip"] == "skipped: it is a zip archive of files: unpack it and add the folder"
    )
    assert (
        said["plain.tar"] == "skipped: it is a tar archive of files: unpack it and add the folder"
    )
