"""``/v1/watch``: list, add and remove the service's watched sources."""

from __future__ import annotations

from pathlib import Path

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .routes import flag, json_body, text
from .watch import Watched, WatchedPath

__all__ = ["watch_routes"]


def watch_routes(watched: Watched) -> list[Route]:
    """Return the routes of the watched set: GET lists it, POST adds a path, DELETE removes one."""

    async def listed(request: Request) -> Response:
        return JSONResponse({"watched": watched.to_json()})

    async def add(request: Request) -> Response:
        body = await json_body(request)
        given = Path(text(body, "path", required=True) or "").expanduser()
        if not given.is_absolute():
            raise HTTPException(400, "`path` must be absolute (the service's own file system)")
        if not given.exists():
            raise HTTPException(404, f"{given}: no such file or folder")
        poll = body.get("poll")
        if poll is not None and not isinstance(poll, bool):
            raise HTTPException(400, "`poll` must be true, false or null")
        path = WatchedPath(
            str(given.resolve()), git=flag(body, "git"), poll=poll, prune=flag(body, "prune")
        )
        try:
            job = watched.add(path)
        except ValueError as exc:  # the memory folder itself, a pipe, a device
            raise HTTPException(400, str(exc)) from None
        return JSONResponse({"watching": path.path, "job": job.id}, status_code=201)

    async def remove(request: Request) -> Response:
        path = request.query_params.get("path") or ""
        found = watched.remove(str(Path(path).expanduser().resolve())) if path else False
        if not found:
            raise HTTPException(404, f"{path or '(no path)'} is not watched")
        return JSONResponse({"removed": path})

    return [
        Route("/v1/watch", listed, methods=["GET"]),
        Route("/v1/watch", add, methods=["POST"]),
        Route("/v1/watch", remove, methods=["DELETE"]),
    ]
