"""A writer that waits for the folder is let in by short readers that open it again and
again (a script's loop of brief opens): before, one of them took the folder each time it
was free, and the writer gave up after its wait, "in use by process ... (reader)"."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
from helpers import until

from memtrails import Memory, MemoryLockedError
from memtrails.folder.lock import READER, FolderLock, acquire_lock
from memtrails.folder.next_in_line import FRESH, NEXT_FILE, Claim, claimed
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.slow


async def test_a_reader_that_comes_as_the_folder_frees_lets_a_waiting_writer_in(
    tmp_path: Path,
) -> None:
    """The moment a reader lets go, another reader opens (a loop of brief opens, or two):
    before, it took the folder again and the writer polling for it waited its whole wait
    and failed; now that reader waits for the writer, which has the folder next."""
    home = tmp_path / "memory"
    await (await Memory.open(home, embedder=HashingEmbedder())).aclose()
    held = FolderLock(home, READER)
    writer = asyncio.create_task(acquire_lock(home, wait=5))  # an import: waits for readers
    await asyncio.sleep(0.3)  # it polls for the folder a few times (not an assert on time)
    assert not writer.done()
    held.release()
    # A reader at once: it waits for the writer, then finds the folder the writer's.
    with pytest.raises(MemoryLockedError) as refused:
        (await asyncio.wait_for(acquire_lock(home, role=READER, wait=5), 60)).release()
    lock = await asyncio.wait_for(writer, 60)
    try:
        assert refused.value.role is None  # held by the writer (a plain role), not a reader
        assert not (home / NEXT_FILE).exists()  # it left its place in line
    finally:
        lock.release()


async def test_a_claim_its_writer_left_goes_stale(tmp_path: Path) -> None:
    """A writer killed while it waited leaves its claim: readers wait for it only a moment."""
    home = tmp_path / "memory"
    await (await Memory.open(home, embedder=HashingEmbedder())).aclose()
    Claim(home).stake()  # never dropped, as by a killed writer
    assert claimed(home)
    then = time.time() - FRESH - 1

    os.utime(home / NEXT_FILE, (then, then))
    assert not claimed(home)
    (await asyncio.wait_for(acquire_lock(home, role=READER), 60)).release()
    Claim(home).stake()
    await until(lambda: not claimed(home), 60)  # stale after FRESH s untouched
    (await asyncio.wait_for(acquire_lock(home, role=READER), 60)).release()
