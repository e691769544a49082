"""Memory.records: every live record, oldest first, as it is when the iteration starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtrails import Memory, MemoryRecord
from memtrails.testing import HashingEmbedder


async def test_records_yields_the_live_records_latest_version_oldest_first(
    tmp_path: Path,
) -> None:
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        await memory.ingest(
            [MemoryRecord(id=f"n{i}", text=f"note number {i}") for i in range(300)],
            name="notes",
        )
        await memory.ingest([MemoryRecord(id="m1", text="a mail", kind="mail")], name="mail")
        await memory.ingest([MemoryRecord(id="n5", text="note five, edited")], name="notes")
        assert await memory.forget("n7") == 1

        listed = [record async for record in memory.records()]
        ids = [r.id for r in listed]
        assert len(ids) == 300 and len(set(ids)) == 300
        assert "n7" not in ids and ids[-2:] == ["m1", "n5"]  # the edit is the newest line
        assert next(r for r in listed if r.id == "n5").text == "note five, edited"
        assert {r.source for r in listed} == {"notes", "mail"}

        mails = [record async for record in memory.records(source="mail")]
        assert [(r.id, r.kind, r.source) for r in mails] == [("m1", "mail", "mail")]
        # A name that is no source is a mistake said, as on the CLI and through the service.
        with pytest.raises(ValueError, match="no source matches 'nowhere'"):
            [r async for r in memory.records(source="nowhere")]


async def test_records_on_a_closed_memory_is_an_error(tmp_path: Path) -> None:
    memory = await Memory.open(tmp_path / "m", embedder=HashingEmbedder())
    await memory.aclose()
    with pytest.raises(Exception, match="closed"):
        [r async for r in memory.records()]
