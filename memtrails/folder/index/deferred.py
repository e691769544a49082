"""An index backend opened on its first use: opening a folder does not load its index."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..._exceptions import IndexBackendError
from ._base import Hit, IndexBackend, IndexPoint, SearchFilter, SparseVector

if TYPE_CHECKING:
    from ...embedding._base import Vector

__all__ = ["DeferredIndex", "Ownership"]


class Ownership(Protocol):
    """Reads and writes an index's owner mark without opening the index."""

    def read(self) -> str | None: ...

    def write(self, folder_id: str) -> None: ...


class DeferredIndex:
    """Stands for an index that is opened by the first call that needs it.

    Loading a Qdrant Edge shard reads every one of its segments: seconds at a million
    points, where the rest of opening a folder takes milliseconds. An import that finds
    nothing new, a ``get``, or a re-run that only reads the log never needs the index, and
    never pays for it. ``first_use`` runs once, on the opened backend, before any call
    reaches it: the folder's check that the index agrees with the log.

    Args:
        opener: opens the backend.
        described: what :meth:`describe` returns (known without opening).
        first_use: awaited with the opened backend before its first call (settable until
            then); if it raises, the backend is closed and the call fails (the next call
            tries again).
        ownership: the index's owner mark, read and written without opening it (else
            :meth:`owner` and :meth:`set_owner` open the index).
    """

    def __init__(
        self,
        opener: Callable[[], Awaitable[IndexBackend]],
        described: dict[str, Any],
        first_use: Callable[[IndexBackend], Awaitable[None]] | None = None,
        *,
        ownership: Ownership | None = None,
    ) -> None:
        self._opener = opener
        self._ownership = ownership
        self._described = dict(described)
        self.first_use = first_use
        self._backend: IndexBackend | None = None
        self._was_opened = False
        self._lock = asyncio.Lock()
        self._closed = False

    @property
    def opened(self) -> bool:
        """Whether the backend was opened (by a call that needed it), closed since or not."""
        return self._was_opened

    @property
    def keeps_owner(self) -> bool:
        """Whether :meth:`owner` and :meth:`set_owner` work without opening the index."""
        return self._ownership is not None

    async def backend(self) -> IndexBackend:
        """Return the opened backend, opening and checking it on the first call.

        Raises:
            IndexBackendError: the index was closed, or could not be opened.
        """
        if self._backend is not None:
            return self._backend
        async with self._lock:
            if self._closed:
                raise IndexBackendError(
                    f"index {self._described.get('path', '')} was closed; open the memory "
                    "folder again"
                )
            if self._backend is None:
                opened = await self._opener()
                self._was_opened = True
                try:
                    if self.first_use is not None:
                        await self.first_use(opened)
                except BaseException:
                    await opened.aclose()
                    raise
                self._backend = opened
        return self._backend

    # ----------------------------------------------------------------- the IndexBackend protocol

    async def upsert(self, points: Sequence[IndexPoint]) -> None:
        """Insert or replace points (opens the index)."""
        await (await self.backend()).upsert(points)

    async def delete_uids(self, uids: Sequence[str]) -> None:
        """Delete every point of these records (opens the index)."""
        await (await self.backend()).delete_uids(uids)

    async def flush(self) -> None:
        """Make what was written durable; nothing to do when the index was never opened."""
        if self._backend is not None:
            await self._backend.flush()

    async def candidates(
        self, dense: Vector | None, sparse: SparseVector, limit: int, where: SearchFilter
    ) -> tuple[list[Hit], list[Hit]]:
        """Return the passages nearest by meaning and by words (opens the index)."""
        return await (await self.backend()).candidates(dense, sparse, limit, where)

    async def term_idf(self, terms: Sequence[int]) -> dict[int, float]:
        """Return the keyword side's IDF of the terms some passage holds (opens the index)."""
        return await (await self.backend()).term_idf(terms)

    async def count_records(self) -> int:
        """Return how many records the index holds (opens the index)."""
        return await (await self.backend()).count_records()

    async def count_points(self) -> int:
        """Return how many points the index holds (opens the index)."""
        return await (await self.backend()).count_points()

    async def point_uids(self) -> dict[str, set[int]] | None:
        """Return the passages the index holds per record uid (opens the index)."""
        return await (await self.backend()).point_uids()

    async def points_missing(
        self, field: str, after: str | None, limit: int
    ) -> tuple[list[tuple[str, dict[str, Any]]], str | None]:
        """Return a page of the points without ``field`` (opens the index)."""
        return await (await self.backend()).points_missing(field, after, limit)

    async def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        """Set these payload keys on these points (opens the index)."""
        await (await self.backend()).set_payload(ids, payload)

    async def owner(self) -> str | None:
        """Return the id of the folder the index was made for (without opening it if it can)."""
        if self._ownership is not None:
            return await asyncio.to_thread(self._ownership.read)
        return await (await self.backend()).owner()

    async def set_owner(self, folder_id: str) -> None:
        """Mark the index as the folder ``folder_id``'s (without opening it if it can)."""
        if self._ownership is not None:
            await asyncio.to_thread(self._ownership.write, folder_id)
        else:
            await (await self.backend()).set_owner(folder_id)

    async def clear(self) -> None:
        """Delete every point (opens the index)."""
        await (await self.backend()).clear()

    async def optimize(self) -> None:
        """Build the search graph (opens the index)."""
        await (await self.backend()).optimize()

    def describe(self) -> dict[str, Any]:
        """Return the backend's kind and location (without opening it)."""
        return dict(self._described)

    async def aclose(self) -> None:
        """Close the backend if it was opened; later calls fail. Idempotent."""
        async with self._lock:
            self._closed = True
            backend, self._backend = self._backend, None
        if backend is not None:
            await backend.aclose()
