"""A cron job over a growing mbox: the second run reads and embeds only what was appended."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import message_starts

from memtrails import Memory
from memtrails.add import add_path


@pytest.mark.slow
async def test_appending_ten_messages_embeds_exactly_ten(
    corpora: Path, tmp_path: Path, embedder: Any
) -> None:
    real = corpora / "mbox" / "twisted-web-2005-December.mbox"
    data = real.read_bytes()
    starts = await message_starts(real)
    cut = starts[-10]
    archive = tmp_path / "inbox.mbox"
    archive.write_bytes(data[:cut])

    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        first = await add_path(memory, archive)
        assert first.added == len(starts) - 10
        assert [(s.mode, s.why) for s in first.sources] == [("full", None)]

        with archive.open("ab") as f:
            f.write(data[cut:])
        second = await add_path(memory, archive)
        assert (second.added, second.embedded) == (10, 10)
        # only the last message of the first run was read again (it might have been growing);
        # the ones before it count as unchanged without being read
        assert second.unchanged == len(starts) - 10
        (src,) = second.sources
        assert (src.mode, src.read) == ("incremental", 11)

        third = await add_path(memory, archive)
        assert (third.added, third.embedded, third.unchanged) == (0, 0, len(starts))
        assert third.sources[0].read == 1

        # --full reads everything and still embeds nothing
        full = await add_path(memory, archive, full=True)
        assert (full.added, full.embedded, full.unchanged) == (0, 0, len(starts))
        assert full.sources[0].mode == "full"
        assert (await memory.status()).records == len(starts)


@pytest.mark.slow
async def test_prune_removes_only_what_left_this_source(
    corpora: Path, tmp_path: Path, embedder: Any
) -> None:
    real = corpora / "mbox" / "mimekit-content-length.mbox"
    data = real.read_bytes()
    starts = await message_starts(real)
    archive = tmp_path / "a.mbox"
    archive.write_bytes(data[: starts[6]])  # six messages
    other = tmp_path / "notes.jsonl"
    other.write_text('{"id": "keep", "text": "a note from another source"}\n')
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        await add_path(memory, archive)
        await add_path(memory, other)
        before = await memory.status()
        # drop the third message from the archive
        archive.write_bytes(data[: starts[2]] + data[starts[3] : starts[6]])
        pruned = await add_path(memory, archive, prune=True)
        assert pruned.removed == 1 and pruned.added == 0
        after = await memory.status()
        assert after.records == before.records - 1
        assert after.sources[str(other.resolve())] == 1
        # an emptied source prunes nothing
        archive.write_bytes(b"")
        empty = await add_path(memory, archive, prune=True)
        assert empty.removed == 0
        assert (await memory.status()).records == after.records
