"""JSON Lines: a line that gives an id an earlier line gave is the record's newer version.

Read from where the last run stopped, an appended line with a known id updates the record;
a full read keeps the same version, so the stored record never goes back to an older line,
and the line not kept is named (an error), or counted as a duplicate when it is a copy.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

from helpers import collect, errors, records

from memtrails import Memory
from memtrails.importers.jsonl import from_jsonl
from memtrails.testing import HashingEmbedder


def _lines(*rows: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in rows)


V1 = {"id": "a", "text": "ticket opened"}
B = {"id": "b", "text": "another ticket"}
V2 = {"id": "a", "text": "ticket closed"}
V3 = {"id": "a", "text": "ticket reopened"}


async def test_the_last_line_with_an_id_is_its_record_and_the_older_is_named(
    tmp_path: Path,
) -> None:
    path = tmp_path / "tickets.jsonl"
    path.write_bytes(_lines(V1, B, V2))
    items = await collect(from_jsonl(path))
    assert [(r.id, r.text) for r in records(items)] == [("b", B["text"]), ("a", V2["text"])]
    (error,) = errors(items)
    assert error.where == "line 1"
    assert error.reason == (
        "id 'a' is given again on line 3, the record's newer version: this line is not kept"
    )


async def test_a_full_read_keeps_the_version_an_appended_line_gave(tmp_path: Path) -> None:
    path = tmp_path / "tickets.jsonl"
    path.write_bytes(_lines(V1, B, V2))
    source = str(path.resolve())
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        first = await memory.ingest(from_jsonl(path))
        assert (first.added, [e.where for e in first.errors]) == (2, ["line 1"])
        with path.open("ab") as f:
            f.write(_lines(V3))
        appended = await memory.ingest(from_jsonl(path))  # from where the last run stopped
        assert (appended.updated, appended.errors) == (1, [])
        got = await memory.get("a", source=source)
        assert got is not None and got.text == V3["text"]
        again = await memory.ingest(from_jsonl(path), full=True)
        assert (again.added, again.updated, again.unchanged) == (0, 0, 2)
        assert [e.where for e in again.errors] == ["line 1", "line 3"]
        got = await memory.get("a", source=source)
        assert got is not None and got.text == V3["text"]


async def test_a_copy_of_a_line_is_a_duplicate_not_an_error(tmp_path: Path) -> None:
    path = tmp_path / "export.jsonl"
    path.write_bytes(_lines(V1, B, V1))
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(from_jsonl(path))
    assert (report.added, report.duplicates, report.errors) == (2, 1, [])


async def test_a_later_line_that_is_no_record_replaces_nothing(tmp_path: Path) -> None:
    path = tmp_path / "export.jsonl"
    path.write_bytes(_lines(V1, {"id": "a", "text": "x", "date": "Tuesday"}))
    items = await collect(from_jsonl(path))
    assert [(r.id, r.text) for r in records(items)] == [("a", V1["text"])]
    assert [(e.where, e.reason) for e in errors(items)] == [
        ("line 2", "field 'date': not a date: 'Tuesday'")
    ]


async def test_mapped_ids_and_compressed_files_alike(tmp_path: Path) -> None:
    rows = [{"key": 7, "body": "first"}, {"key": 7, "body": "second"}]
    path = tmp_path / "export.jsonl.gz"
    path.write_bytes(gzip.compress(_lines(*rows)))
    items = await collect(from_jsonl(path, fields={"id": "key"}))
    assert [(r.id, r.text) for r in records(items)] == [("7", "second")]
    assert [e.where for e in errors(items)] == ["line 1"]


async def test_a_pipe_read_once_keeps_the_first_and_names_the_later_line(
    tmp_path: Path,
) -> None:
    read_fd, write_fd = os.pipe()
    with os.fdopen(write_fd, "wb") as writer:
        writer.write(_lines(V1, B, V2, V1))
    try:
        items = await collect(from_jsonl(Path(f"/dev/fd/{read_fd}"), source="pipe"))
    finally:
        os.close(read_fd)
    assert [(r.id, r.text) for r in records(items)] == [("a", V1["text"]), ("b", B["text"])]
    (error,) = errors(items)
    assert error.where == "line 3"
    assert "given on line 1 already" in error.reason


async def test_copies_are_counted_when_the_lines_are_read_unparsed(tmp_path: Path) -> None:
    # Memory.ingest reads the lines unparsed; their positions are corrected once the lines
    # that were no record are known, and keep the duplicates counted so far.
    path = tmp_path / "export.jsonl"
    path.write_bytes(_lines(V1, B, V1, V1, {"id": "c", "text": "x"}) + b"{not json\n")
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(from_jsonl(path, checkpoint_every=2))
    assert (report.added, report.duplicates, len(report.errors)) == (3, 2, 1)


async def test_an_id_unique_by_construction_names_its_record(tmp_path: Path) -> None:
    # A MongoDB export's "_id" (its Extended JSON's {"$oid": ...}), a "uuid" or a "guid" is
    # the record's id where the line has no "id": inserting a line no longer renames every
    # record after it, and a line giving it again is the record's newer version.
    path = tmp_path / "export.jsonl"
    oid = {"$oid": "6634f0c2a1b2c3d4e5f60718"}
    path.write_bytes(
        _lines(
            {"_id": oid, "text": "from mongoexport"},
            {"uuid": "0b7e6d1c-5f1a-4c8e-9a51-3d2f1e0c9b8a", "text": "first"},
            {"guid": "{9F1A...}", "text": "from a .NET tool"},
            {"uuid": "0b7e6d1c-5f1a-4c8e-9a51-3d2f1e0c9b8a", "text": "edited"},
        )
    )
    items = await collect(from_jsonl(path))
    got = [(r.id, r.text, sorted(r.meta)) for r in records(items)]
    assert got == [
        ("6634f0c2a1b2c3d4e5f60718", "from mongoexport", []),
        ("{9F1A...}", "from a .NET tool", []),
        ("0b7e6d1c-5f1a-4c8e-9a51-3d2f1e0c9b8a", "edited", []),
    ]
    assert ["given again on line 4" in e.reason for e in errors(items)] == [True]
    # Named in fields=, an $oid is its string too (it was an error on every line).
    mapped = await collect(from_jsonl(path, fields={"id": "_id"}))
    assert next(r.id for r in records(mapped)) == "6634f0c2a1b2c3d4e5f60718"


async def test_an_id_scoped_to_something_else_stays_in_meta(tmp_path: Path) -> None:
    # Two chats in one file each have a message 1 (LoCoMo's "dia_id", a chat's "message_id"):
    # read as ids, the second would replace the first. An "_id" that is no id is not one.
    path = tmp_path / "chats.jsonl"
    path.write_bytes(
        _lines(
            {"message_id": 1, "dia_id": "D1:1", "msgId": "1", "text": "hi"},
            {"message_id": 1, "dia_id": "D1:1", "msgId": "1", "text": "hello"},
            {"_id": {"a": 1}, "uuid": "", "text": "odd"},
        )
    )
    items = await collect(from_jsonl(path))
    assert errors(items) == []
    got = [(r.id, sorted(r.meta)) for r in records(items)]
    assert got == [
        ("chats.jsonl:1", ["dia_id", "message_id", "msgId"]),
        ("chats.jsonl:2", ["dia_id", "message_id", "msgId"]),
        ("chats.jsonl:3", ["_id", "uuid"]),
    ]
