"""Memory: a memory folder opened for importing, searching and forgetting."""

from __future__ import annotations

import asyncio
import enum
import os
import time
from collections import Counter
from collections.abc import AsyncIterable, Awaitable, Callable, Generator, Iterable, Sequence
from contextlib import aclosing, suppress
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from aiostream import Stream, stream

from ._exceptions import FolderFormatError, MemoryClosedError, SourceError
from .embedding._base import Embedder
from .importers._threaded import iterate_in_thread
from .keys import record_uid
from .pipeline._staged import Staged, StageItem, Unchanged
from .pipeline.batch import batched, read_ahead
from .pipeline.dedup import dedup
from .pipeline.embed import embed, embed_text
from .pipeline.normalise import normalise
from .pipeline.scrub import scrub
from .records import At, AtLike, ImportReport, MemoryRecord, RecordError, SourceReport, SourceState
from .search import SearchHit, search_hit
from .sinks.folder import (
    check_model,
    read_checkpoint,
    read_manifest,
    read_states,
    write_checkpoint,
    write_json_atomic,
    write_manifest,
)
from .sinks.index._base import Hit, IndexBackend, SearchFilter, SparseVector
from .sinks.lock import FolderLock
from .sinks.log import RecordLog, record_line, tombstone_line
from .sinks.points import points_for
from .sinks.table import Table
from .words import keyword_vector

__all__ = ["IN_FLIGHT_BATCHES", "Memory", "MemoryStatus", "SearchHit", "in_flight_bound"]

# Batches that can be between the source and the sink at once: the one being filled and
# the one queued behind it, one in each prefetch queue and its pump, the one being embedded
# and the one being written.
IN_FLIGHT_BATCHES = 8
_STATES_EVERY = 5.0  # seconds between two writes of sources.json during an import
_FLUSH_EVERY = 2.0  # seconds between two index flushes during an import


def in_flight_bound(batch: int) -> int:
    """Return the most records an import holds in memory at once with this batch size."""
    return IN_FLIGHT_BATCHES * batch + 2


ProgressCallback = Callable[[ImportReport], None]
EmbedderFactory = Callable[[], Awaitable[Embedder]]


@dataclass(frozen=True, slots=True)
class MemoryStatus:
    """What ``memtrails status`` shows."""

    path: Path
    records: int
    indexed: int
    points: int
    sources: dict[str, int]
    model: dict[str, Any]
    index: dict[str, Any]
    log_bytes: int
    pending_bytes: int
    disk_bytes: int

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "records": self.records,
            "indexed": self.indexed,
            "points": self.points,
            "sources": self.sources,
            "model": self.model,
            "index": self.index,
            "log_bytes": self.log_bytes,
            "pending_bytes": self.pending_bytes,
            "disk_bytes": self.disk_bytes,
        }


class _State(enum.Enum):
    OPEN = "open"
    CLOSED = "closed"


@dataclass(slots=True)
class _Run:
    """One import: its claims (undone if it fails before writing them), what it read per
    source, the uids it saw (for pruning) and the last state each importer reported."""

    table: Table
    prune: bool = False
    claimed: dict[str, tuple[str, int, int] | None] = field(default_factory=dict)
    read: Counter[str] = field(default_factory=Counter)
    seen: set[str] = field(default_factory=set)
    passed: set[int] = field(default_factory=set)
    states: dict[str, SourceState] = field(default_factory=dict)

    def claim(
        self, uid: str, fp: str, source: str
    ) -> Literal["new", "changed", "unchanged", "duplicate"]:
        # The first record with a uid in a run is the one kept (uids as 64-bit ints: a
        # run's set stays small next to the table).
        key = int(uid[:16], 16)
        first = key not in self.passed
        self.passed.add(key)
        if not first:
            row = self.table.raw(uid)
            return "unchanged" if row is not None and row[0] == fp else "duplicate"
        verdict, previous = self.table.claim(uid, fp, source)
        if verdict != "unchanged" and uid not in self.claimed:
            self.claimed[uid] = previous
        return verdict

    def holds(self, uid: str) -> bool:
        return uid in self.table

    def saw(self, source: str, uid: str | None) -> None:
        self.read[source] += 1
        if self.prune and uid is not None:
            self.seen.add(uid)

    def rollback(self) -> None:
        for uid, previous in self.claimed.items():
            self.table.restore(uid, previous)
        self.claimed.clear()


