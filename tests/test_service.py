"""`memtrails serve`: the HTTP API, its guard, jobs, streaming ingest, the CLI and
``Memory.open`` routed through it, MCP at /mcp, stops and kills (real model, real Qdrant Edge)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from helpers import gsm8k_lines
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from memtrails import Memory
from memtrails.add import add_path
from memtrails.service import RemoteMemory, find_service
from memtrails.service.discovery import SERVICE_FILE, ServiceInfo

# Each test starts the service (a real model, a real index, an HTTP server).
pytestmark = pytest.mark.slow

MEMTRAILS = str(Path(sys.executable).parent / "memtrails")
BUILT = 40


@pytest.fixture(scope="module")
def built(corpora: Path, embedder: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of the first 40 GSM8K problems, and two more slices to import beside it."""
    root = tmp_path_factory.mktemp("served")
    source = gsm8k_lines(corpora, 0, BUILT, root / "first.jsonl")
    gsm8k_lines(corpora, 100, 400, root / "more.jsonl")
    gsm8k_lines(corpora, 400, 460, root / "other.jsonl")

    async def build() -> None:
        async with Memory.open(root / "memory", embedder=embedder) as memory:
            assert (await add_path(memory, source)).added == BUILT

    asyncio.run(build())
    return root


@pytest.fixture
def home(built: Path, tmp_path: Path) -> Path:
    for name in ("more.jsonl", "other.jsonl"):
        shutil.copy(built / name, tmp_path / name)
    shutil.copytree(built / "memory", tmp_path / "memory")
    return tmp_path / "memory"


class Service:
    """A ``memtrails serve`` subprocess and an httpx client carrying its token."""

    def __init__(self, proc: subprocess.Popen[bytes], info: ServiceInfo, log: Path) -> None:
        self.proc, self.info, self.log = proc, info, log
        self.http = httpx.AsyncClient(
            base_url=info.url, headers={"Authorization": f"Bearer {info.token}"}, timeout=120
        )

    async def json(self, method: str, url: str, **kw: Any) -> Any:
        response = await self.http.request(method, url, **kw)
        assert response.status_code < 300, response.text
        return response.json()

    async def wait_job(self, job_id: str) -> dict[str, Any]:
        last: dict[str, Any] = {}
        async with self.http.stream("GET", f"/v1/imports/{job_id}/events") as events:
            async for line in events.aiter_lines():
                if line:
                    last = json.loads(line)
        return last


