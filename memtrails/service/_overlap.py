"""Watches that would import the same files twice: a folder and a path inside it, one file
or folder under two names, two paths of one Git repository."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .watch import WatchedPath

__all__ = ["WatchConflict", "overlap"]


class WatchConflict(ValueError):
    """A watch that would import what another watch imports already (HTTP 409)."""


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino)


def _above(path: Path) -> set[tuple[int, int]]:
    """Return the identities of the folders holding ``path`` (a bind mount is seen too)."""
    found = (_identity(parent) for parent in path.parents)
    return {i for i in found if i is not None}


def _under(path: Path, folder: Path) -> bool:
    return folder in path.parents


def _repository(path: Path) -> str | None:
    from ..importers.git import git_source

    try:
        return git_source(path)
    except Exception:  # gone, or no repository now: named by its path alone
        return None


def overlap(new: WatchedPath, kept: Iterable[WatchedPath]) -> str | None:
    """Return why watching ``new`` beside ``kept`` would store a file twice, or None
    (blocking: a ``stat`` of each path and the folders above it; ``git`` for repositories).

    A folder's watch imports every file below it, each under the folder's source; a watch
    of one of them (or of a folder holding the first) would import it again under its own
    source: two records for one file. A path reached under another name (a symbolic link is
    resolved before; a bind mount or a hard link is seen by its device and inode) is the same
    path. A repository watched with ``git`` is one source however it is named (its top, a
    folder in it); a ``git`` watch and a files watch of one folder import different things
    (commits, files) and never overlap.
    """
    mine = Path(new.path)
    others = [w for w in kept if w.git == new.git and w.path != new.path]
    if new.git:
        repository = _repository(mine) if others else None
        for other in others:
            if repository is not None and _repository(Path(other.path)) == repository:
                return (
                    f"{new.path} is in the repository {repository[4:]}, watched already as "
                    f"{other.path}: that watch follows all its branches"
                )
        return None
    own, above = _identity(mine), _above(mine) if others else set()
    for other in others:
        theirs = Path(other.path)
        their = _identity(theirs)
        if own is not None and their == own:
            return (
                f"{new.path} is {other.path}, watched already, under another name (a bind "
                "mount or a hard link): it is followed there"
            )
        if _under(mine, theirs) or (their is not None and their in above):
            return (
                f"{new.path} is inside {other.path}, a watched folder that imports it "
                "already: a second watch would store each of its files twice (once for "
                f"each source); it is followed through {other.path}"
            )
        if _under(theirs, mine) or (own is not None and own in _above(theirs)):
            return (
                f"{new.path} holds {other.path}, watched already: each file there would be "
                f"stored twice (once for each source). To watch {new.path} instead, remove "
                f"the watch of {other.path} first and forget its records "
                f"(`memtrails forget --source {other.path}`), which the new watch imports again"
            )
    return None
