"""Reads answered while an import holds the folder: the import serves them itself.

A memory folder admits one process at a time (the folder's flock, and Qdrant Edge's lock on
its write-ahead log), so an import run from cron holds it for minutes. While it does, it
answers other processes' reads: after :data:`START_AFTER` seconds of importing it serves the
folder's API (``build_app``, bound to 127.0.0.1 on a free port, behind the folder's token)
and says so in ``service.json``, as ``memtrails serve`` does, with the import it runs.
``find_service``, ``connect`` and ``Memory.open`` then reach it unchanged. It answers
searches, gets, status, sources and records (what the import has committed so far: a record
is found once its batch is in the index) and refuses every write with one line naming the
import. ``service.json`` goes when the import ends.

Every import serves so: ``memtrails add`` (for its whole run), a script's
``Memory.ingest``, ``add_path`` and ``add_git`` (each for its own run, unless the memory was
opened with ``serve_reads=False``), the MCP ``add`` tool. :func:`reads_served` blocks nest
and overlap: the first starts the one server of the folder, the last to end stops it. In a
``memtrails serve`` process the service answers already, and nothing more is started.

An import that serves holds the lock as :data:`SERVING_IMPORT` (``memtrails add`` from its
open on, any other import while it runs); an opener that finds it waits
(:func:`folder_or_service`, up to :data:`SERVING_WAIT` seconds) for its ``service.json`` or
for the folder, whichever comes first. A reader whose import stopped answering (it ended)
opens the folder itself once it is free (``client.RemoteMemory``). Without Starlette,
uvicorn and the MCP SDK (the ``mcp`` extra) an import serves nothing and holds the lock as
before: readers are refused at once, as they always were.

Importing this module loads neither Starlette nor uvicorn: a short ``add`` never does.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib.util
import logging
import os
import socket
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from .._exceptions import MemoryLockedError
from ..folder.lock import (
    LENDER,
    LENDER_WAIT,
    READER,
    SERVING_IMPORT,
    describe,
    holding_as,
    is_lender,
    keeps_open,
    lender,
)
from .discovery import (
    SERVICE_FILE,
    SERVICE_ROLE,
    ensure_token,
    find_service,
    remove_service_file,
    write_service_file,
)

if TYPE_CHECKING:
    from ..folder.opening import Folder
    from ..memory import Memory
    from .client import RemoteMemory

__all__ = [
    "LENDER",
    "LENDER_WAIT",
    "SERVING_WAIT",
    "START_AFTER",
    "can_serve",
    "command_line",
    "folder_or_service",
    "keeps_open",
    "lender_role",
    "open_as_lender",
    "reads_served",
    "refusal",
    "serving_import",
    "serving_reads",
    "waited_for",
]

START_AFTER = 1.5
"""Seconds an import runs before it serves reads: a small ``add`` ends before, and pays
nothing for the server (its modules take about a second to load)."""

SERVING_WAIT = 60.0
"""Seconds an opener waits for a serving import's ``service.json`` (or for the folder)."""


STOP_WAIT = 10.0
"""Seconds the import's end waits for the reads in flight before it closes the server."""

_POLL = 0.1
_NEEDED = ("starlette", "uvicorn", "mcp")

log = logging.getLogger("memtrails.service")
T = TypeVar("T")


@functools.cache
def can_serve() -> bool:
    """Whether this installation can serve reads during an import (the ``mcp`` extra)."""
    return all(importlib.util.find_spec(name) is not None for name in _NEEDED)


def command_line() -> str:
    """This process's command, as the refusal names it: ``memtrails add ~/mail ...`` for the
    CLI, ``python sync.py --full`` for a script; a secret in it (a password in a database
    URL) is scrubbed: readers are told it, and ``service.json`` keeps it."""
    return describe(sys.argv)


def refusal(pid: int, importing: str) -> str:
    """The one line every write is refused with while the import runs."""
    return (
        f"an import is running (pid {pid}: {importing}); it holds the memory folder and "
        "answers reads only: try the write again when it ends"
    )


@contextlib.contextmanager
def serving_import() -> Iterator[None]:
    """Open the folder within this block as an import that will serve reads (its lock's
    role says so, and readers wait for its service), when this installation can."""
    role = SERVING_IMPORT if can_serve() else ""
    token = _OPENING_AS.set(role)
    try:
        with holding_as(role):
            yield
    finally:
        _OPENING_AS.reset(token)


_OPENING_AS: ContextVar[str | None] = ContextVar("memtrails_opening_as", default=None)


def lender_role() -> str:
    """The lock's role of this process between its imports that serve reads (:data:`LENDER`
    and its command), or none where this installation cannot serve them."""
    return lender(command_line()) if can_serve() else ""


