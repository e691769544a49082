"""``memtrails mcp`` over stdio with the SDK's own client, against a real folder (real model, real index)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import signal
import socket
import string
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from helpers import mcp_http
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult

from memtrails import FolderBusyError, Memory
from memtrails._exceptions import MemoryLockedError
from memtrails.add import add_path
from memtrails.folder.lock import READER, FolderLock, acquire_lock
from memtrails.keys import record_uid
from memtrails.mcp.access import FolderAccess

# Each test runs `memtrails mcp` in a process of its own against a real folder.
pytestmark = pytest.mark.slow

MEMTRAILS = str(Path(sys.executable).parent / "memtrails")  # the console script, as cron runs it
GSM8K_LINES = 40

# A made-up token of the real shape (never valid anywhere).
_rng = random.Random(17)
GITHUB = "ghp_" + "".join(_rng.choice(string.ascii_letters + string.digits) for _ in range(36))


def _lines(corpora: Path, start: int, stop: int, out: Path) -> Path:
    with (corpora / "jsonl" / "gsm8k-test.jsonl").open("rb") as src:
        out.write_bytes(b"".join(line for i, line in enumerate(src) if start <= i < stop))
    return out


@pytest.fixture(scope="module")
def built(corpora: Path, embedder: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the first 40 GSM8K problems (real model, real Qdrant Edge index)."""
    root = tmp_path_factory.mktemp("built")
    source = _lines(corpora, 0, GSM8K_LINES, root / "gsm8k.jsonl")

    async def build() -> None:
        async with Memory.open(root / "memory", embedder=embedder) as memory:
            report = await add_path(memory, source)
        assert report.added == GSM8K_LINES

    asyncio.run(build())
    return root


@pytest.fixture
def home(built: Path, tmp_path: Path) -> Path:
    """A private copy of the built folder (tests import into it and forget from it)."""
    shutil.copytree(built / "memory", tmp_path / "memory")
    return tmp_path / "memory"


@asynccontextmanager
async def serving(home: Path, *args: str) -> AsyncIterator[Client]:
    """Run ``memtrails mcp --home HOME ARGS`` as a subprocess and connect the SDK's client."""
    params = StdioServerParameters(
        command=MEMTRAILS,
        args=["mcp", "--home", str(home), "--threads", "2", *args],
        env={**os.environ},
    )
    log = home.parent / "server-stderr.txt"
    with log.open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=120) as client:
            yield client
    stderr = log.read_text()
    print(stderr)
    # Bad requests were answered with errors, not crashes: the SDK logs a crash's traceback.
    assert "Traceback" not in stderr


def _text(result: CallToolResult) -> str:
    """Everything a tool call returned, as the model would see it."""
    parts = [getattr(c, "text", "") for c in result.content]
    return "\n".join(parts) + json.dumps(result.structured_content or {})


async def _search(client: Client, query: str, **kw: Any) -> list[dict[str, Any]]:
    result = await client.call_tool("search", {"query": query, **kw})
    assert not result.is_error, _text(result)
    assert result.structured_content is not None
    hits: list[dict[str, Any]] = result.structured_content["results"]
    return hits


