"""The MCP tools of ``memtrails mcp``, answered from the service's one open memory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from ..embedding._base import Embedder
from ..mcp.access import FolderAccess
from ..memory import Memory

__all__ = ["ServiceAccess"]


class ServiceAccess(FolderAccess):
    """Hands every MCP request the memory the service holds open (nothing opened per
    request, no waiting for imports: they run in the same process)."""

    def __init__(self, memory: Memory) -> None:
        super().__init__(memory.path)
        self._memory = memory

    async def embedder(self) -> Embedder:
        """Not used: the memory's own model embeds."""
        raise NotImplementedError  # pragma: no cover

    @asynccontextmanager
    async def open(
        self, *, model: bool = False, write: str | None = None, create: bool = False
    ) -> AsyncIterator[Memory]:
        """Yield the service's memory (it stays open after the request)."""
        yield self._memory

    async def aclose(self) -> None:
        """Nothing to close: the service closes its memory."""
