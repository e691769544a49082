"""The service's door: Host and Origin checks (DNS rebinding), the bearer token (or, on the
web pages only, their session cookie), body sizes, and the security headers."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable
from http.cookies import CookieError, SimpleCookie
from urllib.parse import quote_from_bytes, unquote_plus

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "LOOPBACK",
    "MAX_BODY",
    "SECURITY_HEADERS",
    "Guard",
    "cookie_name",
    "error_body",
    "send_error",
    "session_value",
]

LOOPBACK = ("127.0.0.1", "localhost", "::1")
MAX_BODY = 1 << 20
"""Largest request body (bytes) outside the streaming ingest endpoint and /mcp's own cap."""

# Bodies of any length: the ingest endpoint reads its own, line by line, and /mcp has the
# SDK's limit.
_STREAMED = ("/v1/ingest", "/mcp")
# The API and MCP take the bearer token only: the web pages' cookie never opens them.
_API = ("/v1", "/mcp")
# Fetch Metadata (``Sec-Fetch-Site``) that marks a request made by another origin's page.
# SameSite=Strict does not keep the cookie from those of the same site, and every port of
# 127.0.0.1 is one site: a page served on another port would send it with its <img>,
# <script>, <iframe> or fetch() of a search, and could time the answer.
_OTHER_SITES = ("same-site", "cross-site")

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    # No inline script or style, nothing from elsewhere, never framed.
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
        b"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)
"""Sent with every answer, the API's included."""

_LOGIN_PAGE = (
    b"<!doctype html><html lang=en><meta charset=utf-8><title>memtrails: log in</title>"
    b"<h1>memtrails: log in</h1><p>Open the login link that <code>memtrails serve</code> "
    b"printed when it started: <code>http://HOST:PORT/login?token=TOKEN</code>, the token "
    b"being the memory folder's <code>service.token</code>. It keeps a cookie for this "
    b"address, and these pages open.</p></html>"
)
_REFUSED = b"/login?refused=1"  # where a wrong token lands, the token gone from the address
_REFUSED_PAGE = _LOGIN_PAGE.replace(
    b"<p>",
    b"<p>The token in that link is not this service's (an old link, or another folder's "
    b"service?); it was dropped from the address.</p><p>",
    1,
)
# Bytes kept as they are in the address a page is sent to once its token is dropped: the
# URL's own punctuation and escapes; any other (a backslash, a space, a tab, a byte over
# 127) is percent-encoded, so the address reads the same to every browser.
_PATH_SAFE = b"/%:@!$&'()*+,;=-._~"
_QUERY_SAFE = _PATH_SAFE + b"?"


def error_body(status: int, message: str) -> bytes:
    """Return the JSON every refusal carries: ``{"error": message, "status": status}``."""
    return json.dumps({"error": message, "status": status}).encode()


async def send_error(
    send: Send, status: int, message: str, headers: Iterable[tuple[bytes, bytes]] = ()
) -> None:
    """Answer an ASGI request with a JSON error."""
    await _send(send, status, error_body(status, message), b"application/json", headers)


