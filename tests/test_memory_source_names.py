"""``source=`` in Python names a source as the CLI and the service read it: its whole name,
its path or its file's name."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtrails import Memory
from memtrails.importers.jsonl import from_jsonl
from memtrails.testing import HashingEmbedder


async def test_a_source_is_named_by_its_path_or_its_file_name(tmp_path: Path) -> None:
    notes = tmp_path / "data" / "notes.jsonl"
    notes.parent.mkdir()
    notes.write_text('{"id": "n1", "text": "the boiler is serviced in March"}\n')
    other = tmp_path / "other.jsonl"
    other.write_text('{"id": "n1", "text": "the garden hose leaks"}\n')
    async with Memory.open(tmp_path / "memory", embedder=HashingEmbedder()) as memory:
        await memory.ingest(from_jsonl(notes))
        await memory.ingest(from_jsonl(other))
        for given in ("notes.jsonl", str(notes), str(notes.resolve()), "data/notes.jsonl"):
            hits = await memory.search("boiler", source=given)
            assert [h.source for h in hits] == [str(notes.resolve())], given
            record = await memory.get("n1", source=given)
            assert record is not None and "boiler" in record.text
            assert [r.id async for r in memory.records(source=given)] == ["n1"]
        with pytest.raises(ValueError, match=r"no source matches 'nothing\.jsonl'"):
            await memory.search("boiler", source="nothing.jsonl")
        assert await memory.forget("n1", source="other.jsonl") == 1
        assert await memory.get("n1", source=str(notes)) is not None
