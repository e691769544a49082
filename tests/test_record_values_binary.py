"""A UUID kept as 16 raw bytes (MySQL's ``BINARY(16)``, a SQLite BLOB) is the UUID's string,
as psycopg's ``uuid.UUID`` is; a NULL text column is an empty text, and a row with neither
text nor title is an error naming it."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

from memtrails import Memory
from memtrails.pipeline.normalise import normalise_item
from memtrails.record_values import binary_uuid, id_value, meta_value
from memtrails.records import MemoryRecord, RecordError
from memtrails.testing import HashingEmbedder


def test_sixteen_bytes_that_are_no_text_are_a_uuid() -> None:
    for n in range(200):
        made = uuid.uuid5(uuid.NAMESPACE_URL, f"row {n}")
        assert id_value("id", made.bytes) == str(made) == id_value("id", made)
        assert meta_value("user_id", memoryview(made.bytes)) == str(made)
    assert id_value("id", b"ORD-000000000001") == "ORD-000000000001"  # printable: text
    assert binary_uuid(b"\x00" * 15) is None and binary_uuid(b"\x00" * 17) is None


async def test_a_sqlite_blob_uuid_id_is_the_same_record_as_its_uuid(tmp_path: Path) -> None:
    conn = sqlite3.connect(":memory:")
    conn.row_factory = sqlite3.Row
    conn.execute("CREATE TABLE notes (id BLOB, text TEXT, owner BLOB)")
    ids = [uuid.uuid4() for _ in range(20)]
    conn.executemany(
        "INSERT INTO notes VALUES (?, ?, ?)",
        [(u.bytes, f"note {n}", u.bytes) for n, u in enumerate(ids)],
    )
    async with Memory.open(tmp_path, embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(conn.execute("SELECT * FROM notes"), name="notes")
        assert (report.added, report.errors) == (20, [])
        # The same rows from PostgreSQL (uuid.UUID): the same records, unchanged.
        again = [{"id": u, "text": f"note {n}", "owner": u} for n, u in enumerate(ids)]
        assert (await memory.ingest(again, name="notes")).unchanged == 20
        got = await memory.get(str(ids[3]), source="notes")
    assert got is not None and got.meta["owner"] == str(ids[3])


def test_a_null_text_with_a_title_is_the_title_and_without_one_an_error() -> None:
    titled = normalise_item({"id": 1, "text": None, "title": "Kept"}, "rows", 1)
    assert isinstance(titled, MemoryRecord) and (titled.text, titled.title) == ("", "Kept")
    bare = normalise_item({"id": 2, "text": None, "title": None}, "rows", 2)
    assert isinstance(bare, RecordError) and bare.where == "item 2"
    assert bare.reason.startswith("record '2': `text` is None (a NULL column?)")
    no_id = normalise_item({"id": None, "text": "x"}, "rows", 3)
    assert isinstance(no_id, RecordError)
    assert no_id.reason == "`id` is None (a NULL column?): every record needs an id"
