"""The JSON API under ``/v1``: search, get, records, status, sources, forget, imports and
ingest."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from dataclasses import fields
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ..folder.source_names import SourceNameError, source_in
from ..keys import record_uid
from ..limits import MAX_DEPTH_CEILING, Limits
from ..memory import Memory
from ..records import ImportReport
from .auth import MAX_BODY
from .imports import ImportRequest, body_records, plan_import
from .jobs import Job, Jobs

__all__ = ["MAX_K", "MAX_QUERY", "Api"]

MAX_K = 100
MAX_QUERY = 10_000  # characters of a query
_MAX_BATCH = 1024
CANCEL_WAIT_S = 5.0  # how long a DELETE of an import waits for it to stop


class Api:
    """The handlers of ``/v1``, over the service's one memory and its jobs.

    Args:
        memory: the open memory the service owns.
        jobs: the service's jobs.
        stopping: set when the service begins to stop (followers of a job stop then).
        importing: the command line of the import whose reads this server answers
            (``service.during_import``), said in the status.
    """

    def __init__(
        self, memory: Memory, jobs: Jobs, stopping: asyncio.Event, importing: str | None = None
    ) -> None:
        self.memory = memory
        self.jobs = jobs
        self.stopping = stopping
        self.importing = importing

    def routes(self) -> list[Route]:
        """Return the API's routes."""
        return [
            Route("/v1/health", self.health, methods=["GET"]),
            Route("/v1/status", self.status, methods=["GET"]),
            Route("/v1/search", self.search, methods=["POST"]),
            Route("/v1/get", self.get, methods=["GET"]),
            Route("/v1/records", self.records, methods=["GET"]),
            Route("/v1/sources", self.sources, methods=["GET"]),
            Route("/v1/forget", self.forget, methods=["POST"]),
            Route("/v1/imports", self.start_import, methods=["POST"]),
            Route("/v1/imports", self.list_imports, methods=["GET"]),
            Route("/v1/imports/{id}", self.one_import, methods=["GET"]),
            Route("/v1/imports/{id}", self.cancel_import, methods=["DELETE"]),
            Route("/v1/imports/{id}/events", self.import_events, methods=["GET"]),
            Route("/v1/ingest", self.ingest, methods=["POST"]),
        ]

    # ----------------------------------------------------------------- reading

    async def health(self, request: Request) -> Response:
        return JSONResponse({"ok": True, "pid": os.getpid(), "path": str(self.memory.path)})

    async def status(self, request: Request) -> Response:
        status = (await self.memory.status()).to_json()
        running = [job.id for job in self.jobs.all() if job.state == "running"]
        status["service"] = {"pid": os.getpid(), "running": running}
        if self.importing is not None:  # the counts are what the import has written so far
            status["service"]["importing"] = self.importing
        return JSONResponse(status)

    async def search(self, request: Request) -> Response:
        body = await json_body(request)
        query = text(body, "query", required=True, limit=MAX_QUERY)
        assert query is not None
        k = integer(body, "k", 10, 1, MAX_K)
        confidence = body.get("min_confidence")
        if confidence is not None and (
            isinstance(confidence, bool) or not isinstance(confidence, int | float)
        ):
            raise HTTPException(400, "`min_confidence` must be a number")
        hits = await self.memory.search(
            query,
            k,
            kind=text(body, "kind"),
            author=text(body, "author"),
            source=await self._source(text(body, "source")),
            since=text(body, "since"),
            until=text(body, "until"),
            min_confidence=None if confidence is None else float(confidence),
            now=text(body, "now"),
        )
        return JSONResponse({"count": len(hits), "results": [h.to_json() for h in hits]})

    async def get(self, request: Request) -> Response:
        query = dict(request.query_params)
        record_id = text(query, "id", required=True)
        assert record_id is not None
        source = await self._source(text(query, "source"))
        record = await self.memory.get(record_id, source=source)
        if record is None:
            raise HTTPException(404, f"no record with id {record_id!r}")
        out = record.to_json()
        out["uid"] = record_uid(record.source, record.id)
        return JSONResponse(out)

    async def records(self, request: Request) -> Response:
        """Every live record (of ``source``, if given), oldest first, as JSON Lines."""
        source = await self._source(text(dict(request.query_params), "source"))

        async def lines() -> AsyncIterator[bytes]:
            async for record in self.memory.records(source=source):
                yield json.dumps(record.to_json(), ensure_ascii=False).encode() + b"\n"

        return StreamingResponse(lines(), media_type="application/x-ndjson")

    async def _source(self, given: str | None) -> str | None:
        """The one source ``given`` names, as the CLI reads it (its whole name, its path or
        its file's name); 400 when it names none or several (it matched nothing, unsaid)."""
        try:
            return await source_in(self.memory._open_folder(), given)
        except SourceNameError as exc:
            raise HTTPException(400, str(exc)) from None

    async def sources(self, request: Request) -> Response:
        status = await self.memory.status()
        listed = [
            {"source": source, "records": n, "state": self.memory.source_state(source)}
            for source, n in status.sources.items()
        ]
        return JSONResponse({"sources": listed})

    # ----------------------------------------------------------------- writing

    async def forget(self, request: Request) -> Response:
        body = await json_body(request)
        source = await self._source(text(body, "source"))
        if "all" in body and not isinstance(body["all"], bool):
            raise HTTPException(400, "`all` must be true or false")
        if body.get("all") is True:
            if source is None:
                raise HTTPException(400, "`all` forgets a whole source: give `source`")
            return JSONResponse({"forgotten": await self.memory.forget_source(source)})
        record_id = text(body, "id", required=True)
        assert record_id is not None
        forgotten = await self.memory.forget(record_id, source=source)
        return JSONResponse({"forgotten": forgotten, "id": record_id})

    async def start_import(self, request: Request) -> Response:
        wanted = import_request(await json_body(request))
        what, sources, runner = await plan_import(self.memory, wanted)
        job = self.jobs.start("import", what, sources, runner)
        return JSONResponse(job.to_json(), status_code=202)

    async def list_imports(self, request: Request) -> Response:
        return JSONResponse({"imports": [job.to_json(errors=0) for job in self.jobs.all()]})

    async def one_import(self, request: Request) -> Response:
        return JSONResponse(self._job(request).to_json())

    async def cancel_import(self, request: Request) -> Response:
        job = self._job(request)
        if self.jobs.cancel(job):
            # A reader thread stops at its next record; one inside a record that never ends
            # (a line of /dev/zero) stops later: the answer does not wait for it (202).
            await self.jobs.wait(job, timeout=CANCEL_WAIT_S)
        return JSONResponse(job.to_json(), status_code=202 if job.state == "running" else 200)

    async def import_events(self, request: Request) -> Response:
        """Stream the job's state as NDJSON: now, after each batch, and when it ends."""
        job = self._job(request)

        async def lines() -> AsyncIterator[bytes]:
            async for event in job.follow(self.stopping):
                yield json.dumps(event, ensure_ascii=False).encode() + b"\n"

        return StreamingResponse(lines(), media_type="application/x-ndjson")

    async def ingest(self, request: Request) -> Response:
        """Import the records of the body (JSON Lines), read as fast as they are embedded."""
        query = dict(request.query_params)
        name = text(query, "name") or "custom"
        batch = integer(query, "batch", 64, 1, _MAX_BATCH)
        prune = flag(query, "prune")
        limits = limits_of({k: v for k, v in query.items() if k.startswith("max_")})

        async def run(job: Job) -> ImportReport:
            records = body_records(request.stream(), name)
            return await self.memory.ingest(
                records,
                name=name,
                batch=batch,
                prune=prune,
                limits=limits,
                on_progress=job.progress,
            )

        job = self.jobs.start("ingest", f"records streamed as {name}", (name,), run)
        await self.jobs.wait(job)
        status = {"done": 200, "cancelled": 409}.get(job.state, 400)
        return JSONResponse(job.to_json(), status_code=status)

    def _job(self, request: Request) -> Job:
        job = self.jobs.get(str(request.path_params["id"]))
        if job is None:
            raise HTTPException(
                404, f"no import {request.path_params['id']!r} (GET /v1/imports lists them)"
            )
        return job


