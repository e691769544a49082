"""Connect a path to its importer and the memory: what ``memtrails add`` does for each input."""

from __future__ import annotations

import asyncio
import errno
import os
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from ._exceptions import SourceError
from .folder.moves import moved_name, read_moves
from .importers._input import Input, open_input
from .importers._shared import default_source
from .importers.detect import Part, close_parts, open_part, plan
from .importers.plan import unread_repo
from .importers.registry import importer
from .ingest import ProgressCallback
from .limits import Limits
from .memory import Memory
from .records import ImportReport, RecordError

__all__ = ["PartProgress", "add_git", "add_part", "add_path", "source_name"]


def source_name(path: str | os.PathLike[str]) -> str:
    """Return the source name importers give a path: its absolute, resolved form."""
    return default_source(path)


PartProgress = Callable[[Part], AbstractContextManager[ProgressCallback | None]]
"""Makes the progress display of one part of an import (``memtrails add`` draws a bar)."""


async def add_path(
    memory: Memory,
    path: str | os.PathLike[str] | Sequence[Part],
    *,
    kind: str | None = None,
    name: str | None = None,
    full: bool = False,
    prune: bool = False,
    batch: int = 64,
    on_progress: ProgressCallback | None = None,
    progress: PartProgress | None = None,
    limits: Limits | None = None,
    following: bool = False,
) -> ImportReport:
    """Import a file or folder of any kind memtrails reads, reading only what is new.

    The importer gets back the position it reported at the end of the last run, so an
    appended mbox or JSON Lines file is read from where it stopped, a Maildir or notes folder
    only reads new or changed files, and a compressed archive unchanged since the last run is
    not read; an importer that cannot prove the rest unchanged reads everything (and still
    embeds nothing that is unchanged). A folder holding several kinds is imported part by
    part (see :func:`memtrails.importers.detect.plan`).

    Args:
        memory: an open memory.
        path: the input (``-`` is standard input), or the parts ``plan(path)`` returned
            (to fail before a memory is opened, as ``memtrails add`` does).
        kind: a kind the importer registry knows (``memtrails.importers.registry.kinds()``:
            ``jsonl``, ``mbox``, ``eml``, ``maildir``, ``slack``, ``files``, ...);
            detected when None.
        name: the source name (default: the resolved path); give one to a pipe so that
            re-runs of the same archive dedup against each other.
        full: ignore the saved position and read everything.
        prune: read everything, then forget this source's records that are no longer in it
            (never records of another source; nothing when the source yielded nothing).
        batch: records per model call and index write.
        on_progress: called with the running report after every batch.
        progress: instead of ``on_progress``, makes each part's progress callback (a
            context manager around that part's import).
        limits: how large and deep a record may be (default: ``Limits()``).
        following: the input is being written (as a watched source is): a JSON Lines line
            not yet ended is left for the next run instead of reported as truncated.

    Of several parts, one that cannot be opened when its turn comes (deleted, made
    unreadable or replaced by a folder since it was planned) is one error in the report, and
    the other parts are read; the one part of a path raises.

    Raises:
        SourceError: the path is missing or of no kind memtrails reads, or ``prune`` was
            asked for a pipe without a ``name``.

    Example::

        async with Memory.open("~/.memtrails") as memory:
            report = await add_path(memory, "~/mail/archive.mbox")
    """
    if isinstance(path, str | os.PathLike):
        parts = await asyncio.to_thread(plan, os.fspath(path), kind=kind, name=name)
    else:
        parts = list(path)
    # A path `memtrails move` was told about continues the source it moved from.
    moves = await asyncio.to_thread(read_moves, memory.path)
    for part in parts:
        part.source = moved_name(part.source, moves)
    total = ImportReport()
    try:
        for part in parts:
            _unnamed_pipe(part, prune)  # before anything is read: a mistake of the call
        async with memory.serving_reads():  # one server across its parts (each an ingest)
            for part in parts:
                shown = progress(part) if progress is not None else nullcontext(on_progress)
                with shown as callback:
                    try:
                        report = await add_part(
                            memory,
                            part,
                            full=full,
                            prune=prune,
                            batch=batch,
                            on_progress=callback,
                            limits=limits,
                            following=following,
                        )
                    except (SourceError, OSError) as exc:
                        # Gone, unreadable or replaced since it was planned: that part's error;
                        # the other parts are read. What the memory folder fails at stops all,
                        # and so does the failure of the one part there is (the caller's error).
                        unread = unread_part(part, exc, memory.path) if len(parts) > 1 else None
                        if unread is None:
                            raise
                        report = unread
                total.merge(report)
    finally:
        close_parts(parts)
    return total


# What an input can no longer be opened for: gone, replaced, not allowed, a loop of links.
_INPUT_ERRNOS = frozenset(
    {
        errno.ENOENT,
        errno.ENOTDIR,
        errno.EISDIR,
        errno.EACCES,
        errno.EPERM,
        errno.ELOOP,
        errno.ENAMETOOLONG,
        errno.ESTALE,
        errno.ENXIO,
    }
)


