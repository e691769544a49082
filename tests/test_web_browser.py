"""The web pages in a real browser: headless Chromium (the system's, driven by Playwright)
against a real `memtrails serve` over real imported records (real model, real Qdrant Edge):
log in through the printed link, search, open a record, watch an import's progress on the
sources page, read the timeline, and see a mail's script payload stay text.

Screenshots are kept under ``test-artefacts/web/`` (or ``$MEMTRAILS_TEST_ARTEFACTS/web``).
Chromium missing or unable to start fails the test: CI installs it (scripts/install.sh).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers import gsm8k_lines

from memtrails import Memory
from memtrails.add import add_path

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
MEMTRAILS = str(Path(sys.executable).parent / "memtrails")
CHROMIUM = os.environ.get("MEMTRAILS_CHROMIUM", "/usr/bin/chromium")
PAYLOAD = "<script>alert(1)</script><img src=x onerror=alert(2)>"
LOGIN = re.compile(r"web page: (http://127\.0\.0\.1:\d+)/login\?token=(\S+)")

MBOX = f"""\
From eve@example.org Tue Mar  5 10:00:00 2024
From: "<img src=x onerror=alert(3)>" <eve@example.org>
To: ann@example.org
Subject: {PAYLOAD}
Date: Tue, 05 Mar 2024 10:00:00 +0000
Message-ID: <budget-1@example.org>
Content-Type: text/plain; charset=utf-8

Hello Ann,

About the quarterly budget review: {PAYLOAD}
Please read it before Friday.

Eve

From ann@example.org Wed Mar  6 09:00:00 2024
From: Ann <ann@example.org>
To: eve@example.org
Subject: Re: the quarterly budget
Date: Wed, 06 Mar 2024 09:00:00 +0000
Message-ID: <budget-2@example.org>
In-Reply-To: <budget-1@example.org>
References: <budget-1@example.org>
Content-Type: text/plain; charset=utf-8

The quarterly budget review moves to Monday.

