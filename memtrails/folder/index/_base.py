"""The small interface every index backend (Qdrant Edge, a Qdrant server, in memory) implements."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ...embedding._base import Vector

__all__ = [
    "DENSE",
    "PAYLOAD_INDEXES",
    "WORDS",
    "Hit",
    "IndexBackend",
    "IndexKind",
    "IndexPlace",
    "IndexPoint",
    "SearchFilter",
    "SparseVector",
    "candidate_sides",
    "dense_of",
    "idf_of",
    "note_passage",
]

# The schema every backend creates: named vectors and payload indexes.
DENSE = "dense"
WORDS = "words"
# Keyword-indexed fields filter exactly; integer ones also take ranges. Created once, with the
# shard, and re-created on load if a crash left the shard without them.
PAYLOAD_INDEXES: dict[str, str] = {
    "uid": "keyword",
    "kind": "keyword",
    "author": "keyword",
    "source": "keyword",
    "thread": "keyword",
    "at": "integer",
    "passage": "integer",
    "scripts": "keyword",
}


@dataclass(frozen=True, slots=True)
class SparseVector:
    """Keyword vector: term ids (32-bit FNV-1a, ascending, unique) and their weights."""

    indices: Sequence[int]
    values: Sequence[float]


@dataclass(frozen=True, slots=True)
class IndexPoint:
    """One passage of one record, as stored in the index.

    ``payload`` holds: uid, passage (int), kind, author, title, at (epoch ms or None),
    source, thread, and scripts (the scripts the passage's prose is written in, sorted:
    :func:`memtrails.folder.scripts.prose_scripts`; absent when too short to tell).
    """

    id: str
    dense: Vector
    sparse: SparseVector
    payload: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class SearchFilter:
    """Conditions every hit must meet; ``None`` means no condition.

    ``kind``, ``author`` and ``source`` match the payload's exactly; ``since_ms`` and
    ``until_ms`` bound its ``at`` (epoch ms); ``uids`` keeps those records only.

    Example: what a backend's :meth:`IndexBackend.candidates` is asked, here of the one in
    memory, with :class:`IndexPoint` and :class:`SparseVector`:

        >>> import asyncio
        >>> import numpy as np
        >>> from memtrails.extend import IndexPoint, SearchFilter, SparseVector
        >>> from memtrails.testing import MemoryIndex
        >>> dense, words = np.array([1.0, 0.0], np.float32), SparseVector([7], [1.0])
        >>> def point(uid, source):
        ...     payload = {"uid": uid, "passage": 0, "source": source, "kind": "note"}
        ...     return IndexPoint(f"{uid}-0", dense, words, payload)
        >>> async def search(where):
        ...     index = MemoryIndex()
        ...     await index.upsert([point("a", "mail"), point("b", "notes")])
        ...     by_meaning, by_words = await index.candidates(dense, words, 10, where)
        ...     return [hit.uid for hit in by_meaning], [hit.uid for hit in by_words]
        >>> asyncio.run(search(SearchFilter()))
        (['a', 'b'], ['a', 'b'])
        >>> asyncio.run(search(SearchFilter(source="notes")))
        (['b'], ['b'])
    """

    kind: str | None = None
    author: str | None = None
    source: str | None = None
    since_ms: int | None = None
    until_ms: int | None = None
    uids: Sequence[str] | None = field(default=None)
    #: only passages written in some script not among these (payload ``scripts``)
    outside: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class Hit:
    """A matching passage: its record's uid, its score, the point's payload and, from
    :meth:`IndexBackend.candidates`, its dense vector (search spreads near-duplicates with it).
    """

    uid: str
    score: float
    payload: Mapping[str, Any]
    vector: Vector | None = None


class IndexBackend(Protocol):
    """Where the points live. All methods are safe to await from one event loop.

    The folder writes points (:class:`IndexPoint`, one per passage of a record) and asks
    :meth:`candidates` for a search; the log stays the truth, so an index can always be
    rebuilt from it (``memtrails reindex``). Pass one as ``Memory.open(path, index=...)``.
    The shipped backends are ``memtrails.EdgeIndex`` (the default, embedded),
    ``memtrails.ServerIndex`` (a Qdrant server) and ``memtrails.testing.MemoryIndex`` (in
    memory, the smallest to read).

    Example: a backend of your own, here the in-memory one counting what it is given:

        >>> import asyncio, tempfile
        >>> from memtrails import Memory
        >>> from memtrails.testing import HashingEmbedder, MemoryIndex
        >>> class Counting(MemoryIndex):
        ...     written = 0
        ...     async def upsert(self, points):
        ...         self.written += len(points)
        ...         await super().upsert(points)
        >>> async def run(folder, index):
        ...     async with Memory.open(folder, embedder=HashingEmbedder(), index=index) as memory:
        ...         await memory.ingest([{"id": "1", "text": "hello"}, {"id": "2", "text": "world"}])
        ...         return [hit.id for hit in await memory.search("hello", k=1)]
        >>> index = Counting()
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     found = asyncio.run(run(folder, index))
        >>> found, index.written
        (['1'], 2)
    """

    async def upsert(self, points: Sequence[IndexPoint]) -> None: ...

    async def delete_uids(self, uids: Sequence[str]) -> None:
        """Delete every point (every passage) of these records."""
        ...

    async def flush(self) -> None:
        """Make everything upserted so far durable."""
        ...

    async def candidates(
        self, dense: Vector | None, sparse: SparseVector, limit: int, where: SearchFilter
    ) -> tuple[list[Hit], list[Hit]]:
        """Return up to ``limit`` passages nearest by meaning and up to ``limit`` by words.

        Each list is best first with the side's raw score: the dense cosine, the keyword
        score (saturated counts x IDF), each hit with its dense vector. The meaning list is
        empty when ``dense`` is None (the words side asked alone, while the model still
        embeds the query), the keyword list when ``sparse`` is.
        """
        ...

    async def term_idf(self, terms: Sequence[int]) -> dict[int, float]:
        """Return the IDF the keyword side gives each of ``terms`` that some passage holds.

        Terms no passage holds are left out. The search's confidence weighs the query's words
        by it (a rare word matched is evidence, a common one is not).
        """
        ...

    async def count_records(self) -> int:
        """Return how many distinct records the index can find (points with passage 0)."""
        ...

    async def count_points(self) -> int: ...

    async def point_uids(self) -> dict[str, set[int]] | None:
        """Return the passages the index holds per record uid, or None when it cannot list them.

        Optional: ``memtrails check`` names the records without points and the orphan points
        with it; a backend that returns None is checked by count alone.
        """
        ...

    async def points_missing(
        self, field: str, after: str | None, limit: int
    ) -> tuple[list[tuple[str, dict[str, Any]]], str | None]:
        """Return up to ``limit`` points whose payload lacks ``field`` (or holds it empty),
        each as (point id, its uid, start and end), from the page token ``after`` on (None:
        the first page), and the next page's token (None: that was the last)."""
        ...

    async def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        """Set these payload keys on these points, their other keys kept."""
        ...

    async def owner(self) -> str | None:
        """Return the id of the memory folder this index was made for, or None if unrecorded.

        Optional: a backend that records none (returns None, and :meth:`set_owner` does
        nothing) cannot tell an index copied from another folder.
        """
        ...

    async def set_owner(self, folder_id: str) -> None:
        """Record that this index belongs to the memory folder ``folder_id`` (see :meth:`owner`)."""
        ...

    async def clear(self) -> None:
        """Delete every point (``memtrails reindex`` then rebuilds from the log)."""
        ...

    async def optimize(self) -> None:
        """Build the HNSW graph and merge segments: maintenance, never on the write path."""
        ...

    def describe(self) -> dict[str, Any]:
        """Return the backend's kind and location for ``memtrails status``."""
        ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True, slots=True)