async def _send(
    send: Send,
    status: int,
    body: bytes,
    content_type: bytes,
    headers: Iterable[tuple[bytes, bytes]] = (),
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", content_type),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def session_value(token: str) -> str:
    """Return the web pages' session cookie for ``token``: derived from it, so that the
    cookie is not itself the API's bearer token."""
    return hmac.new(token.encode(), b"memtrails web session", hashlib.sha256).hexdigest()


def cookie_name(port: int) -> str:
    """Return the session cookie's name: browsers keep cookies per host, not per port, so
    each service (one per folder, each on its own port) needs its own."""
    return f"memtrails-{port}"


async def _send_page(send: Send, status: int, body: bytes) -> None:
    await _send(send, status, body, b"text/html; charset=utf-8", [(b"cache-control", b"no-store")])


def _from_other_site(headers: Headers, method: str) -> bool:
    """Tell whether a browser says another site's page made this request, other than by a
    link followed to a page: requests without Fetch Metadata (curl, scripts, browsers before
    2020) are judged by Origin and the token alone."""
    site = headers.get("sec-fetch-site", "").lower()
    if site not in _OTHER_SITES:
        return False  # same-origin, none (the address bar, a bookmark), or not a browser
    navigation = (
        method in ("GET", "HEAD")
        and headers.get("sec-fetch-mode", "").lower() == "navigate"
        and headers.get("sec-fetch-dest", "").lower() == "document"
    )
    # A frame or an <object> is a navigation too, but one the page times and hides.
    return not navigation


class Guard:
    """Lets a request through only with an allowed Host, no foreign Origin and the token.

    - Host must name the address the service listens on (``127.0.0.1:PORT``,
      ``localhost:PORT``, ``[::1]:PORT``, or the bound address): a page that resolves its
      own name to 127.0.0.1 (DNS rebinding) sends its own name and is refused (421).
    - An Origin header, which browsers send on cross-site requests, must be the service's
      own (403 otherwise); the service sends no CORS headers, so no page may read answers.
    - A request that a browser marks as made by another site's page (``Sec-Fetch-Site``
      ``same-site`` or ``cross-site``) is refused (403) unless it is a link followed to a
      page (a top-level GET navigation): a page on another port of the same address is the
      same site, and its requests would carry the session cookie.
    - ``Authorization: Bearer <token>`` must carry the folder's token (401 otherwise).
      The web pages (every path outside ``/v1`` and ``/mcp``) also take the session cookie
      that ``GET /login?token=...`` sets (``HttpOnly; SameSite=Strict``, and ``Secure``
      when the browser reached the service over TLS: see ``_over_tls``); without either
      they answer a short HTML page saying how to log in (401). A page asked with
      ``token=`` in its address (the login link, or any page's) is sent on (303) to the
      same address without it, with the cookie when the token is right: the token never
      stays in the address bar, the history or a Referer.
    - A declared body over :data:`MAX_BODY` is refused (413) before it is read.
    - Every answer carries :data:`SECURITY_HEADERS`.
    - A WebSocket handshake is refused: the service has none.

    Args:
        app: the application behind the guard.
        token: the bearer token.
        host: the address the service is bound to.
        port: its port.
    """

    def __init__(self, app: ASGIApp, *, token: str, host: str, port: int) -> None:
        self.app = app
        self._token = token.encode()
        self._session = session_value(token).encode()
        self._cookie = cookie_name(port)
        names = {host, *LOOPBACK} if host in LOOPBACK else {host}
        bracketed = {f"[{n}]" if ":" in n else n for n in names}
        self._hosts = {f"{n}:{port}" for n in bracketed} | (bracketed if port == 80 else set())
        # Its pages over TLS (served so, or through a proxy that keeps Host) are its own too.
        self._origins = {f"{scheme}://{h}" for h in self._hosts for scheme in ("http", "https")}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            # The service has no WebSocket endpoint, and a page of any site may open one to
            # 127.0.0.1: refuse the handshake here (the server answers 403), so that none
            # reaches the app without the checks below.
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)  # lifespan
            return

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *SECURITY_HEADERS]}
            await send(message)

        headers = Headers(scope=scope)
        path = str(scope.get("path", ""))
        page = not path.startswith(_API)
        query = bytes(scope.get("query_string", b""))
        refusal = self._refusal(headers, path, page, str(scope.get("method", "")), query)
        if refusal is None and page and (path == "/login" or _token_given(query) is not None):
            await self._login(scope, secured)
            return
        if refusal is not None:
            status, message = refusal
            if status == 401 and page:
                await _send_page(secured, 401, _LOGIN_PAGE)
                return
            extra = [(b"www-authenticate", b"Bearer")] if status == 401 else []
            await send_error(secured, status, message, extra)
            return
        await self.app(scope, receive, secured)

    async def _login(self, scope: Scope, send: Send) -> None:
        """``GET /login?token=T``, or any page with ``token=T`` in its address: keep the
        session in a cookie and send the browser on to the same address without the token
        (``/`` for the login link), so that it leaves the address bar, the history and any
        Referer. A wrong token is dropped the same way, without a cookie (the login link's
        to a login page that says so); ``/login`` without a token is the login page."""
        query = bytes(scope.get("query_string", b""))
        given = _token_given(query)
        if scope.get("method") not in ("GET", "HEAD") or given is None:
            await _send_page(send, 401, _REFUSED_PAGE if _refused(query) else _LOGIN_PAGE)
            return
        right = hmac.compare_digest(given.strip().encode(), self._token)
        if str(scope.get("path", "")) == "/login":
            location = b"/" if right else _REFUSED
        else:
            location = _without_token(scope)
        headers = [
            (b"location", location),
            (b"cache-control", b"no-store"),
            (b"content-length", b"0"),
        ]
        if right:
            cookie = f"{self._cookie}={self._session.decode()}; HttpOnly; SameSite=Strict; Path=/"
            if _over_tls(scope):
                cookie += "; Secure"  # never sent again over plain HTTP
            headers.append((b"set-cookie", cookie.encode()))
        await send({"type": "http.response.start", "status": 303, "headers": headers})
        await send({"type": "http.response.body", "body": b""})

    def _has_session(self, headers: Headers) -> bool:
        cookies: SimpleCookie = SimpleCookie()
        try:
            cookies.load(headers.get("cookie", ""))
        except CookieError:  # a malformed Cookie header is no session
            return False
        morsel = cookies.get(self._cookie)
        return morsel is not None and hmac.compare_digest(morsel.value.encode(), self._session)

    def _refusal(
        self, headers: Headers, path: str, page: bool, method: str, query: bytes
    ) -> tuple[int, str] | None:
        host = headers.get("host", "")
        if host.lower() not in self._hosts:
            return 421, (
                f"Host {host!r} is not this service's address; use one of "
                + ", ".join(sorted(self._hosts))
            )
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in self._origins:
            return 403, "requests from web pages of other origins are refused"
        if _from_other_site(headers, method):
            return 403, (
                "requests made by other sites' pages are refused; open the page itself "
                "(a link, the address bar)"
            )
        if page and (path == "/login" or _token_given(query) is not None):
            return None  # _login checks the token, and takes it out of the address
        given = headers.get("authorization", "")
        scheme, _, credential = given.partition(" ")
        bearer = scheme.lower() == "bearer" and hmac.compare_digest(
            credential.strip().encode(), self._token
        )
        if not bearer and not (page and self._has_session(headers)):
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