Ann
"""


def artefacts() -> Path:
    base = Path(os.environ.get("MEMTRAILS_TEST_ARTEFACTS") or ROOT / "test-artefacts")
    out = base / "web"
    out.mkdir(parents=True, exist_ok=True)
    return out


@pytest.fixture
def home(corpora: Path, embedder: Any, tmp_path: Path) -> Path:
    """A folder of 40 GSM8K problems and a mailbox whose first mail carries a script payload."""
    problems = gsm8k_lines(corpora, 0, 40, tmp_path / "problems.jsonl")
    mbox = tmp_path / "inbox.mbox"
    mbox.write_text(MBOX, encoding="utf-8")

    async def build() -> None:
        async with Memory.open(tmp_path / "memory", embedder=embedder) as memory:
            assert (await add_path(memory, problems)).added == 40
            assert (await add_path(memory, mbox)).added == 2

    asyncio.run(build())
    return tmp_path / "memory"


@pytest.fixture
def served(home: Path) -> Iterator[tuple[str, str]]:
    """A running ``memtrails serve``: the login link it printed, as (base URL, token)."""
    log = home.parent / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [MEMTRAILS, "serve", "--home", str(home), "--port", "0", "--threads", "2"],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 120
        found = None
        while found is None:
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, f"no login link printed: {log.read_text()}"
            found = LOGIN.search(log.read_text())
            time.sleep(0.1)
        base, token = found.group(1), found.group(2)
        while True:
            try:
                httpx.get(f"{base}/v1/health", headers={"Authorization": f"Bearer {token}"})
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.1)
        yield base, token
    finally:
        proc.terminate()
        assert proc.wait(60) == 0, log.read_text()
        assert "Traceback" not in log.read_text(), log.read_text()


async def held_ingest(base: str, token: str, release: asyncio.Event) -> dict[str, Any]:
    """Stream three records to /v1/ingest and hold the body open until ``release``."""

    async def body() -> AsyncIterator[bytes]:
        for n, day in enumerate(("2024-01-10", "2024-02-10", "2024-02-20")):
            line = {"id": f"s{n}", "text": f"streamed ticket {n} about the boiler", "at": day}
            yield (json.dumps(line) + "\n").encode()
        await release.wait()

    async with httpx.AsyncClient(
        base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=120
    ) as http:
        response = await http.post("/v1/ingest?name=tickets&batch=1", content=body())
        return dict(response.json())


def launch_options() -> dict[str, Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"no Chromium at {CHROMIUM}: apt-get install chromium (scripts/install.sh does), "
            "or point MEMTRAILS_CHROMIUM at one"
        )
    args = ["--no-sandbox"] if os.geteuid() == 0 else []  # Chromium refuses root otherwise
    return {"executable_path": CHROMIUM, "headless": True, "args": args}


async def test_a_browser_searches_opens_a_record_and_reads_sources_and_timeline(
    served: tuple[str, str], home: Path
) -> None:
    from playwright.async_api import async_playwright

    base, token = served
    shots = artefacts()
    dialogs: list[str] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(**launch_options())
        try:
            page = await browser.new_page(viewport={"width": 1100, "height": 900})

            async def dialog(d: Any) -> None:
                dialogs.append(d.message)
                await d.dismiss()

            page.on("dialog", dialog)

            async def injected() -> int:
                # Elements the payload would have added, were it markup.
                return int(
                    await page.evaluate(
                        "document.querySelectorAll('main script, main img, [onerror]').length"
                    )
                )

            # Log in through the printed link: the cookie is kept, the token leaves the URL.
            await page.goto(f"{base}/login?token={token}")
            assert page.url == f"{base}/"
            cookies = await page.context.cookies()
            assert [(c["httpOnly"], c["sameSite"]) for c in cookies] == [(True, "Strict")]
            await page.screenshot(path=str(shots / "1-search-empty.png"), full_page=True)

            # Search, with the query's words marked in the passages.
            await page.fill("input[name=q]", "how many eggs do the ducks lay")
            await page.click("button[type=submit]")
            await page.wait_for_selector("ol.results li")
            first = page.locator("ol.results li").first
            assert "eggs" in (await first.locator(".snippet").inner_text()).lower()
            assert await first.locator(".snippet mark").count() >= 1
            assert "problems.jsonl" in await first.locator(".source").inner_text()
            await page.screenshot(path=str(shots / "2-search-results.png"), full_page=True)

            # The mail with a script payload: found, shown as text, nothing injected.
            await page.fill("input[name=q]", "quarterly budget review")
            await page.select_option(
                "select[name=source]", label=str((home.parent / "inbox.mbox").resolve())
            )
            await page.click("button[type=submit]")
            await page.wait_for_selector("ol.results li")
            titles = await page.locator("ol.results .title").all_inner_texts()
            assert PAYLOAD in titles
            authors = await page.locator("ol.results .author").all_inner_texts()
            assert "<img src=x onerror=alert(3)> <eve@example.org>" in authors
            evil = page.locator("ol.results li", has=page.locator(".title", has_text=PAYLOAD))
            assert PAYLOAD in await evil.locator(".snippet").inner_text()
            assert await injected() == 0
            await page.screenshot(path=str(shots / "3-search-payload.png"), full_page=True)

            # Its record page: the whole text, its thread, its place; still text.
            await page.locator("ol.results .title", has_text=PAYLOAD).click()
            await page.wait_for_selector("#record-text")
            assert await page.inner_text("#record-title") == PAYLOAD
            whole = await page.inner_text("#record-text")
            assert PAYLOAD in whole and "Please read it before Friday." in whole
            assert "Re: the quarterly budget" in await page.inner_text("section.thread")
            assert "byte" in await page.inner_text("dl.fields")
            assert await injected() == 0
            await page.screenshot(path=str(shots / "4-record.png"), full_page=True)

            # An import in progress on the sources page: a streamed ingest held open.
            release = asyncio.Event()
            task = asyncio.ensure_future(held_ingest(base, token, release))
            try:
                job = await wait_for_ingest(base, token)
                await page.goto(f"{base}/sources")
                running = page.locator("#running .job")
                assert await running.count() == 1
                line = await running.inner_text()
                assert "records streamed as tickets" in line and "running" in line
                assert f"added {job['report']['added']}" in line
                assert await running.locator("progress").count() == 1
                await page.screenshot(path=str(shots / "5-sources-importing.png"), full_page=True)
            finally:
                release.set()
                report = await task
            assert report["state"] == "done" and report["report"]["added"] == 3
            await page.goto(f"{base}/sources")
            assert await page.locator("#running .job").count() == 0
            table = await page.inner_text("#sources")
            assert re.search(r"problems\.jsonl\s+40\b", table)
            assert re.search(r"inbox\.mbox\s+2\b", table)
            assert re.search(r"tickets\s+3\b", table) and "done" in table
            assert await injected() == 0
            await page.screenshot(path=str(shots / "6-sources.png"), full_page=True)

            # The timeline: the tickets' months and the mails', as bars; the problems undated.
            await page.goto(f"{base}/timeline")
            assert await page.locator("#timeline-chart rect").count() >= 2
            await page.click("details summary")
            months = await page.inner_text("#months")
            counts = re.findall(r"^(\d{4}-\d\d)\s+(\d+)", months, re.M)
            assert counts == [("2024-01", "1"), ("2024-02", "2"), ("2024-03", "2")]
            assert "problems.jsonl 40" in await page.inner_text("main")  # undated
            await page.screenshot(path=str(shots / "7-timeline.png"), full_page=True)
        finally:
            await browser.close()
    assert dialogs == []  # no alert() ever ran


async def wait_for_ingest(base: str, token: str) -> dict[str, Any]:
    """Wait until the streamed ingest has written its three records; return its job."""
    async with httpx.AsyncClient(
        base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30
    ) as http:
        deadline = time.monotonic() + 120
        while True:
            jobs = (await http.get("/v1/imports")).json()["imports"]
            running = [j for j in jobs if j["kind"] == "ingest" and j["state"] == "running"]
            if running and running[0]["report"]["added"] == 3:
                return dict(running[0])
            assert time.monotonic() < deadline, jobs
            await asyncio.sleep(0.1)