class IndexPlace:
    """Where a folder's index is, as its backend's opener is told.

    ``spec`` is the manifest's ``index`` section (its ``kind`` and what the backend wrote
    there), ``dims`` the folder's vector length, ``url`` and ``api_key`` what the caller gave
    now (``--qdrant-url``, ``$QDRANT_API_KEY``).
    """

    folder: Path
    spec: Mapping[str, Any]
    dims: int
    url: str | None = None
    api_key: str | None = None


@dataclass(frozen=True, slots=True)
class IndexKind:
    """One kind of index backend: the name a manifest records and how to open one.

    ``open`` opens (creating if missing) the index of a folder; it may return a stand-in
    that loads the index on first use (:class:`~.deferred.DeferredIndex`). ``files`` are
    the names the kind writes in the folder's ``index/``: a new folder's index is made
    before its manifest, so a folder holding only those is what an interrupted first open
    left, not someone else's files.
    """

    name: str
    open: Callable[[IndexPlace], Awaitable[IndexBackend]]
    files: frozenset[str] = frozenset()


def idf_of(term: int, score: float, vector: Any) -> float | None:
    """Return a term's IDF from a one-term keyword query's best point: its score over the
    weight the point stores for the term (None when the point's keyword vector lacks it)."""
    words = vector.get(WORDS) if isinstance(vector, dict) else None
    if words is None:
        return None
    weight = dict(zip(words.indices, words.values, strict=False)).get(term)
    return score / weight if weight else None


def dense_of(vector: Any) -> Vector | None:
    """Return a scored point's dense vector (asked for by name, so a dict of named vectors)."""
    import numpy as np  # here: a folder opened only to read its files never loads numpy

    if isinstance(vector, dict):
        vector = vector.get(DENSE)
    return None if vector is None else np.asarray(vector, dtype=np.float32)


def candidate_sides(found: Sequence[Iterable[Any]], dense: bool) -> tuple[list[Hit], list[Hit]]:
    """Return a candidates batch's scored points (one list a query asked, the meaning side's
    first when ``dense`` was asked, then the words side's) as the two sides' hits."""
    sides = [
        [
            Hit(
                str((point.payload or {}).get("uid", "")),
                float(point.score),
                point.payload or {},
                dense_of(point.vector),
            )
            for point in side
        ]
        for side in found
    ]
    if not dense:
        return [], sides[0] if sides else []
    return sides[0], sides[1] if len(sides) > 1 else []


def note_passage(found: dict[str, set[int]], payload: Mapping[str, Any] | None) -> None:
    """Add a listed point's passage to ``found`` under its record's uid (-1: no passage number)."""
    payload = payload or {}
    passage = payload.get("passage")
    found.setdefault(str(payload.get("uid")), set()).add(
        passage if isinstance(passage, int) else -1
    )
