"""A request cancelled at any moment leaves the folder free: the idle server holds no lock."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from memtrails import Memory, MemoryRecord
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

    for delay in [0, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.04, 0.08]:
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
