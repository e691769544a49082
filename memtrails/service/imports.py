"""What an import job runs: paths and Git repositories as ``memtrails add`` reads them, and
records streamed in a request body as JSON Lines."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._exceptions import SourceError
from ..add import add_git, add_path
from ..importers.detect import Part
from ..importers.plan import plan_inputs
from ..importers.registry import importer
from ..ingest import ProgressCallback
from ..limits import Limits
from ..memory import Memory
from ..records import ImportReport, RecordError
from ._paths import PathRefused, looked_up, refused_text
from .client import ERROR_KEY
from .jobs import Job, Runner

__all__ = ["MAX_LINE", "ImportRequest", "body_records", "plan_import"]

MAX_LINE = 16 << 20
"""Longest JSON Lines line the ingest endpoint accepts (bytes); a longer one is skipped."""
_NAMED = 10  # paths named in an import's title


@dataclass(slots=True)
class ImportRequest:
    """What ``POST /v1/imports`` asks for (the options of ``memtrails add``)."""

    paths: list[str] = field(default_factory=list)
    git: list[str] = field(default_factory=list)
    kind: str | None = None
    name: str | None = None
    all_branches: bool = False
    full: bool = False
    prune: bool = False
    batch: int = 64
    limits: Limits = field(default_factory=Limits)


def _checked(
    paths: list[str], home: Path
) -> tuple[list[str], list[tuple[str, ValueError | SourceError]]]:
    """Return ``paths`` without repeats (the same file named twice is read once), and the
    paths refused with why: a pipe, a device, a path on a file system of the kernel (/proc,
    /sys, /dev, or a folder holding one), one the service may not look at, or the memory
    folder itself (blocking: one stat per path).

    Opening a FIFO waits for a writer, and /dev/zero never ends: the request (and the
    service's shutdown behind it) waited with them. A stream goes through the ingest
    endpoint, or ``memtrails add`` reads it. A file of the memory folder (its log) imported
    into it would copy every record it holds once more, read while it is written.
    """
    folder = os.path.realpath(home)
    seen: dict[str, str] = {}
    refused: list[tuple[str, ValueError | SourceError]] = []
    for path in paths:
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen[real] = path
        if real == folder or real.startswith(folder.rstrip(os.sep) + os.sep):
            refused.append(
                (
                    path,
                    ValueError(
                        f"path {path!r} is the memory folder or inside it: a memory is never "
                        "imported into itself; import the files and folders its records "
                        "came from"
                    ),
                )
            )
            continue
        try:
            _, mode = looked_up(Path(path))
        except PathRefused as exc:
            if exc.status != 404:  # missing: planning says so, as for any path
                refused.append((path, exc))
            continue
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            refused.append(
                (
                    path,
                    ValueError(
                        f"path {path!r} is a pipe or a device, not a file or folder: send what "
                        "it holds through the ingest endpoint, or import it with `memtrails add`"
                    ),
                )
            )
    bad = {path for path, _ in refused}
    return [p for p in seen.values() if p not in bad], refused


async def plan_import(
    memory: Memory, request: ImportRequest
) -> tuple[str, tuple[str, ...], Runner]:
    """Check and plan an import into ``memory``; return what it reads, its sources and its
    runner.

    A path that cannot be read (missing, of no kind memtrails reads, a pipe, a device, on a
    kernel file system, in the memory folder, not allowed) is one error in the import's
    report, and the other inputs are imported, as ``memtrails add`` does.

    Raises:
        SourceError: no path and no repository can be read (the first one's error, naming
            the others; a ValueError where the first is a path refused here). A ``git``
            path that is no repository is one error, as a path is
            (:func:`memtrails.importers.plan.plan_inputs` plans them as ``memtrails add``).
        ValueError: the request is inconsistent (``name`` for several paths, a relative
            path).
    """
    if not request.paths and not request.git:
        raise ValueError("give at least one path or git repository")
    if request.name is not None and len(request.paths) != 1:
        raise ValueError("`name` names one path; give exactly one")
    for path in [*request.paths, *request.git]:
        why = refused_text(path, f"path {path!r}")
        if why is not None:
            raise ValueError(why)
        if path == "-" or not Path(path).is_absolute():
            raise ValueError(
                f"path {path!r}: give an absolute path on the service's machine (standard "
                "input goes through the ingest endpoint)"
            )
    # One worker thread for all of them: a body of 30,000 paths is not 30,000 thread hops.
    paths, refused = await asyncio.to_thread(_checked, request.paths, memory.path)
    planned = await asyncio.to_thread(
        plan_inputs,
        paths,
        request.git,
        kind=request.kind,
        name=request.name,
        refused=refused,
        max_file_bytes=request.limits.max_file_bytes,
    )
    if (failure := planned.failure()) is not None:  # nothing else to do: the request fails
        raise failure
    errors = planned.errors(request.name)
    parts = [part for path_parts in planned.parts for part in path_parts]  # add_path closes
    notes = planned.notes
    repos = [repo for repo, _ in planned.repos]
    note_sources = [request.name or note.source for note in notes]
    git_sources = [source for _, source in planned.repos]
    sources = tuple(dict.fromkeys([p.source for p in parts] + note_sources + git_sources))
    failed = {path for path, _ in planned.unread}
    named = [*(p for p in paths if p not in failed), *(f"git {r}" for r in repos)]
    what = ", ".join(named[:_NAMED])
    if len(named) > _NAMED:  # the job's title, listed with every job: not a megabyte of paths
        what += f" and {len(named) - _NAMED} more"
    full, prune, batch = request.full, request.prune, request.batch

    async def run(job: Job) -> ImportReport:
        teller = _Teller(job)
        for error in errors:  # counted from the start: the running report says them
            teller.unread(error)
        total = ImportReport()
        for error in errors:
            total.add_error(error)
        for note, source in zip(notes, note_sources, strict=True):
            total.merge(
                await memory.ingest([note], name=source, batch=batch, limits=request.limits)
            )
        total.merge(
            await add_path(
                memory,
                parts,
                full=full,
                prune=prune,
                batch=batch,
                progress=teller.part,
                limits=request.limits,
            )
        )
        for repo in repos:
            with teller.reading(f"git {repo}", None, None) as on_progress:
                report = await add_git(
                    memory,
                    repo,
                    all_branches=request.all_branches,
                    on_progress=on_progress,
                    limits=request.limits,
                    full=full,
                    prune=prune,
                    batch=batch,
                )
            total.merge(report)
        return total

    return what, sources, run


class _Teller:
    """Publishes the running report of an import of several parts on its job."""

    def __init__(self, job: Job) -> None:
        self._job = job
        self._before = ImportReport()  # the parts read so far, as their last progress said

    def unread(self, error: RecordError) -> None:
        """Count an input that cannot be read in the running report, before any part."""
        self._before.add_error(error)

    def part(self, part: Part) -> AbstractContextManager[ProgressCallback]:
        """Report one planned part (by bytes read where its kind is read by bytes)."""
        by_bytes = importer(part.kind).by_bytes
        return self.reading(part.label, part.size, part.position if by_bytes else None)

    @contextmanager
    def reading(
        self, label: str, size: int | None, position: Callable[[], int] | None
    ) -> Iterator[ProgressCallback]:
        """Yield the ``on_progress`` of one part of the import, named ``label``."""
        last: list[ImportReport] = []

        def where() -> int | None:
            return position() if position is not None else None

        def on_progress(report: ImportReport) -> None:
            last[:] = [report]
            running = ImportReport()
            running.merge(self._before)
            running.merge(report)
            self._job.progress(running, part=label, position=where())

        self._job.progress(self._before, part=label, size=size, position=where())
        try:
            yield on_progress
        finally:
            if last:
                self._before.merge(last[0])


async def body_records(
    chunks: AsyncIterable[bytes], source: str, max_line: int = MAX_LINE
) -> AsyncIterator[dict[str, Any] | RecordError]:
    """Yield one mapping per JSON Lines line of a request body, as the pipeline asks.

    The body is read only when the next record is wanted, so a client that sends faster
    than records are embedded waits on its socket (back-pressure). A line that is not a JSON
    object, or longer than ``max_line`` bytes, becomes a ``RecordError`` naming the line.
    """
    buffer = bytearray()
    number = 0
    skipping = False  # inside a line over the limit: drop bytes up to its end

    def parsed(line: bytes) -> dict[str, Any] | RecordError | None:
        nonlocal number
        number += 1
        line = line.strip()
        if not line:
            return None
        try:
            obj = json.loads(line)
        except ValueError as exc:
            return RecordError(source, f"line {number}", f"not JSON: {exc}")
        except RecursionError:
            return RecordError(source, f"line {number}", "not a record: JSON nested too deep")
        if not isinstance(obj, dict):
            return RecordError(source, f"line {number}", "not a JSON object")
        error = obj.get(ERROR_KEY)
        if isinstance(error, dict):
            return RecordError(
                str(error.get("source") or source),
                str(error.get("where") or f"line {number}"),
                str(error.get("reason") or "unreadable"),
            )
        return obj

    async for chunk in chunks:
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                if not skipping:
                    buffer += chunk[start:]
                    if len(buffer) > max_line:
                        skipping, buffer = True, bytearray()
                break
            if skipping:
                number += 1
                skipping = False
                yield RecordError(source, f"line {number}", f"longer than {max_line} bytes")
            else:
                buffer += chunk[start:end]
                item = parsed(bytes(buffer))
                buffer.clear()
                if item is not None:
                    yield item
            start = end + 1
    if skipping:
        number += 1
        yield RecordError(source, f"line {number}", f"longer than {max_line} bytes")
    elif buffer:
        item = parsed(bytes(buffer))
        if item is not None:
            yield item