def start(home: Path) -> Service:
    log = home.parent / f"serve-{time.monotonic_ns()}.log"
    with log.open("wb") as out:  # the child keeps its own copy of the descriptor
        proc = subprocess.Popen(
            [MEMTRAILS, "serve", "--home", str(home), "--port", "0", "--threads", "2"],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        info = find_service(home)
        if info is not None:
            try:
                httpx.get(
                    f"{info.url}/v1/health", headers={"Authorization": f"Bearer {info.token}"}
                )
                return Service(proc, info, log)
            except httpx.ConnectError:
                pass
        assert proc.poll() is None, log.read_text()
        time.sleep(0.1)
    proc.kill()
    raise AssertionError(f"the service did not start: {log.read_text()}")


def stop(service: Service, sig: int = signal.SIGTERM) -> int:
    if service.proc.poll() is None:
        service.proc.send_signal(sig)
    code = service.proc.wait(60)
    output = service.log.read_text()
    print(output)
    assert "Traceback" not in output
    return code


@pytest.fixture
async def service(home: Path) -> AsyncIterator[Service]:
    served = start(home)
    yield served
    await served.http.aclose()
    assert stop(served) == 0
    assert not (home / SERVICE_FILE).exists()  # a clean stop removes it


async def test_the_guard_refuses_what_it_must_and_the_service_keeps_serving(
    service: Service,
) -> None:
    url = service.info.url
    async with httpx.AsyncClient(base_url=url) as bare:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic x"}):
            refused = await bare.get("/v1/status", headers=headers)
            assert refused.status_code == 401
            assert "service.token" in refused.json()["error"]
        good = {"Authorization": f"Bearer {service.info.token}"}
        forged = await bare.get("/v1/status", headers={**good, "Host": "evil.example"})
        assert forged.status_code == 421
        rebound = await bare.get("/mcp", headers={**good, "Host": "evil.example:80"})
        assert rebound.status_code == 421
        foreign = await bare.get("/v1/status", headers={**good, "Origin": "http://evil.example"})
        assert foreign.status_code == 403
        assert "access-control-allow-origin" not in foreign.headers
    http = service.http
    bad = [
        ("POST", "/v1/search", {"json": {"query": "eggs", "k": 0}}),
        ("POST", "/v1/search", {"json": {"query": "eggs", "k": 101}}),
        ("POST", "/v1/search", {"json": {"query": ""}}),
        ("POST", "/v1/search", {"json": {"query": "eggs", "since": "not a date"}}),
        ("POST", "/v1/search", {"content": b"[1,"}),
        ("POST", "/v1/search", {"content": b"x" * (2 << 20)}),
        ("POST", "/v1/imports", {"json": {"paths": ["relative.jsonl"]}}),
        ("POST", "/v1/imports", {"json": {"paths": ["/no/such/file.jsonl"]}}),
        ("POST", "/v1/imports", {"json": {"paths": "/x", "bogus": 1}}),
        ("GET", "/v1/get", {"params": {"id": "no such record"}}),
        ("GET", "/v1/imports/import-99", {}),
        ("GET", "/v1/nothing", {}),
        ("DELETE", "/v1/search", {}),
    ]
    for method, path, kw in bad:
        response = await http.request(method, path, **kw)
        assert 400 <= response.status_code < 500, (path, kw, response.text)
        assert response.json()["error"], response.text
    status = await service.json("GET", "/v1/status")
    assert status["records"] == BUILT and status["service"]["pid"] == service.info.pid


async def test_pipes_devices_deep_bodies_and_odd_filters_are_answered(
    service: Service, home: Path
) -> None:
    # A FIFO held the import request open until some writer came (and the service's stop
    # behind it); /dev/zero never ended; a body nested 100,000 deep was a 500; a lone
    # surrogate in a filter a 500 (TypeError in the index's filter).
    fifo = home.parent / "a-pipe"
    os.mkfifo(fifo)
    deep = b'{"query": "eggs", "a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    refused = [
        ("POST", "/v1/imports", {"json": {"paths": [str(fifo)], "kind": "jsonl"}}, "a pipe"),
        ("POST", "/v1/imports", {"json": {"paths": ["/dev/zero"], "kind": "jsonl"}}, "a pipe"),
        ("POST", "/v1/search", {"content": deep}, "too deep"),
    ]
    for method, path, kw, why in refused:
        response = await service.http.request(method, path, timeout=30, **kw)
        assert response.status_code == 400 and why in response.json()["error"], response.text
    for key, status, count in (("kind", 200, 0), ("author", 200, 0), ("source", 400, None)):
        odd = b'{"query": "eggs", "%s": "\\udc80"}' % key.encode()
        response = await service.http.post("/v1/search", content=odd, timeout=30)
        assert response.status_code == status, response.text  # a source that names none: 400
        assert response.json().get("count") == count
    assert (await service.json("GET", "/v1/imports"))["imports"] == []
    assert (await service.json("GET", "/v1/status"))["records"] == BUILT
    # A source named as the CLI takes it, by its file's name; one that names none is a 400
    # (both matched nothing, unsaid).
    whole = (await service.json("GET", "/v1/sources"))["sources"][0]["source"]
    by_name = {"query": "eggs", "source": os.path.basename(whole.rstrip("/"))}
    found = await service.json("POST", "/v1/search", json=by_name)
    assert found["count"] > 0 and {r["source"] for r in found["results"]} == {whole}
    for method, path, kw in (
        ("POST", "/v1/search", {"json": {"query": "eggs", "source": "no-such-source"}}),
        ("GET", "/v1/records", {"params": {"source": "no-such-source"}}),
        ("GET", "/v1/get", {"params": {"id": "x", "source": "no-such-source"}}),
    ):
        response = await service.http.request(method, path, **kw)
        assert response.status_code == 400 and "no source matches" in response.json()["error"]


