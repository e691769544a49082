"""Connect a path to its importer and the memory: what ``memtrails add`` does for each input."""

from __future__ import annotations

import os
from pathlib import Path

from .importers._shared import default_source
from .importers.detect import detect_kind, open_path
from .ingest import ProgressCallback
from .limits import Limits
from .memory import Memory
from .records import ImportReport

__all__ = ["add_git", "add_path", "source_name"]


def source_name(path: str | os.PathLike[str]) -> str:
    """Return the source name importers give a path: its absolute, resolved form."""
    return default_source(path)


async def add_path(
    memory: Memory,
    path: str | os.PathLike[str],
    *,
    kind: str | None = None,
    full: bool = False,
    prune: bool = False,
    batch: int = 64,
    on_progress: ProgressCallback | None = None,
    limits: Limits | None = None,
) -> ImportReport:
    """Import a file or folder of any kind memtrails reads, reading only what is new.

    The importer gets back the position it reported at the end of the last run, so an
    appended mbox or JSON Lines file is read from where it stopped and a notes folder only
    re-reads files whose size or mtime changed; an importer that cannot prove the rest
    unchanged reads everything (and still embeds nothing that is unchanged).

    Args:
        memory: an open memory.
        path: the input.
        kind: ``"jsonl"``, ``"mbox"``, ``"eml"``, ``"slack"`` or ``"files"``; detected when None.
        full: ignore the saved position and read everything.
        prune: read everything, then forget this source's records that are no longer in it
            (never records of another source; nothing when the source yielded nothing).
        batch: records per model call and index write.
        on_progress: called with the running report after every batch.
        limits: how large and deep a record may be (default: ``Limits()``).

    Raises:
        SourceError: the path is missing or of no kind memtrails reads.

    Example::

        async with Memory.open("~/.memtrails") as memory:
            report = await add_path(memory, "~/mail/archive.mbox")
    """
    path = Path(path).expanduser()
    kind = kind or detect_kind(path)
    # A notes folder is walked whole even when incremental (a stat per file), so it can
    # prune without reading unchanged files; other kinds prune after a full read.
    use_state = not full and (not prune or kind == "files")
    state = memory.source_state(source_name(path)) if use_state else None
    importer = open_path(path, kind, state=state, limits=limits)
    return await memory.ingest(
        importer, batch=batch, on_progress=on_progress, prune=prune, limits=limits
    )


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
    """
    from .importers.git import from_git, git_source

    repo = Path(repo).expanduser()
    state = None if (full or prune) else memory.source_state(git_source(repo))
    importer = from_git(repo, branch=branch, all_branches=all_branches, state=state)
    return await memory.ingest(
        importer, batch=batch, on_progress=on_progress, prune=prune, limits=limits
    )
