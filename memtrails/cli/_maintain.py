"""`memtrails forget`, `reindex`, `check` and `optimize`: keeping a folder."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..memory import Memory
from ..pipeline.progress import steps
from ._group import main
from ._options import (
    as_command,
    default_home,
    home_option,
    index_options,
    model_option,
    no_model,
    open_light,
    open_memory,
    qdrant_option,
    quiet_option,
)
from ._sources import source_named
from ._terminal import for_terminal

__all__: list[str] = []


@main.command()
@click.argument("record_id", required=False)
@click.option(
    "--source",
    default=None,
    help="With RECORD_ID: the record's source, where several hold the id. Alone: forget every "
    "record of this source (a path, a basename, as `memtrails sources` lists them).",
)
@qdrant_option
@home_option
@as_command
async def forget(
    record_id: str | None, source: str | None, qdrant_url: str | None, home: Path | None
) -> None:
    """Forget the record RECORD_ID, or with --source alone a whole source.

    A forgotten record leaves search at once; the log keeps a tombstone. A forgotten source
    loses its saved position too, so a later `memtrails add` of it reads it in full.

    Example:

        memtrails forget 1234@example.com

        memtrails forget --source old-archive.mbox
    """
    if record_id is None and source is None:
        raise click.UsageError("give a RECORD_ID, or --source SOURCE to forget a whole source")
    async with open_light(home, qdrant_url, brief=True) as memory:
        if source is not None:
            source = await source_named(memory, source)
        if record_id is None:
            assert source is not None
            n = await memory.forget_source(source)
            click.echo(f"forgot {n} record{'' if n == 1 else 's'} of {for_terminal(source)}")
            return
        n = await memory.forget(record_id, source=source)
    if n == 0:
        raise click.ClickException(f"no record with id {record_id!r}; `memtrails search` shows ids")
    click.echo(f"forgot {n} record{'s' if n > 1 else ''}")


@main.command()
@click.option(
    "--model",
    default=None,
    metavar="NAME",
    help="Re-embed every record with this model (minilm, multilingual-e5-small, or a folder "
    "with model.onnx and tokenizer.json); the folder uses it from then on.",
)
@click.option(
    "--payloads",
    is_flag=True,
    help="Keep the vectors: only give what this version keeps beside them (each passage's "
    "scripts) to the points an earlier memtrails indexed, from the log, without the model.",
)
@quiet_option
@index_options
@home_option
@as_command
async def reindex(
    model: str | None,
    payloads: bool,
    quiet: bool,
    threads: int | None,
    qdrant_url: str | None,
    home: Path | None,
) -> None:
    """Rebuild the index from the record log alone, with the folder's model or another.

    Example:

        memtrails reindex

        memtrails reindex --model multilingual-e5-small

        memtrails reindex --payloads
    """
    if payloads and model:
        raise click.UsageError("--payloads keeps the vectors: it takes no --model")
    if payloads:
        async with open_memory(home, threads, qdrant_url) as memory:
            with steps("adding scripts", not quiet) as shown:
                n = await memory.reindex(payloads=True, on_progress=shown)
        click.echo(f"gave {n} passages their scripts")
        return
    # No catch-up first: the whole log is indexed again anyway.
    async with open_memory(home, threads, qdrant_url, catch_up=False) as memory:
        with steps("reindexing" + (f" into {model}" if model else ""), not quiet) as shown:
            n = await memory.reindex(model=model, threads=threads, on_progress=shown)
    click.echo(f"indexed {n} records" + (f" with {model}" if model else ""))


@main.command()
@click.option("--repair", is_flag=True, help="Fix what can be fixed from the record log.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@quiet_option
@model_option
@index_options
@home_option
@as_command
async def check(
    repair: bool,
    as_json: bool,
    quiet: bool,
    model: str | None,
    threads: int | None,
    qdrant_url: str | None,
    home: Path | None,
) -> None:
    """Check that the memory folder is whole: every log line, the index, checkpoint, positions.

    Exit 0 when nothing is wrong, 1 when something is (still) wrong. With --repair, fixes
    what the record log can: points of records the log lacks, records without points, lines
    not yet indexed. A damaged log line cannot be fixed from the log: restore it from a backup.
    A folder whose manifest.json is lost or damaged gets a new one, for the default model or
    --model, and its index is rebuilt from the records (the damaged manifest is kept beside).

    Example:

        memtrails check --repair
    """
    # The report lists what opening repaired: no separate "repaired:" lines on stderr here.
    # A repair may re-embed (the folder's own model); a check alone never loads it.
    path = home or default_home()
    recovered = await _recover_manifest(path, model, threads, qdrant_url) if repair else []
    opening = Memory.open(
        path,
        embedder=None if repair else no_model,
        threads=threads,
        qdrant_url=qdrant_url,
        create=False,
        catch_up=False,
    )
    async with opening as memory:
        with steps("check --repair", enabled=repair and not quiet) as shown:
            report = await memory.check(repair=repair, on_progress=shown)
    report.repaired[:0] = recovered
    if as_json:
        click.echo(json.dumps(report.to_json(), ensure_ascii=False))
    else:
        click.echo(
            f"records.jsonl: {report.lines} lines, {report.records} live records, "
            f"{report.tombstones} tombstones"
        )
        indexed = "?" if report.indexed is None else report.indexed
        click.echo(
            f"index: {indexed} records with points, {report.pending} bytes of the log not yet indexed"
        )
        for line in report.repaired:
            click.echo(f"repaired: {for_terminal(line)}")
        for line in report.problems:
            click.echo(f"problem: {for_terminal(line)}")
        if report.ok:
            click.echo("ok")
        else:
            hint = "" if repair else " (memtrails check --repair fixes what the log can)"
            click.echo(f"{len(report.problems)} problems{hint}")
    if not report.ok:
        raise click.exceptions.Exit(1)


@main.command()
@qdrant_option
@home_option
@as_command
async def optimize(qdrant_url: str | None, home: Path | None) -> None:
    """Build the index's search graph (HNSW): run after large imports for faster search.

    A folder made before the index kept int8 copies of its vectors gets them too.

    Example:

        memtrails optimize
    """
    async with open_light(home, qdrant_url) as memory:
        await memory.optimize()
    click.echo("index optimized")


async def _recover_manifest(
    path: Path, model: str | None, threads: int | None, qdrant_url: str | None
) -> list[str]:
    """Give a folder whose manifest is lost or damaged a new one (folder/recover.py); what
    was done, or nothing for a folder with its manifest."""
    from ..embedding.registry import embedder_factory
    from ..folder.model import manifest_model
    from ..folder.recover import lost_manifest, recover_manifest

    if lost_manifest(path) is None:
        return []
    make = embedder_factory(model, threads=threads) if model else manifest_model(None, threads)
    embedder = await make()
    try:
        return await recover_manifest(path, embedder, qdrant_url)
    finally:
        await embedder.aclose()
