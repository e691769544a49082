"""`memtrails watch`: the watched sources of a running service (list, add, remove)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import click

from ._group import SuggestingGroup, main
from ._options import as_command, default_home, home_option
from ._terminal import for_terminal

__all__: list[str] = []


@main.group(cls=SuggestingGroup)
@home_option
def watch(home: Path | None) -> None:
    """Follow sources as they grow, through the service that holds the folder.

    A watched path is imported now and again whenever it changes (debounced, incremental as
    `memtrails add`); the watched set is kept in the folder, so a restarted service follows
    it again. Start the service with `memtrails serve` (or `serve --watch PATH`). --home
    may come before the subcommand or after it.

    Example:

        memtrails watch add ~/Maildir

        memtrails watch add ~/code/app --git

        memtrails watch list
    """


async def _call(home: Path | None, method: str, url: str, **kwargs: Any) -> Any:
    from ..service.client import connect

    context = click.get_current_context()
    given = context.parent.params.get("home") if context.parent is not None else None
    folder = (home or given or default_home()).expanduser()
    if not (folder / "manifest.json").is_file():  # a typo'd --home: say so, not "no service"
        raise click.ClickException(f"no memory folder at {folder}; create one with `memtrails add`")
    remote = await connect(folder)
    if remote is None:
        raise click.ClickException(
            f"no service holds {folder}; start one with `memtrails serve --home {folder}` "
            "(watching needs a process that stays)"
        )
    async with remote:
        return await remote.call(method, url, **kwargs)


@watch.command("add")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--git", is_flag=True, help="PATH is a Git repository: follow its branches.")
@click.option("--poll", is_flag=True, help="Poll instead of waiting for the OS's events.")
@click.option("--prune", is_flag=True, help="Forget what vanishes from PATH.")
@home_option
@as_command
async def watch_add(path: Path, git: bool, poll: bool, prune: bool, home: Path | None) -> None:
    """Watch PATH: import it now and whenever it changes.

    Example:

        memtrails watch add ~/notes --prune
    """
    body = {"path": str(path.resolve()), "git": git, "poll": True if poll else None, "prune": prune}
    answer = await _call(home, "POST", "/v1/watch", json=body)
    click.echo(f"watching {for_terminal(answer['watching'])} (import {answer['job']})")


@watch.command("remove")
@click.argument("path", type=click.Path(path_type=Path))
@home_option
@as_command
async def watch_remove(path: Path, home: Path | None) -> None:
    """Stop watching PATH (what it brought stays in the memory)."""
    await _call(home, "DELETE", "/v1/watch", params={"path": str(path.expanduser().resolve())})
    click.echo(f"no longer watching {for_terminal(path)}")


@watch.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@home_option
@as_command
async def watch_list(as_json: bool, home: Path | None) -> None:
    """List the watched paths: state, records added, last event, last import, last error."""
    rows = (await _call(home, "GET", "/v1/watch"))["watched"]
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False))
        return
    if not rows:
        click.echo("nothing is watched; add a path with `memtrails watch add PATH`")
    for row in rows:
        when = row.get("last_import")
        ago = f", last import {time.time() - when:.0f} s ago" if when else ""
        gone = "" if row.get("exists", True) else " (GONE)"
        click.echo(
            f"{for_terminal(row['path'])}{gone}: "
            f"{for_terminal(row.get('state', 'not running'))}, "
            f"{row.get('added', 0)} added{ago}"
        )
        if row.get("last_error"):
            click.echo(f"  last error: {for_terminal(row['last_error'])}")
