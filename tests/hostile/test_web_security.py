"""The web pages and the service's guard against a hostile page in the user's browser: a page
on another port of the same loopback address (same-site, so the Strict cookie goes with its
requests), a WebSocket opened from any page, and record fields that reverse the text around
them (Unicode bidi overrides)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from helpers import Served, web_app
from starlette.types import Message, Receive, Scope, Send

from memtrails import Memory
from memtrails.service.auth import Guard
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.timeout(120)

TOKEN = "t0ken-" + "b" * 40
PORT = 8766
BASE = f"http://127.0.0.1:{PORT}"


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        await memory.ingest(
            [{"id": "a", "title": "budget", "text": "the quarterly budget", "at": "2024-03-05"}],
            name="inbox",
        )
        async with web_app(memory, TOKEN, PORT) as served:
            login = await served.http.get("/login", params={"token": TOKEN})
            assert login.status_code == 303  # the client keeps the session cookie
            yield served


def fetched(site: str, mode: str, dest: str) -> dict[str, str]:
    """The Fetch Metadata headers a browser sends with a request."""
    return {"Sec-Fetch-Site": site, "Sec-Fetch-Mode": mode, "Sec-Fetch-Dest": dest}


async def test_a_page_on_another_port_cannot_use_the_cookie_for_its_own_requests(
    served: Served,
) -> None:
    # Chromium, logged in, then on a page of http://127.0.0.1:OTHER: its <img>, <script>,
    # <link>, <iframe> and no-cors fetch() of /?q=... carried the session cookie (another port
    # is the same site) and ran the search, so the page could time it (cross-site search).
    for mode, dest in (
        ("no-cors", "image"),
        ("no-cors", "script"),
        ("no-cors", "style"),
        ("no-cors", "empty"),
        ("navigate", "iframe"),
        ("navigate", "object"),
    ):
        for site in ("same-site", "cross-site"):
            response = await served.http.get(
                "/", params={"q": "budget"}, headers=fetched(site, mode, dest)
            )
            assert response.status_code == 403, (site, mode, dest)
            assert "budget" not in response.text
    # A link followed from another site's page still opens the page, as the user's own
    # address bar, a bookmark and the page's own requests (its stylesheet) do.
    allowed: tuple[dict[str, str], ...] = (
        fetched("same-site", "navigate", "document"),
        fetched("cross-site", "navigate", "document"),
        fetched("none", "navigate", "document"),
        fetched("same-origin", "no-cors", "style"),
        fetched("same-origin", "navigate", "document"),
        {},  # curl, a script: no Fetch Metadata at all
    )
    for headers in allowed:
        response = await served.http.get("/", params={"q": "budget"}, headers=headers)
        assert response.status_code == 200, headers
    css = await served.http.get(
        "/static/style.css", headers=fetched("same-origin", "no-cors", "style")
    )
    assert css.status_code == 200
    # The API with its bearer token, from a tool that sends no Fetch Metadata, is unchanged.
    api = await served.http.get("/v1/status", headers={"Authorization": f"Bearer {TOKEN}"})
    assert api.status_code == 200


async def test_a_websocket_never_reaches_the_app_past_the_guard() -> None:
    # A page of any site may open a WebSocket to 127.0.0.1 (no same-origin rule for them):
    # the guard let such a scope through with no Host, Origin or token check, so any
    # WebSocket route added behind it would have been open to every page.
    reached: list[str] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        reached.append(scope["type"])
        if scope["type"] == "websocket":
            await receive()  # websocket.connect
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.close", "code": 1000})

    guard = Guard(app, token=TOKEN, host="127.0.0.1", port=PORT)
    scope: Scope = {
        "type": "websocket",
        "path": "/mcp",
        "raw_path": b"/mcp",
        "query_string": b"",
        "headers": [(b"host", b"evil.example"), (b"origin", b"http://evil.example")],
        "scheme": "ws",
        "subprotocols": [],
        "asgi": {"version": "3.0"},
    }
    sent: list[Message] = []
    incoming = [{"type": "websocket.connect"}]

    async def receive() -> Message:
        return incoming.pop(0) if incoming else {"type": "websocket.disconnect", "code": 1000}

    async def send(message: Message) -> None:
        sent.append(message)

    async with asyncio.timeout(10):
        await guard(scope, receive, send)
    assert reached == []
    assert [m["type"] for m in sent] == ["websocket.close"]


RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: the text after it, to the end of its line, reversed
# Elements that end a line of text (a bidi paragraph) in the pages' markup.
_BLOCKS = frozenset(
    [
        "html",
        "head",
        "title",
        "body",
        "main",
        "header",
        "nav",
        "section",
        "article",
        "form",
        "div",
        "p",
        "pre",
        "ol",
        "ul",
        "li",
        "dl",
        "dt",
        "dd",
        "table",
        "thead",
        "tbody",
        "tr",
        "td",
        "th",
        "h1",
        "h2",
        "h3",
        "figure",
        "details",
        "summary",
        "select",
        "option",
    ]
)


class _Isolation(HTMLParser):
    """Collect the text holding U+202E that is followed, in its line's block, by other text
    while no element between them isolates its direction (``<bdi>``, or any with ``dir``)."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []  # tag, isolating
        self.open: list[str] = []  # text with U+202E not isolated, on the current line
        self.leaks: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ("meta", "link", "input", "br", "line", "rect", "progress"):
            isolating = tag == "bdi" or any(k == "dir" for k, _ in attrs)
            self.stack.append((tag, isolating))
            if tag in _BLOCKS:  # a block inside starts a line of its own
                self.open = []

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            closed = self.stack.pop()
            if closed[0] in _BLOCKS:  # the line ends with its block
                self.open = []
            if closed[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        if data.strip():
            for text in self.open:  # this text shares its line
                self.leaks.append(f"{text!r} before {data.strip()[:40]!r}")
            self.open = []
        if RLO not in data:
            return
        for tag, isolating in reversed(self.stack):
            if isolating:
                return
            if tag in _BLOCKS:
                break
        self.open.append(data)


def leaks(html: str) -> list[str]:
    parser = _Isolation()
    parser.feed(html)
    return parser.leaks


async def test_a_bidi_override_in_a_field_does_not_reverse_the_rest_of_its_line(
    served: Served,
) -> None:
    # A mail whose author ends in U+202E: on the results line "author · date · kind ·
    # source · score", the date and everything after it were drawn right to left.
    rows = [
        {
            "id": f"rlo{n}",
            "kind": f"mail{RLO}",
            "title": f"quarterly {RLO}eltit",
            "author": f"eve{RLO}@example.org",
            "thread": "rlo-thread",
            "at": f"2024-04-0{n + 1}",
            "text": f"quarterly budget {RLO} reversed preview",
        }
        for n in range(3)
    ]
    await served.memory.ingest(rows, name=f"spoof{RLO}")
    http = served.http
    found = await http.get("/", params={"q": "quarterly budget"})
    pages = {"search": found.text}
    uid = re.search(r'href="/record\?uid=([0-9a-f]{32})&amp;q=[^"]*">quarterly', found.text)
    assert uid is not None
    pages["record"] = (await http.get("/record", params={"uid": uid.group(1)})).text
    assert "its thread (3 records nearby)" in pages["record"]
    pages["sources"] = (await http.get("/sources")).text
    pages["timeline"] = (await http.get("/timeline")).text
    asked = await http.get("/", params={"q": f"{RLO}budget", "source": f"spoof{RLO}"})
    pages["query"] = asked.text
    pages["missing"] = (await http.get("/record", params={"uid": f"x{RLO}y"})).text
    for name, html in pages.items():
        assert RLO in html, name  # shown as it is, not dropped
        assert leaks(html) == [], name
