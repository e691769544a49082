"""The server's way into the memory folder: open it for one request, answer, close it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

from .._exceptions import FolderBusyError, MemoryLockedError, MemtrailsError
from ..embedding._base import Embedder
from ..folder.lock import READER, SERVING_IMPORT
from ..folder.manifest import read_manifest
from ..folder.model import manifest_model
from ..folder.opening import open_folder
from ..memory import Memory
from ..service.client import RemoteMemory, connect
from ..service.discovery import find_service
from ..service.during_import import LENDER_WAIT, SERVING_WAIT, folder_or_service, serves_reads

__all__ = ["GAP", "FolderAccess", "holder_name"]

GAP = 0.2
"""Seconds the server leaves the folder free between two requests: a waiting writer polls
every 50 ms, so back-to-back requests cannot keep an import out."""

_LOOK_AGAIN = 0.5  # seconds between looks at what holds the turn, while reads hold it


class FolderAccess:
    """Opens the memory folder per request and keeps only the model between requests.

    Holding the folder for the server's lifetime would lock out every ``memtrails add``
    (the folder lock and Qdrant Edge's own WAL lock both admit one process). Opening per
    request costs a log scan and a shard load, and each request sees what imports added
    since the last one. Requests of one server run one at a time, in the order they came.

    Args:
        home: the memory folder.
        threads: model threads (default: the cores this process may use).
        wait: seconds a request waits for an import (another process's, or this server's
            ``add``) to let go of the folder; this server's reads wait in line unbounded.
        embedder: the model to use (yours to close); default: the one the folder's manifest
            names, loaded on the first request that needs it and closed by :meth:`aclose`.
    """

    def __init__(
        self,
        home: Path,
        *,
        threads: int | None = None,
        wait: float = 10.0,
        embedder: Embedder | None = None,
    ) -> None:
        if wait < 0:
            raise ValueError(f"`wait` must be non-negative, got {wait}")
        self.home = home
        self.wait = wait
        self._threads = threads
        self._embedder = embedder
        self._owned = embedder is None
        self._model_lock = asyncio.Lock()
        self._serial = asyncio.Lock()
        self._doing = "another request"  # what holds _serial, for the busy message
        self._released_at = -GAP
        self._write_since: float | None = None  # when a write of this server took the turn
        self._writing: Memory | None = None  # the memory a write of this server holds open
        self._reading = 0  # this server's reads of it, while its import answers reads
        self._read = asyncio.Event()  # set when none is
        self._read.set()

    async def embedder(self) -> Embedder:
        """Return the folder's model, loading it on first use (the manifest names it)."""
        async with self._model_lock:
            if self._embedder is None:
                manifest = await asyncio.to_thread(read_manifest, self.home)
                spec = manifest["embedding"] if manifest else None
                self._embedder = await manifest_model(spec, self._threads)()
            return self._embedder

    @asynccontextmanager
    async def open(
        self, *, model: bool = False, write: str | None = None, create: bool = False
    ) -> AsyncIterator[Memory]:
        """Open the folder for one request and close it afterwards.

        Args:
            model: the request embeds text (a search, an import): open with the loaded model.
            write: the request writes; what it does (``"mcp add"``), written in the lock file.
            create: create the folder when there is none (an import).

        Raises:
            FolderBusyError: another process kept the folder for longer than ``wait``.
            FolderFormatError: there is no memory folder at ``home`` (and this is a read).
        """
        if not create and not (self.home / "manifest.json").is_file():
            model = False  # open_folder says there is no folder; no model needed for that
        if find_service(self.home) is not None:
            remote = await connect(self.home)  # a service, or an import serving reads
            if remote is not None:
                # An import's service that ends mid-request: the folder, with this model.
                remote.reopen = partial(self._handed_over, model)
                try:
                    yield remote
                finally:
                    await remote.aclose()
                return
        if write is None and self._writing is not None and serves_reads(self._writing):
            # This server's own import holds the folder and answers reads: its memory
            # answers this server's reads too (other processes' go through its server).
            async with self._beside_write(self._writing) as memory:
                yield memory
            return
        embedder: Embedder | None = await self.embedder() if model else None
        await self._take_turn()
        try:
            self._doing = f"`{write}`" if write else "another request"
            self._write_since = time.monotonic() if write else None
            pause = self._released_at + GAP - time.monotonic()
            if pause > 0:
                await asyncio.sleep(pause)
            opening = partial(
                open_folder,
                self.home,
                embedder=_no_model if embedder is None else embedder,
                create=create,
                role=write or READER,
                wait=self.wait,
                wait_writer=self.wait,
            )
            try:
                # An import that answers reads: its service, once it serves (or the folder).
                found = await folder_or_service(self.home, opening)
            except MemoryLockedError as exc:
                # A serving import was waited for until its service came, at most SERVING_WAIT.
                waited = SERVING_WAIT if exc.role == SERVING_IMPORT else self.wait
                raise FolderBusyError(
                    f"memory folder {self.home} is in use by {holder_name(exc)}; "
                    f"waited {waited:g} s for it. Imports hold the folder until they finish: "
                    "try again in a minute."
                ) from exc
            if isinstance(found, RemoteMemory):
                found.reopen = partial(self._handed_over, model)
            memory = found if isinstance(found, RemoteMemory) else Memory(found)
            self._writing = memory if write and not memory.remote else None
            try:
                yield memory
            finally:
                try:
                    self._writing = None
                    await self._read.wait()  # this server's reads of it end first
                    await memory.aclose()
                finally:
                    self._released_at = time.monotonic()
        finally:
            self._write_since = None
            self._serial.release()

    @asynccontextmanager
    async def _beside_write(self, memory: Memory) -> AsyncIterator[Memory]:
        """Yield the memory this server's write holds, for a read while it imports."""
        self._reading += 1
        self._read.clear()
        try:
            yield memory
        finally:
            self._reading -= 1
            if not self._reading:
                self._read.set()

    async def _handed_over(self, model: bool) -> Memory:
        """Open the folder for a request whose import's service stopped answering (it
        ended): once the import lets go of it, as :func:`service.client.handed_over` does,
        with this server's model."""
        embedder: Embedder | None = await self.embedder() if model else None
        opening = partial(
            open_folder,
            self.home,
            embedder=_no_model if embedder is None else embedder,
            create=False,
            role=READER,
            wait=self.wait,
            wait_writer=max(self.wait, LENDER_WAIT),
        )
        found = await folder_or_service(self.home, opening)
        return found if isinstance(found, RemoteMemory) else Memory(found, serve_reads=False)

    async def _take_turn(self) -> None:
        """Wait for this server's earlier requests, in order, and take the folder's turn.

        Reads wait in line however long it is: each is short, and a client that sends many
        at once wants them all answered (``wait`` bounded the whole line, and a burst of 200
        searches failed). Only this server's own write (an import can take minutes) is
        waited for at most ``wait`` seconds, as another process's is.

        Raises:
            FolderBusyError: a write of this server has held the folder for ``wait`` seconds.
        """
        turn = asyncio.ensure_future(self._serial.acquire())
        try:
            while not (await asyncio.wait({turn}, timeout=self._patience()))[0]:
                if self._write_since is not None and self._patience() <= 0:
                    raise FolderBusyError(
                        f"this server is busy with {self._doing} in memory folder {self.home}; "
                        f"waited {self.wait:g} s for it: try again in a minute."
                    )
        except BaseException:
            if turn.done() and not turn.cancelled() and turn.exception() is None:
                self._serial.release()  # granted as the wait ended: give the turn on
            else:
                turn.cancel()  # leave the line
            raise

    def _patience(self) -> float:
        """Seconds to wait before looking again at what holds the turn."""
        if self._write_since is None:
            return _LOOK_AGAIN  # a read, or a write about to take its turn
        return max(0.0, self._write_since + self.wait - time.monotonic())

    async def aclose(self) -> None:
        """Close the model."""
        async with self._model_lock:
            if self._embedder is not None and self._owned:
                embedder, self._embedder = self._embedder, None
                await embedder.aclose()


async def _no_model() -> Embedder:
    raise MemtrailsError("this request does not use the model")  # pragma: no cover


def holder_name(exc: MemoryLockedError) -> str:
    """Name the process that holds a folder: its pid, role and command line where readable."""
    if exc.pid is None:
        return "another process"
    name = f"process {exc.pid}"
    command = _command_line(exc.pid)
    if command:
        name += f" ({command})"
    elif exc.role:
        name += f" ({exc.role})"
    return name


def _command_line(pid: int) -> str:
    """Return ``memtrails add ...`` for a pid (Linux), shortened; empty when unknown."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    args = [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]
    # Drop the interpreter and the script's directory: `python .../bin/memtrails add x`.
    while args and ("python" in Path(args[0]).name or args[0] == "-m"):
        args = args[1:]
    if not args:
        return ""
    args[0] = Path(args[0]).name
    text = " ".join(args)
    return text if len(text) <= 160 else text[:157] + "..."
