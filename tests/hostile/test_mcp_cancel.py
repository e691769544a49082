"""A request cancelled at any moment leaves the folder free: the idle server holds no lock."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path

import pytest

from memtrails import Memory, MemoryRecord
from memtrails.folder.lock import acquire_lock
from memtrails.mcp.access import FolderAccess
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.timeout(180)


@pytest.mark.slow
async def test_a_request_cancelled_while_opening_releases_the_folder(tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    home = tmp_path / "m"
    async with Memory.open(home, embedder=embedder) as memory:
        await memory.ingest([MemoryRecord(id=f"r{n}", text=f"apples {n}") for n in range(50)])
    access = FolderAccess(home, embedder=embedder, wait=5)

    async def request() -> None:
        async with access.open(model=True) as memory:
            await memory.search("apples", k=3)

    # Cancelled at moments spread over a whole request on this machine: its open, its
    # search and its close (a close cut short once kept the lock).
    start = time.monotonic()
    await request()
    whole = time.monotonic() - start
    for delay in [0, 0.0005, 0.001, 0.002] + [whole * n / 24 for n in range(1, 30)]:
        task = asyncio.create_task(request())
        await asyncio.sleep(delay)
        task.cancel()
        # Cancelled on its way, or finished first at the longer delays on a fast machine:
        # either way the folder must be free now.
        with contextlib.suppress(asyncio.CancelledError):
            await task
        # Another process (here: another opener) gets the folder, without waiting for a
        # holder (a loaded machine still takes a while to open the index).
        async with asyncio.timeout(10):
            async with Memory.open(home, embedder=embedder) as again:
                assert len(await again.search("apples", k=3)) == 3, delay


async def test_a_close_cancelled_again_and_again_still_releases_the_folder(
    tmp_path: Path,
) -> None:
    """Each cancellation waits for the close to finish, then is raised: nothing is left
    half-closed and the lock is free at once."""
    embedder = HashingEmbedder()
    home = tmp_path / "m"
    memory = await Memory.open(home, embedder=embedder)
    await memory.ingest([MemoryRecord(id=f"r{n}", text=f"pears {n}") for n in range(20)])
    closing = asyncio.create_task(memory.aclose())
    await asyncio.sleep(0)  # started: a task cancelled before its first step never runs
    cancels = 0
    while not closing.done():
        closing.cancel()
        cancels += 1
        await asyncio.sleep(0)
    assert cancels > 1 and closing.cancelled()
    # No wait at all: a holder left behind would raise MemoryLockedError here.
    (await acquire_lock(home, wait=0, wait_writer=0)).release()
    async with Memory.open(home, embedder=embedder) as again:
        assert len(await again.search("pears", k=5)) == 5
