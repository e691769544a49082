"""The one write path of a memory folder: log, then table, then index, then checkpoint.

Every change to a folder goes through :class:`Writer`: new versions of records (an import),
tombstones (forget, prune), re-indexing lines already in the log (catch-up after a crash,
``reindex``), the dedup stage's claims and input digests, the index's repairs and the
manifest's changes. ``Writer._append`` is the only code that appends to the log and
``Writer._apply`` the only code that adds or deletes points; all run under the writer's
lock. What opening writes before there is a writer (a new folder's manifest, a torn last
line cut, the table brought up to date) is the functions at the end of this module.
``tests/test_writer.py`` fails on any of these writes made anywhere else.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

from .._exceptions import MemoryClosedError
from ..items import Staged
from ..secrets import RULES_VERSION
from .disk import index_disk_use
from .index._base import IndexBackend, IndexPoint
from .index.deferred import DeferredIndex
from .log import RecordLog, record_line, tombstone_line
from .manifest import (
    KEYWORD_SCHEME,
    POINT_FIELDS,
    scrub_rules,
    write_checkpoint,
    write_manifest,
    write_manifest_file,
)
from .points import points_for
from .replay import LogBatch
from .space import LOG_RESERVE, disk_full, is_disk_full, require_free
from .table import Row, Table

__all__ = ["FLUSH_EVERY", "Writer", "create_manifest", "cut_torn_line", "open_table"]

IndexCheck = Callable[[IndexBackend, int], Awaitable[str | None]]

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
        manifest: dict[str, Any] | None = None,
        flush_every: float = FLUSH_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._folder = folder
        # The folder's manifest: read by everyone, changed (in place) only here.
        self._manifest = manifest if manifest is not None else {}
        self._log = log
        self._table = table
        self._index = index
        self._checkpoint = checkpoint  # log offset up to which the index is durable
        self._flush_every = flush_every
        self._clock = clock
        self._flushed_at = clock()
        self._unflushed: tuple[int, int] | None = None  # log span indexed, not yet flushed
        # Whether this writer changed the index since index.json last held its counts: the
        # close counts it once then, so that `status` need not load the index.
        self._recount = False
        # Bumped by every change this writer makes to the index (what searches may cache).
        self._index_version = 0
        self._lock = asyncio.Lock()
        self._closed = False

    @property
    def checkpoint(self) -> int:
        """Return the log offset up to which the index is known complete and durable."""
        return self._checkpoint

    @property
    def index_version(self) -> int:
        """Return a number that changes whenever this writer changes the index, flushed or
        not: what a search keeps between calls (``idf.IdfCache``) holds while it is equal."""
        return self._index_version

    @property
    def folder_id(self) -> str | None:
        """The folder's id (its manifest's; None for a folder made before folders had one)."""
        folder_id = self._manifest.get("id")
        return folder_id if isinstance(folder_id, str) else None

    @property
    def table(self) -> Table:
        """The folder's table, to read (its changes are this writer's)."""
        return self._table

    # -- the dedup stage's claims (in memory, beside the table) -------------------------------------

    def claim(
        self, uid: str, fp: str, source: str, raw: bytes | None = None
    ) -> tuple[Literal["new", "changed", "unchanged"], Row | None]:
        """Mark a version as on its way; say how it relates to the stored one (see
        :meth:`Table.claim`); an unchanged row gains the digest ``raw`` of its input.

        Synchronous, called by the dedup stage on the event loop's thread: it runs between
        two awaits of any write in progress, whose table changes run on that thread too
        without an await among them, so the two never interleave.
        """
        self._check_open()
        return self._table.claim(uid, fp, source, raw)

    def restore(self, uid: str, row: Row | None) -> None:
        """Undo a claim whose version never reached the log (an import that failed)."""
        self._table.restore(uid, row)

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
        await self._ready()
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
        if uids:
            await self._ready()
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
        await self._ready()
        async with self._lock:
            self._check_open()
            await self._apply(batch.start, batch.end, batch.uids, points)
        return len(batch)

    # -- index maintenance ----------------------------------------------------------------------

    async def reset(self) -> None:
        """Empty the index and move the checkpoint to the log's start (``reindex`` follows)."""
        await self._ready()
        async with self._lock:
            self._check_open()
            with self._changing_index():
                await self._index.clear()
            await self._restart()

    async def verify_index(self, index: IndexBackend, check: IndexCheck) -> str | None:
        """Empty ``index`` when ``check(index, checkpoint)`` finds it out of step with the log;
        return the problem (None when there is none).

        For an index loaded by its first use (``index`` is the loaded backend, not yet
        reachable through the stand-in this writer holds): under the writer's lock, so no
        write reaches the index between the count and the clearing. Every writer call that
        may load the index loads it before taking the lock, so this never waits on itself.
        """
        async with self._lock:
            self._check_open()
            problem = await check(index, self._checkpoint)
            if problem is not None:
                with self._changing_index():
                    await index.clear()
                await self._restart()
            return problem

    async def adopt_index(self, *, rebuild: bool) -> None:
        """Mark the index as this folder's (its manifest's id), emptying it first with
        ``rebuild`` (an index made for another folder: the log rebuilds it)."""
        if rebuild:
            await self.reset()
        folder_id = self.folder_id
        if folder_id is None:
            folder_id = uuid.uuid4().hex
            await self._change_manifest({"id": folder_id})
        if isinstance(self._index, DeferredIndex) and not self._index.keeps_owner:
            await self._ready()  # its set_owner would load it: not under the lock
        async with self._lock:
            self._check_open()
            await self._index.set_owner(folder_id)

    async def rebuild_table(self) -> int:
        """Rebuild ``table.sqlite`` from the log (a check's repair, ``reindex``); return the
        live records it then lists."""
        async with self._lock:
            self._check_open()
            return await asyncio.to_thread(self._table.rebuild, self._log)

    async def remove_points(self, uids: Sequence[str]) -> None:
        """Delete the points of records the log does not hold (a check's repair), and flush."""
        if not uids:
            return
        await self._ready()
        async with self._lock:
            self._check_open()
            # The log does not move here: drop the counts first, or a crash before the close
            # would leave index.json's counts standing for an index that changed.
            await asyncio.to_thread(self._write_checkpoint, self._checkpoint)
            self._recount = True
            with self._changing_index():
                await self._index.delete_uids(uids)
            await self._index.flush()

    async def flush(self) -> None:
        """Flush the index and advance the checkpoint over everything indexed so far."""
        async with self._lock:
            if not self._closed:
                await self._flush()

    async def optimize(self) -> None:
        """Build the index's search graph (HNSW); blocking maintenance."""
        await self._ready()
        async with self._lock:
            self._check_open()
            await self._index.optimize()

    async def aclose(self) -> None:
        """Flush, then stop accepting writes; safe to call twice."""
        async with self._lock:
            if not self._closed:
                try:
                    await self._flush()
                    await self._record_counts()
                finally:
                    self._closed = True

    # -- the manifest ------------------------------------------------------------------------------

    async def bind_model(self, embedding: dict[str, Any]) -> None:
        """Record ``embedding`` as the folder's model (``reindex --model``, after :meth:`reset`)."""
        await self._change_manifest({"embedding": embedding})

    async def record_point_fields(self) -> None:
        """Record that every point keeps what this version's points keep (``POINT_FIELDS``),
        after ``reindex --payloads`` gave the older points theirs."""
        async with self._lock:
            self._check_open()
            await self._settle({"points": {"fields": list(POINT_FIELDS)}})

    async def record_scrub_rules(self) -> None:
        """Add this version's secret rule set to the manifest, before records scrubbed with it
        are written."""
        rules = scrub_rules(self._manifest)
        if RULES_VERSION not in rules:
            await self._change_manifest({"secrets": {"rules": [*rules, RULES_VERSION]}})

    async def _change_manifest(self, changes: dict[str, Any]) -> None:
        async with self._lock:
            self._check_open()
            await self._rewrite_manifest(changes)

    async def _rewrite_manifest(self, changes: dict[str, Any]) -> None:
        """Write ``changes`` into the manifest (the caller holds the lock)."""
        changed = {**self._manifest, **changes}
        await asyncio.to_thread(write_manifest_file, self._folder, changed)
        self._manifest.update(changes)  # in place: the folder's readers hold this dict

    async def _ready(self) -> None:
        # An index loaded by its first use is loaded before the lock is taken: that first use
        # checks the index under this lock (verify_index).
        if isinstance(self._index, DeferredIndex):
            await self._index.backend()

    @contextlib.contextmanager
    def _changing_index(self) -> Iterator[None]:
        """Mark a change to the index: the version moves before it and after it, so that a
        search overlapping it, which reads the version on both sides, keeps nothing."""
        self._index_version += 1
        try:
            yield
        finally:
            self._index_version += 1

    async def _restart(self) -> None:
        self._unflushed = None
        self._recount = True
        await asyncio.to_thread(write_checkpoint, self._folder, 0)
        self._checkpoint = 0
        # The index is empty: every point from now on carries this version's keyword weights
        # and keeps what points keep now (a reindex, a rebuild from the log), so an older
        # folder's notices are settled.
        await self._settle(
            {"keywords": dict(KEYWORD_SCHEME), "points": {"fields": list(POINT_FIELDS)}}
        )

    async def _settle(self, sections: dict[str, Any]) -> None:
        """Write those of ``sections`` the manifest does not hold as they are (the caller
        holds the lock): nothing when it holds them all."""
        if changes := {k: v for k, v in sections.items() if self._manifest.get(k) != v}:
            await self._rewrite_manifest(changes)

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
        self._recount = True
        with self._changing_index():
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

    def _write_checkpoint(
        self,
        end: int,
        counts: tuple[int, int] | None = None,
        index_disk: tuple[int, str] | None = None,
    ) -> None:
        write_checkpoint(self._folder, end, self._log.tail(end), counts, index_disk)

    async def _record_counts(self) -> None:
        # Only for an index complete up to the log's end: counts beside a checkpoint behind
        # the log would not be the index's (the lines past it may be in it or not).
        if not self._recount or self._checkpoint != self._log.size:
            return
        counts = (await self._index.count_records(), await self._index.count_points())
        # With the index's disk use (a walk of its files: ~0.1 s at 1M records, once per
        # close after a change), so that `status` need not walk them.
        index_disk = await asyncio.to_thread(index_disk_use, self._folder)
        await asyncio.to_thread(self._write_checkpoint, self._checkpoint, counts, index_disk)
        self._recount = False

    def _check_open(self) -> None:
        if self._closed:
            raise MemoryClosedError(self._folder)


# -- what opening writes, before the folder has a writer ----------------------------------------


def create_manifest(
    folder: Path, embedding: dict[str, Any], index: dict[str, Any]
) -> dict[str, Any]:
    """Write a new folder's manifest, with a new folder id, and return it (blocking)."""
    return write_manifest(folder, embedding, index, folder_id=uuid.uuid4().hex)


def cut_torn_line(log: RecordLog) -> int:
    """Cut the log's unfinished last line (a crash mid-write); return the bytes cut (blocking)."""
    return log.repair()


def open_table(folder: Path, log: RecordLog) -> tuple[Table, str | None]:
    """Open the folder's table, rebuilt or brought up to date from the log (blocking)."""
    return Table.open(folder, log)
