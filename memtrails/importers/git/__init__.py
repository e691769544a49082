"""Read a Git repository's history as commit records, one per commit, newest first."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import aclosing
from pathlib import Path
from typing import Any, cast

from ..._threads import iterate_in_thread
from ...records import Item
from ..contract import resumable_importer
from ._history import History
from ._log import MAX_FILES_IN_META, MAX_FILES_IN_TEXT
from ._repo import git_source

__all__ = ["MAX_FILES_IN_META", "MAX_FILES_IN_TEXT", "from_git", "git_source"]


def _generator(items: AsyncIterator[Item]) -> AsyncGenerator[Item, None]:
    # iterate_in_thread is an async generator, annotated as a plain iterator.
    return cast("AsyncGenerator[Item, None]", items)


def _git_source_of(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> str:
    given = kwargs.get("source")
    return str(given) if given is not None else git_source(args[0] if args else kwargs["repo"])


@resumable_importer(_git_source_of)
async def from_git(
    repo: str | os.PathLike[str],
    *,
    branch: str = "HEAD",
    all_branches: bool = False,
    since_commit: str | None = None,
    source: str | None = None,
    state: Mapping[str, Any] | None = None,
) -> AsyncGenerator[Item, None]:
    """Yield one record per commit of a Git repository, newest first.

    Streams a single ``git log --numstat`` in worker threads (reading its output as it comes,
    never the whole history at once), in git's default order: newest first by commit date,
    a commit always before its parents. Stops where ``since_commit`` starts, so a re-run with
    the newest sha of the last run reads only what is new.

    Each record has ``kind="commit"``, ``id`` = the full sha, ``text`` = the full message
    (``(no commit message)`` for a commit without one) plus a "Files changed" list (at
    most 50 names), ``title`` = the summary line,
    ``author="Name <email>"`` (as the repository's ``.mailmap`` maps them, as ``git log``
    shows them; terminal escapes and control characters left out; the name alone for a
    commit with no e-mail: ``Name <>``, or none at all, whose name and date ``git log``
    does not print and are read from the commit object), ``at`` = the author date (UTC),
    and ``meta`` with ``sha``, ``parents``, ``merge``, ``committer``, ``committed_at``,
    ``authored_local`` (the author's own clock with its offset, ``2023-11-15T03:43:20+05:30``)
    and ``files`` (path, insertions, deletions, ``binary``/``from`` when relevant, and for a
    submodule ``submodule`` = the commits it moved between, ``{"from": ..., "to": ...}``; at
    most 200, the rest counted in ``files_truncated``). Merges list their changes against
    the first parent. A message is read up to :data:`._log.MAX_FIELD_BYTES` (4 MB), the
    rest read past (the record's text is cut at ``Limits.max_text_units`` anyway).

    A commit that names its encoding is read in it (unless all of it is UTF-8 beyond
    ASCII: the header lies, and git's re-encoding would be mojibake); one that does not,
    and is not UTF-8 (made where the system charset was Latin-1, KOI8-R, Shift_JIS...),
    is read in the charset its message and names look like together, else cp1252: never
    as U+FFFD.

    A damaged repository does not stop the import, and each commit counts once: a commit
    whose changed files cannot be diffed (an object is missing or corrupt) is yielded
    without ``files``, its ``meta["files_error"]`` saying why, and no error; a missing or
    damaged (cut short, empty, garbage) commit object ends the walk with a
    :class:`RecordError` naming it and standing for the commits past it, its children
    read. The boundary commits of a shallow clone are yielded with ``meta["shallow"]`` and,
    their parents being absent, no ``files`` (``files_error`` says so), each followed by a
    ``RecordError`` (``where``: ``before <sha>``) for the history the clone does not hold.

    The walk ends with a :class:`~memtrails.records.SourceState` whose state is
    ``{"heads": {ref: sha}}``: the commit each walked ref was at when the walk started
    (``branch`` as given, or with ``all_branches`` every ref's full name and ``HEAD``).
    Given back as ``state``, it makes the walk incremental: commits reachable from any
    saved head are left out (``git log <heads> ^<saved>...``), so only new commits are read
    and a re-run with nothing new starts no ``git log`` at all (``mode="incremental"``,
    ``complete=False``). It falls back to a full walk (``mode="full"``, ``why`` set) when:

    - the state is not one this version reads;
    - no walked ref has a saved head (another ``branch``, or ``all_branches`` switched);
    - a walked ref moved and its saved commit is no longer in the repository, or is no
      longer an ancestor of where the ref is now (amended, rebased, force-pushed, reset,
      or for ``branch="HEAD"`` another branch checked out): commits dropped from the
      history may then have been imported, and only a full walk (with prune) can tell;
    - git cannot tell whether it is an ancestor (an object between the two is missing);
    - the clone was shallow and has been deepened since (``git fetch --unshallow``): the
      history before its old edge is older than every saved head (the state keeps the
      edges, ``"shallow"``, for this).

    With ``all_branches``, ``HEAD`` moving is not a rewrite (its commits stay under
    their branch), and a deleted ref is not either (its saved commit is still left out
    while git keeps it).

    Every work tree of a repository is one source (:func:`git_source`), each with its own
    ``HEAD``: a linked one's is saved as ``worktrees/<id>/HEAD``. The saved ``HEAD`` of
    another work tree is kept in the position, and its commits left out as known; while
    there is one, a walk is not ``complete`` (a prune must not forget the commits only
    that work tree reaches). A linked work tree removed since is dropped from it.

    A full walk is ``complete`` (a prune may forget commits no longer reachable) unless
    ``since_commit`` was given, the clone is shallow, a missing commit ended the walk, or
    (``all_branches``) a ref is damaged: its file names no object, or its object is not in
    the repository; such a ref is a :class:`RecordError` naming it, and the other refs are
    walked. A damaged line of ``packed-refs`` (truncated, garbage), which makes git refuse
    the whole file, is such an error too (``where``: the ref, or ``packed-refs line N``
    when no name is left), and the other refs are read through a view of the repository
    without it; with ``branch``, a walked ref lost that way is a ``SourceError``. After a missing commit ended the walk, the old position (or none) is kept, so commits past it are read
    once the repository is repaired.

    Args:
        repo: anything ``git -C repo`` reads: a work tree, a folder in it, its ``.git``
            folder, a linked work tree, or a bare repository (with or without ``config``).
        branch: the branch, tag or commit to walk from.
        all_branches: walk every branch, tag and remote ref (not stashes or notes) instead.
        since_commit: leave out this commit and everything reachable from it.
        source: the source name on every record; defaults to :func:`git_source`: ``"git:"``
            and the resolved top folder of the work tree (of the git dir for a bare
            repository), the same whichever way the repository is named.
        state: the ``SourceState.state`` the last run ended with (``Memory.source_state``).

    Raises:
        SourceError: the path is missing, git cannot read a repository there, or ``branch`` or
            ``since_commit`` is not a commit in it.

    Returns:
        An async iterator of records, per-commit errors and, last, the source state.

    Example::

        state = memory.source_state(git_source("~/code/repo"))
        await memory.ingest(from_git("~/code/repo", state=state))
    """
    history = await asyncio.to_thread(
        History, Path(repo), source, branch, all_branches, since_commit, state
    )
    # Close the reader (and stop git) as soon as the consumer stops, not when GC runs.
    async with aclosing(_generator(iterate_in_thread(history.items))) as items:
        async for item in items:
            yield item
