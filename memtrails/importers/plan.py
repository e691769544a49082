"""Which inputs of an import become which parts: planned once, for ``memtrails add`` and
for the service's import endpoint alike.

Each path is planned (:func:`memtrails.importers.detect.plan`); a part another input
planned already is read once; a lone text file of no kind is one note; a path that cannot
be read (missing, of no kind, that ``--kind`` cannot read) and a ``--git`` path that is no
repository are one error each, and the other inputs are read. Only when none can be read
does the import fail, with one error naming them (:meth:`InputPlan.failure`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .._exceptions import SourceError
from ..records import MemoryRecord, RecordError
from ._shared import default_source
from .detect import Part, close_parts, plan
from .files.lone import note_of

__all__ = ["InputPlan", "plan_inputs", "unread_repo"]

Unread = tuple[str, ValueError | SourceError]
"""An input that cannot be read (as given) and why."""

_NAMED = 5  # inputs the error of an import that can read none of them names


@dataclass(frozen=True, slots=True)
class InputPlan:
    """What an import of paths and ``--git`` repositories reads, and what it cannot."""

    parts: tuple[tuple[Part, ...], ...]
    """The parts of each readable path, less those an earlier path planned (none empty);
    the caller reads them (``add_path`` closes them) or closes them (``close_parts``)."""
    notes: tuple[MemoryRecord, ...]
    """The lone text files of no kind: one note each."""
    repos: tuple[tuple[Path, str], ...]
    """The ``--git`` repositories git reads, each with its source name."""
    unread: tuple[Unread, ...]
    """The paths that cannot be read, with why (those the caller refused first)."""
    no_repos: tuple[tuple[str, SourceError], ...]
    """The ``--git`` paths that are no repository, with why."""

    @property
    def readable(self) -> bool:
        """Whether any input can be read."""
        return bool(self.parts or self.notes or self.repos)

    def errors(self, name: str | None = None) -> list[RecordError]:
        """Return the error records of the inputs that cannot be read, one each: a path's
        source the name a read would have given it (``name``, else its resolved path), a
        repository's ``git:`` and its absolute path."""
        return [_unread_path(path, exc, name) for path, exc in self.unread] + [
            unread_repo(given, exc) for given, exc in self.no_repos
        ]

    def failure(self) -> SourceError | ValueError | None:
        """Return the one error of an import none of whose inputs can be read, in one line:
        the first input's whole, the next few in short (what each is), and how many more
        there were; None when some input can be read, or none failed."""
        unread = [*self.unread, *self.no_repos]
        if self.readable or not unread:
            return None
        if len(unread) == 1:
            return unread[0][1]
        shown = [f"{path}: {_short(path, exc)}" for path, exc in unread[1:_NAMED]]
        if len(unread) > _NAMED:
            shown.append(f"{len(unread) - _NAMED} more")
        more = f" (and {len(unread) - 1} more: {'; '.join(shown)})"
        first = unread[0][1]
        if isinstance(first, SourceError):
            return SourceError(first.source, first.reason + more)
        return ValueError(f"{first}{more}")


def plan_inputs(
    paths: Sequence[str | os.PathLike[str]],
    git: Sequence[str | os.PathLike[str]] = (),
    *,
    kind: str | None = None,
    name: str | None = None,
    refused: Sequence[Unread] = (),
    max_file_bytes: int | None = None,
) -> InputPlan:
    """Plan the inputs of an import (blocking: each path is looked at, and each repository
    asked of git).

    Args:
        paths: the paths to import (``-`` is standard input).
        git: the repositories whose history to import.
        kind: read every path as this kind (a lone text file is then no note).
        name: the source name of the one path.
        refused: inputs the caller refused before planning (a pipe the service will not
            read), with why: the first of the unread inputs.
        max_file_bytes: the largest lone text file read as a note (``Limits.max_file_bytes``;
            None: 1 MB); a larger one is unread, with the limit and how to raise it.

    Raises:
        ValueError: ``kind`` is not a kind the registry knows.
    """
    parts: list[tuple[Part, ...]] = []
    notes: list[MemoryRecord] = []
    unread: list[Unread] = list(refused)
    seen: set[tuple[str, str]] = set()  # a part given twice (or in a folder given) is read once
    try:
        for given in paths:
            path = os.fspath(given)
            try:
                found = plan(path, kind=kind, name=name)
            except SourceError as exc:
                why = exc
                try:
                    note = note_of(Path(path), max_file_bytes) if kind is None else None
                except SourceError as too_large:  # text, but over the limit: say that instead
                    why, note = too_large, None
                if note is None:
                    unread.append((path, why))
                else:
                    notes.append(note)
                continue
            again = [p for p in found if (p.source, p.kind) in seen]
            close_parts(again)
            if kept := tuple(p for p in found if p not in again):
                parts.append(kept)
                seen.update((p.source, p.kind) for p in kept)
        repos, no_repos = _repositories(git)
    except BaseException:
        for planned in parts:
            close_parts(list(planned))
        raise
    return InputPlan(tuple(parts), tuple(notes), repos, tuple(unread), no_repos)


def _repositories(
    git: Sequence[str | os.PathLike[str]],
) -> tuple[tuple[tuple[Path, str], ...], tuple[tuple[str, SourceError], ...]]:
    """Split ``git`` into the repositories git reads (with their sources) and the others."""
    if not git:
        return (), ()
    from .git import git_source

    repos: list[tuple[Path, str]] = []
    no_repos: list[tuple[str, SourceError]] = []
    for given in git:
        try:
            repos.append((Path(given), git_source(Path(given))))
        except SourceError as exc:
            no_repos.append((os.fspath(given), exc))
    return tuple(repos), tuple(no_repos)


def unread_repo(
    repo: str | os.PathLike[str], exc: SourceError, source: str | None = None
) -> RecordError:
    """Return the error record of a ``--git`` repository that cannot be read (no repository,
    or gone since it was named): its ``source``, else ``git:`` and its absolute path."""
    given = os.fspath(repo)
    return RecordError(source or "git:" + os.path.abspath(given), given, exc.reason)


def _unread_path(path: str, exc: ValueError | SourceError, name: str | None) -> RecordError:
    """The error record of a path the import cannot read: its source the name a read would
    have given it, where the path given, reason why."""
    try:
        source = name or default_source(path)
    except (OSError, RuntimeError, ValueError):  # a link that loops cannot be resolved
        source = os.path.abspath(path)
    return RecordError(source, path, _why(path, exc))


def _why(path: str, exc: ValueError | SourceError) -> str:
    """Return why ``path`` cannot be read, without the path the message starts with."""
    if isinstance(exc, SourceError):
        return exc.reason
    why = str(exc)
    for prefix in (f"path {path!r} ", f"{path}: ", f"{path} "):
        if why.startswith(prefix):
            return why[len(prefix) :]
    return why


def _short(path: str, exc: ValueError | SourceError) -> str:
    """Return what ``path`` is, in short: why it cannot be read, to its first ``;``."""
    why = _why(path, exc).split("; ", 1)[0]
    return why if isinstance(exc, SourceError) else why.split(": ", 1)[0]