class Memory:
    """A memory folder: an append-only record log plus a Qdrant index derived from it.

    Open one with ``await Memory.open(path)`` or ``async with Memory.open(path) as memory``.
    A Memory is safe to share between tasks of one event loop; one process at a time may
    hold a folder open.

    Example::

        async with Memory.open("~/.memtrails") as memory:
            report = await memory.ingest(from_jsonl("notes.jsonl"))
            for hit in await memory.search("when is the launch?"):
                print(hit.score, hit.title)
    """

    def __init__(
        self,
        path: Path,
        lock: FolderLock,
        log: RecordLog,
        table: Table,
        index: IndexBackend,
        manifest: dict[str, Any],
        embedder_factory: EmbedderFactory,
        embedder: Embedder | None,
    ) -> None:
        self.path = path
        self._lock = lock
        self._log = log
        self._table = table
        self._index = index
        self._manifest = manifest
        self._embedder_factory = embedder_factory
        self._embedder = embedder
        self._embedder_lock = asyncio.Lock()
        self._write_lock = asyncio.Lock()
        self._state = _State.OPEN
        self._indexed_upto = 0  # log offset up to which the index is complete
        self._owns_embedder = True  # a model the caller passed in is the caller's to close
        self._states: dict[str, dict[str, Any]] = {}  # sources.json: importer positions
        self._states_dirty = False
        self._states_written = 0.0  # time.monotonic() of the last write of sources.json
        self._unflushed: tuple[int, int] | None = None  # log bytes upserted, not flushed
        self._flushed_at = time.monotonic()

    # -- opening and closing -------------------------------------------------------------

    @staticmethod
    def open(
        path: str | os.PathLike[str],
        *,
        embedder: Embedder | EmbedderFactory | None = None,
        qdrant_url: str | None = None,
        index: IndexBackend | None = None,
        threads: int | None = None,
        create: bool = True,
        catch_up: bool = True,
    ) -> _Opener:
        """Open (creating if needed) the memory folder at ``path``.

        Args:
            path: the folder; created with mode 0700 when missing.
            embedder: the embedding model (yours to close), or an async function that
                makes one on first use. Default: the packaged all-MiniLM-L6-v2 int8 model.
            qdrant_url: use the Qdrant server at this URL as the index instead of the
                embedded Qdrant Edge shard in ``path/index``.
            index: an index backend object (overrides ``qdrant_url``).
            threads: onnxruntime threads for the default model (default: all cores).
            create: create the folder when it holds no memory yet; else raise.
            catch_up: index log lines the index missed (after a crash) before returning;
                without it, reading commands open fast and the next writer catches up.

        Raises:
            MemoryLockedError: another process has the folder open.
            ModelMismatchError: the folder was built with another model.
            FolderFormatError: the folder is not a memtrails folder this version reads.
        """
        return _Opener(
            partial(
                _open,
                Path(path).expanduser(),
                embedder,
                qdrant_url,
                index,
                threads,
                create,
                catch_up,
            )
        )

    async def __aenter__(self) -> Memory:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Flush the index and release the folder; safe to call twice."""
        if self._state is _State.CLOSED:
            return
        self._state = _State.CLOSED
        async with self._write_lock:
            try:
                await self._flush_index()
                await self._index.aclose()
                if self._embedder is not None and self._owns_embedder:
                    await self._embedder.aclose()
            finally:
                await asyncio.to_thread(self._log.close)
                self._lock.release()

    close = aclose

    def _check_open(self) -> None:
        if self._state is _State.CLOSED:
            raise MemoryClosedError(self.path)

    def _ids_at(self, offsets: Sequence[int]) -> list[str]:
        return [str(self._log.read_line(offset)["id"]) for offset in offsets]

    def source_state(self, source: str) -> dict[str, Any] | None:
        """Return the position the importer of ``source`` reported at the end of the last run.

        Importers take it back as ``state=`` to read only what is new (see ``memtrails.add``).
        """
        saved = self._states.get(source)
        return dict(saved["state"]) if saved else None

    async def _save_state(self, state: SourceState) -> None:
        self._states[state.source] = {
            "state": dict(state.state),
            "mode": state.mode,
            "saved": time.time(),
        }
        self._states_dirty = True
        # A position is kept in memory at once and written every few seconds: a notes
        # folder's state can be megabytes, and a kill costs at most a few seconds of re-reading.
        if time.monotonic() - self._states_written >= _STATES_EVERY:
            await self._flush_states()

    async def _flush_states(self) -> None:
        if self._states_dirty:
            await asyncio.to_thread(write_json_atomic, self.path / "sources.json", self._states)
            self._states_dirty = False
            self._states_written = time.monotonic()

    async def _indexed(self, start: int, end: int) -> None:
        """Note that log bytes [start, end) are upserted; flush if the last flush is old.

        Call with the write lock held. The index is flushed (~250 ms with Qdrant Edge) and the
        checkpoint advanced at most every ``_FLUSH_EVERY`` seconds and at the end of every
        import: a crash in between costs re-indexing those lines from the log on open, never
        a record (the log was fsynced first).
        """
        self._unflushed = (self._unflushed[0] if self._unflushed else start, end)
        if time.monotonic() - self._flushed_at >= _FLUSH_EVERY:
            await self._flush_index()

    async def _flush_index(self) -> None:
        """Flush the index and advance the checkpoint over what it holds (write lock held)."""
        if self._unflushed is None:
            return
        start, end = self._unflushed
        await self._index.flush()
        self._unflushed = None
        self._flushed_at = time.monotonic()
        await self._advance(start, end)

    async def _advance(self, start: int, end: int) -> None:
        # Only a contiguous advance: lines before `start` that the index missed (a folder
        # opened without catch-up) must stay past the checkpoint until they are indexed.
        if self._indexed_upto == start:
            await asyncio.to_thread(write_checkpoint, self.path, end)
            self._indexed_upto = end

    async def _get_embedder(self) -> Embedder:
        if self._embedder is None:
            async with self._embedder_lock:
                if self._embedder is None:
                    made = await self._embedder_factory()
                    check_model(self.path, self._manifest["embedding"], made.describe())
                    self._embedder = made
        return self._embedder

    # -- importing -----------------------------------------------------------------------

    async def ingest(
        self,
        source: AsyncIterable[Any] | Iterable[Any],
        *,
        batch: int = 64,
        idle: float | None = 1.0,
        name: str = "custom",
        on_progress: ProgressCallback | None = None,
        strict: bool = False,
        prune: bool = False,
    ) -> ImportReport:
        """Import every record of ``source``; return what was added, updated, unchanged, skipped.

        ``source`` is an importer (``from_jsonl(...)``, ``from_mbox(...)``), or any async or
        plain iterable of ``MemoryRecord``, ``RecordError`` or mappings with record fields
        (``id`` and ``text`` at least): a database cursor, a paginated API. Records pass
        through normalise, scrub, dedup, batch and embed stages into the folder; at most
        ``in_flight_bound(batch)`` records are held at once, whatever the source's size.

        Args:
            source: the records.
            batch: records per model call and per index write.
            idle: seconds a partial batch waits for more input before it is written.
            name: the source name given to records that carry none.
            on_progress: called with the running report after every batch.
            strict: raise on the first record that cannot be read instead of counting it.
            prune: afterwards, forget the records of each source read in this run that the
                run did not see, provided the run read that source completely (it ended
                normally, read at least one item, and its importer did not report an
                incremental read). Records of other sources are never touched.

        Raises:
            SourceError: in strict mode, the first unreadable record.
            MemoryClosedError: the memory was closed.
        """
        self._check_open()
        if batch < 1:
            raise ValueError("`batch` must be at least 1")
        started = time.perf_counter()
        report = ImportReport()
        run = _Run(self._table, prune=prune)
        # source | normalise | scrub | dedup | batch | prefetch | embed | prefetch, spelled as
        # calls so that the item types are checked from stage to stage.
        staged: Stream[StageItem] = dedup(scrub(normalise(stream.iterate(source), name)), run)
        batches_in = read_ahead(batched(staged, batch, idle), 1)
        items = read_ahead(embed(batches_in, self._get_embedder), 1)
        try:
            async with aclosing(items) as batches:
                async for chunk in batches:
                    await self._write(chunk, report, run, strict)
                    report.elapsed = time.perf_counter() - started
                    if on_progress is not None:
                        on_progress(report)
            if prune:
                report.removed += await self._prune(run)
        except BaseException:
            run.rollback()
            raise
        finally:
            # One flush for the whole import's tail, the pruning included.
            async with self._write_lock:
                if self._state is _State.OPEN:
                    await self._flush_index()
            await self._flush_states()  # positions already held cover written records only
        report.unchanged += sum(state.skipped for state in run.states.values())
        report.sources.extend(_source_reports(run))
        report.elapsed = time.perf_counter() - started
        return report

    async def _prune(self, run: _Run) -> int:
        removed = 0
        for source, n in run.read.items():
            state = run.states.get(source)
            if n == 0 or (state is not None and not state.complete):
                continue  # nothing read, or an incremental read: absence proves nothing
            gone = [uid for uid in self._table.uids_of(source) if uid not in run.seen]
            if gone:
                removed += await self._forget_uids(gone, flush=False)
        return removed

    async def _write(
        self, items: Sequence[StageItem], report: ImportReport, run: _Run, strict: bool
    ) -> None:
        todo: list[Staged] = []
        states: list[SourceState] = []
        for item in items:
            if isinstance(item, Unchanged):
                report.unchanged += 1
                run.saw(item.source, item.uid)
            elif isinstance(item, RecordError):
                if strict:
                    raise SourceError(item.source, f"{item.where}: {item.reason}")
                report.errors.append(item)
                run.saw(
                    item.source, record_uid(item.source, item.id) if item.id is not None else None
                )
            elif isinstance(item, SourceState):
                states.append(item)
            else:
                todo.append(item)
                run.saw(item.record.source, item.uid)
        if todo:
            await self._write_records(todo, report, run)
        # A state is saved only after every record before it is in the folder.
        for state in states:
            run.states[state.source] = state
            await self._save_state(state)

    async def _write_records(self, todo: list[Staged], report: ImportReport, run: _Run) -> None:
        lines = [record_line(s.uid, s.fp, s.record.to_json()) for s in todo]
        points = await asyncio.to_thread(points_for, todo)
        async with self._write_lock:
            self._check_open()
            start = self._log.size
            end, offsets = await asyncio.to_thread(self._log.append, lines)
            for staged, offset in zip(todo, offsets, strict=True):
                self._table.set(staged.uid, staged.fp, offset, staged.record.source)
                run.claimed.pop(staged.uid, None)
            stale = [s.uid for s in todo if s.update]
            if stale:
                await self._index.delete_uids(stale)
            await self._index.upsert(points)
            await self._indexed(start, end)
        for staged in todo:
            if staged.update:
                report.updated += 1
            else:
                report.added += 1
            if staged.secrets:
                report.secrets.update(staged.secrets)
        report.embedded += len(todo)

    # -- reading -------------------------------------------------------------------------

    def _uids_for(self, id: str, source: str | None) -> list[str]:
        if source is not None:
            return [record_uid(source, id)]
        found = [record_uid(s, id) for s in self._table.sources()]
        if len(id) == 32 and id not in found:
            found.append(id)  # a uid given as the id
        return [uid for uid in found if uid in self._table]

    async def get(self, id: str, *, source: str | None = None) -> MemoryRecord | None:
        """Return the latest version of the record ``id`` (from ``source``, if given), or None.

        Without ``source``, every source the folder holds is tried, and a record's uid is
        accepted as well; where several sources hold the id, the latest written wins.
        """
        self._check_open()
        rows = [
            (row[1], uid) for uid in self._uids_for(id, source) if (row := self._table.get(uid))
        ]
        if not rows:
            return None
        offset = max(rows)[0]
        line = await asyncio.to_thread(self._log.read_line, offset)
        return MemoryRecord.from_json(line)

    async def forget(self, id: str, *, source: str | None = None) -> int:
        """Forget the record ``id``: a tombstone in the log, its points out of the index.

        Returns:
            How many records were forgotten (0 when none matched; several when the id
            exists in several sources and ``source`` is not given).
        """
        self._check_open()
        return await self._forget_uids(self._uids_for(id, source))

    async def _forget_uids(self, uids: Sequence[str], chunk: int = 512, flush: bool = True) -> int:
        forgotten = 0
        for i in range(0, len(uids), chunk):
            async with self._write_lock:
                self._check_open()
                rows = [(uid, row) for uid in uids[i : i + chunk] if (row := self._table.get(uid))]
                if not rows:
                    continue
                offsets = [row[1] for _, row in rows]
                ids = await asyncio.to_thread(self._ids_at, offsets)
                lines = [
                    tombstone_line(uid, row[2], rid)
                    for (uid, row), rid in zip(rows, ids, strict=True)
                ]
                start = self._log.size
                end, _ = await asyncio.to_thread(self._log.append, lines)
                for uid, _row in rows:
                    self._table.remove(uid)
                await self._index.delete_uids([uid for uid, _ in rows])
                await self._indexed(start, end)
                if flush:
                    await self._flush_index()
                forgotten += len(rows)
        return forgotten

    async def search(
        self,
        query: str,
        k: int = 10,
        *,
        kind: str | None = None,
        author: str | None = None,
        source: str | None = None,
        since: AtLike | None = None,
        until: AtLike | None = None,
    ) -> list[SearchHit]:
        """Return the ``k`` records that best match ``query``, best first.

        Dense (meaning) and keyword candidates are fused by reciprocal rank; each record
        appears once, with its best passage as the snippet.

        Args:
            query: words or a question.
            k: how many records at most.
            kind, author, source: exact matches on those fields.
            since, until: only records written in this time range (anything ``At.of`` reads).
        """
        self._check_open()
        if k < 1:
            raise ValueError("`k` must be at least 1")
        embedder = await self._get_embedder()
        dense = await embedder.embed_query(query)
        terms = keyword_vector(query)
        where = SearchFilter(
            kind=kind,
            author=author,
            source=source,
            since_ms=At.of(since).ms if since is not None else None,
            until_ms=At.of(until).ms if until is not None else None,
        )
        sparse = SparseVector(list(terms), list(terms.values()))
        hits = await self._index.search(dense, sparse, limit=k * 4, where=where)
        best: dict[str, Hit] = {}
        for hit in hits:
            if hit.uid not in best and hit.uid in self._table:
                best[hit.uid] = hit
            if len(best) >= k:
                break
        return await asyncio.to_thread(self._hits_from_log, list(best.values()))

    def _hits_from_log(self, hits: list[Hit]) -> list[SearchHit]:
        out = []
        for hit in hits:
            row = self._table.get(hit.uid)
            if row is None:
                continue
            out.append(search_hit(hit, MemoryRecord.from_json(self._log.read_line(row[1]))))
        return out

    async def status(self) -> MemoryStatus:
        """Return counts, sources, model, index and disk use."""
        self._check_open()
        indexed = await self._index.count_records()
        points = await self._index.count_points()
        checkpoint = await asyncio.to_thread(read_checkpoint, self.path)
        disk = await asyncio.to_thread(_disk_bytes, self.path)
        return MemoryStatus(
            path=self.path,
            records=len(self._table),
            indexed=indexed,
            points=points,
            sources=dict(sorted(self._table.per_source().items())),
            model=dict(self._manifest["embedding"]),
            index=self._index.describe(),
            log_bytes=self._log.size,
            pending_bytes=self._log.size - checkpoint,
            disk_bytes=disk,
        )

    # -- maintenance ---------------------------------------------------------------------

    async def catch_up(self, batch: int = 64) -> int:
        """Index the log lines past the index checkpoint; return how many records were indexed.

        Runs on open, so a crash between the log write and the index flush loses nothing.
        """
        self._check_open()
        async with self._write_lock:
            start = await asyncio.to_thread(read_checkpoint, self.path)
            return await self._index_from_log(start, batch)

    async def reindex(self, batch: int = 64) -> int:
        """Rebuild the index from the log alone; return how many records were indexed."""
        self._check_open()
        async with self._write_lock:
            await self._index.clear()
            await asyncio.to_thread(write_checkpoint, self.path, 0)
            self._indexed_upto = 0
            return await self._index_from_log(0, batch)

    async def optimize(self) -> None:
        """Build the index's search graph (HNSW): maintenance, run it after big imports."""
        self._check_open()
        async with self._write_lock:
            await self._index.optimize()

    async def _index_from_log(self, start: int, batch: int) -> int:
        if start >= self._log.size:
            return 0
        embedder = await self._get_embedder()
        end = self._log.size
        indexed = 0
        lines = iterate_in_thread(lambda: self._log.lines(start, end), chunk=batch)
        async with aclosing(batched(lines, batch, None)) as chunks:
            async for chunk in chunks:
                indexed += await self._index_lines(chunk, embedder)
                await asyncio.to_thread(write_checkpoint, self.path, chunk[-1][1])
                self._indexed_upto = chunk[-1][1]
        await asyncio.to_thread(write_checkpoint, self.path, end)
        self._indexed_upto = end
        return indexed

    async def _index_lines(
        self, chunk: Sequence[tuple[int, int, dict[str, Any]]], embedder: Embedder
    ) -> int:
        forget = []
        todo: list[Staged] = []
        for offset, _next, obj in chunk:
            uid = obj["uid"]
            forget.append(uid)
            row = self._table.get(uid)
            if obj.get("deleted") is True or row is None or row[1] != offset:
                continue  # forgotten, or superseded by a later line that is indexed instead
            todo.append(Staged(MemoryRecord.from_json(obj), uid=uid, fp=obj["fp"]))
        if todo:
            vectors = await embedder.embed([embed_text(s.record) for s in todo])
            for staged, passages in zip(todo, vectors, strict=True):
                staged.passages = passages
        await self._index.delete_uids(forget)
        if todo:
            await self._index.upsert(await asyncio.to_thread(points_for, todo))
        await self._index.flush()
        return len(todo)