def _over_tls(scope: Scope) -> bool:
    """Tell whether the browser reached the service over TLS: served with TLS itself (or
    uvicorn believed its proxy: ``FORWARDED_ALLOW_IPS``, 127.0.0.1 unless set), or a proxy
    on this machine (the request comes from a loopback address) says so, in
    ``X-Forwarded-Proto`` or ``Forwarded: proto=``, the proxy nearest the service saying
    last. Anyone else's word is not taken: a client elsewhere may send those headers itself.
    """
    if scope.get("scheme") in ("https", "wss"):
        return True
    client = scope.get("client")
    if not client or str(client[0]) not in LOOPBACK:
        return False
    headers = Headers(scope=scope)
    proto = headers.get("x-forwarded-proto")
    if proto is not None:
        return proto.rsplit(",", 1)[-1].strip().lower() == "https"
    last = headers.get("forwarded", "").rsplit(",", 1)[-1]
    for pair in last.split(";"):
        name, _, value = pair.partition("=")
        if name.strip().lower() == "proto":
            return value.strip().strip('"').lower() == "https"
    return False


def _query_pairs(query: bytes) -> list[tuple[str, bytes]]:
    """Return the query string's parameters as (decoded name, raw ``name=value`` piece)."""
    out = []
    for piece in query.split(b"&"):
        if piece:
            name = unquote_plus(piece.partition(b"=")[0].decode("latin-1"), "latin-1")
            out.append((name, piece))
    return out


def _token_given(query: bytes) -> str | None:
    """Return the first ``token`` parameter's value (None when there is none)."""
    for name, piece in _query_pairs(query):
        if name == "token":
            return unquote_plus(piece.partition(b"=")[2].decode("latin-1"))
    return None


def _refused(query: bytes) -> bool:
    return any(name == "refused" for name, _ in _query_pairs(query))


def _without_token(scope: Scope) -> bytes:
    """Return the request's own address, path and query, without its ``token`` parameters:
    always a path on this service (``//host`` or ``/\\host`` would name another one)."""
    raw = scope.get("raw_path") or str(scope.get("path", "/")).encode()
    path = b"/" + bytes(raw).partition(b"?")[0].lstrip(b"/\\")
    kept = b"&".join(
        p for name, p in _query_pairs(bytes(scope.get("query_string", b""))) if name != "token"
    )
    location = quote_from_bytes(path, safe=_PATH_SAFE)
    if kept:
        location += "?" + quote_from_bytes(kept, safe=_QUERY_SAFE)
    return location.encode()