def waited_for(role: str | None) -> bool:
    """Whether an opener that finds the folder held as ``role`` waits for the folder or the
    holder's service (:func:`folder_or_service`) rather than failing at once: a serving
    import, or a :data:`LENDER` within :data:`LENDER_WAIT` s of its last import or open."""
    return role == SERVING_IMPORT or is_lender(role)


async def open_as_lender(path: Path, *, role: str = "", **options: Any) -> Folder:
    """``open_folder`` for a ``Memory.open`` whose imports will answer reads: the lock is
    taken as a ``memtrails add``'s (:func:`serving_import`), else as :data:`LENDER`, so that
    readers that come before its first import serves wait for it (without the ``mcp``
    extra, or with a ``role`` given, as asked)."""
    from ..folder.opening import open_folder

    if not role:
        opening_as = _OPENING_AS.get()
        # No command named yet: finding it loads the secret scanner, which an open spares;
        # a reader refused names it from the process (lock.FolderLock).
        role = opening_as if opening_as is not None else LENDER if can_serve() else ""
    return await open_folder(path, role=role, **options)


@contextlib.asynccontextmanager
async def serving_reads(opening: AbstractAsyncContextManager[Memory]) -> AsyncIterator[Memory]:
    """Open the memory ``opening`` opens as an import that answers other processes' reads
    while it runs (:func:`serving_import`, then :func:`reads_served`), and yield it."""
    with serving_import():
        async with opening as memory, reads_served(memory):
            yield memory


@contextlib.asynccontextmanager
async def reads_served(
    memory: Memory, importing: str | None = None, *, after: float = START_AFTER
) -> AsyncIterator[None]:
    """Answer other processes' reads of ``memory``'s folder while this block imports.

    The server starts only after ``after`` seconds, as a task of this block, and is stopped
    (``service.json`` first, then the reads in flight, at most :data:`STOP_WAIT` s) when the
    block ends, however it ends (cancelled, failing). While it runs the folder's lock says
    :data:`SERVING_IMPORT`; its role before is given back at the end. Blocks of one folder
    nest and overlap (an ``add_path`` of many parts, each an ``ingest``; two tasks' imports
    at once): the first starts the server, the last to end stops it, and the others' own
    ``importing`` is not said. Nothing happens for a client of a service, a memory opened
    with ``serve_reads=False``, a ``memtrails serve`` process (its service answers already),
    or where the ``mcp`` extra is not installed. A server that cannot start is logged and
    given up: the import goes on, and the lock's role no longer says it serves.
    """
    home = memory.path
    lending: _Lending | None = memory._lending
    if lending is not None and not memory.remote:
        lending.users += 1  # this memory serves the folder's reads already: one more user
        try:
            yield
        finally:
            await _leave(memory, lending)
        return
    if memory.remote or not memory.serves_reads:
        yield
        return
    held_as = await asyncio.to_thread(_held_as, home)
    if held_as == SERVICE_ROLE:
        yield  # `memtrails serve`: its own service answers, and its service.json is there
        return
    # This process holds the folder: a service.json there is a killed holder's (stale, and
    # ignored by readers, but it kept `memtrails status` off its fast path).
    await asyncio.to_thread(_remove_stale, home)
    if not can_serve():
        yield
        return
    held_as = "" if is_lender(held_as) else held_as  # an import of this memory ended before
    lender = _Lender(memory, importing or command_line(), held_as)
    lender.say(SERVING_IMPORT)  # readers that come now wait for the service
    task = asyncio.create_task(lender.run(after), name="memtrails reads during import")
    # Kept by the memory: the folder's lock lets one memory of this process hold it.
    lending = memory._lending = _Lending(lender, task)
    try:
        yield
    finally:
        await _leave(memory, lending)


@dataclass
class _Lending:
    """The server of a folder this process lends now, and how many blocks use it."""

    lender: _Lender
    task: asyncio.Task[None]
    users: int = 1


async def _leave(memory: Memory, lending: _Lending) -> None:
    lending.users -= 1
    if lending.users > 0:
        return
    if memory._lending is lending:
        memory._lending = None
    from .._uncancelled import to_the_end

    await to_the_end(lending.lender.stop(lending.task))


def own_import(memory: Memory) -> dict[str, Any] | None:
    """Return the import of ``memory`` that answers reads now, as a status says it (``{"pid",
    "command"}``), or None: for this process's own reads beside its import (the MCP server's
    status during its ``add``), as :func:`.client.imported_through` says it for a client."""
    lending: _Lending | None = memory._lending
    if lending is None or memory.remote:
        return None
    return {"pid": os.getpid(), "command": lending.lender.importing}


def serves_reads(memory: Memory) -> bool:
    """Whether an import of ``memory`` answers other processes' reads now (a block of
    :func:`reads_served` runs, its server started or about to)."""
    return memory._lending is not None


