"""One import: the pipeline stages composed from a source into the folder's writer."""

from __future__ import annotations

import asyncio
import hashlib
import importlib.metadata
import json
import os
import sys
import time
from collections.abc import AsyncIterable, Callable, Iterable, Sequence
from contextlib import aclosing
from dataclasses import astuple
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal, cast

from aiostream import stream, streamcontext

from ._exceptions import SourceError
from .embedding._base import Embedder
from .folder.opening import Folder, save_derived
from .folder.replay import LogBatch, log_batches
from .folder.run import ImportRun
from .importers.contract import Resumable
from .importers.cursor import from_cursor
from .importers.iterables import from_iterable
from .items import RawReadable, Staged, StageItem, Unchanged, UnchangedMany
from .keys import record_uid
from .limits import CUT_KEY, Limits
from .pipeline.batch import read_ahead
from .pipeline.embed import embed
from .pipeline.prepare import prepared
from .pipeline.turn_context import Recent, TurnContext
from .portable import js_well_formed
from .records import ImportReport, RecordError, SourceReport, SourceState
from .secrets import RULES_VERSION

__all__ = [
    "IN_FLIGHT_BATCHES",
    "ProgressCallback",
    "StepProgress",
    "in_flight_bound",
    "index_log",
    "ingest_source",
    "run_import",
]

# Batches that can be between the source and the sink at once: the one being filled and
# the one queued behind it, one in each prefetch queue and its pump, the one being embedded
# and the one being written.
IN_FLIGHT_BATCHES = 8

ProgressCallback = Callable[[ImportReport], None]
StepProgress = Callable[[str, int, int | None], None]
"""Hears a maintenance step (reindex, check --repair, the catch-up): ``(phase, records done,
records in the phase or None)``."""


def in_flight_bound(batch: int) -> int:
    """Return the most records an import holds in memory at once with this batch size.

    Args:
        batch: records per model call and index write (``Memory.ingest(batch=...)``).

    Returns:
        ``8 * batch + 2``: eight batches (the one being filled and the one queued behind
        it, one in each read-ahead queue and one in each of their tasks, the one being
        embedded and the one being written) and two records. A pipeline of your own
        composed as the import is (docs/pipeline.md) holds no more.

    Example: memory use bounded whatever the input's size:

        >>> from memtrails.extend import in_flight_bound
        >>> in_flight_bound(64), in_flight_bound(1)
        (514, 10)
    """
    return IN_FLIGHT_BATCHES * batch + 2


async def ingest_source(
    folder: Folder,
    source: Any,
    *,
    batch: int,
    idle: float | None,
    name: str,
    on_progress: ProgressCallback | None,
    strict: bool,
    prune: bool,
    cursor: str | None,
    lag: timedelta | float | None,
    full: bool,
    limits: Limits | None,
) -> ImportReport:
    """Check ``Memory.ingest``'s arguments, resume the source, import it into ``folder``."""
    if batch < 1:
        raise ValueError("`batch` must be at least 1")
    if cursor is not None:
        if not callable(source):
            raise TypeError(
                "with `cursor`, `source` must be a function of the watermark that returns "
                "the rows from it on, e.g. `async def rows(since): ...`"
            )
        state = None if full else folder.positions.get(name)
        source = from_cursor(source, name=name, cursor=cursor, state=state, lag=lag)
    elif callable(source) and not isinstance(source, AsyncIterable | Iterable):
        raise TypeError(
            "a function as `source` is read by watermark: give `cursor=` the field that "
            "grows when a row changes, e.g. `ingest(rows, name=..., cursor='updated_at')`"
        )
    elif lag is not None:
        raise ValueError("`lag` applies to a `cursor` import only")
    elif full and not isinstance(source, Resumable):
        raise ValueError(
            "`full` applies to a `cursor` import or an importer that resumes "
            "(from_mbox, from_files, ...); this source is read whole anyway"
        )
    elif isinstance(source, Resumable):
        # An importer resumes from where its source's last run ended, unless the caller
        # gave a position, wants everything, or prunes a source that must be read whole.
        if source.explicit:
            at = source.state
        elif full or (prune and not source.prunes_incrementally):
            at = None
        else:
            at = folder.positions.get(source.source)
        source = source.resume(at)
    return await run_import(
        folder,
        source,
        batch=batch,
        idle=idle,
        name=name,
        on_progress=on_progress,
        strict=strict,
        prune=prune,
        limits=limits,
    )


