"""Watermarks for custom sources: ties, late rows, rows out of order, kills, full passes."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memtrails import Memory, from_cursor
from memtrails.testing import HashingEmbedder

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)


class Table:
    """A SQLite table of tickets, changed between runs as a live database would be."""

    def __init__(self, path: Path, n: int) -> None:
        self.db = sqlite3.connect(path)
        self.db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT, updated_at TEXT)")
        self.db.executemany(
            "INSERT INTO t VALUES (?, ?, ?)",
            [(i, f"ticket {i} body", (T0 + timedelta(minutes=i)).isoformat()) for i in range(n)],
        )
        self.db.commit()
        self.asked: list[Any] = []
        self.read = 0

    def put(self, id: int, body: str, at: datetime) -> None:
        self.db.execute("INSERT OR REPLACE INTO t VALUES (?, ?, ?)", (id, body, at.isoformat()))
        self.db.commit()

    def fetch(self, since: str | None) -> Iterator[dict[str, Any]]:
        self.asked.append(since)
        rows = self.db.execute(
            "SELECT id, body, updated_at FROM t WHERE updated_at >= ? ORDER BY updated_at, id",
            (since or "",),
        )
        for id, body, at in rows:
            self.read += 1
            yield {"id": id, "text": body, "updated_at": at}


async def _ingest(memory: Memory, fetch: Callable[[Any], Any], **options: Any) -> Any:
    return await memory.ingest(fetch, name="tickets", cursor="updated_at", **options)


async def test_second_run_reads_from_the_watermark_and_a_tie_is_not_missed(tmp_path: Path) -> None:
    table = Table(tmp_path / "app.db", 50)
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        first = await _ingest(memory, table.fetch)
        assert (first.added, table.asked) == (50, [None])
        last = (T0 + timedelta(minutes=49)).isoformat()
        # A row written after the run with the very same timestamp as the last one seen,
        # and one row changed later.
        table.put(1000, "a late tie", T0 + timedelta(minutes=49))
        table.put(3, "ticket 3, edited", T0 + timedelta(minutes=60))
        table.read = 0
        second = await _ingest(memory, table.fetch)
        assert table.asked[-1] == last  # >= the watermark
        assert table.read == 3  # row 49 again, the tie, the edited row: not 50
        assert (second.added, second.updated, second.unchanged) == (1, 1, 1)
        assert second.sources[0].mode == "incremental"
        assert (await memory.get("3", source="tickets")).text == "ticket 3, edited"  # type: ignore[union-attr]
        status = await memory.status()
        assert status.watermarks["tickets"]["value"] == (T0 + timedelta(minutes=60)).isoformat()
        assert status.records == 51


async def test_lag_picks_up_a_row_that_arrived_late_and_without_it_the_row_is_missed(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path / "app.db", 20)
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        await _ingest(memory, table.fetch)
        # A transaction that committed after the run, stamped two minutes before its end.
        table.put(500, "committed late", T0 + timedelta(minutes=17))
        missed = await _ingest(memory, table.fetch)
        assert missed.added == 0
        late = await _ingest(memory, table.fetch, lag=timedelta(minutes=5))
        assert late.added == 1
        assert table.asked[-1] == (T0 + timedelta(minutes=19) - timedelta(minutes=5)).isoformat()


async def test_rows_out_of_order_save_the_watermark_only_at_the_end_and_say_so(
    tmp_path: Path,
) -> None:
    rows = [{"id": i, "text": f"row {i}", "updated_at": v} for i, v in enumerate([1, 5, 3, 7, 2])]
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        states = [
            item
            async for item in from_cursor(
                lambda since: rows, name="n", cursor="updated_at", checkpoint_every=2
            )
            if not isinstance(item, dict)
        ]
        # One mid-run position after rows 1 and 5 (in order), none after the order broke.
        assert [s.state["value"] for s in states] == [5, 7]
        report = await memory.ingest(lambda since: rows, name="n", cursor="updated_at")
        assert report.added == 5
        assert "did not come in updated_at order" in (report.sources[0].why or "")
        assert (await memory.status()).watermarks["n"]["value"] == 7


async def test_a_source_that_ignores_since_is_reported(tmp_path: Path) -> None:
    rows = [{"id": i, "text": f"row {i}", "updated_at": i} for i in range(10)]
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        await memory.ingest(lambda since: rows, name="n", cursor="updated_at")
        again = await memory.ingest(lambda since: rows, name="n", cursor="updated_at")
        assert again.unchanged == 10
        assert "9 rows had updated_at before the watermark" in (again.sources[0].why or "")


@pytest.mark.slow
async def test_a_run_that_fails_half_way_resumes_without_losing_or_duplicating(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path / "app.db", 2500)

    def failing(since: Any) -> Iterator[dict[str, Any]]:
        for n, row in enumerate(table.fetch(since)):
            if n == 2300:
                raise ConnectionError("the database went away")
            yield row

    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        with pytest.raises(ConnectionError):
            await _ingest(memory, failing)
        written = (await memory.status()).records  # what reached the folder before the failure
        saved = memory.source_state("tickets")
        # Positions are handed over every 1,000 rows in order; the last one before the failure.
        assert saved is not None and saved["value"] == (T0 + timedelta(minutes=1999)).isoformat()
        table.read = 0
        again = await _ingest(memory, table.fetch)
        assert table.read == 501  # from row 1,999 (inclusive) on, not the whole table
        assert (await memory.status()).records == 2500
        assert again.added == 2500 - written  # the rest was in the folder already
        assert again.unchanged == 501 - again.added


@pytest.mark.slow
async def test_a_full_pass_with_prune_forgets_deleted_rows_of_that_source_only(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path / "app.db", 30)
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        await memory.ingest([{"id": "keep", "text": "another source"}], name="other")
        await _ingest(memory, table.fetch)
        table.db.execute("DELETE FROM t WHERE id IN (4, 5)")
        table.db.commit()
        incremental = await _ingest(memory, table.fetch, prune=True)
        assert incremental.removed == 0  # an incremental read proves nothing about absence
        full = await _ingest(memory, table.fetch, full=True, prune=True)
        assert full.removed == 2 and table.asked[-1] is None
        assert await memory.get("4", source="tickets") is None
        assert await memory.get("keep", source="other") is not None


async def test_misuse_says_what_to_do(tmp_path: Path) -> None:
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        with pytest.raises(TypeError, match="function of the watermark"):
            await memory.ingest([{"id": 1, "text": "x"}], name="n", cursor="updated_at")
        with pytest.raises(ValueError, match="`cursor` import only"):
            await memory.ingest([{"id": 1, "text": "x"}], lag=5)
        with pytest.raises(ValueError, match="`full` applies to a `cursor` import or an importer"):
            await memory.ingest([{"id": 1, "text": "x"}], full=True)
        with pytest.raises(TypeError, match="give `cursor=` the field that grows"):
            await memory.ingest(lambda since: [{"id": 1, "text": "x"}], name="n")
        report = await memory.ingest(
            lambda since: [{"id": 1, "text": "no stamp"}], name="n", cursor="updated_at"
        )
        assert [e.reason for e in report.errors] == ["no `updated_at` value (the cursor column)"]
