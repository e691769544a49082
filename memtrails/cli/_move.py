"""`memtrails move OLD NEW`: an archive, folder or repository moved; its source goes on."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import click

from ..folder.manifest import read_states
from ..folder.moves import moved_name, read_moves, remember_move
from ..folder.positions import LOG_MARK
from ..importers._shared import default_source
from ._group import main
from ._options import as_command, home_option, open_light, qdrant_option
from ._sources import resolve_source
from ._terminal import for_terminal

__all__: list[str] = []


@main.command()
@click.argument("old")
@click.argument("new", type=click.Path(exists=True, path_type=Path))
@qdrant_option
@home_option
@as_command
async def move(old: str, new: Path, qdrant_url: str | None, home: Path | None) -> None:
    """Tell the folder that the source read from OLD is now at NEW (moved or renamed).

    The next `memtrails add NEW` continues that source from its saved position: nothing is
    imported twice, and every record keeps its id and uid (its source name stays the old
    path, which `memtrails sources` shows beside the new one). OLD is a source as `memtrails
    sources` lists it, or its path; a moved folder carries the sources below it.

    Example:

        mv ~/mail/list.mbox ~/archive/list.mbox

        memtrails move ~/mail/list.mbox ~/archive/list.mbox
    """
    async with open_light(home, qdrant_url, brief=True) as memory:
        counts = (await memory.status()).sources
        saved = await asyncio.to_thread(read_states, memory.path)
        moves = await asyncio.to_thread(read_moves, memory.path)
        known = {*counts, *(name for name in saved if name != LOG_MARK)}
        kept = _kept(old, known, moves)
        below = sorted(s for s in known if s == kept or s.startswith(kept.rstrip("/") + "/"))
        target = default_source(new)
        new_name = f"git:{target}" if kept.startswith("git:") else target
        if new_name != kept and moved_name(new_name, moves) == new_name and new_name in known:
            raise click.ClickException(
                f"{new} is already a source of its own ({counts.get(new_name, 0)} records): "
                f"`memtrails forget --source {new}` first, then move"
            )
        await asyncio.to_thread(remember_move, memory.path, kept, new_name)
    records = sum(counts.get(s, 0) for s in below)
    click.echo(
        f"{for_terminal(kept)} -> {for_terminal(new_name)}: "
        f"{records} record{'' if records == 1 else 's'} keep their ids; "
        f"`memtrails add {for_terminal(new)}` continues from where the last run stopped"
    )


def _kept(old: str, known: set[str], moves: dict[str, str]) -> str:
    """Return the source name (or, for a folder, the name prefix) that OLD stands for."""
    resolved = os.path.abspath(os.path.expanduser(old))
    for name in (old, resolved, f"git:{resolved}"):
        kept = moved_name(name, moves)  # a source moved before is still its first name
        if any(s == kept or s.startswith(kept.rstrip("/") + "/") for s in known):
            return kept
    return resolve_source(old, known, moves)
