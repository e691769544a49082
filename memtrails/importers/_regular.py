"""Open a file by name without ever waiting on what is at that name now: a named pipe (or a
socket, a device) put in the place of a file listed or looked at before is told by the
descriptor opened, not by a second look at the name."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import IO, BinaryIO

from ._fifo import open_unblocked, prime_fifo

__all__ = ["NotRegularFile", "open_named", "open_regular"]


class NotRegularFile(OSError):
    """A file expected to be a regular file (listed as one) that is not, once opened: a
    named pipe, a socket or a device put in its place since it was listed. ``mode`` is
    what the opened descriptor is (``os.fstat``)."""

    def __init__(self, path: Path, mode: int) -> None:
        super().__init__(errno.EINVAL, "not a regular file", os.fspath(path))
        self.mode = mode


def open_regular(path: Path) -> BinaryIO:
    """Open a regular file for reading, without ever waiting on what is in its place.

    Opened without blocking (a FIFO swapped in since the file was listed would wait for a
    writer forever), then the opened descriptor is looked at, not the name again.

    Raises:
        NotRegularFile: it is a named pipe, a socket or a device.
        IsADirectoryError: it is a folder.
        OSError: it cannot be opened.
    """
    fd = open_unblocked(path)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        if not stat.S_ISREG(mode):
            raise NotRegularFile(path, mode)
        os.set_blocking(fd, True)
        return open(fd, "rb")  # the caller closes it
    except BaseException:
        os.close(fd)
        raise


def open_named(path: Path, source: str) -> IO[bytes]:
    """Open a file by name, without waiting on a FIFO made at its name since it was
    looked at: the opened descriptor says what it is."""
    fd = open_unblocked(path)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):  # raised here, so that the descriptor is closed
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        is_pipe = stat.S_ISFIFO(mode)
        if not is_pipe:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    if is_pipe:
        return prime_fifo(fd, source)  # closes it when refused
    return open(fd, "rb", buffering=0)  # owned by Input
