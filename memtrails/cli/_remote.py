"""Commands sent to a running service: ``memtrails add`` as one of its imports, followed here.

``search``, ``status`` and ``forget`` need nothing of their own: ``Memory.open`` returns the
service's client when one holds the folder.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
from collections.abc import Callable
from contextlib import ExitStack, suppress
from dataclasses import asdict
from pathlib import Path
from typing import Any

import click
import httpx

from ..limits import Limits
from ..pipeline.progress import progress_bar
from ..records import ImportReport
from ..service.client import RemoteMemory, ServiceError, answer, connect, report_from_json
from ._terminal import for_terminal

__all__ = ["add_remotely"]


async def add_remotely(
    home: Path,
    paths: tuple[Path, ...],
    git_repos: tuple[Path, ...],
    options: dict[str, Any],
    limits: Limits,
    show: bool,
) -> ImportReport | None:
    """Run ``memtrails add`` as an import of the service that holds ``home``; return its
    report, or None when no service holds it (or an input is standard input, another pipe
    or a device, or a lone note, which the ordinary path reads here and streams to the
    service).

    Progress comes back as the service reports it; Ctrl-C cancels this import, not the
    service.
    """
    if any(
        str(path) == "-" or _stream(path) or _lone_note(path, options.get("kind")) for path in paths
    ):
        return None
    remote = await connect(home.expanduser())
    if remote is None:
        return None
    async with remote:
        default = Limits()
        given = {k: v for k, v in asdict(limits).items() if v != getattr(default, k)}
        body = {
            "paths": [os.path.abspath(p) for p in paths],
            "git": [os.path.abspath(r) for r in git_repos],
            "limits": given,
            **options,
        }
        totals = (
            await asyncio.to_thread(_totals, home.expanduser(), paths, options, limits)
            if show
            else {}
        )
        job = await remote.call("POST", "/v1/imports", json=body)
        try:
            return await _follow(remote, str(job["id"]), show, totals)
        except asyncio.CancelledError:
            # Ctrl-C: this import stops; the service and its other imports go on.
            await asyncio.shield(_cancel(remote, str(job["id"])))
            click.echo(f"import {for_terminal(job['id'])} cancelled in the service", err=True)
            raise


def _stream(path: Path) -> bool:
    """Tell whether ``path`` is a pipe or a device (``<(zcat list.mbox.gz)`` is
    ``/dev/fd/63``): read here as a stream, as standard input is, since the service refuses
    to open one (and its own planning here would wait for a writer)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):  # missing, or no path at all: the service says so
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _lone_note(path: Path, kind: str | None) -> bool:
    """Tell whether ``path`` is a file of no archive kind (``add`` makes one note of it)."""
    from .._exceptions import SourceError
    from ..importers.detect import detect_kind

    if kind is not None or not path.is_file():
        return False
    try:
        detect_kind(path)
    except SourceError:
        return True
    return False


def _totals(
    home: Path, paths: tuple[Path, ...], options: dict[str, Any], limits: Limits
) -> dict[str, tuple[int, int]]:
    """Count each part's records here, as a local ``add`` does, by the label the service
    reports it under: the service reads the same files, from the positions the folder keeps."""
    from .._exceptions import MemtrailsError
    from ..folder.manifest import read_states
    from ..importers.detect import close_parts, plan
    from ._totals import part_count

    try:
        states = {} if options.get("full") or options.get("prune") else read_states(home)
    except MemtrailsError:
        states = {}
    found: dict[str, tuple[int, int]] = {}
    for path in paths:
        try:
            parts = plan(str(path), kind=options.get("kind"), name=options.get("name"))
        except MemtrailsError:  # the service says what is wrong with it
            continue
        try:
            for part in parts:
                state = states.get(part.source)
                counted = part_count(part, state if isinstance(state, dict) else None, limits)
                if counted is not None:
                    found[part.label] = counted
        finally:
            close_parts(parts)
    return found


def _since(now: ImportReport, start: ImportReport) -> ImportReport:
    """The part of a running report that came after ``start`` (the service's reports add up)."""
    part = ImportReport(
        added=now.added - start.added,
        updated=now.updated - start.updated,
        unchanged=now.unchanged - start.unchanged,
        removed=now.removed - start.removed,
        embedded=now.embedded - start.embedded,
        duplicates=now.duplicates - start.duplicates,
        errors=now.errors[len(start.errors) :],
    )
    part.errors_left_out = now.errors_left_out - start.errors_left_out
    return part


async def _follow(
    remote: RemoteMemory, job_id: str, show: bool, totals: dict[str, tuple[int, int]]
) -> ImportReport:
    latest: dict[str, Any] = {}
    with ExitStack() as bars:
        bar: Any = None
        part = None
        start = ImportReport()
        url = f"/v1/imports/{job_id}/events"
        timeout = httpx.Timeout(None, connect=5.0)
        async with remote.http.stream("GET", url, timeout=timeout) as response:
            if response.is_error:
                await response.aread()
                answer(response)
            async for line in response.aiter_lines():
                if not line.strip():
                    continue
                latest.clear()
                latest.update(json.loads(line))  # in place: the bar's position reads it
                detail = latest.get("detail") or {}
                report = report_from_json(latest["report"])
                if detail.get("part") != part:
                    part, start = detail.get("part"), report
                    total, unread = totals.get(str(part), (None, 0))
                    bars.close()
                    bar = bars.enter_context(
                        progress_bar(
                            for_terminal(str(part)),
                            enabled=show,
                            total_bytes=detail.get("size"),
                            position=_position(latest)
                            if detail.get("position") is not None
                            else None,
                            total_records=total,
                            unread=unread,
                        )
                    )
                if bar is not None:
                    bar(_since(report, start))
    state = latest.get("state")
    if state == "done":
        return report_from_json(latest["report"])
    raise ServiceError(f"import {job_id} {state or 'ended'}: {latest.get('error') or 'no report'}")


def _position(latest: dict[str, Any]) -> Callable[[], int]:
    # Reads the latest event: the bar asks for the position when it draws.
    return lambda: int((latest.get("detail") or {}).get("position") or 0)


async def _cancel(remote: RemoteMemory, job_id: str) -> None:
    with suppress(ServiceError):  # the service already ended it, or stopped
        await remote.call("DELETE", f"/v1/imports/{job_id}")
