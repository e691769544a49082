"""Custom sources from Python: dict rows with extra keys, DB-API tuple rows, numbers as dates."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memtrails import Memory, MemoryLockedError, from_iterable
from memtrails.records import At
from memtrails.testing import HashingEmbedder


async def test_a_dict_rows_extra_keys_go_to_meta(tmp_path: Path) -> None:
    rows = [
        {"id": "t1", "text": "printer on fire", "priority": "high", "meta": {"team": "ops"}},
        {"id": "t2", "text": "toner low", "priority": "low"},
    ]
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(rows, name="tickets")
        assert (report.added, report.skipped) == (2, 0), report.errors
        first = await memory.get("t1")
        second = await memory.get("t2")
    assert first is not None and second is not None
    assert first.meta == {"priority": "high", "team": "ops"}
    assert second.meta == {"priority": "low"}


@pytest.mark.slow
@pytest.mark.parametrize("in_thread", [False, True])
async def test_a_plain_tuple_cursor_is_read_by_column_name(tmp_path: Path, in_thread: bool) -> None:
    conn = sqlite3.connect(tmp_path / "app.db", check_same_thread=False)
    conn.execute("CREATE TABLE notes (id INTEGER, title TEXT, body TEXT, stars INTEGER)")
    conn.executemany(
        "INSERT INTO notes VALUES (?, ?, ?, ?)",
        [(1, "Groceries", "eggs, milk", 3), (2, "Garden", "water the tomatoes", 5)],
    )
    cursor = conn.execute("SELECT id, title, body AS text, stars FROM notes ORDER BY id")
    source = from_iterable(cursor, in_thread=True) if in_thread else cursor
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(source, name="app.db:notes")
        assert (report.added, report.skipped) == (2, 0), report.errors
        note = await memory.get("2")
    conn.close()
    assert note is not None
    assert (note.title, note.text, note.meta) == ("Garden", "water the tomatoes", {"stars": 5})


async def test_a_tuple_without_column_names_says_how_to_name_them(tmp_path: Path) -> None:
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await memory.ingest([("1", "text")], name="rows")
    assert report.skipped == 1
    assert "description" in report.errors[0].reason and "sqlite3.Row" in report.errors[0].reason


def test_numbers_are_seconds_below_1e11_and_milliseconds_above() -> None:
    assert At.of(1714694400).iso() == "2024-05-03T00:00:00.000Z"  # Unix seconds, May 2024
    assert At.of(1714694400.25).iso() == "2024-05-03T00:00:00.250Z"
    assert At.of(1714694400123).iso() == "2024-05-03T00:00:00.123Z"  # milliseconds
    assert At.of(0).iso() == "1970-01-01T00:00:00.000Z"
    assert At.of(-86400).iso() == "1969-12-31T00:00:00.000Z"  # seconds before 1970
    with pytest.raises(ValueError, match="not a date"):
        At.of(float("nan"))


async def test_a_seconds_stamp_in_a_row_is_not_1970(tmp_path: Path) -> None:
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        await memory.ingest([{"id": "s1", "text": "hello", "at": 1714694400}], name="rows")
        record = await memory.get("s1")
    assert record is not None and record.at is not None
    assert record.at.iso().startswith("2024-05-03")


async def test_opening_a_folder_twice_in_one_process_says_so(tmp_path: Path) -> None:
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()):
        with pytest.raises(MemoryLockedError, match="this very process: it is already open"):
            await Memory.open(tmp_path / "m", embedder=HashingEmbedder())
