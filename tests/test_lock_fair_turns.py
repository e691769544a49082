"""Readers that open the folder back to back (a `search` loop, two of them) do not starve an
import that waits for it: the import gets the folder within a bounded number of reader turns
(``memory.lock.next``). Counted in turns, never in seconds: each reader thread runs its own
event loop, as a process of its own would, and takes the lock as `search` does (READER,
brief), holding it while it reads."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from memtrails import Memory
from memtrails.folder.lock import READER, acquire_lock
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.slow

READERS = 2
# Past this many reader turns after the writer asked, it is starved: the readers stop.
GIVE_UP = 200
# A reader holding the folder as the writer asks, and one past the writer's check of the
# line as it staked its place, each finish their turn; a fresh reader then waits.
BOUND = 2 * READERS


def _reader(home: Path, turns: list[str], stop: threading.Event) -> None:
    async def loop() -> None:
        while not stop.is_set() and len(turns) < GIVE_UP:
            lock = await acquire_lock(home, role=READER, wait=600, wait_writer=600)
            try:
                turns.append("reader")
                # What a search does while it holds the folder: read files, in threads.
                await asyncio.to_thread((home / "manifest.json").read_bytes)
                await asyncio.sleep(0.005)
            finally:
                lock.release()

    asyncio.run(loop())


async def test_a_loop_of_readers_lets_a_waiting_import_in_within_a_few_turns(
    tmp_path: Path,
) -> None:
    home = tmp_path / "memory"
    await (await Memory.open(home, embedder=HashingEmbedder())).aclose()
    turns: list[str] = []
    stop = threading.Event()
    readers = [
        threading.Thread(target=_reader, args=(home, turns, stop), daemon=True)
        for _ in range(READERS)
    ]
    for thread in readers:
        thread.start()
    try:
        while len(turns) < 5 * READERS:  # the readers take turns back to back
            await asyncio.sleep(0.01)
        asked = len(turns)
        # An import: it waits (as long as it takes) while readers hold the folder.
        writer = asyncio.ensure_future(acquire_lock(home, role="import", wait=600, wait_writer=600))
        while not writer.done() and len(turns) - asked < GIVE_UP:
            await asyncio.sleep(0.01)
        assert writer.done(), f"the import was still waiting after {GIVE_UP} reader turns"
        lock = writer.result()
        during = len(turns) - asked
        try:
            got_in_at = len(turns)
            for _ in range(20):  # while the import holds the folder, no reader gets a turn
                await asyncio.sleep(0.01)
            assert len(turns) == got_in_at
        finally:
            lock.release()
        assert during <= BOUND, f"{during} reader turns before the waiting import got in"
    finally:
        stop.set()
        for thread in readers:
            await asyncio.to_thread(thread.join, 600)
