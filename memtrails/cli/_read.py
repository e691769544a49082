"""`memtrails search`: reading a folder."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..folder.search import snippet_of
from ..periods import bounds
from ._group import main
from ._options import (
    as_command,
    home_option,
    index_options,
    model_option,
    open_memory,
    quiet_option,
)
from ._sources import source_named
from ._terminal import for_terminal

__all__: list[str] = []

# The most hits a search returns: a larger --k is refused in one line (past 64 bits it
# reached the index as an OverflowError traceback).
MAX_K = 100_000


@main.command()
@click.argument("query")
@click.option(
    "-k",
    "--k",
    "k",
    type=click.IntRange(min=1, max=MAX_K),
    default=10,
    show_default=True,
    help=f"How many records (at most {MAX_K:,}).",
)
@click.option(
    "--kind",
    default=None,
    help="Only records of this kind (mail, chat, commit, note, file, document).",
)
@click.option(
    "--author",
    default=None,
    help="Only records by this author: an address, a name or part of one (any case).",
)
@click.option(
    "--source",
    default=None,
    help="Only records of this source: its name as `memtrails sources` lists it, a path, or "
    "a basename (archive.mbox).",
)
@click.option(
    "--since",
    default=None,
    help="Only records from this date on: 2024-05-03, 2024-05, 2024, yesterday, '2 weeks ago'.",
)
@click.option(
    "--until",
    default=None,
    help="Only records up to this date, the whole day (or month, year) included.",
)
@click.option(
    "--min-confidence",
    type=float,
    default=None,
    help="Print nothing when the search's confidence (half the best cosine, half the rare words held) is below this (0.35 is calibrated).",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list.")
@quiet_option
@model_option
@index_options
@home_option
@as_command
async def search(
    query: str,
    k: int,
    kind: str | None,
    author: str | None,
    source: str | None,
    since: str | None,
    until: str | None,
    min_confidence: float | None,
    as_json: bool,
    quiet: bool,
    model: str | None,
    threads: int | None,
    qdrant_url: str | None,
    home: Path | None,
) -> None:
    """Find the records that best match QUERY (by meaning and by exact words).

    Example:

        memtrails search "who moved the release date?" --k 5

        memtrails search "budget" --source archive.mbox --since 2024-05 --until 2024-06
    """
    if not query.strip():
        raise click.BadParameter("`query` is empty; give words or a question", param_hint="QUERY")
    try:
        first, last = bounds(since, until)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc
    opening = open_memory(
        home, threads, qdrant_url, model, brief=True, progress=not (quiet or as_json)
    )
    async with opening as memory:
        if source is not None:
            source = await source_named(memory, source)
        try:
            hits = await memory.search(
                query,
                k,
                kind=kind,
                author=author,
                source=source,
                since=first,
                until=last,
                min_confidence=min_confidence,
            )
        except ValueError as exc:
            raise click.BadParameter(str(exc)) from exc
    if as_json:
        click.echo(json.dumps([h.to_json() for h in hits], ensure_ascii=False))
        return
    if not hits:
        named = [f"--{n} {for_terminal(v)}" for n, v in (("kind", kind), ("author", author)) if v]
        # A filter that names nothing the folder holds is the likely cause: say which.
        click.echo("no match" + (f" (among records with {', '.join(named)})" if named else ""))
        if kind is not None and kind != kind.lower():
            # Kinds match as written, and every importer's are lower case.
            click.echo(f"(kinds are matched as written: try --kind {for_terminal(kind.lower())})")
    elif not hits[0].confident:
        click.echo(
            "(nothing close in meaning or in words: the question probably has no answer here)"
        )
    for hit in hits:
        when = hit.at.iso()[:10] if hit.at else "          "
        who = for_terminal(snippet_of(hit.author or "", None, 24))
        head = f"{hit.score:.3f}  {when}  {for_terminal(hit.kind):<6} {who:<24}"
        click.echo(f"{head}  {for_terminal(hit.title or hit.id)}")
        if hit.snippet:
            click.echo(f"       {for_terminal(snippet_of(hit.snippet, None, 160))}")
        if hit.attachment:
            click.echo(f"       in attachment: {for_terminal(hit.attachment)}")
        click.echo(f"       id: {for_terminal(hit.id)}  ({for_terminal(hit.source)})")
