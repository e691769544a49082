"""The web pages' door against hostile links and requests: the token never stays in an
address, the session cookie's attributes, and requests built to hurt (huge, odd, unknown)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from helpers import web_app
from starlette.types import ASGIApp, Message, Scope

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
        async with web_app(memory, TOKEN, PORT) as served:
            yield served.http


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


async def _raw_get(
    http: httpx.AsyncClient, path: str, raw_path: str, query: str, cookie: str = ""
) -> httpx.Response:
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
        "headers": [(b"host", f"127.0.0.1:{PORT}".encode())]
        + ([(b"cookie", cookie.encode())] if cookie else []),
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", PORT),
    }
    await transport.app(scope, receive, send)
    return httpx.Response(
        started[0]["status"], headers=list(started[0]["headers"]), content=b"".join(body)
    )


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[ASGIApp]:
    async with (
        Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory,
        Jobs(memory) as jobs,
    ):
        yield build_app(memory, jobs, asyncio.Event(), token=TOKEN, host="127.0.0.1", port=PORT)


async def login_cookie(
    app: ASGIApp, base: str = BASE, peer: str = "127.0.0.1", headers: dict[str, str] | None = None
) -> set[str]:
    transport = httpx.ASGITransport(app=app, client=(peer, 50000))
    async with httpx.AsyncClient(transport=transport, base_url=base) as client:
        response = await client.get("/login", params={"token": TOKEN}, headers=headers)
    assert response.status_code == 303
    return cookie_attributes(response)


STRICT = {"httponly", "samesite=strict", "path=/"}


async def test_the_cookie_is_secure_when_the_service_is_reached_over_tls(app: ASGIApp) -> None:
    plain = await login_cookie(app)
    assert plain == STRICT  # plain HTTP on loopback: a Secure cookie would not be kept
    served_tls = await login_cookie(app, base=f"https://127.0.0.1:{PORT}")
    assert served_tls == STRICT | {"secure"}


@pytest.mark.parametrize(
    "headers",
    [
        {"X-Forwarded-Proto": "https"},
        {"X-Forwarded-Proto": "http, https"},  # the proxy nearest the service says last
        {"Forwarded": 'for=198.51.100.7;proto=https;host="memory.example"'},
    ],
)
async def test_a_local_tls_proxy_gets_a_secure_cookie(
    app: ASGIApp, headers: dict[str, str]
) -> None:
    assert await login_cookie(app, headers=headers) == STRICT | {"secure"}
    assert await login_cookie(app, peer="::1", headers=headers) == STRICT | {"secure"}


async def test_the_forwarded_scheme_is_believed_only_from_this_machine(app: ASGIApp) -> None:
    """A client elsewhere (a service bound with --allow-remote) cannot choose the cookie's
    attributes by sending the proxy's header itself; nor does a proxy saying http."""
    remote = await login_cookie(app, peer="203.0.113.9", headers={"X-Forwarded-Proto": "https"})
    assert remote == STRICT
    told_http = await login_cookie(app, headers={"X-Forwarded-Proto": "https, http"})
    assert told_http == STRICT


async def test_a_page_of_the_service_over_tls_is_its_own_origin(app: ASGIApp) -> None:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(
        transport=transport, base_url=f"https://127.0.0.1:{PORT}", cookies={}
    ) as client:
        own = await client.get(
            "/sources",
            headers={"Origin": f"https://127.0.0.1:{PORT}", "Cookie": COOKIE},
        )
        assert own.status_code == 200
        other = await client.get(
            "/sources", headers={"Origin": "https://evil.example", "Cookie": COOKIE}
        )
        assert other.status_code == 403


HUGE = 1 << 20  # a 1 MiB value: past what any address should carry


async def test_a_huge_filter_is_refused_on_the_page_not_echoed_whole(
    http: httpx.AsyncClient,
) -> None:
    for name in ("author", "kind", "since", "until", "source"):
        query = urlencode({"q": "boiler", name: "a" * HUGE})
        response = await _raw_get(http, "/", "/", query, cookie=COOKIE)
        assert response.status_code == 200, name
        assert len(response.content) < 64 << 10, name  # not the megabyte back
        assert f"{name} is longer than 4,096 characters" in response.text
        assert "was serviced" not in response.text  # not searched with it cut short


async def test_a_huge_record_id_or_path_answers_a_short_page(http: httpx.AsyncClient) -> None:
    missing = await _raw_get(http, "/record", "/record", f"uid={'u' * HUGE}", cookie=COOKIE)
    assert missing.status_code == 404 and len(missing.content) < 16 << 10
    assert "no such record" in missing.text
    huge_q = await _raw_get(
        http, "/record", "/record", f"uid=n1&source=notes&q={'boiler+' * HUGE}", cookie=COOKIE
    )
    assert huge_q.status_code == 200 and "<mark>boiler</mark>" in huge_q.text
    path = "/" + "p" * (HUGE // 8)
    nowhere = await _raw_get(http, path, path, "", cookie=COOKIE)
    assert nowhere.status_code == 404 and len(nowhere.content) < 16 << 10
    assert "no such endpoint /ppp" in nowhere.text


@pytest.mark.parametrize("k", ["-5", "0", "-99999999999", "1e9", "9" * 5000, "NaN", " 3 ", "1_000"])
async def test_any_number_of_results_asked_answers_between_1_and_100(
    http: httpx.AsyncClient, k: str
) -> None:
    response = await http.get("/", params={"q": "boiler", "k": k}, headers={"Cookie": COOKIE})
    assert response.status_code == 200
    shown = int(re.findall(r'name="k" value="(\d+)"', response.text)[0])
    assert 1 <= shown <= 100
    assert "was serviced" in response.text


async def test_unknown_parameters_change_nothing(http: httpx.AsyncClient) -> None:
    plain = await http.get("/", params={"q": "boiler"}, headers={"Cookie": COOKIE})
    odd = await http.get(
        "/",
        params={"q": "boiler", "page": "-1", "offset": "9" * 100, "x<y>": "<script>", "k[]": "2"},
        headers={"Cookie": COOKIE},
    )
    assert odd.status_code == 200 and odd.text == plain.text


async def test_a_source_named_in_the_address_but_not_held_shows_as_the_filter(
    http: httpx.AsyncClient,
) -> None:
    """A link naming a source the memory does not hold: the form says which source
    filtered the (empty) results, rather than "any"."""
    response = await http.get(
        "/", params={"q": "boiler", "source": "elsewhere"}, headers={"Cookie": COOKIE}
    )
    assert re.search(r'<option value="elsewhere" selected>', response.text)
    assert "was serviced" not in response.text
