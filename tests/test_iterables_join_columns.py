"""A DB-API cursor's plain tuples named by its columns: a join that names two columns alike
(``SELECT n.id, n.text, u.id``) gives the record the first one's value, as ``sqlite3.Row``
does, and keeps the other as ``id_2`` in ``meta``; before, the last one won and the notes
took their users' ids (two notes of one user collided, one of them lost)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memtrails import Memory
from memtrails.testing import HashingEmbedder


async def test_a_joins_repeated_column_names_keep_the_first_as_the_id(tmp_path: Path) -> None:
    db = sqlite3.connect(":memory:")
    db.executescript(
        """
        CREATE TABLE notes (id INTEGER, text TEXT, user INTEGER);
        CREATE TABLE users (id INTEGER, name TEXT);
        INSERT INTO notes VALUES (1, 'first', 7), (2, 'second', 7), (3, 'third', 8);
        INSERT INTO users VALUES (7, 'ann'), (8, 'bob');
        """
    )
    query = "SELECT n.id, n.text, u.id, u.name, u.id FROM notes n JOIN users u ON u.id = n.user"
    async with Memory.open(tmp_path, embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(db.execute(query), name="notes")
        got = {rid: await memory.get(rid, source="notes") for rid in ("1", "2", "3", "7")}
        db.row_factory = sqlite3.Row  # the same query with rows that name their columns
        again = await memory.ingest(db.execute(query), name="notes")
    assert (report.added, report.errors) == (3, [])
    assert got["7"] is None
    first = got["1"]
    assert first is not None and first.text == "first"
    assert (first.meta["id_2"], first.meta["id_3"], first.meta["name"]) == (7, 7, "ann")
    assert again.errors == [] and again.added == 0
