"""A damaged line in the middle of records.jsonl whose length changed (bytes inserted or lost
by a disk error or an editor's save, a newline lost or gained) leaves its record out and
names the line: the folder opens, searches find every other record, `check` lists the line,
`check --repair` rebuilds what the log can, and later opens are clean. Before, the table's
rebuild stopped at the line and the folder refused to open."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memtrails import FolderFormatError, Memory, MemoryRecord
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.timeout(300)

RECORDS = [
    MemoryRecord(id=f"r{n}", text=f"pears and plums from basket number {n}") for n in range(30)
]
NTH = 12  # the line damaged: one in the middle of the log


def _insert_in_body(line: bytes) -> bytes:
    at = line.index(b'"id":')
    return line[:at] + b"\x00garbage " + line[at:]


def _insert_at_start(line: bytes) -> bytes:
    return b"#~" + line


def _cut_mid_line(line: bytes) -> bytes:
    return line[: len(line) // 3] + line[len(line) // 2 :]


def _lose_newline(line: bytes) -> bytes:
    return line.rstrip(b"\n")  # the next line is joined to this one


def _gain_newline(line: bytes) -> bytes:
    return line[: len(line) // 2] + b"\n" + line[len(line) // 2 :]


def _zeros_inserted(line: bytes) -> bytes:
    return line[:100] + b"\x00" * 700 + line[100:]


DAMAGE: dict[str, Callable[[bytes], bytes]] = {
    "bytes inserted in the body": _insert_in_body,
    "bytes inserted before the line": _insert_at_start,
    "bytes lost mid-line": _cut_mid_line,
    "a newline lost": _lose_newline,
    "a newline gained": _gain_newline,
    "a run of zeros inserted": _zeros_inserted,
}


def damage(home: Path, nth: int, how: Callable[[bytes], bytes]) -> tuple[int, set[str]]:
    """Damage line ``nth`` of the log with ``how``; return the damaged line's offset and the
    ids of the records whose line is still whole in the log."""
    log = home / "records.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    offset = sum(len(line) for line in lines[:nth])
    before = list(lines)
    lines[nth] = how(lines[nth])
    damaged = b"".join(lines)
    log.write_bytes(damaged)
    whole = set(damaged.splitlines(keepends=True))
    return offset, {json.loads(line)["id"] for line in before if line in whole}


async def _unread(memory: Memory, record_id: str, offset: int) -> bool:
    """Whether ``record_id`` is not read: absent, or its line named as damaged."""
    try:
        return await memory.get(record_id) is None
    except FolderFormatError as exc:
        return f"byte {offset} is damaged" in str(exc)


async def _ids(memory: Memory) -> set[str]:
    return {h.id for h in await memory.search("pears and plums from basket", k=100)}


@pytest.mark.parametrize("how", list(DAMAGE), ids=list(DAMAGE))
async def test_a_line_of_another_length_leaves_its_record_out_and_the_folder_opens(
    tmp_path: Path, how: str, caplog: pytest.LogCaptureFixture
) -> None:
    home = tmp_path / "m"
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        await memory.ingest(RECORDS)
    offset, kept = damage(home, NTH, DAMAGE[how])
    assert RECORDS[NTH].id not in kept and len(kept) >= len(RECORDS) - 2
    caplog.set_level(logging.WARNING, logger="memtrails")
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        said = " | ".join(memory.repairs) + caplog.text
        assert await _ids(memory) == kept
        assert await _unread(memory, RECORDS[NTH].id, offset)
        found = await memory.check()
    assert "records.jsonl" in said and f"byte {offset}" in said, said
    assert not found.ok
    assert any(f"records.jsonl: line at byte {offset} " in p for p in found.problems)
    async with Memory.open(home, embedder=HashingEmbedder(), catch_up=False) as memory:
        fixed = await memory.check(repair=True)
        assert await _ids(memory) == kept
    # What is left is the damaged line itself: the log is never rewritten.
    assert fixed.problems and all(p.startswith("records.jsonl: ") for p in fixed.problems)
    assert fixed.records == len(kept) and fixed.indexed == len(kept) and not fixed.missing
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        assert memory.repairs == []
        assert await _ids(memory) == kept
        # Adding the damaged records again brings them back.
        await memory.ingest(RECORDS)
        assert await _ids(memory) == {r.id for r in RECORDS}


def _first_bytes_damaged(line: bytes) -> bytes:
    return b"\x00\x00" + line


async def test_a_damaged_tombstone_keeps_its_record_forgotten(tmp_path: Path) -> None:
    home = tmp_path / "m"
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        await memory.ingest(RECORDS[:10])
        assert await memory.forget("r4") == 1
        await memory.ingest(RECORDS[10:20])
    lines = (home / "records.jsonl").read_bytes().splitlines()
    [tomb] = [n for n, line in enumerate(lines) if b'"deleted":true' in line]
    damage(home, tomb, _insert_in_body)
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        assert await memory.get("r4") is None
        assert await _ids(memory) == {r.id for r in RECORDS[:20]} - {"r4"}


async def test_a_damaged_new_version_does_not_bring_back_the_old_one(tmp_path: Path) -> None:
    home = tmp_path / "m"
    new = MemoryRecord(id="r3", text="quinces now, from basket number 3")
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        await memory.ingest(RECORDS[:10])
        await memory.ingest([new])
        await memory.ingest(RECORDS[10:15])
    damage(home, 10, _first_bytes_damaged)  # r3's new version, before five more lines
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        assert await memory.get("r3") is None
        assert "r3" not in await _ids(memory)
        await memory.ingest([new])
        got = await memory.get("r3")
        assert got is not None and got.text == new.text


async def test_check_repair_lets_a_same_length_damaged_record_be_added_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A byte flipped inside a line keeps its length: opening reads the line's first bytes
    only and keeps the record's row, so adding the record again said "unchanged" and it
    stayed unreadable; after `check --repair` it comes back."""
    home = tmp_path / "m"
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        await memory.ingest(RECORDS)
    offset, _ = damage(home, NTH, lambda line: line.replace(b'"text":', b'"text"!', 1))
    lost = RECORDS[NTH].id
    caplog.set_level(logging.WARNING, logger="memtrails")
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        fixed = await memory.check(repair=True)
        assert f"records.jsonl: the line at byte {offset} is damaged" in caplog.text
        assert [p for p in fixed.problems if not p.startswith("records.jsonl: line at")] == []
        await memory.ingest(RECORDS)
        got = await memory.get(lost)
        assert got is not None and got.text == RECORDS[NTH].text
        assert lost in await _ids(memory)


