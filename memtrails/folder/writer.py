"""The one write path of a memory folder: log, then table, then index, then checkpoint.

Every change to a folder goes through :class:`Writer`: new versions of records (an import),
tombstones (forget, prune) and re-indexing lines already in the log (catch-up after a crash,
``reindex``). ``Writer._append`` is the only code that appends to the log and
``Writer._apply`` the only code that changes the index (besides clearing it and removing
orphan points, a check's repair); all run under the writer's lock.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from .._exceptions import MemoryClosedError
from ..items import Staged
from .index._base import IndexBackend, IndexPoint
from .log import RecordLog, record_line, tombstone_line
from .manifest import write_checkpoint
from .points import points_for
from .replay import LogBatch
from .space import LOG_RESERVE, disk_full, is_disk_full, require_free
from .table import Table

__all__ = ["FLUSH_EVERY", "Writer"]

FLUSH_EVERY = 2.0  # seconds between two index flushes (and checkpoint writes) while writing


class Writer:
    """Writes versions, tombstones and replayed log lines; flushes the index on a timer.

    The log is fsynced before the table or the index changes, so a record is durable once
    ``write`` returns. The index is flushed (~250 ms with Qdrant Edge) and the checkpoint
    (``index.json``) advanced at most every ``flush_every`` seconds and on :meth:`flush`: a
    crash in between costs re-indexing those lines from the log on open, never a record.

    Safe to share between tasks of one event loop: each call holds the writer's lock.
    """

    def __init__(
        self,
        folder: Path,
        log: RecordLog,
        table: Table,
        index: IndexBackend,
        checkpoint: int,
        *,
        flush_every: float = FLUSH_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._folder = folder
        self._log = log
        self._table = table
        self._index = index
        self._checkpoint = checkpoint  # log offset up to which the index is durable
        self._flush_every = flush_every
        self._clock = clock
        self._flushed_at = clock()
        self._unflushed: tuple[int, int] | None = None  # log span indexed, not yet flushed
        self._lock = asyncio.Lock()
        self._closed = False

    @property
    def checkpoint(self) -> int:
        """Return the log offset up to which the index is known complete and durable."""
        return self._checkpoint

    # -- the three kinds of change ------------------------------------------------------------

    async def write(self, staged: Sequence[Staged]) -> None:
        """Append new versions of embedded records and index them.

        Raises:
            OSError: the log could not be written (nothing of this batch counts as written).
            IndexBackendError: the index failed after the log was written (the next open
                indexes those lines again).
        """
        if not staged:
            return
        lines = [record_line(s.uid, s.fp, s.record.to_json()) for s in staged]
        points = await asyncio.to_thread(points_for, staged)
        async with self._lock:
            self._check_open()
            start, end, offsets = await self._append(lines)
            for item, offset in zip(staged, offsets, strict=True):
                self._table.set(item.uid, item.fp, offset, item.record.source)
            self._table.commit(self._log)
            stale = [s.uid for s in staged if s.update]
            await self._apply(start, end, stale, points)

    async def forget(self, uids: Sequence[str], *, chunk: int = 512) -> int:
        """Tombstone the live records among ``uids`` and delete their points; return how many.

        Large sets are written ``chunk`` records at a time, so other writers interleave.
        """
        forgotten = 0
        for i in range(0, len(uids), chunk):
            async with self._lock:
                self._check_open()
                rows = [(uid, row) for uid in uids[i : i + chunk] if (row := self._table.get(uid))]
                if not rows:
                    continue
                ids = await asyncio.to_thread(self._ids_at, [row.offset for _, row in rows])
                lines = [
                    tombstone_line(uid, row.source, rid)
                    for (uid, row), rid in zip(rows, ids, strict=True)
                ]
                start, end, _ = await self._append(lines)
                for uid, _row in rows:
                    self._table.remove(uid)
                self._table.commit(self._log)
                await self._apply(start, end, [uid for uid, _ in rows], [])
                forgotten += len(rows)
        return forgotten

    async def replay(self, batch: LogBatch) -> int:
        """Index log lines already written (catch-up, reindex); return how many records."""
        points = await asyncio.to_thread(points_for, batch)
        async with self._lock:
            self._check_open()
            await self._apply(batch.start, batch.end, batch.uids, points)
        return len(batch)

    # -- index maintenance ----------------------------------------------------------------------

    async def reset(self) -> None:
        """Empty the index and move the checkpoint to the log's start (``reindex`` follows)."""
        async with self._lock:
            self._check_open()
            await self._index.clear()
            self._unflushed = None
            await asyncio.to_thread(write_checkpoint, self._folder, 0)
            self._checkpoint = 0

    async def index_emptied(self) -> None:
        """Move the checkpoint to the log's start: the index was found out of step with the
        log and emptied when its first use loaded it (the next open re-indexes the log).

        Takes no lock: that first use may be one of this writer's own calls, holding it.
        """
        self._unflushed = None
        await asyncio.to_thread(write_checkpoint, self._folder, 0)
        self._checkpoint = 0

    async def remove_points(self, uids: Sequence[str]) -> None:
        """Delete the points of records the log does not hold (a check's repair), and flush."""
        if not uids:
            return
        async with self._lock:
            self._check_open()
            await self._index.delete_uids(uids)
            await self._index.flush()

    async def flush(self) -> None:
        """Flush the index and advance the checkpoint over everything indexed so far."""
        async with self._lock:
            if not self._closed:
                await self._flush()

    async def optimize(self) -> None:
        """Build the index's search graph (HNSW); blocking maintenance."""
        async with self._lock:
            self._check_open()
            await self._index.optimize()

    async def aclose(self) -> None:
        """Flush, then stop accepting writes; safe to call twice."""
        async with self._lock:
            if not self._closed:
                try:
                    await self._flush()
                finally:
                    self._closed = True

    def _ids_at(self, offsets: Sequence[int]) -> list[str]:
        return [str(self._log.read_line(offset)["id"]) for offset in offsets]

    # -- the only code that writes ----------------------------------------------------------------

    async def _append(self, lines: Sequence[bytes]) -> tuple[int, int, list[int]]:
        start = self._log.size
        need = sum(len(line) for line in lines) + LOG_RESERVE
        try:
            await asyncio.to_thread(require_free, self._folder, need, "writing the log")
            end, offsets = await asyncio.to_thread(self._log.append, lines)
        except OSError as exc:
            if is_disk_full(exc):
                raise disk_full(self._folder, "writing the log") from exc
            raise
        return start, end, offsets

    async def _apply(
        self, start: int, end: int, deletes: Sequence[str], points: Sequence[IndexPoint]
    ) -> None:
        if deletes:
            await self._index.delete_uids(deletes)
        if points:
            await self._index.upsert(points)
        self._unflushed = (self._unflushed[0] if self._unflushed else start, end)
        if self._clock() - self._flushed_at >= self._flush_every:
            await self._flush()

    async def _flush(self) -> None:
        if self._unflushed is None:
            return
        start, end = self._unflushed
        await self._index.flush()
        self._unflushed = None
        self._flushed_at = self._clock()
        # Only a contiguous advance: lines before `start` that the index missed (a folder
        # opened without catch-up) must stay past the checkpoint until they are indexed.
        if self._checkpoint == start:
            await asyncio.to_thread(self._write_checkpoint, end)
            self._checkpoint = end

    def _write_checkpoint(self, end: int) -> None:
        write_checkpoint(self._folder, end, self._log.tail(end))

    def _check_open(self) -> None:
        if self._closed:
            raise MemoryClosedError(self._folder)
