"""`memtrails add` around its inputs: a pruned path that is gone, standard input on a terminal."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from ..folder.moves import read_moves
from ._sources import matching_sources

__all__ = ["forget_vanished", "split_vanished", "stdin_hint"]


def stdin_hint(paths: tuple[Path, ...]) -> None:
    """Say how standard input is read when ``-`` is typed at a terminal (it would just wait)."""
    if any(str(p) == "-" for p in paths) and sys.stdin.isatty():
        click.echo(
            "reading standard input: paste or type the records, then Ctrl-D; or pipe a file "
            "in (zcat list.mbox.gz | memtrails add - --name list)",
            err=True,
        )


def split_vanished(
    paths: tuple[Path, ...], repos: tuple[Path, ...], prune: bool
) -> tuple[tuple[Path, ...], tuple[Path, ...], list[Path]]:
    """With ``--prune``, set apart the inputs that no longer exist: their sources are forgotten."""
    if not prune:
        return paths, repos, []
    gone = [p for p in (*paths, *repos) if str(p) != "-" and not os.path.lexists(p)]
    keep = [p for p in paths if p not in gone]
    return tuple(keep), tuple(r for r in repos if r not in gone), gone


async def forget_vanished(memory: Any, gone: list[Path], name: str | None) -> int:
    """Forget what each vanished input brought, saying so first; return how many records.

    Raises:
        click.ClickException: a vanished path that no source of the folder came from.
    """
    if not gone:
        return 0
    known = (await memory.status()).sources
    kept = set(read_moves(memory.path).values())
    removed = 0
    for path in gone:
        wanted = name if name is not None else os.path.abspath(os.path.expanduser(path))
        found = [s for s in matching_sources(wanted, known) if s in (wanted, f"git:{wanted}")]
        if not found:
            raise click.ClickException(
                f"{path}: no such file or folder, and no source of the memory came from it "
                "(`memtrails sources` lists them)"
            )
        for source in found:
            if source in kept:  # `memtrails move` sent it elsewhere: its records live on there
                click.echo(
                    f"{path} is gone, but its source moved (`memtrails sources`): kept", err=True
                )
                continue
            click.echo(
                f"{path} is gone: forgetting the {known[source]} records it brought ({source})",
                err=True,
            )
            removed += await memory.forget_source(source)
    return removed
