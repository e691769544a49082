"""The web pages' handlers: search, a record, the sources with their imports, the timeline."""

from __future__ import annotations

import asyncio
import json
import time
from importlib.resources import files
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..._exceptions import MemtrailsError
from ...folder.opening import Folder
from ...folder.positions import LOG_MARK, describe_position
from ...importers._shared import default_source
from ...keys import record_uid
from ...memory import Memory
from ..jobs import Job, Jobs
from ..routes import MAX_QUERY
from ..watch import Watched
from .around import around
from .render import page, query_terms
from .timeline import MonthCounts, chart

__all__ = ["Pages"]

_K = 20
_MAX_K = 100
_FILTERS = ("source", "kind", "author", "since", "until")
_MAX_FILTER = 4096  # characters of a filter, as the API's
_SHOWN_ERRORS = 10
_REFRESH = 2  # seconds between reloads of the sources page while an import runs


class Pages:
    """The handlers of the web pages, over the service's memory, jobs and watched set.

    Args:
        memory: the open memory the service owns (local: the pages read its folder).
        jobs: the service's jobs (imports in progress, the last run of each source).
        watched: the service's watched set, if it has one.
    """

    def __init__(self, memory: Memory, jobs: Jobs, watched: Watched | None = None) -> None:
        self.memory = memory
        self.jobs = jobs
        self.watched = watched
        self._months = MonthCounts()
        self._css = files(__package__).joinpath("static", "style.css").read_bytes()

    def routes(self) -> list[Route]:
        """Return the pages' routes (all GET, none writes)."""
        return [
            Route("/", self.search, methods=["GET"]),
            Route("/record", self.record, methods=["GET"]),
            Route("/sources", self.sources, methods=["GET"]),
            Route("/timeline", self.timeline, methods=["GET"]),
            Route("/static/style.css", self.css, methods=["GET"]),
        ]

    def _folder(self) -> Folder:
        # The service's own memory is always local; this raises once it is closed (503).
        return self.memory._open_folder()

    async def css(self, request: Request) -> Response:
        return Response(self._css, media_type="text/css", headers={"cache-control": "no-cache"})

    async def search(self, request: Request) -> Response:
        params = request.query_params
        query = (params.get("q") or "").strip()[:MAX_QUERY]
        given = {name: (params.get(name) or "").strip() for name in _FILTERS}
        try:
            k = min(max(int(params.get("k") or _K), 1), _MAX_K)
        except ValueError:  # not a number, or one of thousands of digits
            k = _K
        hits: list[Any] = []
        error = None
        for name, value in given.items():
            if len(value) > _MAX_FILTER:  # said, not searched with a value cut short
                error = f"{name} is longer than {_MAX_FILTER:,} characters"
                given[name] = value[:_MAX_FILTER]
        if query and error is None:
            try:
                hits = await self.memory.search(
                    query,
                    k,
                    source=given["source"] or None,
                    kind=given["kind"] or None,
                    author=given["author"] or None,
                    since=given["since"] or None,
                    until=given["until"] or None,
                )
            except (ValueError, TypeError, MemtrailsError) as exc:
                error = str(exc)
        sources = sorted(self._folder().table.per_source())
        return page(
            "search.html",
            title="search",
            subject=query,
            nav="search",
            query=query,
            given=given,
            k=k,
            sources=sources,
            hits=hits,
            terms=query_terms(query),
            error=error,
        )

    async def record(self, request: Request) -> Response:
        uid = request.query_params.get("uid") or ""
        source = request.query_params.get("source") or None
        if len(uid) > _MAX_FILTER or len(source or "") > _MAX_FILTER:  # names no record
            return page("missing.html", 404, title="no such record", nav="", uid=uid)
        record = await self.memory.get(uid, source=source) if uid else None
        if record is None:
            return page("missing.html", 404, title="no such record", nav="", uid=uid)
        found = record_uid(record.source, record.id)
        folder = self._folder()
        place = await asyncio.to_thread(around, folder.table, folder.log, found)
        return page(
            "record.html",
            title="record",
            subject=record.title or record.id,
            nav="",
            record=record,
            uid=found,
            place=place,
            meta=sorted((str(k), _shown(v)) for k, v in record.meta.items()),
            terms=query_terms((request.query_params.get("q") or "")[:MAX_QUERY]),
        )

    async def sources(self, request: Request) -> Response:
        folder = self._folder()
        counts = folder.table.per_source()
        saved = folder.positions.entries()
        watched = self._watched()
        jobs = self.jobs.all()
        # A source whose import failed before writing anything is listed too, with its errors.
        ran = {source for job in jobs for source in job.sources}
        names = sorted(set(counts) | {s for s in saved if s != LOG_MARK} | set(watched) | ran)
        rows = []
        for name in names:
            entry = saved.get(name) or {}
            when = entry.get("saved")
            rows.append(
                {
                    "source": name,
                    "records": counts.get(name, 0),
                    "last_run": when if isinstance(when, int | float) else None,
                    "mode": entry.get("mode"),
                    "position": describe_position(entry.get("state")),
                    "watched": watched.get(name),
                    "last_job": _last_job(jobs, name),
                }
            )
        running = [_job_view(job) for job in jobs if job.state == "running"]
        refresh = _REFRESH if any(job["kind"] != "live" for job in running) else None
        return page(
            "sources.html",
            title="sources",
            nav="sources",
            rows=rows,
            running=running,
            refresh=refresh,
            total=sum(counts.values()),
            now=time.time(),
        )

    async def timeline(self, request: Request) -> Response:
        folder = self._folder()
        counts = await self._months.count(folder.table, folder.log)
        return page(
            "timeline.html",
            title="timeline",
            nav="timeline",
            chart=chart(counts),
            total=sum(counts.values()),
        )

    def _watched(self) -> dict[str, dict[str, Any]]:
        if self.watched is None:
            return {}
        out = {}
        for row in self.watched.to_json():
            name = "git:" + row["path"] if row.get("git") else default_source(row["path"])
            out[name] = row
        return out


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _job_view(job: Job) -> dict[str, Any]:
    """A job as the pages show it: counts, what it reads now, how far, its errors."""
    report = job.report
    size, at = job.detail.get("size"), job.detail.get("position")
    fraction = None
    if isinstance(size, int) and size > 0 and isinstance(at, int):
        fraction = min(max(at / size, 0.0), 1.0)
    return {
        "id": job.id,
        "kind": job.kind,
        "what": job.what,
        "state": job.state,
        "added": report.added,
        "updated": report.updated,
        "unchanged": report.unchanged,
        "skipped": report.skipped,
        "part": job.detail.get("part"),
        "fraction": fraction,
        "percent": None if fraction is None else round(fraction * 100),
        "errors": [e.to_json() for e in report.errors[:_SHOWN_ERRORS]],
        "errors_left": max(0, report.skipped - _SHOWN_ERRORS),
        "error": job.error,
        "started": job.started,
        "finished": job.finished,
    }


def _last_job(jobs: list[Job], source: str) -> dict[str, Any] | None:
    """The latest import of ``source`` this service ran (running or not), or None."""
    for job in reversed(jobs):
        if source in job.sources:
            return _job_view(job)
    return None