async def run_import(
    folder: Folder,
    source: AsyncIterable[Any] | Iterable[Any],
    *,
    batch: int,
    idle: float | None,
    name: str,
    on_progress: ProgressCallback | None,
    strict: bool,
    prune: bool,
    limits: Limits | None = None,
) -> ImportReport:
    """Import ``source`` into ``folder``; see :meth:`memtrails.Memory.ingest`."""
    started = time.perf_counter()
    report = ImportReport()
    run = ImportRun(folder.writer, prune=prune)
    # source | normalise | scrub | dedup | batch (one stage) | prefetch | embed | prefetch,
    # spelled as calls so that the item types are checked from stage to stage.
    salt = raw_salt(limits, name)
    raw_lines = getattr(source, "raw_lines", None)
    if callable(raw_lines):
        # The importer hands over its lines unparsed: unchanged ones are found by digest.
        readable = cast(RawReadable, source)
        items_in: AsyncIterable[Any] = readable.raw_lines(salt)
        settle = readable.settle
    else:
        # A plain iterable through from_iterable: a generator of the caller's is closed
        # when the import stops early (its cursor with it), as an async one is by aiostream.
        if isinstance(source, AsyncIterable):
            items_in = stream.iterate(source)
        else:
            items_in = from_iterable(source)
        settle = None
    warm = _Warmup(folder)
    ready = prepared(
        items_in,
        _WarmingClaims(run, warm.start),
        size=batch,
        idle=idle,
        name=name,
        limits=limits,
        settle=settle,
        chunked=settle is not None,
        salt=salt,
    )
    batches_in = read_ahead(ready, 1)
    context = TurnContext(recent=await _turns_for_import(folder), undoable=True)
    items = read_ahead(embed(batches_in, folder.model.get, folder.pieces, context), 1)
    try:
        async with aclosing(items) as batches:
            async for chunk in batches:
                await _write(folder, chunk, report, run, strict)
                context.written()
                report.elapsed = time.perf_counter() - started
                if on_progress is not None:
                    on_progress(report)
        # A source read to its end without a position (a compressed file, an iterable) keeps
        # none: what an earlier run saved for it (one stopped part-way) stands for nothing.
        for source in run.read:
            if source not in run.states and folder.positions.get(source) is not None:
                await folder.positions.forget(source)
        if prune:
            report.removed += await folder.writer.forget(run.gone())
    except BaseException:
        run.rollback()
        # The turns of batches embedded and never written (read ahead) are not the turns
        # before those that the next import brings again.
        context.undo()
        raise
    finally:
        await warm.settle()
        # One flush for the whole import's tail, the pruning included; positions already
        # held cover written records only.
        await folder.writer.flush()
        await folder.positions.flush()
        if context.turns and folder.turns is not None:
            folder.turns.caught_up(folder.log)
        await save_derived(folder)
    report.unchanged += sum(state.skipped for state in run.states.values())
    report.duplicates += sum(state.duplicates for state in run.states.values())
    report.sources.extend(_source_reports(run))
    report.elapsed = time.perf_counter() - started
    return report


class _Warmup:
    """Loads the model and the index while the rest of the source is read, once there is work.

    Both are loaded on first use: an import that finds nothing new never pays for them. When
    the first record to write is claimed, waiting for its batch to fill (the end of the
    source, when 1% of it changed) would load them only after the whole source was read.
    """

    def __init__(self, folder: Folder) -> None:
        self._folder = folder
        self._task: asyncio.Future[Any] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.ensure_future(self._load())

    async def _load(self) -> None:
        await self._folder.model.get()
        opener = getattr(self._folder.index, "backend", None)  # a DeferredIndex
        if opener is not None:
            await opener()

    async def settle(self) -> None:
        """Wait for the loading to end; its failure is the stage's that needs it to say."""
        if self._task is None:
            return
        await asyncio.wait([self._task])
        if not self._task.cancelled():
            self._task.exception()  # retrieved: the embed stage or the writer raised it


class _WarmingClaims:
    """The run's answers to dedup, starting the warm-up at the first new or changed record."""

    def __init__(self, run: ImportRun, on_work: Callable[[], None]) -> None:
        self._run = run
        self._on_work = on_work

    def claim(
        self, uid: str, fp: str, source: str, raw: bytes | None = None
    ) -> Literal["new", "changed", "unchanged", "duplicate"]:
        verdict = self._run.claim(uid, fp, source, raw)
        if verdict in ("new", "changed"):
            self._on_work()
        return verdict

    def known(self, digests: list[bytes]) -> dict[bytes, tuple[str, str]]:
        return self._run.known(digests)

    def first(self, uid: str) -> bool:
        return self._run.first(uid)

    def holds(self, uid: str) -> bool:
        return self._run.holds(uid)