# ----------------------------------------------------------------- request checks


async def json_body(request: Request) -> dict[str, Any]:
    """Return the request's JSON object, read up to :data:`MAX_BODY` bytes."""
    data = bytearray()
    try:
        async for chunk in request.stream():
            data += chunk
            if len(data) > MAX_BODY:
                raise HTTPException(413, f"request body over {MAX_BODY} bytes")
    except ClientDisconnect:
        raise HTTPException(400, "the client went away before sending its body") from None
    try:
        body = json.loads(data or b"{}")
    except ValueError as exc:
        raise HTTPException(400, f"the body is not JSON: {exc}") from None
    except RecursionError:  # [[[[...]]]] 100,000 deep: no request nests so
        raise HTTPException(400, "the body nests JSON too deep") from None
    if not isinstance(body, dict):
        raise HTTPException(400, "the body must be a JSON object")
    return body


def text(
    body: dict[str, Any], key: str, *, required: bool = False, limit: int = 4096
) -> str | None:
    """Return ``body[key]`` as a string (None when absent); 400 when it is not one."""
    value = body.get(key)
    if value is None:
        if required:
            raise HTTPException(400, f"`{key}` is required")
        return None
    if not isinstance(value, str) or (required and not value.strip()):
        raise HTTPException(400, f"`{key}` must be a non-empty string")
    if len(value) > limit:
        raise HTTPException(400, f"`{key}` is longer than {limit} characters")
    return value


