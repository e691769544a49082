"""A cursor column of ISO 8601 text (SQLite's CURRENT_TIMESTAMP, "2024-05-03 10:00:00"), read
back ``lag`` earlier: the watermark keeps the text's own form (its space, its "Z"), so that
the query's text comparison finds every row of the same day after it."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from memtrails import Memory, from_cursor
from memtrails.testing import HashingEmbedder


@pytest.mark.parametrize(
    ("first", "later"),
    [
        ("2024-05-03 10:00:00", "2024-05-03 10:30:00"),  # SQLite's CURRENT_TIMESTAMP
        ("2024-05-03T10:00:00Z", "2024-05-03T10:30:00Z"),
        ("2024-05-03 10:00:00.123", "2024-05-03 10:00:00.500"),
    ],
)
async def test_a_text_watermark_minus_lag_still_finds_the_days_later_rows(
    tmp_path: Path, first: str, later: str
) -> None:
    db = sqlite3.connect(":memory:")
    db.row_factory = sqlite3.Row
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT, updated TEXT)")
    db.execute("INSERT INTO notes (text, updated) VALUES ('first', ?)", (first,))
    asked: list[Any] = []

    def fetch(since: Any) -> Any:
        asked.append(since)
        return db.execute("SELECT * FROM notes WHERE updated >= ?", (since or "",))

    async with Memory.open(tmp_path, embedder=HashingEmbedder()) as memory:
        for _ in range(2):
            state = memory.source_state("notes")
            rows = from_cursor(
                fetch, name="notes", cursor="updated", state=state, lag=timedelta(minutes=5)
            )
            report = await memory.ingest(rows, name="notes")
            db.execute("INSERT INTO notes (text, updated) VALUES ('later', ?)", (later,))
        assert report.added == 1, asked  # the later row of the same day
        got = await memory.get("2", source="notes")
    assert got is not None and got.text == "later"
    assert asked[1] < first  # lag earlier, in the column's own form
    assert asked[1][10] == first[10]
