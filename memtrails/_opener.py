"""``Memory.open(...)``'s answer: a memory to await, or to use with ``async with``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .memory import Memory

__all__ = ["Opener"]


class Opener:
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
