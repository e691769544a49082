"""`memtrails serve`: one process that owns the folder and serves the API and MCP."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from .._exceptions import MemoryLockedError
from ._group import main
from ._options import MAX_THREADS, as_command, default_home, home_option
from ._terminal import for_terminal, log_to_terminal

if TYPE_CHECKING:
    from ..service.watch import WatchedPath

__all__: list[str] = []


@main.command()
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="Port to listen on (0: any free one; service.json in the folder says which).",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on. Anything but loopback needs --allow-remote.",
)
@click.option(
    "--allow-remote",
    is_flag=True,
    help="Allow --host beyond loopback: the bearer token is then the only guard.",
)
@click.option("--mcp-writes", is_flag=True, help="Also offer the MCP add and forget tools at /mcp.")
@click.option(
    "--threads",
    type=click.IntRange(min=1, max=MAX_THREADS),
    default=None,
    help="Model threads (default: the cores this process may use, within any CPU quota).",
)
@click.option(
    "--watch",
    "watch_paths",
    multiple=True,
    type=click.Path(exists=True, path_type=Path),
    help="Follow PATH as it grows (a Maildir, a growing mbox or JSON Lines file, a notes "
    "folder, agent transcripts) and import what changes; kept in the folder (repeatable).",
)
@click.option(
    "--watch-git",
    "watch_repos",
    multiple=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Follow a Git repository's branches and import new commits (repeatable).",
)
@click.option(
    "--poll",
    is_flag=True,
    help="Watch the --watch paths by polling (file systems without change events).",
)
@click.option(
    "--print-systemd-unit",
    is_flag=True,
    help="Print a user systemd unit that runs this service, and exit.",
)
@home_option
@as_command
async def serve(
    port: int,
    host: str,
    allow_remote: bool,
    mcp_writes: bool,
    threads: int | None,
    watch_paths: tuple[Path, ...],
    watch_repos: tuple[Path, ...],
    poll: bool,
    print_systemd_unit: bool,
    home: Path | None,
) -> None:
    """Own the memory folder and serve it: the HTTP API (/v1) and MCP (/mcp) on one address.

    It prints a login link (http://127.0.0.1:PORT/login?token=...) to the memory's web
    page: search, records, sources and imports, a timeline. While it runs, `memtrails add/search/status/forget` and `Memory.open` on this folder go
    through it, so searches answer while imports run. Every request needs the bearer token
    in the folder's service.token. SIGTERM or Ctrl-C stops it cleanly.

    Example:

        memtrails serve --home ~/.memtrails

        memtrails serve --watch ~/Maildir --watch ~/notes --watch-git ~/code/app

        memtrails serve --print-systemd-unit > ~/.config/systemd/user/memtrails.service
    """
    try:
        from ..service.auth import LOOPBACK
        from ..service.owner import serve as run
        from ..service.unit import systemd_unit
    except ImportError as exc:  # Starlette and uvicorn come with the mcp extra
        raise click.ClickException(
            f"the service needs the mcp extra ({exc}); pip install 'memtrails[mcp]'"
        ) from exc
    folder = (home or default_home()).expanduser().resolve()
    if host not in LOOPBACK and not allow_remote:
        raise click.UsageError(
            f"--host {host} serves beyond this machine; add --allow-remote to do so (the bearer "
            "token is then the only guard)"
        )
    if print_systemd_unit:
        extra = [*(["--host", host, "--allow-remote"] if host not in LOOPBACK else [])]
        extra += ["--mcp-writes"] if mcp_writes else []
        extra += ["--threads", str(threads)] if threads else []
        click.echo(systemd_unit(folder, port, extra), nl=False)
        return
    from ..service.watch import WatchedPath

    given = [(p, WatchedPath(str(p.resolve()), poll=poll or None)) for p in watch_paths]
    given += [(p, WatchedPath(str(p.resolve()), git=True, poll=poll or None)) for p in watch_repos]
    watch = _checked_watches(folder, given)  # before the service starts, as /v1/watch does
    log_to_terminal("memtrails", "uvicorn")  # uvicorn's warnings and errors, escaped too
    if not (folder / "manifest.json").exists():  # the service creates it: say so (a typo?)
        click.echo(f"no memory folder at {for_terminal(folder)}: creating a new one", err=True)
    try:
        await run(
            folder,
            host=host,
            port=port,
            threads=threads,
            mcp_writes=mcp_writes,
            watch=watch,
            say=lambda line: click.echo(
                for_terminal(line, quoted=True), err=line.startswith("warning")
            ),
        )
    except MemoryLockedError as exc:
        _already_served(folder, exc)
        raise


def _already_served(folder: Path, exc: MemoryLockedError) -> None:
    """Say so when the folder's holder is another `memtrails serve` (it said 'wait for it
    to finish', which a service never does)."""
    from ..service.discovery import find_service

    other = find_service(folder)
    if other is None or other.importing is not None:
        return  # an import, or a holder that serves nothing: the lock's own message
    raise click.ClickException(
        f"memtrails serve (pid {other.pid}) already serves {for_terminal(folder)} on "
        f"{other.url}: use it (memtrails search, add and status go through it), or stop it "
        f"first (kill {other.pid}: a clean stop) and start this one again"
    ) from exc


def _checked_watches(folder: Path, given: list[tuple[Path, WatchedPath]]) -> list[WatchedPath]:
    """Return the watches ``--watch`` and ``--watch-git`` ask for, each path once, refusing
    (as ``POST /v1/watch`` does) a path no file name can hold, one the service may not look
    at, a pipe or a device, the kernel's file systems (/proc, /sys, /dev, /), the memory
    folder, and a path another watch (given or kept in the folder) imports already.

    Raises:
        click.BadParameter: the first path refused, in one line (exit code 2).
    """
    from ..service._overlap import overlap
    from ..service._paths import PathRefused, looked_up, refused_text
    from ..service.watch import load_watched, refusal

    asked = {watched.path for _, watched in given}
    others = [kept for kept in load_watched(folder) if kept.path not in asked]
    accepted: dict[str, WatchedPath] = {}
    for path, watched in given:
        option = "--watch-git" if watched.git else "--watch"
        if watched.path in accepted and accepted[watched.path] == watched:
            continue  # the same path twice, or under two names that resolve alike
        why = refused_text(str(path), repr(str(path)))
        if why is None:
            try:
                looked_up(Path(watched.path))
            except PathRefused as exc:
                why = str(exc)
        why = why or refusal(Path(watched.path), folder)
        if why is None and watched.path in accepted:  # as a repository and as files
            why = f"{watched.path} is given both to --watch and to --watch-git"
        why = why or overlap(watched, [*others, *accepted.values()])
        if why is not None:
            named = "" if str(path) == watched.path else f"{path} is {watched.path}: "
            raise click.BadParameter(f"{named}{why}".replace("\n", " "), param_hint=option)
        accepted[watched.path] = watched
    return list(accepted.values())
