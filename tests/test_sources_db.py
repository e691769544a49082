"""Database cursors as custom sources: SQLite (stdlib) and PostgreSQL with a server-side cursor."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import pg_dsn

from memtrails import Memory
from memtrails.importers.iterables import from_iterable


def _questions(path: Path) -> list[tuple[int, str, str]]:
    rows = []
    for n, line in enumerate(path.read_text().splitlines(), start=1):
        obj = json.loads(line)
        rows.append((n, obj["question"], obj["answer"]))
    return rows


def _sqlite_db(path: Path, rows: list[tuple[int, str, str]]) -> Path:
    db = path / "app.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE questions (id INTEGER PRIMARY KEY, question TEXT, answer TEXT)")
        conn.executemany("INSERT INTO questions VALUES (?, ?, ?)", rows)
    return db


@pytest.mark.slow
async def test_sqlite_cursor_in_worker_threads(
    tmp_path: Path, embedder: Any, gsm8k_subset: Callable[[int], Path]
) -> None:
    rows = _questions(gsm8k_subset(25))
    db = _sqlite_db(tmp_path, rows)
    conn = sqlite3.connect(db, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    try:
        cursor = conn.execute(
            "SELECT id, question AS title, answer AS text FROM questions ORDER BY id"
        )
        async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
            report = await memory.ingest(
                from_iterable(cursor, in_thread=True, chunk=4), name="app.db:questions"
            )
            assert report.added == 25
            record = await memory.get("7", source="app.db:questions")
            assert record is not None and record.title == rows[6][1]
            hit = (await memory.search(rows[3][1], k=1))[0]
            assert hit.id == "4"
            # The same query again: nothing new.
            again = conn.execute(
                "SELECT id, question AS title, answer AS text FROM questions ORDER BY id"
            )
            assert (await memory.ingest(again, name="app.db:questions")).unchanged == 25
    finally:
        conn.close()


async def test_sqlite_bad_rows_are_skipped_and_reported(tmp_path: Path, embedder: Any) -> None:
    conn = sqlite3.connect(":memory:")
    conn.row_factory = sqlite3.Row
    conn.execute("CREATE TABLE notes (id TEXT, text TEXT, colour TEXT)")
    conn.executemany(
        "INSERT INTO notes VALUES (?, ?, ?)",
        [("a", "fine", None), (None, "no id", None), ("c", None, None), ("d", None, "t")],
    )
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        query = "SELECT id, text, colour AS title FROM notes"
        report = await memory.ingest(conn.execute(query), name="notes")
        titled = await memory.get("d", source="notes")
    # A NULL text is an empty one: the record is its title; with no title, the row's error.
    assert report.added == 2 and titled is not None and titled.title == "t"
    assert [(e.where, e.reason) for e in report.errors] == [
        ("item 2", "`id` is None (a NULL column?): every record needs an id"),
        (
            "item 3",
            "record 'c': `text` is None (a NULL column?) and there is no title: nothing to remember",
        ),
    ]


@pytest.mark.postgres
async def test_postgres_server_side_cursor(
    tmp_path: Path, embedder: Any, gsm8k_subset: Callable[[int], Path]
) -> None:
    asyncpg = pytest.importorskip("asyncpg")
    rows = _questions(gsm8k_subset(30))
    conn = await asyncpg.connect(pg_dsn())
    cursors_seen: list[int] = []
    try:
        await conn.execute("DROP TABLE IF EXISTS memtrails_questions")
        await conn.execute(
            "CREATE TABLE memtrails_questions (id int PRIMARY KEY, question text, answer text)"
        )
        await conn.executemany("INSERT INTO memtrails_questions VALUES ($1, $2, $3)", rows)

        async def questions() -> AsyncIterator[Any]:
            async with conn.transaction():
                cursor = conn.cursor(
                    "SELECT id, question AS title, answer AS text FROM memtrails_questions ORDER BY id",
                    prefetch=5,
                )
                async for row in cursor:
                    if row["id"] % 10 == 0:
                        # The rows come through a cursor that lives on the server.
                        cursors_seen.append(await conn.fetchval("SELECT count(*) FROM pg_cursors"))
                    yield row

        async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
            report = await memory.ingest(questions(), name="pg:questions", batch=8)
            assert report.added == 30
            hit = (await memory.search(rows[11][1], k=1))[0]
            assert (hit.id, hit.source) == ("12", "pg:questions")
    finally:
        await conn.execute("DROP TABLE IF EXISTS memtrails_questions")
        await conn.close()
    assert cursors_seen and all(n >= 1 for n in cursors_seen)
