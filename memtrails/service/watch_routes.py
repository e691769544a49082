"""``/v1/watch``: list, add and remove the service's watched sources."""

from __future__ import annotations

import asyncio
import os

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ._overlap import WatchConflict
from ._paths import PathRefused, looked_up, named_path
from .routes import flag, json_body, text
from .watch import Watched, WatchedPath

__all__ = ["watch_routes"]


def watch_routes(watched: Watched) -> list[Route]:
    """Return the routes of the watched set: GET lists it, POST adds a path, DELETE removes one."""

    async def listed(request: Request) -> Response:
        return JSONResponse({"watched": watched.to_json()})

    async def add(request: Request) -> Response:
        body = await json_body(request)
        poll = body.get("poll")
        if poll is not None and not isinstance(poll, bool):
            raise HTTPException(400, "`poll` must be true, false or null")
        git, prune = flag(body, "git"), flag(body, "prune")
        try:
            given = named_path(text(body, "path", required=True) or "")
            # a stat, the mount table: a hung network mount never stalls the event loop
            resolved, _ = await asyncio.to_thread(looked_up, given)
            path = WatchedPath(str(resolved), git=git, poll=poll, prune=prune)
            job = watched.add(path)
        except PathRefused as exc:
            raise HTTPException(exc.status, str(exc)) from None
        except WatchConflict as exc:
            named = "" if str(resolved) == str(given) else f"{given} is {resolved}: "
            raise HTTPException(409, f"{named}{exc}") from None
        except ValueError as exc:  # the memory folder itself, a pipe, a device
            raise HTTPException(400, str(exc)) from None
        return JSONResponse({"watching": path.path, "job": job.id}, status_code=201)

    async def remove(request: Request) -> Response:
        given = request.query_params.get("path") or ""
        if not given:
            raise HTTPException(400, "give the watched path: DELETE /v1/watch?path=...")
        try:
            path = named_path(given)
        except PathRefused as exc:
            raise HTTPException(exc.status, str(exc)) from None
        # As listed (a path whose folders were renamed since), else as it resolves now.
        found = watched.remove(str(path))
        if not found:
            resolved = await asyncio.to_thread(os.path.realpath, path)
            found = watched.remove(resolved)
        if not found:
            raise HTTPException(404, f"{given} is not watched")
        return JSONResponse({"removed": given})

    return [
        Route("/v1/watch", listed, methods=["GET"]),
        Route("/v1/watch", add, methods=["POST"]),
        Route("/v1/watch", remove, methods=["DELETE"]),
    ]