def _source_reports(run: _Run) -> list[SourceReport]:
    # A source whose importer proved everything unchanged sent only its state: report it too.
    sources = [*run.read, *(s for s in run.states if s not in run.read)]
    reports = []
    for source in sources:
        state = run.states.get(source)
        mode = state.mode if state else "full"
        why = state.why if state else None
        reports.append(SourceReport(source, mode=mode, read=run.read[source], why=why))
    return reports


def _disk_bytes(folder: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            with suppress(OSError):
                # Blocks, not sizes: the index preallocates sparse files (du, not ls).
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
    return total


class _Opener:
    """``Memory.open(...)``: await it, or use it with ``async with``."""

    def __init__(self, opening: Callable[[], Awaitable[Memory]]) -> None:
        self._opening = opening
        self._memory: Memory | None = None

    def __await__(self) -> Generator[Any, None, Memory]:
        return self._opening().__await__()

    async def __aenter__(self) -> Memory:
        self._memory = await self._opening()
        return self._memory

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._memory is not None:
            await self._memory.aclose()


def _make_folder(path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise FolderFormatError(f"{path} exists and is not a folder; choose another --home")
    path.mkdir(mode=0o700, parents=True, exist_ok=True)


def _default_factory(threads: int | None) -> EmbedderFactory:
    async def make() -> Embedder:
        from .embedding import default_embedder

        return await default_embedder(threads=threads)

    return make


async def _open(
    path: Path,
    embedder: Embedder | EmbedderFactory | None,
    qdrant_url: str | None,
    index: IndexBackend | None,
    threads: int | None,
    create: bool,
    catch_up: bool,
) -> Memory:
    if not create and not (path / "manifest.json").is_file():
        raise FolderFormatError(f"no memory folder at {path}; create one with `memtrails add`")
    await asyncio.to_thread(_make_folder, path)
    lock = await asyncio.to_thread(FolderLock, path)
    log: RecordLog | None = None
    backend: IndexBackend | None = None
    try:
        instance: Embedder | None = None
        factory: EmbedderFactory
        if embedder is None:
            factory = _default_factory(threads)
        elif isinstance(embedder, Embedder):
            instance = embedder
            factory = _fixed_factory(embedder)
        else:
            factory = embedder
        manifest = await asyncio.to_thread(read_manifest, path)
        if manifest is None:
            if instance is None:
                instance = await factory()
            manifest = await asyncio.to_thread(
                write_manifest,
                path,
                instance.describe(),
                {"kind": "qdrant-server" if (qdrant_url or index) else "qdrant-edge"},
            )
        elif instance is not None:
            check_model(path, manifest["embedding"], instance.describe())
        log = await asyncio.to_thread(RecordLog, path / "records.jsonl")
        await asyncio.to_thread(log.repair)
        table = Table()
        await asyncio.to_thread(_load_table, log, table)
        dims = int(manifest["embedding"]["dims"])
        backend = index or await _open_index(path, dims, qdrant_url)
        memory = Memory(path, lock, log, table, backend, manifest, factory, instance)
        memory._owns_embedder = not isinstance(embedder, Embedder)
        memory._states = await asyncio.to_thread(read_states, path)
    except BaseException:
        if backend is not None:
            await backend.aclose()
        if log is not None:
            log.close()
        lock.release()
        raise
    try:
        memory._indexed_upto = await asyncio.to_thread(read_checkpoint, path)
        if catch_up:
            await memory.catch_up()
    except BaseException:
        await memory.aclose()
        raise
    return memory


def _fixed_factory(embedder: Embedder) -> EmbedderFactory:
    async def make() -> Embedder:
        return embedder

    return make


def _load_table(log: RecordLog, table: Table) -> None:
    for entry in log.scan():
        table.apply(entry)


async def _open_index(path: Path, dims: int, qdrant_url: str | None) -> IndexBackend:
    if qdrant_url:
        from .sinks.index.server import ServerIndex

        return await ServerIndex.open(qdrant_url, dims=dims)
    from .sinks.index.edge import EdgeIndex

    return await EdgeIndex.open(path / "index", dims=dims)
