"""Open a pipe given by path (``<(zcat a.mbox.gz)``, a FIFO made with ``mkfifo``) without
waiting forever for a writer that never comes.

Opening a FIFO for reading blocks until a program opens it for writing; reading one that
no program writes to then waits as long. A FIFO that is given with nothing writing to it
is refused, naming it, instead: it is opened without blocking, and one read tells a pipe
with a writer (data, or none yet) from one without (end of file at once); one without is
given :data:`WAIT_S` for a writer to begin before it is refused. The bytes that
read takes are handed back first, so the importer still gets them.
"""

from __future__ import annotations

import contextlib
import io
import os
import select
import stat
from pathlib import Path
from typing import IO, Any, cast

from .._exceptions import SourceError

__all__ = ["NO_WRITER", "SOCKET", "WAIT_S", "is_fifo", "open_fifo", "open_unblocked", "prime_fifo"]

WAIT_S = 10.0
"""How long a pipe with no writer is waited on for one to begin (a producer started just
before, in the background), before it is refused."""
NO_WRITER = (
    "a named pipe (FIFO) that nothing writes to: reading it would wait for a writer forever. "
    "Start the program that writes to it first, or give the file it reads from"
)
_FIRST = 64 * 1024
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


SOCKET = "a socket, not a file: there is nothing to read in it (give the file it serves)"


def is_fifo(path: Path) -> bool:
    """Tell whether ``path`` (followed if a link) is a pipe or a socket: what
    :func:`open_fifo` opens, or refuses, without blocking."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class _Primed(io.RawIOBase):
    """A pipe's file descriptor, the bytes already taken from it given back first."""

    def __init__(self, fd: int, first: bytes) -> None:
        super().__init__()
        self._fd = fd
        self._first = first

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        if self._first:
            n = min(len(view), len(self._first))
            view[:n] = self._first[:n]
            self._first = self._first[n:]
            return n
        data = os.read(self._fd, len(view))
        view[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            try:
                os.close(self._fd)
            finally:
                super().close()


def _writes_soon(fd: int) -> bool:
    """Wait up to :data:`WAIT_S` for a writer to write to (or open and close) the pipe."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(int(WAIT_S * 1000)))


def open_unblocked(path: Path) -> int:
    """Open ``path`` for reading without blocking (opening a FIFO does not wait for a
    writer), and return the descriptor, still non-blocking: look at it (``os.fstat``) before
    reading, and call ``os.set_blocking(fd, True)`` for a file read as usual.

    Raises:
        OSError: it cannot be opened.
    """
    return os.open(path, _FLAGS)


def open_fifo(path: Path, source: str) -> IO[bytes]:
    """Open the pipe at ``path`` for reading, never blocking on one that has no writer.

    Raises:
        SourceError: nothing writes to the pipe (:data:`NO_WRITER`), or it is a socket.
        OSError: it cannot be read.
    """
    if stat.S_ISSOCK(os.stat(path).st_mode):
        raise SourceError(source, SOCKET)
    return prime_fifo(open_unblocked(path), source)


def prime_fifo(fd: int, source: str) -> IO[bytes]:
    """Read the pipe opened without blocking as ``fd`` (:func:`open_unblocked`), which it
    owns from here (closed if refused), as :func:`open_fifo` does.

    Raises:
        SourceError: nothing writes to the pipe (:data:`NO_WRITER`).
        OSError: it cannot be read.
    """
    try:
        try:
            first = os.read(fd, _FIRST)
        except BlockingIOError:  # a writer, that has written nothing yet
            first = b""
        else:
            # At its end at once: no program has it open for writing, yet. One started just
            # before may not have opened it: wait a little for its first bytes (or its end).
            if not first and not _writes_soon(fd):
                raise SourceError(source, NO_WRITER)
            if not first:
                with contextlib.suppress(BlockingIOError):
                    first = os.read(fd, _FIRST)
        os.set_blocking(fd, True)
        return cast("IO[bytes]", _Primed(fd, first))
    except BaseException:
        os.close(fd)
        raise
