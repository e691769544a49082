"""The service's ASGI application: the ``/v1`` API, the MCP endpoint and the web pages behind
one guard."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute
from starlette.types import ASGIApp

from .._exceptions import MemoryClosedError, MemtrailsError
from ..memory import Memory
from .auth import Guard
from .jobs import JobConflictError, Jobs
from .routes import Api
from .watch import Watched

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["build_app"]

log = logging.getLogger("memtrails.service")


def build_app(
    memory: Memory,
    jobs: Jobs,
    stopping: asyncio.Event,
    *,
    token: str,
    host: str,
    port: int,
    mcp_writes: bool = False,
    watched: Watched | None = None,
    inner: Callable[[ASGIApp], ASGIApp] | None = None,
    importing: str | None = None,
    mcp: bool = True,
) -> ASGIApp:
    """Return the service's application: ``/v1/...``, ``/mcp`` and the web pages (``/``),
    behind :class:`Guard`.

    Its lifespan runs the jobs' task group and the MCP session manager: leaving it (the
    service stopping) cancels running imports and waits for them. ``inner`` wraps the
    application behind the guard (an import's server refuses writes there); ``importing``:
    the command line of the import this server answers reads for, which the status says.
    ``mcp``: serve ``/mcp`` too. An import's server leaves it out: its readers (``memtrails
    search``, a script, ``memtrails mcp`` over stdio) use ``/v1``, and the MCP SDK it would
    load held 30 MiB more of an import's memory (benchmarks/README.md, memory_bound.py).
    """
    from .web import Pages

    api = Api(memory, jobs, stopping, importing=importing)
    mcp_server = _mcp_server(memory, mcp_writes) if mcp else None
    mcp_routes: list[BaseRoute] = []
    if mcp_server is not None:
        from mcp.server.transport_security import TransportSecuritySettings

        # Host and Origin are checked by the guard in front of every route, /mcp included.
        from ..mcp.server import http_app

        # The same bounds as `memtrails mcp --http` (the SDK's allowed a 4 MiB body and
        # 10,000 sessions idle for 30 minutes each).
        mcp_app = http_app(
            mcp_server,
            streamable_http_path="/mcp",
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        mcp_routes = list(mcp_app.routes)
    pages = Pages(memory, jobs, watched)
    routes: list[BaseRoute] = [*api.routes(), *mcp_routes, *pages.routes()]
    if watched is not None:
        from .watch_routes import watch_routes

        routes += watch_routes(watched)

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            await stack.enter_async_context(jobs)
            if mcp_server is not None:
                await stack.enter_async_context(mcp_server.session_manager.run())
            if watched is not None:
                watched.start_all()  # the watched set, kept in the folder, followed again
            yield

    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={
            HTTPException: _http_error,
            MemtrailsError: _memtrails_error,
            ValueError: _bad_value,
            Exception: _internal_error,
        },
    )
    return Guard(app if inner is None else inner(app), token=token, host=host, port=port)


def _mcp_server(memory: Memory, writes: bool) -> MCPServer:
    from ..mcp.server import build_server
    from .mcp_access import ServiceAccess

    return build_server(ServiceAccess(memory), allow_writes=writes)


def _error(request: Request, status: int, message: str) -> Response:
    if not request.url.path.startswith(("/v1", "/mcp")):  # a web page: an HTML answer
        from .web.render import page

        return page("error.html", status, title=f"error {status}", nav="", message=message)
    return JSONResponse({"error": message, "status": status}, status_code=status)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 405:
        return _error(request, 405, f"{request.method} is not allowed on {request.url.path}")
    if exc.status_code == 404 and exc.detail == "Not Found":
        where = (
            "the API is under /v1" if request.url.path.startswith("/v1") else "see / for the pages"
        )
        return _error(request, 404, f"no such endpoint {request.url.path}; {where}")
    return _error(request, exc.status_code, str(exc.detail))


async def _memtrails_error(request: Request, exc: Exception) -> Response:
    if isinstance(exc, JobConflictError):
        return _error(request, 409, str(exc))
    if isinstance(exc, MemoryClosedError):
        return _error(request, 503, "the service is stopping")
    return _error(request, 400, str(exc))


async def _bad_value(request: Request, exc: Exception) -> Response:
    return _error(request, 400, str(exc))


async def _internal_error(request: Request, exc: Exception) -> Response:
    # The traceback goes to the service's log, never to the client.
    log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
    return _error(
        request, 500, f"internal error ({type(exc).__name__}); the service's log has the details"
    )
