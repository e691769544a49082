"""The embedded index backend: one Qdrant Edge shard in the memory folder's ``index/``."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import qdrant_edge as qe

from ..._exceptions import DiskFullError, IndexBackendError
from ...embedding._base import Vector
from ..space import INDEX_RESERVE, disk_full, index_room, is_disk_full, require_free
from ._base import (
    DENSE,
    WORDS,
    Hit,
    IndexPoint,
    SearchFilter,
    SparseVector,
    candidate_sides,
    idf_of,
    note_passage,
)
from ._edge_filter import edge_filter
from ._edge_settings import (
    CONFIG_FILE,
    DENSE_SEARCH,
    EDGE_PAYLOAD_INDEXES,
    SEAL_EVERY,
    close_orphan,
    graph_m,
    kind_of,
    load_waiting,
    open_error,
    payload_index,
    point_bytes,
    quantized,
    read_unsealed,
    release_freed_heap,
    shard_config,
    write_unsealed,
)
from .edge_kind import EDGE, EdgeOwner

__all__ = ["EdgeIndex", "edge_filter"]

T = TypeVar("T")

_WRITES = frozenset({"upsert", "delete", "clear", "optimize", "set payload"})
# What ranking reads of a candidate: reading less of each point's payload from disk is
# most of what a search costs beyond the vector scan.
_CANDIDATE_FIELDS = ["uid", "passage", "at", "start", "end", "author", "scripts"]


class EdgeIndex:
    """Dense + keyword points in a Qdrant Edge shard (``qdrant-edge-py``, in-process).

    Every call into the shard runs in a worker thread, one at a time: the shard is a plain
    Rust object without its own request queue, and serialising keeps updates and flushes
    ordered as the caller issued them.

    Example::

        index = await EdgeIndex.open(memory_folder / "index", dims=384)
        await index.upsert(points)
        await index.flush()
        by_meaning, by_words = await index.candidates(query_vector, keyword_vector, 10, SearchFilter())
        await index.aclose()
    """

    def __init__(self, shard: qe.EdgeShard, folder: Path, dims: int, *, seal: bool = True) -> None:
        """Wrap an open shard; use :meth:`open`."""
        self._shard = shard
        self._folder = folder
        self._dims = dims
        # Seal the open segment every SEAL_EVERY points: only in a shard without an HNSW
        # graph (m = 0), where sealing builds none. A shard given a graph by `optimize()`,
        # or made before sealing existed, keeps growing its open segment as it always did.
        self._seal = seal
        self._unsealed = 0
        self._lock = threading.Lock()
        self._closed = False
        # Closing flushes only after writes: a reader (one `memtrails mcp` request) that
        # opens, searches and closes should not pay a flush (~100 ms) for nothing.
        self._unflushed = False

    @classmethod
    async def open(cls, folder: Path, dims: int) -> EdgeIndex:
        """Open the shard in ``folder``, creating it (schema and payload indexes) if absent.

        Args:
            folder: the shard's folder (the memory folder's ``index/``).
            dims: length of the dense vectors; must match an existing shard's.

        Returns:
            The open index.

        Raises:
            IndexBackendError: the shard is open in another process (Qdrant Edge holds a lock
                on its write-ahead log), was built for other dimensions, or is unreadable.

        Example::

            index = await EdgeIndex.open(Path("memory/index"), dims=384)
        """
        if dims < 1:
            raise ValueError(f"`dims` must be positive, got {dims}")
        folder = Path(folder)
        created = False

        def open_shard() -> qe.EdgeShard:
            nonlocal created
            try:
                if (folder / CONFIG_FILE).is_file():
                    require_free(folder, index_room(folder, new=False), "opening the index")
                    # The shard keeps the graph and segment settings it was made or last
                    # optimized with: only the stored data's shape is checked.
                    shard = load_waiting(folder, dims)
                else:
                    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
                    require_free(folder, index_room(folder, new=True), "creating the index")
                    shard = qe.EdgeShard.create(
                        str(folder), shard_config(dims, sealing=True, seal_every=SEAL_EVERY)
                    )
            except DiskFullError:
                raise
            except Exception as exc:  # qdrant-edge raises plain Exception
                if is_disk_full(exc):
                    raise disk_full(folder, "opening the index") from exc
                raise open_error(folder, dims, exc) from exc
            try:
                present = shard.info().payload_schema
                for field, kind in EDGE_PAYLOAD_INDEXES.items():
                    if field in present:
                        if kind_of(present[field]) == kind:
                            continue
                        shard.update(qe.UpdateOperation.delete_field_index(field))
                    shard.update(qe.UpdateOperation.create_field_index(field, payload_index(kind)))
                    created = True
            except Exception as exc:
                shard.close()
                raise IndexBackendError(
                    f"index {folder}: cannot create payload indexes: {exc}"
                ) from exc
            return shard

        opening = asyncio.ensure_future(asyncio.to_thread(open_shard))
        try:
            shard = await asyncio.shield(opening)
        except asyncio.CancelledError:
            # The thread cannot be stopped: close what it opens, or the shard's WAL lock
            # would stay held by this process until it exits.
            opening.add_done_callback(close_orphan)
            raise
        index = cls(shard, folder, dims, seal=graph_m(folder) == 0)
        index._unsealed = read_unsealed(folder)
        index._unflushed = created
        return index

    # ----------------------------------------------------------------- the IndexBackend protocol

    async def upsert(self, points: Sequence[IndexPoint]) -> None:
        """Insert or replace points (one shard update for the whole batch).

        Raises:
            IndexBackendError: the shard rejected the batch or the index is closed.
        """
        if not points:
            return
        for p in points:
            if len(p.dense) != self._dims:
                raise IndexBackendError(
                    f"index {self._folder}: point {p.id} has {len(p.dense)} dims, "
                    f"the index holds {self._dims}"
                )

        # Edge writes points through memory-mapped files, where a full disk is a SIGBUS,
        # not an error: refuse a batch that might not fit, with room to spare for a flush.
        need = INDEX_RESERVE + sum(point_bytes(p) for p in points)
        await asyncio.to_thread(require_free, self._folder, need, "indexing")

        def upsert(shard: qe.EdgeShard) -> None:
            # Converting thousands of vectors to Edge's types is CPU work: do it off the loop.
            # The array as it is (its stubs say a list): Edge reads the same float32 values
            # from it, without the 384 Python floats a point of `tolist()` (25 us a point).
            edge_points = [
                qe.Point(
                    p.id,
                    {
                        DENSE: p.dense,  # type: ignore[dict-item]
                        WORDS: qe.SparseVector(list(p.sparse.indices), list(p.sparse.values)),
                    },
                    dict(p.payload),
                )
                for p in points
            ]
            shard.update(qe.UpdateOperation.upsert_points(edge_points))
            self._sealing(shard, len(edge_points))

        await self._call("upsert", upsert)

    def _sealing(self, shard: qe.EdgeShard, written: int) -> None:
        """Count points written into the open segment, and seal it every ``SEAL_EVERY``
        (under the lock ``_call`` holds)."""
        self._unsealed += written
        if self._seal and self._unsealed >= SEAL_EVERY:
            shard.optimize()
            self._unsealed = 0
            release_freed_heap()

    async def delete_uids(self, uids: Sequence[str]) -> None:
        """Delete every point (every passage) of these records.

        Raises:
            IndexBackendError: the shard failed or the index is closed.
        """
        if not uids:
            return
        op = qe.UpdateOperation.delete_points_by_filter(
            qe.Filter(must=[qe.FieldCondition("uid", match=qe.MatchAny(list(uids)))])
        )
        await self._call("delete", lambda shard: shard.update(op))

    async def flush(self) -> None:
        """Write everything upserted so far to the segments (~250 ms: once per batch).

        Points are already durable in the write-ahead log before this; flushing bounds how
        much of the log a later open has to replay.
        """
        await self._call("flush", self._flush)

    async def candidates(
        self, dense: Vector | None, sparse: SparseVector, limit: int, where: SearchFilter
    ) -> tuple[list[Hit], list[Hit]]:
        """Return up to ``limit`` passages by meaning and by words, each with its raw score.

        Both queries go to the shard in one batch (one worker-thread hop); a side without
        a query (``dense`` None, ``sparse`` empty) is not asked and comes back empty.

        Raises:
            IndexBackendError: the shard failed or the index is closed.
        """
        if limit < 1:
            return [], []
        flt = edge_filter(where)
        requests = []
        if dense is not None:
            requests.append(
                qe.QueryRequest(
                    limit,
                    query=qe.Query.Nearest(dense.tolist(), using=DENSE),
                    params=DENSE_SEARCH,
                    filter=flt,
                    with_payload=_CANDIDATE_FIELDS,
                    with_vector=[DENSE],
                )
            )
        if len(sparse.indices):
            words = qe.SparseVector(list(sparse.indices), list(sparse.values))
            requests.append(
                qe.QueryRequest(
                    limit,
                    query=qe.Query.Nearest(words, using=WORDS),
                    filter=flt,
                    with_payload=_CANDIDATE_FIELDS,
                    with_vector=[DENSE],
                )
            )
        if not requests:
            return [], []
        batch = qe.QueryBatchRequest(requests)
        found = await self._call("search", lambda shard: shard.query_batch(batch))
        return candidate_sides(found, dense is not None)

    async def term_idf(self, terms: Sequence[int]) -> dict[int, float]:
        """Return the IDF of each of ``terms`` some point holds.

        The shard applies IDF inside its keyword query and does not expose it, so each term
        is asked alone (one batch, best point only): that point's score over its stored
        weight for the term is the term's IDF. The best points' keyword vectors are read
        after, once each: asked with every term's query, they took half the batch's time
        (benchmarks/README.md, issue 32, tenth pass).
        """
        if not terms:
            return {}
        batch = qe.QueryBatchRequest(
            [
                qe.QueryRequest(
                    1,
                    query=qe.Query.Nearest(qe.SparseVector([term], [1.0]), using=WORDS),
                    with_payload=False,
                    with_vector=False,
                )
                for term in terms
            ]
        )

        def ask(shard: qe.EdgeShard) -> tuple[list[Any], dict[Any, Any]]:
            found = shard.query_batch(batch)
            best = list({side[0].id: None for side in found if side})
            return found, {p.id: p.vector for p in shard.retrieve(best, False, [WORDS])}

        found, vectors = await self._call("search", ask)
        out: dict[int, float] = {}
        for term, side in zip(terms, found, strict=True):
            idf = idf_of(term, float(side[0].score), vectors.get(side[0].id)) if side else None
            if idf is not None:
                out[term] = idf
        return out

    async def count_records(self) -> int:
        """Return how many records the index holds (points with ``passage == 0``, exact)."""
        request = qe.CountRequest(
            exact=True,
            filter=qe.Filter(must=[qe.FieldCondition("passage", match=qe.MatchValue(0))]),
        )
        return await self._call("count", lambda shard: shard.count(request))

    async def count_points(self) -> int:
        """Return how many points (passages) the index holds (exact)."""
        request = qe.CountRequest(exact=True)
        return await self._call("count", lambda shard: shard.count(request))

    async def point_uids(self) -> dict[str, set[int]]:
        """Return the passages the index holds per record uid (scrolls every point)."""
        found: dict[str, set[int]] = {}

        def scroll(shard: qe.EdgeShard) -> None:
            offset: Any = None
            while True:
                request = qe.ScrollRequest(
                    offset=offset,
                    limit=1024,
                    with_payload=qe.PayloadSelector.Include(["uid", "passage"]),
                )
                points, offset = shard.scroll(request)
                for point in points:
                    note_passage(found, point.payload)
                if offset is None:
                    return

        await self._call("scroll", scroll)
        return found

    async def points_missing(
        self, field: str, after: str | None, limit: int
    ) -> tuple[list[tuple[str, dict[str, Any]]], str | None]:
        """Return a page of the points without ``field`` (see IndexBackend.points_missing)."""
        request = qe.ScrollRequest(
            offset=after,
            limit=limit,
            filter=qe.Filter(must=[qe.IsEmptyCondition(field)]),
            with_payload=qe.PayloadSelector.Include(["uid", "start", "end"]),
        )
        points, offset = await self._call("scroll", lambda shard: shard.scroll(request))
        page = [(str(p.id), dict(p.payload or {})) for p in points]
        return page, None if offset is None else str(offset)

    async def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        """Set these payload keys on these points, their others kept."""
        if not ids:
            return
        update = qe.UpdateOperation.set_payload(list(ids), payload)

        def set_payload(shard: qe.EdgeShard) -> None:
            # A sealed segment's point given a payload is copied into the open segment, as
            # an upserted one is: counted toward the seal, or `reindex --payloads` left
            # every point of a folder unsealed (100k: search p50 12 -> 24 ms).
            shard.update(update)
            self._sealing(shard, len(ids))

        await self._call("set payload", set_payload)

    async def owner(self) -> str | None:
        """Return the id of the memory folder this shard was made for (``owner.json``), or None."""
        return await asyncio.to_thread(EdgeOwner(self._folder).read)

    async def set_owner(self, folder_id: str) -> None:
        """Mark the shard as the memory folder ``folder_id``'s."""
        await asyncio.to_thread(EdgeOwner(self._folder).write, folder_id)

    async def clear(self) -> None:
        """Delete every point, keeping the schema (``memtrails reindex`` rebuilds them).

        Raises:
            IndexBackendError: the shard failed or the index is closed.
        """
        # An empty filter matches every point.
        op = qe.UpdateOperation.delete_points_by_filter(qe.Filter())
        await self._call("clear", lambda shard: shard.update(op))

    async def optimize(self) -> None:
        """Merge segments and build the HNSW graph (blocking for minutes at 100k points).

        Maintenance only: search is exact (brute force) until this runs, ~13 ms at 100k.
        The shard keeps the graph from then on: later imports build it for their points too
        and no longer seal segments as they go (memory grows with the import, as it did
        before sealing existed). A shard made before sealed segments kept int8 copies of
        the dense vectors gets them here, written with the graph for each segment it
        builds one for (past 10 MB of vectors): its folder's only way to them short of a
        new folder, since opening keeps a shard's settings (see ``quantized``).

        Raises:
            IndexBackendError: the shard failed or the index is closed.
        """

        def build(shard: qe.EdgeShard) -> None:
            if self._seal or not quantized(self._folder):
                # The graph's parameters (and the int8 copies) are the shard's own: reload
                # it with them.
                shard.flush()
                shard.close()
                try:
                    self._shard = qe.EdgeShard.load(
                        str(self._folder), shard_config(self._dims, graph=True, quantize=True)
                    )
                except Exception:
                    self._closed = True
                    raise
                self._seal = False
            self._shard.optimize()

        await self._call("optimize", build)

    def describe(self) -> dict[str, Any]:
        """Return ``{"kind": "qdrant-edge", "path": ...}`` for ``memtrails status``."""
        return {"kind": EDGE, "path": str(self._folder)}

    async def aclose(self) -> None:
        """Flush (if anything was written since the last flush) and close the shard, releasing
        its lock. Idempotent."""
        if self._closed:
            return

        def close(shard: qe.EdgeShard) -> None:
            try:
                if self._unflushed:  # read under the lock _call holds
                    self._flush(shard)
            finally:
                shard.close()

        try:
            await self._call("close", close)
        finally:
            self._closed = True

    async def __aenter__(self) -> EdgeIndex:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # ----------------------------------------------------------------- internals

    def _flush(self, shard: qe.EdgeShard) -> None:
        shard.flush()
        if self._seal:
            write_unsealed(self._folder, self._unsealed)
        # Writes between seals free heap too (200k records: peak RSS 302 -> 280 MiB with a
        # release per flush as well as per seal); a flush comes at most every 2 s.
        release_freed_heap()

    async def _call(self, what: str, fn: Callable[[qe.EdgeShard], T]) -> T:
        """Run ``fn(shard)`` in a worker thread under the lock; translate Edge's errors."""

        def run() -> T:
            with self._lock:
                if self._closed:
                    raise IndexBackendError(
                        f"index {self._folder} was closed; open the memory folder again"
                    )
                try:
                    result = fn(self._shard)
                except Exception as exc:  # qdrant-edge raises plain Exception
                    if what in _WRITES:
                        self._unflushed = True  # a failed write may have reached the WAL
                    if is_disk_full(exc):
                        raise disk_full(self._folder, f"indexing ({what})") from exc
                    raise IndexBackendError(f"index {self._folder}: {what} failed: {exc}") from exc
                if what in _WRITES:
                    self._unflushed = True
                elif what == "flush":
                    self._unflushed = False
                return result

        return await asyncio.to_thread(run)
