"""The watermark recipes of docs/sources.md, run exactly as written: PostgreSQL, SQLite, a paginated HTTP API."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from helpers import pg_dsn, readme_recipe

from memtrails import Memory
from memtrails.testing import HashingEmbedder

T0 = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)


def _recipe(name: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(readme_recipe(name), f"docs/sources.md recipe {name}", "exec"), namespace)
    return namespace


@pytest.mark.slow
async def test_sqlite_recipe_reads_only_new_and_changed_notes(
    tmp_path: Path, embedder: Any
) -> None:
    db = tmp_path / "app.db"
    conn = sqlite3.connect(db)
    conn.execute(
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT, body TEXT, updated_at TEXT)"
    )
    notes = [
        ("Boiler service", "The boiler was serviced; next check in October."),
        ("Car insurance", "Renewed with the same company, premium up 4%."),
        ("Passport", "Expires in March 2028; renew three months before."),
    ]
    conn.executemany(
        "INSERT INTO notes VALUES (?, ?, ?, ?)",
        [(i, t, b, (T0 + timedelta(hours=i)).isoformat()) for i, (t, b) in enumerate(notes)],
    )
    conn.commit()
    notes_since = _recipe("sqlite")["notes_since"]
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        first = await memory.ingest(notes_since(str(db)), name="app.db:notes", cursor="updated_at")
        conn.execute(
            "UPDATE notes SET body = ?, updated_at = ? WHERE id = 1",
            ("Renewed with a new company, premium down 10%.", (T0 + timedelta(days=2)).isoformat()),
        )
        conn.commit()
        second = await memory.ingest(notes_since(str(db)), name="app.db:notes", cursor="updated_at")
        hits = await memory.search("when does my passport expire?", k=1)
    assert (first.added, second.updated, second.sources[0].read) == (3, 1, 2)
    assert hits[0].title == "Passport"


@pytest.mark.postgres
async def test_postgres_recipe_resumes_from_the_watermark(tmp_path: Path) -> None:
    asyncpg = pytest.importorskip("asyncpg")
    dsn = pg_dsn()
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute("DROP TABLE IF EXISTS tickets")
        await conn.execute(
            "CREATE TABLE tickets (id int PRIMARY KEY, summary text, body text, updated_at timestamptz)"
        )
        await conn.executemany(
            "INSERT INTO tickets VALUES ($1, $2, $3, $4)",
            [
                (i, f"ticket {i}", f"body of ticket {i}", T0 + timedelta(minutes=i))
                for i in range(300)
            ],
        )
        tickets_since = _recipe("postgres")["tickets_since"]
        async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
            first = await memory.ingest(tickets_since(dsn), name="tickets", cursor="updated_at")
            await conn.execute(
                "UPDATE tickets SET body = 'reopened', updated_at = $1 WHERE id = 7",
                T0 + timedelta(days=1),
            )
            second = await memory.ingest(tickets_since(dsn), name="tickets", cursor="updated_at")
            assert (first.added, second.updated, second.sources[0].read) == (300, 1, 2)
            watermark = (await memory.status()).watermarks["tickets"]
            assert datetime.fromisoformat(watermark["value"]) == T0 + timedelta(days=1)
    finally:
        await conn.execute("DROP TABLE IF EXISTS tickets")
        await conn.close()


class Api:
    """A paginated issues API on 127.0.0.1 that rate-limits, fails and stalls on demand."""

    def __init__(self, n: int) -> None:
        self.issues = [
            {
                "number": i,
                "title": f"issue {i}",
                "body": f"steps to reproduce issue {i}",
                "updated_at": (T0 + timedelta(minutes=i)).isoformat(),
            }
            for i in range(n)
        ]
        self.rate_limited = 0
        self.rows_served = 0
        self.fail_at: int | None = None  # offset whose page answers 500
        self.stall_at: int | None = None  # offset whose page never answers
        self.stalled = threading.Event()
        self._limit_next = True
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                api.serve(self)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def serve(self, request: BaseHTTPRequestHandler) -> None:
        query = parse_qs(urlsplit(request.path).query)
        since = query.get("updated_since", [""])[0]
        per_page = int(query.get("per_page", ["100"])[0])
        offset = int(query.get("offset", ["0"])[0])
        if offset == 100 and self._limit_next:  # the second page is rate-limited once a run
            self._limit_next = False
            self.rate_limited += 1
            self._send(request, 429, {"message": "slow down"}, {"Retry-After": "1"})
            return
        if offset == self.fail_at:
            self._send(request, 500, {"message": "internal error"})
            return
        if offset == self.stall_at:
            self.stalled.set()
            threading.Event().wait(60)  # until the client is killed
            return
        rows = [i for i in self.issues if i["updated_at"] >= since]
        page = rows[offset : offset + per_page]
        self.rows_served += len(page)
        following = offset + per_page
        body: dict[str, Any] = {"items": page}
        if following < len(rows):
            body["next"] = f"/issues?updated_since={since}&per_page={per_page}&offset={following}"
        self._send(request, 200, body)

    @staticmethod
    def _send(
        request: BaseHTTPRequestHandler, code: int, body: Any, headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(body).encode()
        request.send_response(code)
        request.send_header("Content-Type", "application/json")
        request.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            request.send_header(k, v)
        request.end_headers()
        request.wfile.write(data)

    def new_run(self) -> None:
        self._limit_next = True
        self.rows_served = 0


@pytest.fixture
def api() -> Iterator[Api]:
    server = Api(2500)
    yield server
    server.server.shutdown()
    server.server.server_close()


CHILD = """
import asyncio, sys
sys.path.insert(0, {tests!r})
from helpers import readme_recipe
from memtrails import Memory
from memtrails.testing import HashingEmbedder
ns = {{}}
exec(readme_recipe("http"), ns)
async def main():
    async with Memory.open({folder!r}, embedder=HashingEmbedder()) as memory:
        await memory.ingest(ns["issues_since"]({url!r}), name="issues", cursor="updated_at")
