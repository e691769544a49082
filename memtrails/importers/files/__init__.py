"""Read the text files under a folder (notes, docs, source) as records, honouring .gitignore."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import aclosing
from pathlib import Path
from typing import Any, cast

from ..._threads import iterate_in_thread
from ...limits import Limits
from ...records import Item
from ..contract import resumable_importer
from ._text import NOTE_SUFFIXES
from ._walk import open_walk

DEFAULT_MAX_FILE_BYTES = 1_000_000
"""The largest note read when ``Limits.max_file_bytes`` is not set."""

__all__ = ["DEFAULT_MAX_FILE_BYTES", "NOTE_SUFFIXES", "from_files"]


def _generator(items: AsyncIterator[Item]) -> AsyncGenerator[Item, None]:
    # iterate_in_thread is an async generator, annotated as a plain iterator.
    return cast("AsyncGenerator[Item, None]", items)


@resumable_importer(prunes_incrementally=True)
async def from_files(
    folder: str | os.PathLike[str],
    *,
    source: str | None = None,
    state: Mapping[str, Any] | None = None,
    checkpoint_every: int = 1000,
    limits: Limits | None = None,
) -> AsyncGenerator[Item, None]:
    """Yield one record per text file under a folder, in sorted path order.

    Walks the folder in worker threads, one file at a time. Hidden files and folders
    (``.git``, ``.venv``, ...) and symlinks are left out, and so is whatever the folder's
    ``.gitignore`` files (at any depth) and ``.git/info/exclude`` ignore, decided as git
    decides (the rules read by ``pathspec``): globs, ``**``, trailing ``/`` for folders,
    leading ``/`` anchoring, ``!`` negation and comments; a deeper ``.gitignore`` overrides
    a shallower one, and nothing inside an ignored folder comes back.
    The encoding is read from a BOM, else tried as UTF-8, else cp1252 (latin-1 for the few
    bytes cp1252 lacks); UTF-16 written without a BOM is told by its zero bytes (Latin text)
    or by reading as Chinese, Japanese or Korean throughout. Binary files (a NUL byte or many control bytes in the first 8 KiB)
    and files over ``limits.max_file_bytes`` (1 MB by default) become a :class:`RecordError`
    ("binary file", "larger than Limits.max_file_bytes (N bytes; the limit is M: ...)") so the import report
    counts them.

    Each record has ``id`` = the path relative to ``folder`` with ``/`` separators,
    ``kind="note"`` for prose (``.md``, ``.txt``, ``.rst``, ... see :data:`NOTE_SUFFIXES`)
    and ``"file"`` for everything else, ``title`` = the front-matter title (YAML ``---`` or
    Hugo's TOML ``+++``) or first heading of a Markdown, reStructuredText or AsciiDoc file,
    an Org file's ``#+TITLE:`` or first ``* heading``, else the file name, ``at`` = the
    modification time, and ``meta`` with ``path`` (absolute), ``size``, ``mtime_ns``,
    ``encoding`` and ``sha256`` (of the file's bytes).

    Re-runs (``state``): the whole tree is always walked (a ``stat`` per file), so the run is
    always complete and a prune may forget the records of files that are gone. A file whose
    size and mtime (to the nanosecond) equal last run's is not read: it is yielded as
    :class:`~memtrails.records.Seen` (or as its error again, for a binary file). A file whose
    stat changed is read and hashed: same SHA-256 as last run gives ``Seen`` (touched, not
    edited), else a record. A file modified less than 2 s before it was read, or that changed
    size while being read, is hashed again next run whatever its stat says. There is no full
    fallback beyond that: a state this version cannot read (``why`` says so) just means
    every file is read. The stat check trusts the file system, as make and rsync do: other
    bytes of the same size given the old mtime to the nanosecond (``cp -p``, ``rsync -t``,
    ``tar x`` of another copy) are not seen as changed. ``Seen`` also trusts the memory to
    hold the version read last, which fails only if a run that wrote a newer one was killed
    before its next position and the file then went back to the older bytes. After such
    tools or accidents, run once without ``state`` (``--full``).

    Every item carries the source; at the end comes a
    :class:`~memtrails.records.SourceState` with ``{"files": {rel_path: [size, mtime_ns,
    sha256]}}`` (a fourth item, the reason, for a binary file; size -1 for a stat not to
    trust), ``mode="incremental"`` when ``state`` was used, and ``complete=True`` unless a
    folder or entry could not be listed. After every ``checkpoint_every`` files read, a
    position with the files done so far (and last run's stamps for the rest) lets an import
    killed half-way resume without reading again what it had finished.

    Args:
        folder: the folder to read.
        source: the source name on every record; defaults to the resolved folder path.
        state: the ``SourceState.state`` the last run ended with (``Memory.source_state``).
        checkpoint_every: files read between two intermediate positions.
        limits: ``max_file_bytes`` applies here (default 1 MB): a larger file is an error.

    Raises:
        SourceError: the folder does not exist or is not a folder.
        ValueError: ``checkpoint_every`` is not positive.

    Returns:
        An async iterator of records, ``Seen`` records, per-file errors (each with
        ``id`` = the path) and source states.

    Example::

        async with aclosing(from_files("~/notes", state=memory.source_state(name))) as items:
            async for item in items:
                print(item)
    """
    max_bytes = (limits or Limits()).max_file_bytes or DEFAULT_MAX_FILE_BYTES
    if checkpoint_every < 1:
        raise ValueError(f"`checkpoint_every` must be at least 1, got {checkpoint_every}")
    walk = await asyncio.to_thread(
        open_walk, Path(folder), source, max_bytes, state, checkpoint_every
    )
    # Close the walk as soon as the consumer stops, not when GC runs.
    async with aclosing(_generator(iterate_in_thread(walk.items, chunk=16))) as items:
        async for item in items:
            yield item