@pytest.mark.slow
async def test_read_tools_bad_arguments_and_no_writes(home: Path, corpora: Path) -> None:
    with (corpora / "jsonl" / "gsm8k-test.jsonl").open() as f:
        first = json.loads(f.readline())
    async with serving(home) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {"search", "get", "status"}
        assert set(tools["search"].input_schema["properties"]) == {
            "query",
            "k",
            "kind",
            "author",
            "source",
            "since",
            "until",
            "min_confidence",
        }
        assert tools["search"].annotations and tools["search"].annotations.read_only_hint
        # Real output schemas, and kind as an enum (a free "email" used to find nothing).
        kind = json.dumps(tools["search"].input_schema["properties"]["kind"])
        assert '"enum"' in kind and '"mail"' in kind and '"email"' not in kind
        out = tools["search"].output_schema or {}
        assert {"count", "results"} <= set(out.get("properties", {}))
        assert "text" in json.dumps(tools["get"].output_schema)
        assert "records" in json.dumps(tools["status"].output_schema)

        hits = await _search(client, "Janet's ducks lay eggs and she sells them at the market", k=3)
        assert len(hits) == 3
        best = hits[0]
        assert best["id"] == "gsm8k.jsonl:1" and "Janet" in best["snippet"]
        assert best["uri"] == f"memtrails://record/{best['uid']}"
        assert set(best) >= {"id", "uid", "title", "author", "at", "kind", "source", "score"}
        # Every field a result carries is one its output schema declares (dense, keyword too).
        declared = out["$defs"]["Hit"]["properties"]
        assert set(best) <= set(declared), set(best) - set(declared)
        assert hits[0]["score"] >= hits[1]["score"] >= hits[2]["score"]

        found = await client.call_tool("search", {"query": "Janet's ducks", "k": 3})
        # Compact lines for the model, not the structured content again as indented JSON.
        text = "\n".join(getattr(c, "text", "") for c in found.content)
        assert not text.lstrip().startswith("{") and "Janet" in text
        assert len(text) < len(json.dumps(found.structured_content, indent=2)) / 2
        sure = await client.call_tool("search", {"query": "sourdough starter", "min_confidence": 1})
        assert not sure.is_error and (sure.structured_content or {})["count"] == 0

        got = await client.call_tool("get", {"id": best["uid"]})
        assert not got.is_error and got.structured_content is not None
        assert first["question"] in got.structured_content["text"]
        by_id = await client.call_tool("get", {"id": "gsm8k.jsonl:1"})
        assert by_id.structured_content == got.structured_content

        resource = await client.read_resource(best["uri"])
        body = json.loads(resource.contents[0].text)  # type: ignore[union-attr]
        assert body["uid"] == best["uid"] and first["question"] in body["text"]
        templates = await client.list_resource_templates()
        assert [t.uri_template for t in templates.resource_templates] == ["memtrails://record/{id}"]

        # Bad requests get MCP errors that say what is wrong; the server keeps serving.
        cases: list[tuple[dict[str, Any], str]] = [
            ({"query": "eggs", "k": 0}, "greater than or equal to 1"),
            (
                {"query": "eggs", "since": "the day before"},
                "`since` 'the day before' is not a date",
            ),
            ({"query": "   "}, "`query` is empty"),
            ({"k": 3}, "query"),
        ]
        for args, says in cases:
            bad = await client.call_tool("search", args)
            assert bad.is_error and says in _text(bad), (args, _text(bad))
        missing = await client.call_tool("get", {"id": "no-such-record"})
        assert missing.is_error and "no record with id 'no-such-record'" in _text(missing)
        with pytest.raises(MCPError, match="no record with id"):
            await client.read_resource("memtrails://record/no-such-record")

        # Writes are off unless asked for.
        refused = await client.call_tool("add", {"path": str(home)})
        assert refused.is_error and "add" in _text(refused)
        refused = await client.call_tool("forget", {"id": best["uid"]})
        assert refused.is_error

        status = await client.call_tool("status", {})
        assert not status.is_error and status.structured_content is not None
        assert status.structured_content["records"] == GSM8K_LINES
        assert status.structured_content["writes_allowed"] is False
    async with Memory.open(home, create=False, catch_up=False) as memory:
        assert (await memory.status()).records == GSM8K_LINES  # nothing was written


@pytest.mark.slow
async def test_search_dates_read_as_the_cli_reads_them(tmp_path: Path, embedder: Any) -> None:
    now = datetime.now(UTC)
    dated = {
        "yesterday": (now - timedelta(days=1)).replace(hour=12, minute=0),
        "ten-days": now - timedelta(days=10),
        "may-first": datetime(2024, 5, 1, 0, 30, tzinfo=UTC),
        "may-last": datetime(2024, 5, 31, 23, 0, tzinfo=UTC),
        "june": datetime(2024, 6, 1, 0, 30, tzinfo=UTC),
    }
    source = tmp_path / "dated.jsonl"
    source.write_text(
        "".join(
            json.dumps({"id": k, "text": f"garden notes {k}", "at": at.isoformat()}) + "\n"
            for k, at in dated.items()
        )
    )
    async with Memory.open(tmp_path / "memory", embedder=embedder) as memory:
        assert (await add_path(memory, source)).added == len(dated)

    async def ids(client: Client, **dates: str) -> set[str]:
        return {h["id"] for h in await _search(client, "garden notes", k=20, **dates)}

    async with serving(tmp_path / "memory") as client:
        assert await ids(client, since="yesterday") == {"yesterday"}
        assert await ids(client, since="2 weeks ago") == {"yesterday", "ten-days"}
        # A month is the whole month, and a day as until is that whole day.
        assert await ids(client, since="2024-05", until="2024-05") == {"may-first", "may-last"}
        assert await ids(client, until="2024-05-31") == {"may-first", "may-last"}
        assert await ids(client, since="2024-05-31", until="2024-05-31") == {"may-last"}
        assert await ids(client, since="2024-06-01T00:00:00Z", until="2024") == {"june"}


