"""Damage ``memtrails check`` reports is what ``check --repair`` (and ``reindex``) repairs."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memtrails import Memory, MemoryRecord
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.timeout(120)

RECORDS = [MemoryRecord(id=f"r{n}", text=f"note number {n} about apples") for n in range(5)]


async def damaged(tmp_path: Path, sql: str) -> Path:
    home = tmp_path / "m"
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        await memory.ingest(RECORDS)
    with sqlite3.connect(home / "table.sqlite") as db:
        db.execute(sql)
    return home


LOSE_A_ROW = "DELETE FROM records WHERE uid IN (SELECT uid FROM records LIMIT 1)"


@pytest.mark.parametrize(
    "sql", [LOSE_A_ROW, "UPDATE records SET offset = offset + 1 WHERE offset > 0"]
)
async def test_check_repair_rebuilds_a_table_that_lost_a_row(tmp_path: Path, sql: str) -> None:
    home = await damaged(tmp_path, sql)
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        found = await memory.check()
        assert not found.ok and any("table.sqlite" in p for p in found.problems)
        fixed = await memory.check(repair=True)
        assert fixed.ok, fixed.problems
        assert any("rebuilt table.sqlite" in r for r in fixed.repaired)
        assert all([await memory.get(r.id) is not None for r in RECORDS])
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        assert (await memory.check()).ok


async def test_reindex_repairs_a_lost_row_too(tmp_path: Path) -> None:
    home = await damaged(tmp_path, LOSE_A_ROW)
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        assert not (await memory.check()).ok
        assert await memory.reindex() == len(RECORDS)
        assert (await memory.check()).ok
        hits = await memory.search("apples", k=10)
        assert len(hits) == len(RECORDS)