async def _write(
    folder: Folder, items: Sequence[StageItem], report: ImportReport, run: ImportRun, strict: bool
) -> None:
    todo: list[Staged] = []
    states: list[SourceState] = []
    for item in items:
        if isinstance(item, UnchangedMany):
            report.unchanged += len(item.uids)
            run.saw_all(item.source, item.uids)
        elif isinstance(item, Unchanged):
            report.unchanged += 1
            run.saw(item.source, item.uid)
        elif isinstance(item, RecordError):
            if strict:
                raise SourceError(item.source, f"{item.where}: {item.reason}")
            report.add_error(item)
            run.saw(item.source, record_uid(item.source, item.id) if item.id is not None else None)
        elif isinstance(item, SourceState):
            states.append(item)
        elif isinstance(item, Staged):
            todo.append(item)
            run.saw(item.record.source, item.uid)
    if todo:
        await folder.writer.record_scrub_rules()  # the manifest says which rules
        await folder.writer.write(todo)
        for staged in todo:
            if staged.update:
                report.updated += 1
            else:
                report.added += 1
            if staged.secrets:
                report.secrets.update(staged.secrets)
            if CUT_KEY in staged.record.meta:
                report.cut += 1
        report.embedded += len(todo)
    # A position is saved only after every record before it is in the folder; the records
    # its source says were deleted are forgotten first (a crash between: forgotten again).
    for state in states:
        if state.deleted:
            uids = (record_uid(state.source, js_well_formed(id)) for id in state.deleted)
            live = [uid for uid in uids if folder.writer.table.get(uid) is not None]
            report.removed += await folder.writer.forget(live) if live else 0
        run.states[state.source] = state
        await folder.positions.save(state)


def raw_salt(limits: Limits | None, name: str) -> bytes:
    """Return what, besides an input's bytes and its importer's settings, decides its record.

    That is this library's code (every module: normalising, scrubbing, the rule set, dates
    and keys all live in it, so any change makes every digest new and the next full pass
    parses everything once), the Python and RE2 versions that run it, the rule set's
    version, the record limits, the default source name and the local time zone (a date
    without a zone is read as local time).
    """
    zone = os.environ.get("TZ")
    localtime = Path("/etc/localtime")
    zone_file = hashlib.sha256(localtime.read_bytes()).hexdigest() if localtime.is_file() else ""
    parts = [
        _code_digest(),
        sys.version,
        _version("google-re2"),
        RULES_VERSION,
        list(astuple(limits or Limits())),
        name,
        zone,
        zone_file,
        list(time.tzname),
        time.timezone,
        time.altzone,
    ]
    return hashlib.sha256(json.dumps(parts, ensure_ascii=True).encode("ascii")).digest()


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _code_digest() -> str:
    """Return a digest of memtrails' own source files (its version when they cannot be read).

    About 10 ms, once per import.
    """
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    files = sorted(root.rglob("*.py"))
    for path in files:
        digest.update(str(path.relative_to(root)).encode("utf-8", "surrogateescape") + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest() if files else f"version {importlib.metadata.version('memtrails')}"


async def index_log(
    folder: Folder, start: int, batch: int, on_progress: StepProgress | None = None
) -> int:
    """Index the folder's log from ``start`` to its end through the embed stage; return how
    many records were indexed. ``on_progress`` hears ``("embedding", done, total)`` after
    each batch, ``total`` being the records whose current version lies past ``start``."""
    end = folder.log.size
    if start >= end:
        return 0
    report = on_progress or (lambda _phase, _done, _total: None)
    total = len(folder.table) - await asyncio.to_thread(folder.table.count_before, start)
    indexed = 0
    loaded = False

    async def model() -> Embedder:
        nonlocal loaded
        if not loaded:  # the first batch waits for the model to load: say so
            report("starting", 0, total)
            got = await folder.model.get()
            loaded = True
            report("embedding", indexed, total)
            return got
        return await folder.model.get()

    # From the start, the turns' context is built again as the imports built it; past a
    # checkpoint (a repair), the turns before it are not read again: this stream's alone.
    recent = folder.turns.fresh() if start == 0 and folder.turns is not None else None
    context = TurnContext(recent=recent)
    batches = embed(
        log_batches(folder.log, folder.table, start, end, batch), model, folder.pieces, context
    )
    async with streamcontext(batches) as embedded:
        async for chunk in embedded:
            # embed yields the batch objects it was given: these are LogBatches.
            indexed += await folder.writer.replay(cast(LogBatch, chunk))
            report("embedding", indexed, max(total, indexed))
    report("indexing", indexed, max(total, indexed))
    await folder.writer.flush()
    if recent is not None and folder.turns is not None:
        folder.turns.caught_up(folder.log)
    await save_derived(folder)
    return indexed


async def _turns_for_import(folder: Folder) -> Recent | None:
    """The chat turns' context the folder kept from earlier imports (read once a folder)."""
    if folder.turns is None:
        return None
    return await asyncio.to_thread(folder.turns.for_import, folder.log)


def _source_reports(run: ImportRun) -> list[SourceReport]:
    # A source whose importer proved everything unchanged sent only its state: report it too.
    sources = [*run.read, *(s for s in run.states if s not in run.read)]
    reports = []
    for source in sources:
        state = run.states.get(source)
        mode = state.mode if state else "full"
        why = state.why if state else None
        # An incremental run is never complete (it read from a position); a full one that is
        # not stopped part-way.
        whole = state is None or state.complete or mode != "full"
        reports.append(
            SourceReport(source, mode=mode, read=run.read[source], why=why, complete=whole)
        )
    return reports