@pytest.mark.slow
async def test_check_repair_keeps_every_good_record_searchable_with_the_model(
    tmp_path: Path, embedder: Any
) -> None:
    """With the real model and index: after `check --repair` of a folder whose log lost
    bytes mid-file, each record on a whole line is still found by its own words."""
    home = tmp_path / "m"
    topics = ["a leaking boiler", "the violin lesson", "a flat bicycle tyre", "tax forms"]
    records = [
        MemoryRecord(id=f"n{n}", text=f"note {n}: {topics[n % 4]} on day {n}") for n in range(24)
    ]
    async with Memory.open(home, embedder=embedder) as memory:
        await memory.ingest(records)
    log = home / "records.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    lines[5] = _cut_mid_line(lines[5])
    log.write_bytes(b"".join(lines))
    async with Memory.open(home, embedder=embedder, catch_up=False) as memory:
        fixed = await memory.check(repair=True)
        assert fixed.indexed == len(records) - 1
        hits = await memory.search("note about a boiler, violin, bicycle or taxes", k=100)
        assert {h.id for h in hits} == {r.id for r in records} - {"n5"}
        for record in records[6::5]:  # records after the damaged line
            [first, *_] = await memory.search(record.text, k=3)
            assert first.id == record.id


async def test_check_repair_reindexes_past_a_damaged_line(tmp_path: Path) -> None:
    """A record lost its points, and a line before it is damaged: the repair rebuilds the
    index from the log, reading past the damaged line. Before, it stopped there, with the
    index emptied: every record after the line had lost its points."""
    home = tmp_path / "m"
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        await memory.ingest(RECORDS)
        lines = (home / "records.jsonl").read_bytes().splitlines()
        [uid] = [json.loads(line)["uid"] for line in lines if b'"id":"r20"' in line]
        await memory._folder.index.delete_uids([uid])
        await memory._folder.index.flush()
    _, kept = damage(home, NTH, lambda line: line.replace(b'"text":', b'"text"!', 1))
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        found = await memory.check()
        assert found.missing
        fixed = await memory.check(repair=True)
        assert not fixed.missing and fixed.indexed == len(kept)
        assert await _ids(memory) == kept