@pytest.mark.slow
async def test_an_import_from_another_process_runs_beside_the_server(
    home: Path, corpora: Path, tmp_path: Path
) -> None:
    new = _lines(corpora, 100, 130, tmp_path / "later.jsonl")
    new_ids = {f"later.jsonl:{n}" for n in range(1, 31)}
    async with serving(home, "--wait", "1") as client:
        assert not {h["id"] for h in await _search(client, "eggs", k=50)} & new_ids

        add = await asyncio.create_subprocess_exec(
            MEMTRAILS, "add", str(new), "--home", str(home), "--threads", "2",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        done = asyncio.ensure_future(add.communicate())
        # Keep asking while the import runs: each answer is results or a clear "busy" error.
        busy = 0
        while not done.done():
            result = await client.call_tool("search", {"query": "how many apples", "k": 3})
            if result.is_error:
                busy += 1
                assert f"in use by process {add.pid} (memtrails add" in _text(result), _text(result)
            await asyncio.sleep(0.2)
        out, err = await done
        assert add.returncode == 0, err.decode()
        assert "added 30" in out.decode()

        question = json.loads(new.read_text().splitlines()[0])["question"]
        hits = await _search(client, question, k=5)
        assert hits[0]["id"] == "later.jsonl:1"
        status = await client.call_tool("status", {})
        assert (
            status.structured_content and status.structured_content["records"] == GSM8K_LINES + 30
        )
    print(f"searches answered 'busy' while the import ran: {busy}")


@pytest.mark.slow
async def test_writes_and_no_secret_leaves_the_server(home: Path, tmp_path: Path) -> None:
    mail = tmp_path / "mail"
    mail.mkdir()
    (mail / "deploy.eml").write_text(
        "From: Ann Example <ann@example.com>\nTo: team@example.com\n"
        f"Subject: staging deploy token {GITHUB}\nDate: Tue, 1 Apr 2025 10:00:00 +0000\n"
        "Message-ID: <deploy-1@example.com>\nContent-Type: text/plain; charset=utf-8\n\n"
        f"The staging deploy job uses GITHUB_TOKEN={GITHUB} until Friday.\nAnn\n"
    )
    async with serving(home, "--allow-writes") as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert names == {"search", "get", "status", "add", "forget"}

        added = await client.call_tool("add", {"path": str(mail)})
        assert not added.is_error, _text(added)
        assert added.structured_content and added.structured_content["added"] == 1
        assert added.structured_content["secrets"] == {"github-token": 2}

        outputs = [_text(added)]
        hits = await _search(client, "staging deploy token", k=3)
        outputs.append(json.dumps(hits))
        mine = [h for h in hits if "deploy-1@example.com" in h["id"]]
        assert mine and mine[0]["author"] and "Ann" in mine[0]["author"]
        assert mine[0]["title"] == "staging deploy token [secret:github-token]"
        got = await client.call_tool("get", {"id": mine[0]["id"]})
        outputs.append(_text(got))
        assert "[secret:github-token]" in got.structured_content["text"]
        resource = await client.read_resource(mine[0]["uri"])
        outputs.append(resource.contents[0].text)  # type: ignore[union-attr]
        by_id = await client.read_resource("memtrails://record/" + quote(mine[0]["id"], safe=""))
        assert by_id.contents[0].text == resource.contents[0].text  # type: ignore[union-attr]
        outputs.append(_text(await client.call_tool("status", {})))
        # An argument carrying a token is not echoed back in the error either.
        echoed = await client.call_tool("get", {"id": GITHUB})
        assert echoed.is_error
        outputs.append(_text(echoed))
        with pytest.raises(MCPError) as unknown:
            await client.read_resource(f"memtrails://record/{GITHUB}")
        outputs.append(unknown.value.error.message)
        for text in outputs:
            assert GITHUB not in text and GITHUB[4:] not in text

        uid = record_uid(str(mail.resolve()), mine[0]["id"])
        assert mine[0]["uid"] == uid
        forgot = await client.call_tool("forget", {"id": uid})
        assert not forgot.is_error and forgot.structured_content == {"forgotten": 1, "id": uid}
        after = await _search(client, "staging deploy token", k=3)
        assert uid not in {h["uid"] for h in after}
        again = await client.call_tool("forget", {"id": uid})
        assert again.is_error and "no record" in _text(again)
        relative = await client.call_tool("add", {"path": "mail"})
        assert relative.is_error and "must be absolute" in _text(relative)
        nothing = await client.call_tool("add", {"path": str(tmp_path / "nope.jsonl")})
        assert nothing.is_error and "nope.jsonl" in _text(nothing)


async def test_a_writer_waits_for_a_short_reader_but_not_for_an_import(tmp_path: Path) -> None:
    reader = FolderLock(tmp_path, READER)
    loop = asyncio.get_running_loop()
    loop.call_later(0.3, reader.release)
    writer = await acquire_lock(tmp_path, wait=10)  # was refused at once before the wait
    try:
        with pytest.raises(MemoryLockedError) as refused:
            await acquire_lock(tmp_path, role=READER, wait=10, wait_writer=0)
        assert refused.value.pid == os.getpid() and refused.value.role is None
    finally:
        writer.release()

    importer = FolderLock(tmp_path, "memtrails add")
    try:
        with pytest.raises(MemoryLockedError) as held:
            await acquire_lock(tmp_path, role=READER, wait=0, wait_writer=0.2)
        assert held.value.role == "memtrails add"
        assert f"in use by process {os.getpid()} (memtrails add)" in str(held.value)
    finally:
        importer.release()


@pytest.mark.slow
async def test_http_transport_listens_on_loopback_only(home: Path) -> None:
    async with mcp_http(home, MEMTRAILS) as port:
        listening = Path("/proc/net/tcp").read_text().splitlines()[1:]
        local = {line.split()[1] for line in listening if line.split()[3] == "0A"}  # LISTEN
        assert f"0100007F:{port:04X}" in local  # 127.0.0.1:port
        assert f"00000000:{port:04X}" not in local  # not 0.0.0.0:port
        # A page elsewhere cannot reach it through DNS rebinding: a foreign Host is refused.
        async with httpx.AsyncClient() as http:
            foreign = await http.post(
                f"http://127.0.0.1:{port}/mcp",
                headers={"Host": "evil.example", "Content-Type": "application/json"},
                content=b"{}",
            )
        assert foreign.status_code == 421
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert names == {"search", "get", "status"}
            status = await client.call_tool("status", {})
            assert status.structured_content and status.structured_content["records"] == GSM8K_LINES


@pytest.mark.slow
async def test_a_folder_that_does_not_exist_yet(tmp_path: Path) -> None:
    home = tmp_path / "memory"
    async with serving(home) as client:
        for name, args in [("search", {"query": "eggs"}), ("status", {}), ("get", {"id": "x"})]:
            result = await client.call_tool(name, args)
            assert result.is_error and f"no memory folder at {home}" in _text(result), name
    assert not home.exists()  # a reader creates nothing


async def test_a_request_waits_a_bounded_time_behind_the_servers_own_import(
    home: Path, embedder: Any
) -> None:
    access = FolderAccess(home, embedder=embedder, wait=0.2)
    async with access.open(write="mcp add"):
        with pytest.raises(FolderBusyError, match="this server is busy with `mcp add`"):
            async with access.open():
                pass
    async with access.open() as memory:  # free again
        assert (await memory.status()).records == GSM8K_LINES
    await access.aclose()


async def test_back_to_back_requests_leave_room_for_an_import(home: Path, embedder: Any) -> None:
    access = FolderAccess(home, embedder=embedder, wait=10)
    stop = asyncio.Event()

    async def requests() -> int:
        served = 0
        while not stop.is_set():
            async with access.open():
                served += 1
        return served

    async with asyncio.TaskGroup() as tg:
        serving_task = tg.create_task(requests())
        while not (home / "memory.lock").read_text():  # the first request holds the folder
            await asyncio.sleep(0.01)
        importer = await acquire_lock(home, wait=10)  # what `memtrails add` does on open
        stop.set()
        importer.release()
    assert serving_task.result() >= 1
    await access.aclose()


async def test_a_cancelled_lock_attempt_leaves_the_folder_free(tmp_path: Path) -> None:
    cancelled = 0
    for _ in range(20):
        attempt = asyncio.ensure_future(acquire_lock(tmp_path, role=READER))
        await asyncio.sleep(0)  # the attempt's thread is started, not finished
        attempt.cancel()
        try:
            (await attempt).release()  # it won the race: nothing was cancelled
        except asyncio.CancelledError:
            cancelled += 1
        await asyncio.sleep(0.05)  # the thread has finished by now
        FolderLock(tmp_path).release()  # free again (raises MemoryLockedError if leaked)
    assert cancelled > 0


def test_http_says_its_address_in_one_line_and_ctrl_c_stops_it(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a free port; the server binds it right after
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv = [MEMTRAILS, "mcp", "--home", str(tmp_path / "h"), "--http", str(port)]
    said = tmp_path / "stderr"
    with said.open("w") as stderr:
        server = subprocess.Popen(argv, stderr=stderr)
    try:
        for _ in range(300):  # until something listens
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None, said.read_text()
            time.sleep(0.1)
        # The folder does not exist yet: one line says so (a typo shows at once), then the
        # address, one line.
        address = f"serving MCP on http://127.0.0.1:{port}/mcp (Ctrl-C stops)\n"
        none_yet, _, rest = said.read_text().partition("\n")
        assert none_yet.startswith(f"no memory folder at {tmp_path / 'h'} yet")
        assert rest == address  # said at start, one line
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=60)
    assert server.returncode == 130
    assert said.read_text().partition("\n")[2].removeprefix(address).strip() == (
        "interrupted: the server stopped; the memory folder is as the last request left it"
    )
