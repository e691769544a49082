"""`memtrails status`: what a folder holds, read without the model or (mostly) the index.

Kept apart from the other commands so that it imports little: the folder's files, not the
model runtime, the importers or the Qdrant client (``tests/test_cli_reads.py`` checks). A
sound folder whose counts are kept is read without an event loop (``folder.glance``); any
other is opened as every command opens it, with its repairs, waits and errors.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from ._group import main
from ._options import default_home, home_option, qdrant_option, run_command
from ._terminal import for_terminal

__all__: list[str] = []


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@qdrant_option
@home_option
def status(as_json: bool, qdrant_url: str | None, home: Path | None) -> None:
    """Show records, sources, model, index size and disk use of the memory folder.

    Example:

        memtrails status --json
    """
    run_command("status", as_json, lambda: _status(as_json, qdrant_url, home))


def _status(as_json: bool, qdrant_url: str | None, home: Path | None) -> None:
    shown = None
    if qdrant_url is None:  # a server URL given: its folder is opened as it says
        from ..folder.glance import glance

        shown = glance(home or default_home())
    if shown is None:
        import asyncio

        shown = asyncio.run(_opened(qdrant_url, home))
    _show(shown, as_json)


async def _opened(qdrant_url: str | None, home: Path | None) -> dict[str, Any]:
    from ._options import open_light

    async with open_light(home, qdrant_url, brief=True) as memory:
        shown: dict[str, Any] = (await memory.status()).to_json()
        # An import answering reads while it runs (service.during_import): the counts are
        # what it has written so far, which the status must say.
        if memory.remote:
            from ..service.client import imported_through  # loaded already: it answered

            if (importing := imported_through(memory)) is not None:
                shown["importing"] = importing
    return shown


def _show(st: dict[str, Any], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(st, ensure_ascii=False))
        return
    model, index = st["model"], st["index"]
    click.echo(f"memory:   {for_terminal(st['path'])}")
    click.echo(f"records:  {st['records']} ({st['indexed']} indexed, {st['points']} index points)")
    click.echo(f"model:    {model.get('model_id')} ({model.get('dims')} dims)")
    click.echo(
        f"index:    {index.get('kind')} {index.get('path') or index.get('url') or ''}".rstrip()
    )
    click.echo(f"on disk:  {st['disk_bytes'] / 1e6:.1f} MB (log {st['log_bytes'] / 1e6:.1f} MB)")
    click.echo(f"secrets:  scrubbed with rule set {', '.join(map(str, st['secrets']['rules']))}")
    if importing := st.get("importing"):
        click.echo(
            f"importing: {for_terminal(importing['command'])} (pid {importing['pid']}): "
            "the counts are what it has written so far"
        )
    for source, n in st["sources"].items():
        click.echo(f"  {n:>8}  {for_terminal(source)}")
    for source, mark in st["watermarks"].items():
        value = mark.get("value", "(none yet)")
        cursor = for_terminal(mark.get("cursor"))
        click.echo(f"watermark: {for_terminal(source)}: {cursor} >= {for_terminal(value)}")
