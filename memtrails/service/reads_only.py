"""The server of an import that answers reads (``during_import``): writes refused, and no
signal handlers of its own."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["QuietServer", "ReadsOnly"]

_READS = {("POST", "/v1/search"), ("POST", "/mcp"), ("POST", "/mcp/"), ("DELETE", "/mcp")}
"""What an import's server answers besides GET and HEAD: searches, and MCP's messages (its
write tools are not offered, and an MCP client ends its session with a DELETE)."""


class ReadsOnly:
    """Refuses every request that would write (``409``, naming the import): forget, imports,
    ingest, watches; lets reads through.

    Args:
        app: the application behind.
        why: the refusal's one line.
        importing: what the import runs (sent as ``importing`` beside the error).
    """

    def __init__(self, app: ASGIApp, why: str, importing: str) -> None:
        self.app = app
        self.why = why
        self.importing = importing

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]
        if method in ("GET", "HEAD") or (method, path) in _READS:
            await self.app(scope, receive, send)
            return
        body = {"error": self.why, "status": 409, "importing": self.importing}
        await send(
            {
                "type": "http.response.start",
                "status": 409,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": json.dumps(body).encode()})


class QuietServer(uvicorn.Server):
    """uvicorn's server without its signal handlers: Ctrl-C and SIGTERM stay the import's
    (it stops, keeping what it wrote, and its server stops with it)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield
