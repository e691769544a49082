"""``Memory.open(...)``'s answer: a memory to await, or to use with ``async with``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ._exceptions import MemoryLockedError
from .service.discovery import find_service
from .service.during_import import waited_for

if TYPE_CHECKING:
    from .folder.opening import Folder
    from .memory import Memory

__all__ = ["Opener", "opened"]


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


async def opened(
    make: Callable[[Folder], Memory],
    opening: Callable[[], Awaitable[Folder]],
    catch_up: bool,
    home: Path | None = None,
) -> Memory:
    """Return the memory ``Memory.open`` gives: a client of the service that holds ``home``
    when one does, else ``make`` of the folder ``opening`` opens (caught up if asked).

    An import that answers reads while it runs (``memtrails add``) holds the folder: the
    opening waits for its service, or for the folder, whichever comes first.
    """
    if home is not None and find_service(home) is not None:
        from .service.client import connect  # httpx: only when a service may hold it

        remote = await connect(home)
        if remote is not None:
            return remote
    try:
        folder = await opening()
    except MemoryLockedError as exc:
        if home is None or not waited_for(exc.role):  # a serving import, or one ending
            raise
        from .service.client import RemoteMemory
        from .service.during_import import folder_or_service

        found = await folder_or_service(home, opening)
        if isinstance(found, RemoteMemory):
            return found
        folder = found
    memory = make(folder)
    if catch_up:
        try:
            await memory.catch_up()
        except BaseException:
            await memory.aclose()
            raise
    return memory