def integer(body: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    """Return ``body[key]`` as an integer in ``low..high``; 400 otherwise."""
    value = body.get(key, default)
    if isinstance(value, str):
        try:
            value = int(value)
        except ValueError:
            raise HTTPException(400, f"`{key}` must be an integer") from None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise HTTPException(400, f"`{key}` must be an integer from {low} to {high}")
    return value


def flag(body: dict[str, Any], key: str) -> bool:
    """Return ``body[key]`` as a boolean (``true``/``1`` in a query string)."""
    value = body.get(key, False)
    if isinstance(value, str):
        return value.lower() in ("1", "true", "yes")
    if not isinstance(value, bool):
        raise HTTPException(400, f"`{key}` must be true or false")
    return value


def import_request(body: dict[str, Any]) -> ImportRequest:
    """Read ``POST /v1/imports``'s body."""
    known = {f.name for f in fields(ImportRequest)}
    unknown = sorted(set(body) - known)
    if unknown:
        raise HTTPException(400, f"unknown field `{unknown[0]}`; known: {', '.join(sorted(known))}")
    lists = {}
    for key in ("paths", "git"):
        value = body.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise HTTPException(400, f"`{key}` must be a list of paths")
        lists[key] = value
    given_limits = body.get("limits", {})
    if not isinstance(given_limits, dict):
        raise HTTPException(400, "`limits` must be an object")
    return ImportRequest(
        paths=lists["paths"],
        git=lists["git"],
        kind=text(body, "kind"),
        name=text(body, "name"),
        all_branches=flag(body, "all_branches"),
        full=flag(body, "full"),
        prune=flag(body, "prune"),
        batch=integer(body, "batch", 64, 1, _MAX_BATCH),
        limits=limits_of(given_limits),
    )


def limits_of(given: dict[str, Any]) -> Limits:
    """Return the record limits named in ``given`` (``max_depth`` and the other ``max_*``)."""
    names = {f.name for f in fields(Limits)}
    limits: dict[str, int] = {}
    for key in given:
        if key not in names:
            raise HTTPException(400, f"unknown limit `{key}`; known: {', '.join(sorted(names))}")
        top = MAX_DEPTH_CEILING if key == "max_depth" else 1 << 40
        limits[key] = integer(given, key, 1, 1, top)
    return Limits(**limits)
