"""Hostile record text in a real browser (the system's Chromium, driven by Playwright): very
long unbroken words, a right-to-left override and a joined emoji in every field the pages
show. No page grows wider than the window, the tab title reads in stored order, and the
token leaves the address.

The service is the real application under uvicorn, over a folder made with the hashing
embedder (the pages, not the model, are tested here). Screenshots go beside the other
browser test's, under ``test-artefacts/web/``.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from test_web_browser import artefacts, launch_options

from memtrails import Memory
from memtrails.service.app import build_app
from memtrails.service.jobs import Jobs
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.slow

TOKEN = "t0ken-" + "d" * 40
RLO = "\u202e"
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
WORD = "W" * 3000  # one word, wider than any window
ROWS = [
    {
        "id": "wide",
        "kind": "k" + "K" * 400,
        "title": f"boiler {WORD}",
        "author": f"eve{WORD}@example.org",
        "at": "2024-03-05",
        "thread": "th",
        "text": f"the boiler report {WORD} ends here",
        "meta": {"path": "/home/" + "d" * 2000 + "/report.txt", "k" + "e" * 1000: "value"},
    },
    {
        "id": "rlo",
        "title": f"boiler invoice {RLO}fdp.exe {FAMILY}",
        "author": "ann",
        "at": "2024-03-06",
        "thread": "th",
        "text": "the boiler invoice",
    },
]
SOURCE = "inbox-" + "s" * 2000


@pytest.fixture
def service(tmp_path: Path) -> Iterator[str]:
    """The service's app under uvicorn in a thread, on a free port: its base URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    ready = threading.Event()
    server: list[uvicorn.Server] = []

    async def serve() -> None:
        async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
            await memory.ingest(ROWS, name=SOURCE)
            async with Jobs(memory) as jobs:
                app = build_app(
                    memory, jobs, asyncio.Event(), token=TOKEN, host="127.0.0.1", port=port
                )
                config = uvicorn.Config(app, log_level="warning", lifespan="off")
                server.append(uvicorn.Server(config))
                ready.set()
                await server[0].serve(sockets=[sock])

    thread = threading.Thread(target=asyncio.run, args=(serve(),))
    thread.start()
    try:
        assert ready.wait(60)
        while not server[0].started:
            assert thread.is_alive()
            threading.Event().wait(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        if server:
            server[0].should_exit = True
        thread.join(60)
        sock.close()


async def test_hostile_record_text_keeps_every_page_within_the_window(service: str) -> None:
    from playwright.async_api import async_playwright

    base = service
    shots = artefacts()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(**launch_options())
        try:
            page = await browser.new_page(viewport={"width": 900, "height": 800})

            async def overflow() -> int:
                # How far the page reaches past the window's right edge.
                return int(
                    await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
                )

            # The token on a record's address: kept as the cookie, gone from the address.
            await page.goto(f"{base}/record?uid=rlo&token={TOKEN}")
            assert page.url.startswith(f"{base}/record?uid=rlo")
            assert TOKEN not in page.url
            title = await page.title()
            assert RLO not in title and "invoice fdp.exe" in title
            assert FAMILY in title
            assert await overflow() <= 0
            await page.screenshot(path=str(shots / "hostile-1-record-rlo.png"), full_page=True)
            # Back goes to where the browser was before, not to the address with the token.
            await page.go_back()
            assert page.url == "about:blank"
            await page.go_forward()
            assert TOKEN not in page.url

            pages = {
                "search": f"{base}/?q=boiler",
                "record": f"{base}/record?uid=wide",
                "sources": f"{base}/sources",
                "timeline": f"{base}/timeline",
                "missing": f"{base}/record?uid={'u' * 3000}",
            }
            for n, (name, url) in enumerate(pages.items(), start=2):
                await page.goto(url)
                assert await page.locator("main").count() == 1, name
                if name == "timeline":
                    await page.click("details summary")
                await page.screenshot(path=str(shots / f"hostile-{n}-{name}.png"), full_page=True)
                assert await overflow() <= 0, name
        finally:
            await browser.close()