asyncio.run(main())
"""


@pytest.mark.slow
async def test_http_recipe_survives_a_429_a_failing_page_and_a_kill(
    tmp_path: Path, api: Api
) -> None:
    issues_since = _recipe("http")["issues_since"]
    folder = tmp_path / "m"

    # Run 1: rate-limited on page 2 (waits as told), then page 15 fails: the run stops.
    api.fail_at = 1400
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        with pytest.raises(httpx.HTTPStatusError):
            await memory.ingest(issues_since(api.url), name="issues", cursor="updated_at")
        first = await memory.status()
    assert api.rate_limited == 1 and 0 < first.records <= 1400
    assert first.watermarks["issues"]["value"] == api.issues[999]["updated_at"]

    # Run 2, in a process of its own, is killed with SIGKILL while it waits for a page.
    api.fail_at, api.stall_at = None, 1000
    api.new_run()
    log = tmp_path / "child.log"
    with log.open("wb") as out:
        child = subprocess.Popen(
            [
                sys.executable,
                "-c",
                CHILD.format(tests=str(Path(__file__).parent), folder=str(folder), url=api.url),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        stalled = await asyncio.to_thread(api.stalled.wait, 120)
        assert stalled, log.read_text()
        await asyncio.sleep(1.5)  # let the batches before the stall reach the folder
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()

    # Run 3 resumes from the last watermark saved and ends with every issue exactly once.
    api.stall_at = None
    api.new_run()
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        final = await memory.ingest(issues_since(api.url), name="issues", cursor="updated_at")
        status = await memory.status()
        ids = {
            record.id
            for record in [await memory.get(str(i), source="issues") for i in range(2500)]
            if record
        }
    assert status.records == 2500 and len(ids) == 2500
    assert api.rows_served < 2500  # resumed: not the whole API again
    assert final.added + final.unchanged == api.rows_served
