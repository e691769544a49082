"""A full pass over a JSON Lines file: unchanged lines found by their digest store exactly what parsing would."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from helpers import in_tz

import memtrails.importers.jsonl as jsonl
import memtrails.pipeline.normalise as normalise_stage
import memtrails.pipeline.prepare as prepare
from memtrails import Limits, Memory
from memtrails.importers.contract import Resumable
from memtrails.importers.jsonl import from_jsonl
from memtrails.records import ImportReport, MemoryRecord, SourceState
from memtrails.testing import HashingEmbedder


async def _parsed(path: Path, **kw: Any) -> AsyncIterator[Any]:
    """The same importer read record by record: Memory.ingest cannot ask it for raw lines."""
    async for item in from_jsonl(path, **kw):
        yield item


async def _ingest(folder: Path, source: Any, **kw: Any) -> ImportReport:
    """Import ``source`` in full: an importer read whole, not resumed from its position (the
    full pass is what these tests are about)."""
    if isinstance(source, Resumable):
        kw.setdefault("full", True)
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        return await memory.ingest(source, **kw)


def _summary(report: ImportReport) -> tuple[Any, ...]:
    return (
        report.added,
        report.updated,
        report.unchanged,
        sorted(str(e) for e in report.errors),
        dict(report.secrets),
        report.cut,
    )


def _stored(folder: Path) -> tuple[bytes, Any]:
    """The folder's log and the positions it saved (but when): what a full pass must not change."""
    positions = json.loads((folder / "sources.json").read_text())
    for entry in positions.values():
        entry.pop("saved", None)
    return (folder / "records.jsonl").read_bytes(), positions


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the JSON Lines lines parsed into records (every line the digest did not settle)."""
    calls: list[int] = []
    parse = jsonl._item

    def counting(*args: Any) -> Any:
        calls.append(args[1])
        return parse(*args)

    monkeypatch.setattr(jsonl, "_item", counting)
    return calls


def _to_version_1(folder: Path) -> None:
    """Make the folder's table what memtrails wrote before raw digests (schema version 1)."""
    db = sqlite3.connect(folder / "table.sqlite")
    db.executescript(
        "DROP INDEX records_by_raw; ALTER TABLE records DROP COLUMN raw;"
        " UPDATE meta SET value = 1 WHERE key = 'version';"
    )
    db.commit()
    db.close()


@pytest.mark.slow
async def test_a_folder_built_before_finds_every_record_unchanged_then_reads_no_line(
    gsm8k_subset: Any, tmp_path: Path, counted: list[int]
) -> None:
    path = gsm8k_subset(300)  # the real corpus: no id field, records named by line number
    folder = tmp_path / "m"
    first = await _ingest(folder, _parsed(path))
    assert first.added == 300
    _to_version_1(folder)
    before = _stored(folder)
    counted.clear()

    again = await _ingest(folder, from_jsonl(path))
    assert (again.added, again.updated, again.unchanged) == (0, 0, 300)
    assert len(counted) == 300  # no digest yet: every line parsed, and its digest kept
    assert _stored(folder) == before
    counted.clear()

    third = await _ingest(folder, from_jsonl(path))
    assert (third.added, third.updated, third.unchanged, third.embedded) == (0, 0, 300, 0)
    assert counted == []
    assert _stored(folder) == before
    db = sqlite3.connect(folder / "table.sqlite")
    assert db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone() == (2,)
    assert db.execute("SELECT count(*) FROM records WHERE raw IS NOT NULL").fetchone() == (300,)
    db.close()


def _lines(rows: list[Any]) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows)


ROWS: list[Any] = [
    {"id": "a", "text": "first", "at": "2024-03-01T12:00:00"},  # no zone: local time
    {"text": "no id: named by its line"},
    {"id": "b", "text": "token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB in it"},
    "",
    {"id": "a", "text": "same id, other content: the newer version, the one kept"},
    {"id": "c", "text": "x" * 300},
    "{not json",
    {"id": "b", "text": "token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB in it"},
    {
        "id": "d",
        "title": "a title",
        "text": "  padded\u00a0 ",
        "tags": ["x", {"password": "hunter22"}],
    },
    {"question": "id-less again", "answer": "42"},
]


@pytest.mark.slow
async def test_digests_store_what_parsing_stores_through_edits(
    tmp_path: Path, counted: list[int]
) -> None:
    path = tmp_path / "rows.jsonl"
    limits = Limits(max_text_units=100)
    edits = [
        ROWS,
        ROWS,  # unchanged: the digests answer
        [{"id": "new", "text": "a line on top moves the numbered ones"}, *ROWS],
        [*ROWS[:5], {"id": "c", "text": "c edited"}, *ROWS[6:]],
        [*ROWS[:5], {"id": "c", "text": "c edited"}, *ROWS[6:]],
    ]
    raw_parsed = []
    for step, rows in enumerate(edits):
        path.write_text(_lines(rows))
        before = len(counted)
        by_digest = await _ingest(tmp_path / "raw", from_jsonl(path), limits=limits, prune=True)
        raw_parsed.append(len(counted) - before)
        by_record = await _ingest(tmp_path / "parsed", _parsed(path), limits=limits, prune=True)
        assert _summary(by_digest) == _summary(by_record), step
        assert _stored(tmp_path / "raw") == _stored(tmp_path / "parsed"), step
    assert (by_digest.unchanged, by_digest.duplicates) == (6, 1)
    # Of the 9 lines of the unchanged pass, only these are parsed: the second "a" and the
    # second copy of "b", made while the ids are read ahead (a line that gives an id again
    # replaces the earlier line only when it makes a record: the first "a" is then an error,
    # the first "b" a duplicate), and the broken line.
    assert raw_parsed[1] == 3
    # Once more unchanged after the edits: again only those three.
    assert raw_parsed[4] == 3


