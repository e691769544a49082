"""`memtrails add` around its inputs: a pruned path that is gone, standard input typed at a terminal."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click

from ..folder.moves import read_moves
from ..folder.source_names import matching_sources
from ._terminal import for_terminal

T = TypeVar("T")

__all__ = ["forget_vanished", "split_vanished", "typed_stdin"]


def typed_stdin(command: Callable[..., T]) -> Callable[..., T]:
    """Read standard input typed at a terminal to its end before ``command`` runs.

    A terminal's end of input (Ctrl-D) is not sticky: a later read waits again, and a read
    blocked in a worker thread is out of Ctrl-C's reach. So what is typed is read here, in
    the main thread where Ctrl-C lands, into a temporary file that then stands in for
    standard input: the import reads it as standard input redirected from a file.
    """

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> T:
        if any(str(p) == "-" for p in kwargs.get("paths", ())) and sys.stdin.isatty():
            try:
                _take_terminal(sys.stdin.fileno())
            except KeyboardInterrupt:
                click.echo(
                    "\ninterrupted before the end of input (Ctrl-D): nothing was added", err=True
                )
                raise click.exceptions.Exit(130) from None
        return command(*args, **kwargs)

    return wrapper


def _take_terminal(fd: int) -> None:
    import tempfile

    with tempfile.TemporaryFile() as typed:
        click.echo(
            "reading standard input: paste or type the records, then Ctrl-D on a line of its "
            "own (they are added after it); or pipe a file in "
            "(zcat list.mbox.gz | memtrails add - --name list)",
            err=True,
        )
        while chunk := os.read(fd, 1 << 16):
            typed.write(chunk)
        typed.flush()
        os.dup2(typed.fileno(), fd)  # the copy outlives ``typed``, which is unlinked already
    os.lseek(fd, 0, os.SEEK_SET)


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
                    f"{for_terminal(path)} is gone, but its source moved "
                    "(`memtrails sources`): kept",
                    err=True,
                )
                continue
            click.echo(
                f"{for_terminal(path)} is gone: forgetting the {known[source]} records it brought "
                f"({for_terminal(source)})",
                err=True,
            )
            removed += await memory.forget_source(source)
    return removed
