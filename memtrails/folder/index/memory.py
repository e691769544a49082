"""An index backend held in memory: exact cosine and keyword scores, for tests and small folders."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..._exceptions import IndexBackendError
from ._base import Hit, IndexPoint, SearchFilter, SparseVector, note_passage

if TYPE_CHECKING:
    from ...embedding._base import Vector

__all__ = ["MEMORY", "MemoryIndex"]

MEMORY = "memory"  # the kind a folder's manifest records for this backend


class MemoryIndex:
    """Points in a dict: exact (brute-force) search, nothing kept on disk.

    Scores as the Qdrant backends do: the dense side is the cosine of the query to each
    passage; the keyword side is the dot product of the query's and the passage's keyword
    weights, each query term weighted by its inverse document frequency over the points
    held (Qdrant's IDF modifier), and holds only passages sharing a term with the query.
    Filters are :class:`SearchFilter`'s, matched exactly. No payload indexes: every search
    walks every point, which suits unit tests and folders of a few thousand records.

    A folder opened with one (``Memory.open(index=MemoryIndex())``) records the kind
    ``memory``; reopened without ``index=``, it gets a new, empty one, which opening finds
    out of step with the log and rebuilds from it (every record embedded again).

    Example::

        index = MemoryIndex()
        await index.upsert(points)
        by_meaning, by_words = await index.candidates(query_vector, keyword_vector, 10, SearchFilter())
    """

    def __init__(self) -> None:
        self._points: dict[str, IndexPoint] = {}
        self._units: dict[str, Vector] = {}  # each point's dense vector, normalised
        self._documents: Counter[int] = Counter()  # points holding each keyword term
        self._owner: str | None = None
        self._closed = False

    # ----------------------------------------------------------------- the IndexBackend protocol

    async def upsert(self, points: Sequence[IndexPoint]) -> None:
        """Insert or replace points.

        Raises:
            IndexBackendError: the index is closed.
        """
        import numpy as np  # here, not at the top: opening a folder does not need it

        self._check_open()
        for point in points:
            self._drop(point.id)
            vector = np.asarray(point.dense, dtype=np.float32)
            norm = float(np.linalg.norm(vector))
            self._points[point.id] = point
            self._units[point.id] = vector / norm if norm else vector
            self._documents.update(set(point.sparse.indices))

    async def delete_uids(self, uids: Sequence[str]) -> None:
        """Delete every point (every passage) of these records."""
        self._check_open()
        gone = set(uids)
        for pid in [pid for pid, p in self._points.items() if p.payload.get("uid") in gone]:
            self._drop(pid)

    async def flush(self) -> None:
        """Nothing to do: nothing is kept on disk."""
        self._check_open()

    async def candidates(
        self, dense: Vector | None, sparse: SparseVector, limit: int, where: SearchFilter
    ) -> tuple[list[Hit], list[Hit]]:
        """Return up to ``limit`` passages by meaning and by words, each with its raw score
        (a side without a query comes back empty)."""
        import numpy as np

        self._check_open()
        if limit < 1:
            return [], []
        query = None
        if dense is not None:
            query = np.asarray(dense, dtype=np.float32)
            norm = float(np.linalg.norm(query))
            query = query / norm if norm else query
        weights = dict(zip(sparse.indices, sparse.values, strict=True))
        idf = {term: self._idf(term) for term in weights}
        by_meaning: list[Hit] = []
        by_words: list[Hit] = []
        uids = None if where.uids is None else set(where.uids)
        for pid, point in self._points.items():
            if not _matches(point.payload, where, uids):
                continue
            if query is not None:
                by_meaning.append(self._hit(point, float(np.dot(query, self._units[pid]))))
            shared = [
                (term, value)
                for term, value in zip(point.sparse.indices, point.sparse.values, strict=True)
                if term in weights
            ]
            if shared:
                score = sum(weights[term] * idf[term] * value for term, value in shared)
                by_words.append(self._hit(point, score))
        return _best(by_meaning, limit), _best(by_words, limit)

    async def term_idf(self, terms: Sequence[int]) -> dict[int, float]:
        """Return the IDF of each of ``terms`` some point holds."""
        self._check_open()
        return {t: self._idf(t) for t in terms if self._documents.get(t, 0) > 0}

    async def count_records(self) -> int:
        """Return how many records the index holds (points with ``passage == 0``)."""
        self._check_open()
        return sum(1 for p in self._points.values() if p.payload.get("passage") == 0)

    async def count_points(self) -> int:
        """Return how many points (passages) the index holds."""
        self._check_open()
        return len(self._points)

    async def point_uids(self) -> dict[str, set[int]]:
        """Return the passages the index holds per record uid."""
        self._check_open()
        found: dict[str, set[int]] = {}
        for point in self._points.values():
            note_passage(found, point.payload)
        return found

    async def points_missing(
        self, field: str, after: str | None, limit: int
    ) -> tuple[list[tuple[str, dict[str, Any]]], str | None]:
        """Return a page of the points without ``field``, in id order."""
        self._check_open()
        ids = sorted(i for i, p in self._points.items() if not p.payload.get(field))
        ids = [i for i in ids if after is None or i >= after]
        page = [(i, dict(self._points[i].payload)) for i in ids[:limit]]
        return page, ids[limit] if len(ids) > limit else None

    async def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        """Set these payload keys on these points, their others kept."""
        self._check_open()
        for i in ids:
            if (point := self._points.get(i)) is not None:
                self._points[i] = replace(point, payload={**point.payload, **payload})

    async def owner(self) -> str | None:
        """Return the id of the memory folder this index was given to, or None."""
        return self._owner

    async def set_owner(self, folder_id: str) -> None:
        """Record the memory folder this index belongs to."""
        self._owner = folder_id

    async def clear(self) -> None:
        """Delete every point."""
        self._check_open()
        self._points.clear()
        self._units.clear()
        self._documents.clear()

    async def optimize(self) -> None:
        """Nothing to do: search is exact."""
        self._check_open()

    def describe(self) -> dict[str, Any]:
        """Return ``{"kind": "memory"}``."""
        return {"kind": MEMORY}

    async def aclose(self) -> None:
        """Stop answering; the points are dropped. Idempotent."""
        self._closed = True
        self._points.clear()
        self._units.clear()
        self._documents.clear()

    # ----------------------------------------------------------------- internals

    def _drop(self, pid: str) -> None:
        old = self._points.pop(pid, None)
        if old is not None:
            del self._units[pid]
            self._documents.subtract(set(old.sparse.indices))

    def _idf(self, term: int) -> float:
        # Qdrant's IDF: ln(1 + (N - n + 0.5) / (n + 0.5)) over the N points, n holding the term.
        held = self._documents.get(term, 0)
        return math.log(1.0 + (len(self._points) - held + 0.5) / (held + 0.5))

    def _hit(self, point: IndexPoint, score: float) -> Hit:
        return Hit(str(point.payload.get("uid", "")), score, point.payload, self._units[point.id])

    def _check_open(self) -> None:
        if self._closed:
            raise IndexBackendError("the in-memory index was closed; open the memory folder again")


def _best(hits: list[Hit], limit: int) -> list[Hit]:
    # Ties by uid, then passage, so that results do not depend on insertion order.
    hits.sort(key=lambda h: (-h.score, h.uid, h.payload.get("passage", 0)))
    return hits[:limit]


def _matches(payload: Mapping[str, Any], where: SearchFilter, uids: set[str] | None) -> bool:
    for key in ("kind", "source"):
        wanted = getattr(where, key)
        if wanted is not None and payload.get(key) != wanted:
            return False
    if where.author is not None and not _words_in(where.author, payload.get("author")):
        return False
    if where.since_ms is not None or where.until_ms is not None:
        at = payload.get("at")
        if not isinstance(at, int | float):
            return False
        if where.since_ms is not None and at < where.since_ms:
            return False
        if where.until_ms is not None and at > where.until_ms:
            return False
    if where.outside is not None and not set(payload.get("scripts") or ()) - where.outside:
        return False
    return uids is None or payload.get("uid") in uids


def _words(text: str) -> list[str]:
    # Qdrant's word tokenizer, which its text match uses on a field without a text index.
    return [token.lower() for token in re.findall(r"[^\W_]+", text)]


def _words_in(wanted: str, author: object) -> bool:
    """True when every word of ``wanted`` is a word of ``author`` (as the Qdrant backends match)."""
    if not isinstance(author, str):
        return False
    words = _words(wanted)
    return bool(words) and set(words) <= set(_words(author))