@pytest.mark.slow
async def test_a_connection_that_never_sends_its_head_is_closed(service: Service) -> None:
    """A client that opens connections and sends a header line now and then (slowloris)
    does not hold them: each is closed at the head's deadline, and others are served."""
    from memtrails.service._http import HEAD_DEADLINE

    url = httpx.URL(service.info.url)
    opened = [await asyncio.open_connection(url.host, url.port) for _ in range(3)]
    for _, writer in opened:
        writer.write(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")
    async with asyncio.timeout(HEAD_DEADLINE * 3):
        for reader, writer in opened:
            # closed by the service: an end, or a reset when a drip crossed the close
            with contextlib.suppress(ConnectionResetError, BrokenPipeError):
                while not reader.at_eof():
                    writer.write(b"X-Drip: 1\r\n")
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(1):
                            await reader.read()
    for _, writer in opened:
        writer.close()
    assert (await service.http.get("/v1/health")).status_code == 200


async def test_search_get_sources_and_forget(service: Service) -> None:
    found = await service.json("POST", "/v1/search", json={"query": "ducks lay eggs", "k": 3})
    first = found["results"][0]
    assert "eggs" in first["snippet"] and found["count"] == 3
    record = await service.json("GET", "/v1/get", params={"id": first["uid"]})
    assert record["id"] == first["id"] and "ducks" in record["text"]
    sources = (await service.json("GET", "/v1/sources"))["sources"]
    assert [s["records"] for s in sources] == [BUILT] and sources[0]["state"] is not None
    gone = await service.json("POST", "/v1/forget", json={"id": first["id"]})
    assert gone["forgotten"] == 1
    assert (await service.http.get("/v1/get", params={"id": first["uid"]})).status_code == 404
    whole = await service.json(
        "POST", "/v1/forget", json={"source": sources[0]["source"], "all": True}
    )
    assert whole["forgotten"] == BUILT - 1
    assert (await service.json("GET", "/v1/status"))["records"] == 0


@pytest.mark.slow
async def test_searches_answer_while_two_imports_run_and_see_their_batches(
    service: Service, home: Path
) -> None:
    more, other = str(home.parent / "more.jsonl"), str(home.parent / "other.jsonl")
    first = await service.json("POST", "/v1/imports", json={"paths": [more], "batch": 32})
    second = await service.json("POST", "/v1/imports", json={"paths": [other]})
    again = await service.http.post("/v1/imports", json={"paths": [more]})
    assert again.status_code == 409  # one import per source at a time
    listed = (await service.json("GET", "/v1/imports"))["imports"]
    assert {j["id"] for j in listed} == {first["id"], second["id"]}
    answered, seen_growing = 0, set()
    while (await service.json("GET", f"/v1/imports/{first['id']}"))["state"] == "running":
        hits = await service.json(
            "POST", "/v1/search", json={"query": "how many", "k": 100, "source": more}
        )
        answered += 1
        seen_growing.add(hits["count"])
        status = await service.json("GET", "/v1/status")
        assert status["records"] >= BUILT
    done = await service.wait_job(first["id"])
    assert done["state"] == "done" and done["report"]["added"] == 300
    assert (await service.wait_job(second["id"]))["report"]["added"] == 60
    # Searches were answered during the import, and saw its records arrive batch by batch.
    assert answered >= 3
    assert any(0 < n < 100 for n in seen_growing), seen_growing
    assert (await service.json("GET", "/v1/status"))["records"] == BUILT + 360


async def test_a_cancelled_import_keeps_what_it_wrote(service: Service, home: Path) -> None:
    job = await service.json(
        "POST", "/v1/imports", json={"paths": [str(home.parent / "more.jsonl")], "batch": 16}
    )
    async with service.http.stream("GET", f"/v1/imports/{job['id']}/events") as events:
        async for line in events.aiter_lines():
            if line and json.loads(line)["report"]["added"] > 0:
                break
    cancelled = await service.json("DELETE", f"/v1/imports/{job['id']}")
    assert cancelled["state"] == "cancelled"
    status = await service.json("GET", "/v1/status")
    assert BUILT + 16 <= status["records"] < BUILT + 300
    assert status["indexed"] == status["records"]


async def test_records_streamed_from_a_generator_are_found_by_the_next_search(
    service: Service, home: Path
) -> None:
    async def lines() -> AsyncIterator[bytes]:
        first = {"id": "n1", "text": "The lighthouse keeper logs every storm in a green notebook."}
        line = json.dumps(first).encode() + b"\n"
        yield line[:30]  # one line, sent in two pieces
        yield line[30:]
        yield b"not json\n"
        yield json.dumps({"id": "n2", "text": "Tide tables for the harbour."}).encode() + b"\n"

    done = await service.json("POST", "/v1/ingest", params={"name": "notebook"}, content=lines())
    assert done["report"]["added"] == 2 and done["report"]["skipped"] == 1
    assert done["report"]["errors"][0]["where"] == "line 2"
    # Memory.open finds the service by itself and answers with the same API.
    async with Memory.open(home) as memory:
        assert isinstance(memory, RemoteMemory) and memory.remote

        def records() -> Iterator[dict[str, Any]]:
            yield {"id": "g1", "text": "Owls hunt voles in the barley field at dusk."}

        report = await memory.ingest(records(), name="generator")
        assert report.added == 1
        hits = await memory.search("where do owls hunt?", k=1)
        assert hits[0].id == "g1" and hits[0].source == "generator"
        hits = await memory.search("storm notebook", k=1, source="notebook")
        assert hits[0].id == "n1"
        assert (await memory.get("n2", source="notebook")) is not None
        assert (await memory.status()).records == BUILT + 3
        assert await memory.forget("g1") == 1
        with pytest.raises(Exception, match="not available through the running service"):
            await memory.reindex()


@pytest.mark.slow
async def test_the_cli_goes_through_the_service(service: Service, home: Path) -> None:
    env = {**os.environ, "MEMTRAILS_HOME": str(home)}

    async def cli(*args: str, stdin: bytes | None = None) -> str:
        proc = await asyncio.create_subprocess_exec(
            MEMTRAILS, *args, env=env, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await proc.communicate(stdin)
        assert proc.returncode == 0, err.decode()
        return out.decode()

    report = json.loads(await cli("add", str(home.parent / "other.jsonl"), "--json"))
    assert report["added"] == 60
    piped = b'{"id": "p1", "text": "A piped note about sourdough starters."}\n'
    report = json.loads(await cli("add", "-", "--name", "pipe", "--json", stdin=piped))
    assert report["added"] == 1
    note = home.parent / "note.md"
    note.write_text("# Bees\n\nThe hive swarmed in May.\n")
    report = json.loads(await cli("add", str(note), "--json"))  # a lone note, sent as a record
    assert report["added"] == 1
    hits = json.loads(await cli("search", "sourdough", "--json", "--k", "1"))
    assert hits[0]["id"] == "p1"
    status = json.loads(await cli("status", "--json"))
    assert status["records"] == BUILT + 62
    assert "forgot 1 record" in await cli("forget", "p1")
    jobs = (await service.json("GET", "/v1/imports"))["imports"]
    assert [j["kind"] for j in jobs] == ["import", "ingest", "ingest"]  # all in the service
    # Ctrl-C on `memtrails add` cancels its import in the service, not the service.
    adding = await asyncio.create_subprocess_exec(
        MEMTRAILS, "add", str(home.parent / "more.jsonl"), "--batch", "16", env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    listed = jobs
    while len(listed) == len(jobs) or listed[-1]["report"]["added"] == 0:
        await asyncio.sleep(0.2)
        listed = (await service.json("GET", "/v1/imports"))["imports"]
    job = listed[-1]
    adding.send_signal(signal.SIGINT)
    _, err = await adding.communicate()
    assert adding.returncode != 0 and f"import {job['id']} cancelled" in err.decode()
    job = await service.json("GET", f"/v1/imports/{job['id']}")
    assert job["state"] == "cancelled"
    assert (await service.json("GET", "/v1/status"))["records"] >= BUILT + 61 + 16


async def test_an_add_through_the_service_shows_its_total_and_counts_copies(
    service: Service, home: Path
) -> None:
    import fcntl
    import pty
    import struct
    import termios

    mixed = home.parent / "mixed"  # a folder of .eml files (no byte estimate) and an mbox
    mixed.mkdir()
    for n in (1, 2):
        (mixed / f"m{n}.eml").write_text(
            f"From: a@example.org\nSubject: note {n}\nMessage-ID: <eml{n}@example.org>\n"
            f"Date: Mon, 1 Apr 2024 10:00:00 +0000\n\nThe {n}th note on beekeeping.\n"
        )
    mbox = Path(__file__).parent / "data" / "mail" / "copies-and-reused-ids.mbox"
    shutil.copy(mbox, mixed / "list.mbox")
    leader, follower = pty.openpty()  # stderr a terminal: the bar is drawn
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    drawn = b""

    def read_screen() -> None:
        nonlocal drawn
        with contextlib.suppress(OSError):  # EIO once the terminal's last writer is gone
            while chunk := os.read(leader, 1 << 16):
                drawn += chunk

    screen = asyncio.create_task(asyncio.to_thread(read_screen))
    try:
        adding = await asyncio.create_subprocess_exec(
            MEMTRAILS, "add", str(mixed), env={**os.environ, "MEMTRAILS_HOME": str(home)},
            stdout=asyncio.subprocess.PIPE, stderr=follower,
        )  # fmt: skip
        out, _ = await adding.communicate()
        os.close(follower)
        await screen
    finally:
        os.close(leader)
    assert adding.returncode == 0, drawn.decode(errors="replace")[-2000:]
    jobs = (await service.json("GET", "/v1/imports"))["imports"]
    assert jobs and jobs[-1]["kind"] == "import"  # the service ran it
    screen = drawn.decode(errors="replace")
    # each part's bar counts against the records counted beforehand: 2 files; 5 mails and a
    # copy of one (the copy is counted in the summary, not as an error)
    assert "/2 [" in screen and "/6 [" in screen, screen[-2000:]
    assert "added 7," in out.decode() and "duplicates folded: 1" in out.decode()


async def test_the_mcp_sdk_client_over_streamable_http(service: Service) -> None:
    headers = {"Authorization": f"Bearer {service.info.token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=120) as http:
        transport = streamable_http_client(f"{service.info.url}/mcp", http_client=http)
        async with Client(transport) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert names == {"search", "get", "status"}
            result = await client.call_tool("search", {"query": "ducks eggs", "k": 2})
            assert not result.is_error and result.structured_content
            assert result.structured_content["count"] == 2
    async with httpx2.AsyncClient(timeout=30) as http:  # no token: refused
        response = await http.post(f"{service.info.url}/mcp", json={})
        assert response.status_code == 401


async def test_an_mcp_client_searches_through_the_service_while_an_import_runs(
    service: Service,
) -> None:
    fed: asyncio.Queue[dict[str, str] | None] = asyncio.Queue()

    async def lines() -> AsyncIterator[bytes]:
        # The import stays open for as long as the test feeds it: no timing to guess.
        while (record := await fed.get()) is not None:
            yield json.dumps(record).encode() + b"\n"

    await fed.put(
        {"id": "hive", "text": "The beekeeper smoked the hive before lifting the frames."}
    )
    ingest = asyncio.create_task(
        service.json("POST", "/v1/ingest", params={"name": "feed", "batch": 1}, content=lines())
    )

    async def jobs() -> list[dict[str, Any]]:
        listed: list[dict[str, Any]] = (await service.json("GET", "/v1/imports"))["imports"]
        assert [j["kind"] for j in listed] in ([], ["ingest"]), listed
        return listed

    while not (listed := await jobs()) or listed[0]["report"]["added"] == 0:
        await asyncio.sleep(0.1)  # until the first record of the import is in the folder

    async def search(client: Client, query: str) -> list[dict[str, Any]]:
        result = await client.call_tool("search", {"query": query, "k": 3})
        words = " ".join(getattr(c, "text", "") for c in result.content)
        assert not result.is_error and result.structured_content, words
        hits: list[dict[str, Any]] = result.structured_content["results"]
        return hits

    headers = {"Authorization": f"Bearer {service.info.token}"}
    try:
        async with httpx2.AsyncClient(headers=headers, timeout=120) as http:
            transport = streamable_http_client(f"{service.info.url}/mcp", http_client=http)
            async with Client(transport) as client:
                for n in range(5):
                    # Another record goes in while the tool call is answered beside its write.
                    note = {"id": f"note{n}", "text": f"Field note {n}: the swallows returned."}
                    await fed.put(note)
                    hits = await search(client, "the beekeeper and the hive frames")
                    assert hits[0]["id"] == "hive" and hits[0]["source"] == "feed"
                    assert "eggs" in (await search(client, "ducks lay eggs"))[0]["snippet"]
                    # The answers came while the import ran.
                    assert (await jobs())[0]["state"] == "running"
                await fed.put(None)
                done = await ingest
                assert done["state"] == "done" and done["report"]["added"] == 6
                found = await search(client, "when did the swallows return?")
                assert found[0]["id"].startswith("note")
    finally:
        if not ingest.done():  # a failed check: end the import so the service stops cleanly
            await fed.put(None)
            with contextlib.suppress(Exception):
                await ingest
    status = await service.json("GET", "/v1/status")
    assert status["records"] == BUILT + 6 and status["indexed"] == status["records"]


@pytest.mark.slow
async def test_a_killed_service_loses_nothing_it_reported_and_reopens(home: Path) -> None:
    served = start(home)
    try:
        job = await served.json(
            "POST", "/v1/imports", json={"paths": [str(home.parent / "more.jsonl")], "batch": 16}
        )
        reported = 0
        async with served.http.stream("GET", f"/v1/imports/{job['id']}/events") as events:
            async for line in events.aiter_lines():
                if line:
                    reported = json.loads(line)["report"]["added"]
                    if reported >= 48:
                        served.proc.kill()  # kill -9 in the middle of the import
                        break
    except httpx.HTTPError:
        pass
    finally:
        await served.http.aclose()
    served.proc.wait(30)
    assert find_service(home) is None  # its service.json is stale: the pid is gone
    async with Memory.open(home) as memory:  # opens the folder itself, catching up the index
        assert not memory.remote
        status = await memory.status()
        assert status.records >= BUILT + reported
        assert status.indexed == status.records
        assert (await memory.check()).ok
    again = start(home)
    try:
        assert (await again.json("GET", "/v1/status"))["records"] == status.records
        # SIGINT in the middle of an import: a clean stop, and nothing reported is lost.
        job = await again.json(
            "POST", "/v1/imports", json={"paths": [str(home.parent / "more.jsonl")], "batch": 16}
        )
        while (progress := await again.json("GET", f"/v1/imports/{job['id']}"))["report"][
            "added"
        ] == 0:
            await asyncio.sleep(0.1)
    finally:
        await again.http.aclose()
        assert stop(again, signal.SIGINT) == 0
    assert not (home / SERVICE_FILE).exists()
    async with Memory.open(home) as memory:
        after = await memory.status()
        assert after.records >= status.records + progress["report"]["added"]
        assert after.pending_bytes == 0 and after.indexed == after.records


def test_serve_prints_a_systemd_unit_and_refuses_other_addresses(tmp_path: Path) -> None:
    unit = subprocess.run(
        [MEMTRAILS, "serve", "--home", str(tmp_path / "m e"), "--print-systemd-unit"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert (
        "ExecStart=" in unit
        and f'"{tmp_path / "m e"}"' in unit
        and "WantedBy=default.target" in unit
    )
    refused = subprocess.run(
        [MEMTRAILS, "serve", "--home", str(tmp_path), "--host", "0.0.0.0"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert refused.returncode == 2 and "--allow-remote" in refused.stderr
    assert not (tmp_path / "manifest.json").exists()


async def test_body_records_split_lines_across_chunks_and_skip_long_ones() -> None:
    from memtrails.records import RecordError
    from memtrails.service.imports import body_records

    async def chunks() -> AsyncIterator[bytes]:
        for piece in (
            b'{"id": "a", "te',
            b'xt": "x"}\n\n',
            b"[1]\n",
            b"x" * 40,
            b"yy\n",
            b'{"id": "b"}',
        ):
            yield piece

    items = [item async for item in body_records(chunks(), "s", max_line=32)]
    assert items[0] == {"id": "a", "text": "x"}
    assert isinstance(items[1], RecordError) and items[1].where == "line 3"
    assert isinstance(items[2], RecordError) and "longer than 32" in items[2].reason
    assert items[2].where == "line 4" and items[3] == {"id": "b"}


def test_a_stale_service_file_is_ignored(tmp_path: Path) -> None:
    from memtrails.service.discovery import ensure_token

    ensure_token(tmp_path)
    assert (tmp_path / "service.token").stat().st_mode & 0o777 == 0o600
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (tmp_path / SERVICE_FILE).write_text(
        json.dumps({"pid": dead.pid, "host": "127.0.0.1", "port": 1})
    )
    (tmp_path / "memory.lock").write_text(f"{dead.pid} memtrails serve\n")
    assert find_service(tmp_path) is None  # its process is gone
    alive = os.getppid()  # a live process that does not hold the folder's lock
    (tmp_path / SERVICE_FILE).write_text(json.dumps({"pid": alive, "host": "127.0.0.1", "port": 1}))
    assert find_service(tmp_path) is None
    (tmp_path / "memory.lock").write_text(f"{alive} memtrails serve\n")
    assert find_service(tmp_path) is not None


async def test_a_live_source_runs_as_a_job_with_its_progress_and_failure(tmp_path: Path) -> None:
    from memtrails.records import ImportReport
    from memtrails.service.jobs import Job, Jobs
    from memtrails.testing import HashingEmbedder

    class Feed:
        name = "feed"
        sources = ("feed",)

        async def run(self, memory: Memory, job: Job) -> ImportReport:
            rows = [{"id": "a", "text": "the first item of the feed"}]
            await memory.ingest(rows, name="feed", on_progress=job.progress)
            raise RuntimeError("the feed went away")

    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        async with Jobs(memory) as jobs:
            job = jobs.start_live(Feed())
            await jobs.wait(job)
            follow = [event async for event in job.follow(asyncio.Event())]
        assert job.kind == "live" and job.state == "failed"
        assert job.error is not None and "went away" in job.error
        assert follow[-1]["report"]["added"] == 1 and follow[-1]["state"] == "failed"
        assert (await memory.status()).records == 1


async def test_the_body_is_read_only_as_records_are_taken() -> None:
    from memtrails.service.imports import body_records

    pulled = 0

    async def chunks() -> AsyncIterator[bytes]:
        nonlocal pulled
        for n in range(1000):
            pulled += 1
            yield json.dumps({"id": str(n), "text": "x"}).encode() + b"\n"

    records = body_records(chunks(), "s")
    taken = [await anext(records) for _ in range(3)]
    assert [r["id"] for r in taken if isinstance(r, dict)] == ["0", "1", "2"]
    assert pulled == 3  # nothing read ahead of the pipeline: the socket waits instead
    await records.aclose()