async def test_a_new_rule_set_other_limits_or_another_time_zone_read_every_line_again(
    tmp_path: Path, counted: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(
        _lines(
            [
                {"id": f"r{i}", "text": f"record {i} " * 5, "at": "2024-03-01T12:00:00"}
                for i in range(20)
            ]
        )
    )
    folder = tmp_path / "m"
    with in_tz("UTC"):
        assert (await _ingest(folder, from_jsonl(path))).added == 20
        counted.clear()
        assert (await _ingest(folder, from_jsonl(path))).unchanged == 20
        assert counted == []

        # Another rule set must scrub every record again: every line is read, and found
        # unchanged by its fingerprint (these hold no secret).
        monkeypatch.setattr("memtrails.ingest.RULES_VERSION", "another rule set")
        report = await _ingest(folder, from_jsonl(path))
        assert (report.unchanged, len(counted)) == (20, 20)
        counted.clear()

        # Other limits make other records: as reading them would.
        report = await _ingest(folder, from_jsonl(path), limits=Limits(max_text_units=10))
        assert (report.updated, report.cut, len(counted)) == (20, 20, 20)
        counted.clear()
        report = await _ingest(folder, from_jsonl(path), limits=Limits(max_text_units=10))
        assert (report.unchanged, counted) == (20, [])

    # A date without a zone is local time: in another zone it is another instant.
    with in_tz("Asia/Tokyo"):
        report = await _ingest(folder, from_jsonl(path), limits=Limits(max_text_units=10))
    assert (report.updated, len(counted)) == (20, 20)


class _Opaque(str):
    """A string whose repr does not tell two apart: never digested."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<opaque>"


def _rows(edit: str) -> list[Any]:
    zone = timezone(timedelta(hours=2))
    return [
        {"id": "1", "text": "plain row", "at": datetime(2024, 3, 1, 12, 0)},  # naive: local
        {"id": "2", "text": f"aware {edit}", "at": datetime(2024, 3, 1, 12, 0, tzinfo=zone)},
        {"id": 3, "text": "int id", "meta": {"tags": ("a", "b"), "n": 1.5, "ok": True}},
        {"id": "4", "text": "nested", "meta": {"deep": [[{"x": None}]], "day": "2024-01-02"}},
        MemoryRecord(id="5", text="a record", meta={"password": "hunter2hunter2"}),
        {"id": "6", "text": "a str subclass", "meta": {"o": _Opaque(edit)}},
        {"id": "7", "text": "no text field"}
        if edit == "v1"
        else {"id": "7", "title": "t only", "text": ""},
    ]


async def test_rows_and_records_are_digested_when_their_values_are_plain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Any] = []
    normalise = normalise_stage.normalise_item

    def counting(item: Any, *args: Any) -> Any:
        seen.append(item)
        return normalise(item, *args)

    # the normalise stage looks its function up when it runs: every item goes through it
    monkeypatch.setattr(normalise_stage, "normalise_item", counting)
    for step, edit in enumerate(["v1", "v1", "v2", "v2"]):
        seen.clear()
        by_digest = await _ingest(tmp_path / "digest", _rows(edit), prune=True)
        records_read = sum(1 for item in seen if not isinstance(item, SourceState))
        with monkeypatch.context() as m:
            m.setattr(prepare._Work, "_digest", lambda self, item: None)
            by_record = await _ingest(tmp_path / "read", _rows(edit), prune=True)
        assert _summary(by_digest) == _summary(by_record), step
        assert (tmp_path / "digest" / "records.jsonl").read_bytes() == (
            tmp_path / "read" / "records.jsonl"
        ).read_bytes(), step
        if step in (1, 3):  # nothing changed since the step before: only the row holding a
            # str subclass (whose repr proves nothing) is read again
            assert (by_digest.unchanged, records_read) == (7, 1), step
    assert (by_digest.added, by_digest.updated, by_digest.unchanged) == (0, 0, 7)


@pytest.mark.slow
async def test_an_object_whose_repr_hides_its_value_is_never_digested(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    first = await _ingest(folder, [{"id": "o", "text": _Opaque("one")}])
    assert first.added == 1
    # Same repr, other value: a digest would call it unchanged; it is read and updated.
    report = await _ingest(folder, [{"id": "o", "text": _Opaque("two")}])
    assert report.updated == 1
