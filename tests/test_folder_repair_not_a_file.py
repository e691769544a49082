"""A file of a memory folder replaced by a directory (a sync tool, a mistaken mkdir): the
folder refuses to open with one message naming the file and what to do, and once it is moved
away the folder opens whole. Before, the open failed with Python's bare IsADirectoryError."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memtrails import FolderFormatError, Memory, MemoryRecord
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.timeout(120)

RECORDS = [MemoryRecord(id=f"r{n}", text=f"pears and plums, basket {n}") for n in range(8)]


@pytest.mark.parametrize("name", ["records.jsonl", "table.sqlite", "index.json", "sources.json"])
async def test_a_file_that_is_a_directory_is_named_with_what_to_do(
    tmp_path: Path, name: str
) -> None:
    home = tmp_path / "m"
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        await memory.ingest(RECORDS, name="notes")
    kept = home / name
    saved = tmp_path / name
    if kept.exists():  # an ingest keeps no sources.json: a directory in its place all the same
        shutil.move(kept, saved)
    kept.mkdir()
    with pytest.raises(FolderFormatError) as said:
        async with Memory.open(home, embedder=HashingEmbedder()):
            pass
    message = str(said.value)
    assert f"{kept} is a directory" in message and "move it out of the folder" in message
    kept.rmdir()
    if name == "records.jsonl":
        assert "restore records.jsonl from a backup" in message
        shutil.move(saved, kept)
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        hits = await memory.search("pears and plums", k=20)
        assert sorted(h.id for h in hits) == sorted(r.id for r in RECORDS)
