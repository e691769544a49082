"""The poller behind watched paths on file systems that send no events."""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from pathlib import Path

from memtrails.service._poll import poll_changes, snapshot


async def _next_change(targets: list[str], change: object, wanted: object = None) -> set[str]:
    ready = asyncio.Event()
    keep = wanted if callable(wanted) else (lambda p: True)
    changes = poll_changes(targets, keep, every=0.05, debounce=0.1, ready=ready)
    async with aclosing(changes):
        first = asyncio.ensure_future(anext(changes))
        try:
            await asyncio.wait_for(ready.wait(), 5)
            assert callable(change)
            change()
            return await asyncio.wait_for(first, 5)
        finally:
            first.cancel()


async def test_an_append_within_the_same_second_as_the_write_is_seen(tmp_path: Path) -> None:
    log = tmp_path / "chat.jsonl"
    log.write_text('{"id": "a"}\n')

    def append() -> None:
        with log.open("a") as f:
            f.write('{"id": "b"}\n')

    assert await _next_change([str(log)], append) == {str(log)}


async def test_a_rewrite_of_the_same_size_is_seen(tmp_path: Path) -> None:
    note = tmp_path / "a.md"
    note.write_text("tulips")

    def rewrite() -> None:
        tmp = tmp_path / "a.md.new"
        tmp.write_text("apples")
        tmp.replace(note)  # an editor's save: same size, new inode

    assert await _next_change([str(note)], rewrite) == {str(note)}


async def test_a_file_delivered_deep_in_a_folder_and_one_deleted(tmp_path: Path) -> None:
    (tmp_path / "box" / "new").mkdir(parents=True)
    (tmp_path / "box" / "cur").mkdir()
    (tmp_path / "box" / "cur" / "1").write_text("one")

    def deliver() -> None:
        (tmp_path / "box" / "new" / "2").write_text("two")
        (tmp_path / "box" / "cur" / "1").unlink()

    changed = await _next_change([str(tmp_path / "box")], deliver)
    assert changed == {str(tmp_path / "box" / "new" / "2"), str(tmp_path / "box" / "cur" / "1")}


def test_what_the_filter_refuses_is_not_walked(tmp_path: Path) -> None:
    (tmp_path / "notes" / ".git").mkdir(parents=True)
    (tmp_path / "notes" / ".git" / "HEAD").write_text("ref")
    (tmp_path / "notes" / "a.md").write_text("a")
    seen = snapshot([str(tmp_path / "notes"), str(tmp_path / "missing")], lambda p: ".git" not in p)
    assert list(seen) == [str(tmp_path / "notes" / "a.md")]