def _held_as(home: Path) -> str:
    """The role this process holds ``home``'s lock as (what the lock file says)."""
    try:
        text = (home / "memory.lock").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""
    pid, _, role = text.partition(" ")
    return role if pid == str(os.getpid()) else ""


def _remove_stale(home: Path) -> None:
    with contextlib.suppress(OSError):
        (home / SERVICE_FILE).unlink()


class _Lender:
    """The server of one import: started after a delay, stopped when the import ends."""

    def __init__(self, memory: Memory, importing: str, held_as: str = "") -> None:
        self.memory = memory
        self.home = memory.path
        self.importing = importing
        self.held_as = held_as  # the lock's role before, given back at the end
        self.server: Any = None

    async def run(self, after: float) -> None:
        await asyncio.sleep(after)
        sock: socket.socket | None = None
        try:
            server, sock = await self._start()
            await asyncio.to_thread(
                write_service_file, self.home, "127.0.0.1", sock.getsockname()[1], self.importing
            )
            self.server = server
            await server.serve(sockets=[sock])
        except (Exception, SystemExit) as exc:  # uvicorn exits when its startup fails
            log.warning("reads are not served during this import: %s", exc)
            # Readers stop waiting for a service: the role a plain import holds it as.
            self.held_as = "" if self.held_as == SERVING_IMPORT else self.held_as
            self.say(self.held_as)
        finally:
            remove_service_file(self.home)
            if sock is not None:
                sock.close()

    async def _start(self) -> tuple[Any, socket.socket]:
        def load() -> None:  # about a second of imports: not on the event loop
            for name in ("uvicorn", "memtrails.service.app", "memtrails.service.reads_only"):
                importlib.import_module(name)

        await asyncio.to_thread(load)
        import uvicorn

        from ._http import head_deadline_protocol
        from .app import build_app
        from .jobs import Jobs
        from .reads_only import QuietServer, ReadsOnly

        token = await asyncio.to_thread(ensure_token, self.home)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind(("127.0.0.1", 0))
            sock.listen(128)
            sock.setblocking(False)
            port = sock.getsockname()[1]
            why = refusal(os.getpid(), self.importing)
            app = build_app(
                self.memory,
                Jobs(self.memory),
                asyncio.Event(),
                token=token,
                host="127.0.0.1",
                port=port,
                inner=lambda app: ReadsOnly(app, why, self.importing),
                importing=self.importing,
                mcp=False,  # its readers use /v1 (memtrails mcp too); the SDK is 30 MiB
            )
            config = uvicorn.Config(
                app,
                log_config=None,  # the importing process's logging is left as it is
                log_level="warning",
                lifespan="on",
                http=head_deadline_protocol(),
                timeout_graceful_shutdown=int(STOP_WAIT),
                access_log=False,
            )
            return QuietServer(config), sock
        except BaseException:
            sock.close()
            raise

    def say(self, role: str) -> None:
        """Write ``role`` as the lock's (what readers that find the folder held are told)."""
        with contextlib.suppress(Exception):
            self.memory._open_folder().lock.name(role)

    async def stop(self, task: asyncio.Task[None]) -> None:
        # service.json first: a reader that comes now waits for the folder instead.
        await asyncio.to_thread(remove_service_file, self.home)
        if self.server is None or task.done():
            task.cancel()  # still waiting, or loading: nothing to stop gracefully
        else:
            self.server.should_exit = True
            await asyncio.wait({task}, timeout=STOP_WAIT + 5)
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        # Readers that come before this process lets go wait for the folder: `memtrails
        # add` is still an import serving reads until it closes, any other import ending.
        self.say(self.held_as if self.held_as in (SERVING_IMPORT, READER) else lender_role())


async def folder_or_service(
    home: Path, opening: Callable[[], Awaitable[T]], patience: float = SERVING_WAIT
) -> T | RemoteMemory:
    """Return ``opening()``; while an import that serves reads holds the folder, wait for
    its service (a client of it is returned) or for the folder, up to ``patience`` s; while
    a holder whose imports serve reads holds it between them (:data:`LENDER`), for either,
    up to :data:`LENDER_WAIT` s.

    Raises:
        MemoryLockedError: another holder, or a serving import whose service did not come
            (or that kept the folder) within the wait.
    """
    start: float | None = None
    while True:
        try:
            return await opening()
        except MemoryLockedError as exc:
            if not waited_for(exc.role) or exc.pid == os.getpid():
                raise
            now = time.monotonic()
            start = now if start is None else start
            if now - start >= (patience if exc.role == SERVING_IMPORT else LENDER_WAIT):
                raise
        await asyncio.sleep(_POLL)
        if find_service(home) is not None:
            from .client import connect

            remote = await connect(home)
            if remote is not None:
                return remote
