"""`memtrails status`: what a folder holds, read without the model or (mostly) the index.

Kept apart from the other commands so that it imports little: the folder's files, not the
model runtime, the importers or the Qdrant client (``tests/test_cli_reads.py`` checks).
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from ._group import main
from ._options import as_command, home_option, open_light, qdrant_option

__all__: list[str] = []


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@qdrant_option
@home_option
@as_command
async def status(as_json: bool, qdrant_url: str | None, home: Path | None) -> None:
    """Show records, sources, model, index size and disk use of the memory folder.

    Example:

        memtrails status --json
    """
    async with open_light(home, qdrant_url, brief=True) as memory:
        st = await memory.status()
    if as_json:
        click.echo(json.dumps(st.to_json(), ensure_ascii=False))
        return
    click.echo(f"memory:   {st.path}")
    click.echo(f"records:  {st.records} ({st.indexed} indexed, {st.points} index points)")
    click.echo(f"model:    {st.model.get('model_id')} ({st.model.get('dims')} dims)")
    click.echo(
        f"index:    {st.index.get('kind')} {st.index.get('path') or st.index.get('url') or ''}".rstrip()
    )
    click.echo(f"on disk:  {st.disk_bytes / 1e6:.1f} MB (log {st.log_bytes / 1e6:.1f} MB)")
    click.echo(f"secrets:  scrubbed with rule set {', '.join(map(str, st.secrets['rules']))}")
    for source, n in st.sources.items():
        click.echo(f"  {n:>8}  {source}")
    for source, mark in st.watermarks.items():
        value = mark.get("value", "(none yet)")
        click.echo(f"watermark: {source}: {mark.get('cursor')} >= {value}")
