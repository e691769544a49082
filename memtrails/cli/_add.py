"""`memtrails add`: import paths and Git repositories."""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .._exceptions import SourceError
from ..ingest import ProgressCallback
from ..limits import Limits
from ..pipeline.progress import overall_bar, progress_bar
from ..records import KEPT_ERRORS, ImportReport

if TYPE_CHECKING:
    from ..importers.detect import Part

from ._group import main
from ._options import (
    SHOWN_ERRORS,
    KindChoice,
    as_command,
    default_home,
    home_option,
    index_options,
    limit_options,
    model_option,
    open_memory,
)
from ._repeats import new_errors
from ._single import git_hint, single_note
from ._terminal import for_terminal
from ._totals import commit_total, part_count
from ._vanished import typed_stdin

__all__: list[str] = []


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
    type=KindChoice(),
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
@click.option(
    "-q", "--quiet", is_flag=True, help="No progress and no summary: only what was skipped."
)
@model_option
@index_options
@home_option
@limit_options
@typed_stdin
@as_command
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
    quiet: bool,
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
    from ..add import add_git, add_path, unread_part
    from ..importers._first_pass import FirstPasses
    from ..importers.detect import close_parts
    from ..importers.plan import plan_inputs
    from ..importers.registry import importer

    if not paths and not git_repos:
        raise click.UsageError("give at least one PATH or --git REPO")
    if name is not None and len(paths) != 1:
        raise click.UsageError("--name names one PATH; give exactly one")
    if sum(str(p) == "-" for p in paths) > 1:
        raise click.UsageError("standard input (-) can be read once")
    from ..importers.git import git_source
    from ._remote import add_remotely
    from ._vanished import forget_vanished, split_vanished

    paths, git_repos, gone = split_vanished(paths, git_repos, prune)

    asked = dict(kind=kind, name=name, all_branches=all_branches, full=full, prune=prune)
    routed: ImportReport | None = None
    if not gone:  # vanished inputs (--prune): the ordinary path forgets them, remotely too
        options = {**asked, "batch": batch}
        routed = await add_remotely(
            home or default_home(), paths, git_repos, options, limits, not as_json
        )
    if routed is not None:  # a service holds the folder: it ran the import
        return _show(routed, as_json, quiet, home or default_home())
    git_hint(paths, git_repos)
    planned = plan_inputs(  # fail before opening
        paths, git_repos, kind=kind, name=name, max_file_bytes=limits.max_file_bytes
    )
    if not gone and (failure := planned.failure()) is not None:  # nothing else to do
        raise failure
    plans, notes = planned.parts, planned.notes
    git_repos = tuple(repo for repo, _ in planned.repos)
    total = ImportReport()
    for error in planned.errors(name):  # the other inputs go on; the report names these
        total.add_error(error)

    show = not (as_json or quiet)
    passes = FirstPasses()  # this run's mail first passes, shown by its bars, no other run's
    opened: list[Any] = []  # the memory, once open: its saved positions size the counts

    def bar(part: Part) -> AbstractContextManager[ProgressCallback | None]:
        by_bytes = importer(part.kind).by_bytes
        state = None if full or prune or not opened else opened[0].source_state(part.source)
        total, unread = (part_count(part, state, limits) if show else None) or (None, 0)
        return progress_bar(
            for_terminal(part.label),
            enabled=show,
            total_bytes=part.size,
            position=part.position if by_bytes else None,
            total_records=total,
            unread=unread,
            scan=lambda: passes.scanned(part.source),  # a mail folder's first pass, as it goes
        )

    from ..service.during_import import serving_reads

    try:
        with (
            overall_bar(len(plans) + len(git_repos) + len(notes), show) as finished,
            passes.watching(),  # the importers' worker threads publish their passes to it
        ):
            opening = open_memory(home, threads, qdrant_url, model, create=True, progress=show)
            # Other processes' reads are answered here while it imports (after a moment).
            async with serving_reads(opening) as memory:
                opened.append(memory)
                total.removed += await forget_vanished(memory, gone, name)
                for note in notes:
                    total.merge(await single_note(memory, note, name, batch=batch, limits=limits))
                inputs = len(plans) + len(notes) + len(git_repos) + len(planned.unread)
                for parts in plans:
                    try:
                        report = await add_path(
                            memory,
                            parts,
                            full=full,
                            prune=prune,
                            batch=batch,
                            progress=bar,
                            limits=limits,
                        )
                    except (SourceError, OSError) as exc:
                        # One input of several that cannot be read (gone since it was
                        # planned, a kind that finds nothing in it): its error, the others
                        # are read. An add of one input fails with it, as before it opened.
                        failed = unread_part(parts[0], exc, memory.path) if inputs > 1 else None
                        if failed is None:
                            raise
                        report = failed
                    total.merge(report)
                    finished(report)
                for repo in git_repos:
                    commits = commit_total(repo, all_branches) if show else None
                    try:
                        fresh = full or prune or memory.source_state(git_source(repo)) is None
                    except SourceError:  # gone since planning: add_git says so, as its error
                        fresh = True
                    with progress_bar(
                        f"git {for_terminal(repo)}",
                        enabled=show,
                        total_records=commits if fresh else None,
                    ) as on_progress:
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
                    finished(report)
    finally:
        for parts in plans:
            close_parts(list(parts))
    _show(total, as_json, quiet, home or default_home())


def _show(report: ImportReport, as_json: bool, quiet: bool, home: Path) -> None:
    if as_json:
        click.echo(json.dumps(report.to_json(), ensure_ascii=False))
    else:
        _print_report(report, quiet, home)


def _print_report(report: ImportReport, quiet: bool, home: Path) -> None:
    fresh, repeated = new_errors(home, report.errors)
    if quiet:
        for error in fresh[:SHOWN_ERRORS]:
            click.echo(f"skipped: {for_terminal(error)}", err=True)
        return
    click.echo(
        f"added {report.added}, updated {report.updated}, unchanged {report.unchanged}, "
        f"skipped {report.skipped}, removed {report.removed} in {report.elapsed:.1f} s"
    )
    # Repeated mail (list archives hold many copies) is folded into one record, not an error.
    if duplicates := getattr(report, "duplicates", 0):
        click.echo(f"duplicates folded: {duplicates} (the same message again, kept once)")
    if report.cut:
        click.echo(f'cut to fit the limits: {report.cut} (each record\'s meta "_cut" says what)')
    if report.secrets:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(report.secrets.items()))
        click.echo(f"secrets scrubbed: {kinds}")
    for src in report.sources:
        how = "read incrementally" if src.mode != "full" else "read in full"
        if not src.complete:  # its errors below say where it stopped
            how = "stopped part-way " + (
                "(the error below says where)"
                if report.skipped
                else "(its importer said it did not read to the end, and gave no error)"
            )
        why = f" ({for_terminal(src.why)})" if src.why else ""
        click.echo(f"{for_terminal(src.source)}: {how}, {src.read} items{why}")
    for error in fresh[:SHOWN_ERRORS]:
        click.echo(f"skipped: {for_terminal(error)}", err=True)
    if repeated:
        click.echo(
            f"skipped {repeated} as on the last run, for the same reasons (not shown again; "
            "--json lists them)",
            err=True,
        )
    if (more := report.skipped - repeated - min(len(fresh), SHOWN_ERRORS)) > 0:
        click.echo(
            f"... and {more} more (--json lists the first "
            f"{KEPT_ERRORS:,} and counts the rest by reason)",
            err=True,
        )
