"""The service's door: Host and Origin checks (DNS rebinding), the bearer token, body sizes."""

from __future__ import annotations

import hmac
import json
from collections.abc import Iterable

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["LOOPBACK", "MAX_BODY", "Guard", "error_body", "send_error"]

LOOPBACK = ("127.0.0.1", "localhost", "::1")
MAX_BODY = 1 << 20
"""Largest request body (bytes) outside the streaming ingest endpoint and /mcp's own cap."""

# Bodies of any length: the ingest endpoint reads its own, line by line, and /mcp has the
# SDK's limit.
_STREAMED = ("/v1/ingest", "/mcp")


def error_body(status: int, message: str) -> bytes:
    """Return the JSON every refusal carries: ``{"error": message, "status": status}``."""
    return json.dumps({"error": message, "status": status}).encode()


async def send_error(
    send: Send, status: int, message: str, headers: Iterable[tuple[bytes, bytes]] = ()
) -> None:
    """Answer an ASGI request with a JSON error."""
    body = error_body(status, message)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class Guard:
    """Lets a request through only with an allowed Host, no foreign Origin and the token.

    - Host must name the address the service listens on (``127.0.0.1:PORT``,
      ``localhost:PORT``, ``[::1]:PORT``, or the bound address): a page that resolves its
      own name to 127.0.0.1 (DNS rebinding) sends its own name and is refused (421).
    - An Origin header, which browsers send on cross-site requests, must be the service's
      own (403 otherwise); the service sends no CORS headers, so no page may read answers.
    - ``Authorization: Bearer <token>`` must carry the folder's token (401 otherwise).
    - A declared body over :data:`MAX_BODY` is refused (413) before it is read.

    Args:
        app: the application behind the guard.
        token: the bearer token.
        host: the address the service is bound to.
        port: its port.
    """

    def __init__(self, app: ASGIApp, *, token: str, host: str, port: int) -> None:
        self.app = app
        self._token = token.encode()
        names = {host, *LOOPBACK} if host in LOOPBACK else {host}
        bracketed = {f"[{n}]" if ":" in n else n for n in names}
        self._hosts = {f"{n}:{port}" for n in bracketed} | (bracketed if port == 80 else set())
        self._origins = {f"http://{h}" for h in self._hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)  # lifespan
            return
        headers = Headers(scope=scope)
        refusal = self._refusal(headers, str(scope.get("path", "")))
        if refusal is not None:
            status, message = refusal
            extra = [(b"www-authenticate", b"Bearer")] if status == 401 else []
            await send_error(send, status, message, extra)
            return
        await self.app(scope, receive, send)

    def _refusal(self, headers: Headers, path: str) -> tuple[int, str] | None:
        host = headers.get("host", "")
        if host.lower() not in self._hosts:
            return 421, (
                f"Host {host!r} is not this service's address; use one of "
                + ", ".join(sorted(self._hosts))
            )
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in self._origins:
            return 403, "requests from web pages of other origins are refused"
        given = headers.get("authorization", "")
        scheme, _, credential = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            credential.strip().encode(), self._token
        ):
            return 401, (
                "missing or wrong bearer token: send `Authorization: Bearer <token>` with the "
                "token in the memory folder's service.token"
            )
        if not path.startswith(_STREAMED):
            length = headers.get("content-length")
            try:
                too_large = length is not None and int(length) > MAX_BODY
            except ValueError:
                return 400, "Content-Length is not a number"
            if too_large:
                return 413, f"request body over {MAX_BODY} bytes"
        return None
