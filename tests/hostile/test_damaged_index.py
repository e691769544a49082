"""A damaged index is said, with what to do, and doing it brings every record back."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memtrails import Memory, MemoryRecord
from memtrails._exceptions import IndexBackendError
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.timeout(120)


async def test_a_damaged_index_says_how_to_rebuild_it(tmp_path: Path) -> None:
    home = tmp_path / "m"
    embedder = HashingEmbedder()
    records = [MemoryRecord(id=f"r{n}", text=f"apples {n}") for n in range(20)]
    async with Memory.open(home, embedder=embedder) as memory:
        await memory.ingest(records)
    for part in (home / "index").rglob("*.json"):
        part.write_bytes(b"\0" * max(1, part.stat().st_size))
    with pytest.raises(IndexBackendError, match="remove that folder") as caught:
        async with Memory.open(home, embedder=embedder) as memory:
            await memory.search("apples", k=5)
    assert "\n" not in str(caught.value)
    shutil.rmtree(home / "index")  # what the message says
    async with Memory.open(home, embedder=embedder) as memory:
        assert memory.repairs, "opening says it rebuilt the index"
        assert len(await memory.search("apples", k=50)) == len(records)


async def test_a_deleted_index_is_rebuilt_on_open(tmp_path: Path) -> None:
    home = tmp_path / "m"
    embedder = HashingEmbedder()
    async with Memory.open(home, embedder=embedder) as memory:
        await memory.ingest([MemoryRecord(id=f"r{n}", text=f"apples {n}") for n in range(5)])
    shutil.rmtree(home / "index")
    async with Memory.open(home, embedder=embedder) as memory:
        assert any("rebuilt" in r for r in memory.repairs), memory.repairs
        assert len(await memory.search("apples", k=10)) == 5
