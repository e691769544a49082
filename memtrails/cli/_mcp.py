"""`memtrails mcp`: the folder served to an agent."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from pathlib import Path

import click

from .._exceptions import FolderFormatError
from ..folder.manifest import manifest_damage
from ._group import main
from ._options import (
    INTERRUPTED,
    MAX_THREADS,
    as_command,
    default_home,
    home_option,
    stdout_gone,
)
from ._terminal import for_terminal, log_to_terminal

__all__: list[str] = []


def _say_where(port: int) -> None:
    click.echo(f"serving MCP on http://127.0.0.1:{port}/mcp (Ctrl-C stops)", err=True)


def _stop_now() -> None:
    click.echo(f"\ninterrupted: {INTERRUPTED['mcp']}", err=True)
    sys.stderr.flush()
    os._exit(130)


@main.command()
@click.option(
    "--allow-writes",
    is_flag=True,
    help="Also offer the add (import a path) and forget tools.",
)
@click.option(
    "--http",
    "http_port",
    type=click.IntRange(0, 65535),
    default=None,
    help="Serve Streamable HTTP on 127.0.0.1:PORT/mcp instead of stdio (0: a free port, "
    "printed when it listens).",
)
@click.option(
    "--wait",
    type=click.FloatRange(min=0),
    default=10.0,
    show_default=True,
    help="Seconds a request waits for an import holding the folder before it answers with an error.",
)
@click.option(
    "--threads",
    type=click.IntRange(min=1, max=MAX_THREADS),
    default=None,
    help="Model threads (default: the cores this process may use, within any CPU quota).",
)
@home_option
@as_command
async def mcp(
    allow_writes: bool,
    http_port: int | None,
    wait: float,
    threads: int | None,
    home: Path | None,
) -> None:
    """Serve the memory folder to AI agents over the Model Context Protocol (stdio).

    Tools: search, get, status; with --allow-writes also add and forget. The folder is
    opened per request, so `memtrails add` runs beside the server and its records show
    up in the next search.

    Example:

        memtrails mcp --home ~/.memtrails
    """
    try:
        from ..mcp import serve
    except ImportError as exc:  # the SDK is an extra
        raise click.ClickException(
            f"the MCP SDK is not installed ({exc}); pip install 'memtrails[mcp]'"
        ) from exc
    log_to_terminal("memtrails", "mcp", "uvicorn")  # uvicorn's (--http) too
    folder = home or default_home()
    try:
        manifest_damage(folder)  # a newer memtrails's folder: refused at start, not per request
    except FolderFormatError as exc:
        raise click.ClickException(for_terminal(str(exc))) from exc
    if not (folder / "manifest.json").exists():  # a typo'd --home: say so, create nothing
        click.echo(
            f"no memory folder at {for_terminal(folder)} yet: searches answer that there is "
            "none until `memtrails add --home ...` (or the add tool) creates it",
            err=True,
        )
    if http_port is None:
        if sys.stdin.isatty():
            click.echo(
                "memtrails mcp speaks MCP on stdin and stdout: an MCP client starts it (see "
                "docs/mcp.md for the config). Ctrl-C stops it.",
                err=True,
            )
        # The stdio transport reads stdin in a thread that no cancellation reaches, so the
        # usual Ctrl-C (cancel, then wait for every thread) would wait for a line that never
        # comes. Each request closes the folder when it answers (a write cut short is a
        # crash the log recovers from), so the process may end at once.
        asyncio.get_running_loop().add_signal_handler(signal.SIGINT, _stop_now)
    await serve(
        folder,
        allow_writes=allow_writes,
        http_port=http_port,
        threads=threads,
        wait=wait,
        listening=_say_where,
    )
    if http_port is None and stdout_gone():
        # The client closed the pipe it reads answers from. Its stdin may still be open,
        # read by a thread no cancellation reaches: end now (serve has closed the folder),
        # with the shell's code for SIGPIPE, as a command whose reader went away does.
        with contextlib.suppress(OSError, ValueError):
            click.echo("memtrails mcp: the client closed its end of stdout; stopped", err=True)
            sys.stderr.flush()
        os._exit(141)
