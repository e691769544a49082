"""The web pages' door against hostile links and requests: the token never stays in an
address, the session cookie's attributes, and requests built to hurt (huge, odd, unknown)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from starlette.types import Message, Scope

from memtrails import Memory
from memtrails.service.app import build_app
from memtrails.service.auth import cookie_name, session_value
from memtrails.service.jobs import Jobs
from memtrails.testing import HashingEmbedder

TOKEN = "t0ken-" + "b" * 40
PORT = 8766
BASE = f"http://127.0.0.1:{PORT}"
COOKIE = f"{cookie_name(PORT)}={session_value(TOKEN)}"


@pytest.fixture
async def http(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the service's app, not logged in (it follows no redirect by itself)."""
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        await memory.ingest(
            [
                {
                    "id": "n1",
                    "title": "boiler",
                    "text": "the boiler was serviced",
                    "at": "2024-02-01",
                }
            ],
            name="notes",
        )
        async with Jobs(memory) as jobs:
            app = build_app(memory, jobs, asyncio.Event(), token=TOKEN, host="127.0.0.1", port=PORT)
            async with httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app), base_url=BASE
            ) as client:
                yield client


def cookie_attributes(response: httpx.Response) -> set[str]:
    return {p.strip().lower() for p in response.headers["set-cookie"].split(";")[1:]}


@pytest.mark.parametrize(
    ("link", "landing"),
    [
        (f"/?token={TOKEN}", "/"),
        (f"/sources?token={TOKEN}", "/sources"),
        (f"/?q=boiler&token={TOKEN}&source=notes", "/?q=boiler&source=notes"),
        (f"/record?token=%20{TOKEN}%20&uid=n1&source=notes", "/record?uid=n1&source=notes"),
        (f"/timeline?token={TOKEN}&token={TOKEN}", "/timeline"),
    ],
)
async def test_a_token_on_any_page_becomes_the_cookie_and_leaves_the_address(
    http: httpx.AsyncClient, link: str, landing: str
) -> None:
    response = await http.get(link)
    assert response.status_code == 303
    assert response.headers["location"] == landing
    assert TOKEN not in response.headers["location"]
    assert response.headers["set-cookie"].startswith(COOKIE + ";")
    assert response.headers["referrer-policy"] == "no-referrer"
    assert response.headers["cache-control"] == "no-store"
    landed = await http.get(landing)  # the client kept the cookie
    assert landed.status_code == 200


async def test_a_token_on_a_page_is_dropped_even_when_a_cookie_is_already_kept(
    http: httpx.AsyncClient,
) -> None:
    response = await http.get(f"/?q=boiler&token={TOKEN}", headers={"Cookie": COOKIE})
    assert response.status_code == 303 and response.headers["location"] == "/?q=boiler"


@pytest.mark.parametrize(
    "link",
    [
        "/?token=an-old-token-from-another-folder",
        "/sources?token=",
        "/login?token=an-old-token-from-another-folder",
    ],
)
async def test_a_wrong_token_leaves_the_address_too_and_sets_no_cookie(
    http: httpx.AsyncClient, link: str
) -> None:
    response = await http.get(link)
    assert response.status_code == 303
    assert "token" not in response.headers["location"]
    assert "set-cookie" not in response.headers
    landed = await http.get(response.headers["location"])
    assert landed.status_code == 401 and "/login?token=" in landed.text
    if link.startswith("/login"):
        assert "not this service's" in landed.text


@pytest.mark.parametrize(
    "path",
    ["//evil.example/x", "/\\evil.example/x", "///evil.example", "/%2F%2Fevil.example", "/a\tb"],
)
async def test_the_redirect_that_drops_the_token_stays_on_this_service(
    http: httpx.AsyncClient, path: str
) -> None:
    """A link built so that the address without its token would name another host."""
    scope_path = path.replace("%2F", "/")
    response = await _raw_get(http, scope_path, path, f"token={TOKEN}&q=boiler")
    assert response.status_code == 303
    location = response.headers["location"]
    assert location.startswith("/") and not location.startswith(("//", "/\\"))
    assert urlsplit(BASE + location).netloc == f"127.0.0.1:{PORT}"
    assert "\t" not in location and "\\" not in location
    assert parse_qs(urlsplit(location).query) == {"q": ["boiler"]}


async def _raw_get(http: httpx.AsyncClient, path: str, raw_path: str, query: str) -> httpx.Response:
    """Send a request whose path httpx would otherwise normalise, straight to the app."""
    transport = http._transport
    assert isinstance(transport, httpx.ASGITransport)
    started: list[Message] = []
    body: list[bytes] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            started.append(message)
        else:
            body.append(message.get("body", b""))

    scope: Scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": raw_path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(b"host", f"127.0.0.1:{PORT}".encode())],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", PORT),
    }
    await transport.app(scope, receive, send)
    return httpx.Response(
        started[0]["status"], headers=list(started[0]["headers"]), content=b"".join(body)
    )
