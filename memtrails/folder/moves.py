"""``moved.json``: sources whose files moved, so that an import of the new path continues them.

A record's uid is derived from its source name and id (conformance/README.md), and a source
is named by the resolved path it was read from. Moving the file would make the next import
a new source that holds every record again. ``memtrails move OLD NEW`` keeps instead a
remembered alias: the new path (a name prefix) maps to the source name the records keep,
and ``memtrails add`` imports the new path under that name, from its saved position. No
stored record, uid or point changes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from .._exceptions import FolderFormatError
from .manifest import write_json_atomic

__all__ = ["MOVED_FILE", "moved_name", "moved_paths", "read_moves", "remember_move"]

MOVED_FILE = "moved.json"


def read_moves(folder: Path) -> dict[str, str]:
    """Return the folder's moves: a path's name (or ``git:`` name) -> the source name kept.

    Raises:
        FolderFormatError: ``moved.json`` is not what memtrails writes.
    """
    path = folder / MOVED_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except ValueError as exc:
        raise FolderFormatError(
            f"{path} is not readable JSON ({exc}); restore it, or delete it and run "
            "`memtrails move OLD NEW` again for each moved source"
        ) from None
    moves = data.get("moved") if isinstance(data, dict) else None
    if not isinstance(moves, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in moves.items()
    ):
        raise FolderFormatError(f"{path} holds no map of moved sources; restore or delete it")
    return dict(moves)


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix.rstrip("/") + "/")


def moved_name(name: str, moves: Mapping[str, str]) -> str:
    """Return the source name an import of ``name`` continues (``name`` itself if not moved).

    A move of a folder covers the sources below it: ``/new/list.mbox`` continues
    ``/old/list.mbox`` after ``/old`` moved to ``/new``. The longest matching prefix wins.
    """
    best = max((new for new in moves if _under(name, new)), key=len, default=None)
    if best is None:
        return name
    return moves[best] + name[len(best) :]


def moved_paths(moves: Mapping[str, str]) -> dict[str, str]:
    """Return the reverse of ``moves``: each kept source name (prefix) -> where it is now."""
    return {old: new for new, old in moves.items()}


def remember_move(folder: Path, kept: str, new: str) -> dict[str, str]:
    """Record that the source (or source prefix) ``kept`` is now read from ``new``; write it.

    One place per source: an earlier move of the same source is replaced, and a move back to
    the name the records carry drops the alias. Blocking; call it holding the folder's lock.

    Returns:
        The moves as written.
    """
    moves = {n: old for n, old in read_moves(folder).items() if old != kept and n != new}
    if new != kept:
        moves[new] = kept
    write_json_atomic(folder / MOVED_FILE, {"moved": moves})
    return moves