def unread_part(part: Part, exc: SourceError | OSError, home: Path) -> ImportReport | None:
    """Return the report of a planned part that could not be read when its turn came (its
    file deleted, made unreadable or replaced by a folder after planning, a kind that finds
    nothing in it): its one error; or None when ``exc`` is no fault of the input (the memory
    folder's disk, a folder file gone)."""
    where = str(part.target) if isinstance(part.target, Path) else part.label
    report = ImportReport()
    if isinstance(exc, SourceError):
        report.add_error(RecordError(part.source, where, exc.reason))
        return report
    name = exc.filename if isinstance(exc.filename, str) else None
    if exc.errno not in _INPUT_ERRNOS or name is None:
        return None
    folder, named = os.path.realpath(home), os.path.realpath(name)
    if named == folder or named.startswith(folder + os.sep):
        return None
    report.add_error(RecordError(part.source, where, f"cannot read: {exc.strerror or exc}"))
    return report


def _unnamed_pipe(part: Part, prune: bool) -> None:
    """Refuse ``prune`` for a pipe without a name of its own (its records would be forgotten
    by the next pipe's prune).

    Raises:
        SourceError: it is asked.
    """
    piped = isinstance(part.target, Input) and not part.target.regular
    if prune and piped and part.source in ("stdin", part.label):
        raise SourceError(
            part.source,
            "--prune on a pipe needs --name NAME, so that only that archive's records are pruned",
        )


async def add_part(
    memory: Memory,
    part: Part,
    *,
    full: bool = False,
    prune: bool = False,
    batch: int = 64,
    on_progress: ProgressCallback | None = None,
    limits: Limits | None = None,
    following: bool = False,
) -> ImportReport:
    """Run one planned import (:func:`memtrails.importers.detect.plan`); see :func:`add_path`.

    Raises:
        SourceError: ``prune`` was asked for a pipe that has no name of its own.
    """
    try:
        if importer(part.kind).by_bytes and isinstance(part.target, Path):
            # opened here so that progress can tell how far into the file reading is
            part.opened = await asyncio.to_thread(open_input, part.target, part.source)
        elif isinstance(part.target, Input):
            part.opened = part.target
        _unnamed_pipe(part, prune)
        # Memory.ingest resumes the part from its saved position (not for a pipe, nor for
        # --full, nor for a --prune of a kind that must be read whole to be pruned).
        items = open_part(part, target=part.opened, limits=limits, following=following)
        return await memory.ingest(
            items, batch=batch, on_progress=on_progress, prune=prune, full=full, limits=limits
        )
    finally:
        if part.opened is not None:
            part.opened.close()


async def add_git(
    memory: Memory,
    repo: str | os.PathLike[str],
    *,
    branch: str = "HEAD",
    all_branches: bool = False,
    full: bool = False,
    prune: bool = False,
    batch: int = 64,
    on_progress: ProgressCallback | None = None,
    limits: Limits | None = None,
) -> ImportReport:
    """Import a Git repository's commits, only those new since the last run when it can.

    Args:
        memory: an open memory.
        repo: the repository (a work tree or a bare repository).
        branch: the branch or ref to walk.
        all_branches: walk every branch instead.
        full: ignore the saved position and walk the whole history.
        prune: walk the whole history, then forget commits no longer reachable.
        batch: records per model call and index write.
        on_progress: called with the running report after every batch.
        limits: how large and deep a record may be (default: ``Limits()``).

    Returns:
        The run's :class:`ImportReport`. A repository that git cannot read when its turn
        comes (deleted since it was named, no repository any more) is one error in it, not
        an exception, so that the other inputs of ``memtrails add`` are still read.

    Raises:
        MemoryClosedError: ``memory`` was closed.

    Example: a second run reads only the commit made since the first (it needs ``git``):

        >>> import asyncio, subprocess, tempfile
        >>> from pathlib import Path
        >>> from memtrails import Memory, add_git
        >>> from memtrails.testing import HashingEmbedder
        >>> def commit(repo, message):
        ...     who = ["-c", "user.name=Ada", "-c", "user.email=ada@example.com"]
        ...     git = ["git", "-C", str(repo), *who, "commit", "-q", "--allow-empty", "-m"]
        ...     subprocess.run([*git, message], check=True)
        >>> async def twice(folder, repo):
        ...     async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        ...         first = await add_git(memory, repo)
        ...         commit(repo, "Move the launch to Friday")
        ...         return first, await add_git(memory, repo)
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     repo = Path(tmp, "repo")
        ...     _ = subprocess.run(["git", "init", "-q", str(repo)], check=True)
        ...     commit(repo, "Plan the launch")
        ...     first, second = asyncio.run(twice(Path(tmp, "memory"), repo))
        >>> first.added, second.added, second.unchanged, second.sources[0].mode
        (1, 1, 1, 'incremental')
    """
    from .importers.git import from_git

    # Memory.ingest resumes it from the heads the last run saved (not with full or prune).
    moved: str | None = None  # its source, once git has named it
    try:
        name = "git:" + default_source(repo)
        moved = moved_name(name, await asyncio.to_thread(read_moves, memory.path))
        commits = from_git(
            Path(repo).expanduser(),
            branch=branch,
            all_branches=all_branches,
            source=None if moved == name else moved,
        )
        return await memory.ingest(
            commits, batch=batch, on_progress=on_progress, prune=prune, full=full, limits=limits
        )
    except SourceError as exc:
        # Deleted, or no repository any more, since it was checked (``memtrails add`` checks
        # every input before it opens the memory): its error; the other inputs are read.
        report = ImportReport()
        report.add_error(unread_repo(repo, exc, moved))
        return report
