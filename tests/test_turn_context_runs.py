"""A chat imported a turn at a time gets the vectors it would get imported at once.

Cron imports of a growing chat, `memtrails watch` and a service's appends each bring a few
new turns: the turns before them came in earlier runs, and the folder keeps their vectors
(``turns.npz``) so that the new turns still hold them (pipeline/turn_context.py).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from memtrails import Memory
from memtrails.folder.recent_turns import TURNS_FILE
from memtrails.testing import HashingEmbedder

CHAT = [
    ("1", "what did you grow in the garden"),
    ("2", "peppers and tomatoes mostly"),
    ("3", "one in eleven was spicy"),
    ("4", "Ella got that one"),
]
QUERY = "peppers tomatoes garden"


def _turns(ids: str) -> list[dict[str, str]]:
    return [{"id": i, "text": text, "kind": "chat", "thread": "s1"} for i, text in CHAT if i in ids]


async def _dense(memory: Memory) -> dict[str, float | None]:
    return {h.id: h.dense for h in await memory.search(QUERY, k=10)}


async def _at_once(path: Path) -> dict[str, float | None]:
    async with Memory.open(path, embedder=HashingEmbedder()) as memory:
        await memory.ingest(_turns("1234"), name="chat")
        return await _dense(memory)


def _same(got: dict[str, float | None], expected: dict[str, float | None]) -> None:
    assert got.keys() == expected.keys()
    for id_, dense in expected.items():
        assert got[id_] == pytest.approx(dense, abs=1e-4), id_


async def test_turns_imported_in_later_runs_hold_the_turns_before_them(tmp_path: Path) -> None:
    expected = await _at_once(tmp_path / "once")
    # "3" and "4" share no word with the question: only the turns before bring them close.
    assert (expected["3"] or 0.0) > 0.1
    path = tmp_path / "runs"
    for ids in ("12", "3", "4"):  # a run each, the folder closed between them
        async with Memory.open(path, embedder=HashingEmbedder()) as memory:
            report = await memory.ingest(_turns(ids), name="chat")
            assert report.added == len(ids)
    assert (path / TURNS_FILE).is_file()
    async with Memory.open(path, embedder=HashingEmbedder()) as memory:
        _same(await _dense(memory), expected)
        # And a reindex, which replays the log in one stream, gives the same again.
        assert await memory.reindex() == 4
        _same(await _dense(memory), expected)


async def test_runs_in_one_open_folder_hold_the_turns_before_them(tmp_path: Path) -> None:
    """A service keeps the folder open across the imports of its appends."""
    expected = await _at_once(tmp_path / "once")
    async with Memory.open(tmp_path / "open", embedder=HashingEmbedder()) as memory:
        for ids in ("1", "2", "3", "4"):
            await memory.ingest(_turns(ids), name="chat")
        _same(await _dense(memory), expected)


async def test_a_damaged_turns_file_is_said_and_the_import_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "m"
    async with Memory.open(path, embedder=HashingEmbedder()) as memory:
        await memory.ingest(_turns("12"), name="chat")
    (path / TURNS_FILE).write_bytes(b"not a numpy file")
    with caplog.at_level(logging.WARNING):
        async with Memory.open(path, embedder=HashingEmbedder()) as memory:
            report = await memory.ingest(_turns("3"), name="chat")
            assert (report.added, report.errors) == (1, [])
            got = await _dense(memory)
    assert any(TURNS_FILE in r.getMessage() for r in caplog.records)
    assert got["3"] is None or got["3"] < 0.1  # the turns before it were not known
    # A reindex builds the file again from the log.
    async with Memory.open(path, embedder=HashingEmbedder()) as memory:
        await memory.reindex()
        assert ((await _dense(memory))["3"] or 0.0) > 0.1


async def test_an_import_that_fails_leaves_no_turns_before_for_the_next(tmp_path: Path) -> None:
    """Turns an import embedded but never wrote (it stopped) are not taken as the turns
    before them when the next import brings them again."""
    expected = await _at_once(tmp_path / "once")

    def broken() -> Iterator[dict[str, str]]:
        yield from _turns("123")
        raise RuntimeError("the cursor's connection dropped")

    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        with pytest.raises(Exception, match="connection dropped"):
            await memory.ingest(broken(), name="chat", batch=64)
        await memory.ingest(_turns("1234"), name="chat")
        _same(await _dense(memory), expected)
