"""Exceptions raised by memtrails.

The tree::

    MemtrailsError
    ├── MemoryLockedError      another process holds the memory folder
    ├── MemoryClosedError      a Memory was used after close()
    ├── FolderFormatError      manifest or log is not a memtrails folder we can read
    │   └── NoMemoryFolderError  no folder there, and the opener asked for none to be made
    ├── FolderAccessError      the memory folder cannot be written (read-only, no permission)
    ├── ModelMismatchError     the folder was built with another embedding model
    ├── SourceError            an importer cannot open its input at all
    ├── EmbeddingError         the model or embedding server failed
    ├── IndexBackendError      the index backend (Qdrant Edge or a server) failed
    ├── DiskFullError          no space left where the memory folder is
    ├── FolderBusyError        the MCP server waited too long for the folder
    ├── ToolInputError         an MCP tool was called with arguments it cannot use
    ├── ServiceError           the service refused a request or could not be reached
    ├── ServiceFileError       the service's token or address file cannot be written or read
    └── JobConflictError       a service job would import a source a running job imports

Every error memtrails raises on purpose is one of these, defined here and exported from
``memtrails`` (``tests/test_exceptions.py`` holds this drawing to the classes).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "DiskFullError",
    "EmbeddingError",
    "FolderAccessError",
    "FolderBusyError",
    "FolderFormatError",
    "IndexBackendError",
    "JobConflictError",
    "MemoryClosedError",
    "MemoryLockedError",
    "MemtrailsError",
    "ModelMismatchError",
    "NoMemoryFolderError",
    "ServiceError",
    "ServiceFileError",
    "SourceError",
    "ToolInputError",
]


class MemtrailsError(Exception):
    """Base class of every error memtrails raises on purpose.

    Its message says what went wrong and what to do; catch it to tell memtrails' errors
    from bugs. Example: a folder opened twice in one process:

        >>> import asyncio, tempfile
        >>> from memtrails import Memory, MemoryLockedError, MemtrailsError
        >>> from memtrails.testing import HashingEmbedder
        >>> async def twice(folder):
        ...     async with Memory.open(folder, embedder=HashingEmbedder()):
        ...         try:
        ...             async with Memory.open(folder, embedder=HashingEmbedder()):
        ...                 pass
        ...         except MemtrailsError as exc:
        ...             return exc
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     error = asyncio.run(twice(folder))
        >>> isinstance(error, MemoryLockedError), "already open here" in str(error)
        (True, True)
    """


class MemoryLockedError(MemtrailsError):
    """Another process has the memory folder open."""

    def __init__(
        self, folder: Path, pid: int | None, role: str | None = None, *, hint: str | None = None
    ) -> None:
        self.folder = folder
        self.pid = pid
        self.role = role  # what the holder said it does ("reader" for a short request)
        holder = f"process {pid}" if pid else "another process"
        if role:
            holder += f" ({role})"
        if pid == os.getpid():
            super().__init__(
                f"memory folder {folder} is in use by {holder}, this very process: it is "
                "already open here; share that one Memory (it is safe across the tasks of one "
                "event loop) or close it before opening the folder again"
            )
            return
        hint = hint or "wait for it to finish or stop it, then try again"
        super().__init__(f"memory folder {folder} is in use by {holder}; {hint}")


class MemoryClosedError(MemtrailsError):
    """A closed Memory was used."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        super().__init__(f"memory folder {folder} was closed; open it again with Memory.open()")


class FolderFormatError(MemtrailsError):
    """The folder is not a memtrails memory folder this version can read."""


class NoMemoryFolderError(FolderFormatError):
    """There is no memory folder at ``path``, and the opener asked for none to be made.

    Its message speaks to a library caller (``create=True``); :attr:`command_line` says
    the same to someone at the command line or an MCP client (``memtrails add``).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.command_line = f"no memory folder at {path}; create one with `memtrails add`"
        super().__init__(
            f"no memory folder at {path}: open it with create=True (Memory.open's default) "
            "to make one, or import into it with `memtrails add`"
        )


def said_at_the_command_line(exc: BaseException) -> str:
    """Return ``exc``'s message as told to someone at the command line or an MCP client: a
    missing folder's says to run ``memtrails add`` (:attr:`NoMemoryFolderError.command_line`),
    not to pass ``create=True``; any other is its own."""
    return exc.command_line if isinstance(exc, NoMemoryFolderError) else str(exc)


class FolderAccessError(MemtrailsError):
    """The memory folder cannot be written: memtrails writes in it even to read it (the lock
    that keeps a reader from meeting an import half-way, and the repairs opening makes)."""

    def __init__(self, folder: Path, where: str, reason: str) -> None:
        self.folder = folder
        self.where = where
        super().__init__(
            f"cannot write in the memory folder {folder} ({where}: {reason}); memtrails "
            "writes there even to search it: give this user write access to the folder, or "
            "copy it somewhere writable and open the copy (--home)"
        )


class ModelMismatchError(MemtrailsError):
    """The folder's index was built with another embedding model."""


class SourceError(MemtrailsError):
    """An importer cannot read its input at all (missing, unreadable, wrong kind)."""

    def __init__(self, source: str, reason: str) -> None:
        self.source = source
        self.reason = reason
        super().__init__(f"{source}: {reason}")


class EmbeddingError(MemtrailsError):
    """The embedding model or server failed."""


class IndexBackendError(MemtrailsError):
    """The index backend (Qdrant Edge or a Qdrant server) failed."""


class DiskFullError(MemtrailsError):
    """No space is left on the file system of the memory folder (or its index).

    Raised before a write that would not fit, or when a write fails with ENOSPC; what was
    reported added before it is in the folder.
    """

    def __init__(self, where: Path, doing: str) -> None:
        self.where = where
        self.doing = doing
        super().__init__(
            f"no space left on {where} while {doing}; free some space (or choose another "
            "--home) and run the command again"
        )


class FolderBusyError(MemtrailsError):
    """The folder stayed held by another process (an import) for longer than the server waits."""


class ToolInputError(MemtrailsError):
    """An MCP tool was called with arguments that name nothing it can use."""


class ServiceError(MemtrailsError):
    """The service refused a request or could not be reached; the message says why."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status  # the HTTP status the service answered with, if it answered


class ServiceFileError(MemtrailsError):
    """The service's token or address file could not be written or read."""


class JobConflictError(MemtrailsError):
    """A job would import a source that a running job imports already."""
