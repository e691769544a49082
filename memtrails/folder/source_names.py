"""Naming a source the way a person does: its whole name, its path, or its file's name."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from .moves import moved_name, read_moves

if TYPE_CHECKING:
    from .opening import Folder

__all__ = ["SourceNameError", "matching_sources", "resolve_source", "source_in"]


class SourceNameError(ValueError):
    """A name that matches no source of the folder, or several."""


def matching_sources(given: str, known: Iterable[str]) -> list[str]:
    """Return the sources ``given`` names: itself, else by path, basename or a tail of it.

    ``name.jsonl``, ``./name.jsonl`` and ``~/mail/name.jsonl`` name ``/home/me/mail/name.jsonl``;
    a repository's path names its ``git:`` source. The first rule that finds any wins.
    """
    known = list(known)
    if given in known:
        return [given]
    resolved = os.path.abspath(os.path.expanduser(given))
    for candidate in (resolved, f"git:{resolved}"):
        if candidate in known:
            return [candidate]
    tail = given.strip("/").lstrip("./")
    plain = [(s, s.removeprefix("git:").rstrip("/")) for s in known]
    by_name = [s for s, path in plain if os.path.basename(path) == tail]
    if by_name:
        return by_name
    return [s for s, path in plain if tail and path.endswith("/" + tail)]


def resolve_source(given: str, known: Iterable[str], moves: Mapping[str, str] | None = None) -> str:
    """Return the one source ``given`` names, or raise :class:`SourceNameError`, one line
    that lists the choices.

    ``moves`` (``moved.json``): a path a source moved to names that source.
    """
    known = list(known)
    if moves:
        resolved = os.path.abspath(os.path.expanduser(given))
        for name in (resolved, f"git:{resolved}"):
            if (kept := moved_name(name, moves)) != name and kept in known:
                return kept
    found = matching_sources(given, known)
    if len(found) == 1:
        return found[0]
    if not found:
        raise SourceNameError(
            f"no source matches {given!r}: the folder holds {len(known)} source"
            f"{'' if len(known) == 1 else 's'}; `memtrails sources` lists them"
        )
    raise SourceNameError(
        f"{given!r} matches {len(found)} sources ({', '.join(found[:5])}); give the whole name"
    )


async def source_in(folder: Folder, given: str | None) -> str | None:
    """Return the one source of ``folder`` that ``given`` names (:func:`resolve_source`,
    with the folder's moves), None for None: what ``Memory``'s ``source=`` means, as the CLI
    and the service read it.

    Raises:
        SourceNameError: ``given`` names no source of the folder, or several.
    """
    if given is None:
        return None
    known = folder.table.sources()
    if given in known:
        return given
    return resolve_source(given, known, await asyncio.to_thread(read_moves, folder.path))
