"""A damaged line in the log (a flipped byte, a hand edit) leaves its record out of the
searches that meet it, says so, and names the line where that record is asked for: before,
every search that ranked the record among its results failed, with JSON's own words."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from memtrails import FolderFormatError, Memory, MemoryRecord
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.timeout(120)


def _damage(log: Path, record_id: str, old: bytes, new: bytes) -> int:
    """Replace ``old`` by ``new`` (as long: the table still covers the log, as after a
    flipped byte) in the line of ``record_id``; return the line's offset."""
    data = log.read_bytes()
    start = data.index(b'"id":"%s"' % record_id.encode())
    start = data.rindex(b"\n", 0, start) + 1
    end = data.index(b"\n", start)
    line = data[start:end]
    assert old in line
    log.write_bytes(data[:start] + line.replace(old, new, 1) + data[end:])
    return start


async def test_a_damaged_line_leaves_its_record_out_not_the_search(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    home = tmp_path / "m"
    embedder = HashingEmbedder()
    # Turns of one chat (the search reads their neighbours) and a question asking when (it
    # reads the passages of the best turns for a time).
    turns = [
        MemoryRecord(
            id=f"t{n}",
            text=f"apples and pears, turn {n}, on Monday",
            kind="chat",
            author="ann" if n % 2 else "bo",
            thread="orchard",
        )
        for n in range(30)
    ]
    async with Memory.open(home, embedder=embedder) as memory:
        await memory.ingest(turns)
    broken = _damage(home / "records.jsonl", "t7", b'"text":', b'"text"!')
    renamed = _damage(home / "records.jsonl", "t9", b'"text":', b'"texx":')  # JSON, no text
    caplog.set_level(logging.WARNING, logger="memtrails")
    async with Memory.open(home, embedder=embedder) as memory:
        hits = await memory.search("when did we talk about apples and pears?", k=30)
        assert sorted(h.id for h in hits) == sorted(f"t{n}" for n in range(30) if n not in (7, 9))
        said = caplog.text
        assert f"byte {broken}" in said and f"byte {renamed}" in said
        assert "records.jsonl" in said and "memtrails check" in said
        with pytest.raises(FolderFormatError, match=f"byte {broken} is damaged"):
            await memory.get("t7")
        with pytest.raises(FolderFormatError, match=f"byte {renamed} holds no record"):
            await memory.get("t9")
        assert (await memory.get("t8")) is not None


async def test_check_finds_a_line_changed_after_it_was_written(tmp_path: Path) -> None:
    """A byte changed inside a record's text leaves its line valid JSON: the check knows it
    by the record's fingerprint (before, it said the folder was whole)."""
    home = tmp_path / "m"
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        await memory.ingest(
            [MemoryRecord(id=f"n{n}", text=f"note {n} on boilers") for n in range(9)]
        )
        assert (await memory.check()).ok
    changed = _damage(home / "records.jsonl", "n4", b"boilers", b"boilerZ")
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        report = await memory.check()
    assert not report.ok
    [said] = [p for p in report.problems if f"byte {changed}" in p]
    assert "'n4'" in said and "no longer matches its fingerprint" in said
