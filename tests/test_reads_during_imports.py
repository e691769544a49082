"""Every import answers other processes' reads while it runs, not only ``memtrails add``: a
script's ``Memory.ingest`` (and ``add_path``, ``add_git``), the MCP ``add`` tool; its server
goes however the import ends; a reader whose import ends under it reads the folder itself
(real processes where the behaviour crosses them)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers import memtrails_cli as cli
from helpers import until

from memtrails import Memory
from memtrails.folder.lock import SERVING_IMPORT, is_lender
from memtrails.mcp.access import FolderAccess
from memtrails.mcp.tools import add_tool, get_tool, search_tool, status_tool
from memtrails.service import RemoteMemory, find_service
from memtrails.service.client import imported_through
from memtrails.service.discovery import SERVICE_FILE, read_token
from memtrails.service.during_import import START_AFTER
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.slow

MEMTRAILS = str(Path(sys.executable).parent / "memtrails")


def said(home: Path) -> dict[str, Any] | None:
    """``service.json`` as written (this process's own too, which find_service skips)."""
    try:
        return dict(json.loads((home / SERVICE_FILE).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def lock_role(home: Path) -> str:
    """What the folder's lock says its holder does."""
    return (home / "memory.lock").read_text(encoding="utf-8").strip().partition(" ")[2]


async def searched(home: Path, query: str) -> list[dict[str, Any]]:
    """``memtrails search --json`` in another process, until it finds something (the first
    batch in the index); each run must succeed."""
    hits: list[dict[str, Any]] = []

    async def found() -> bool:
        code, out, err = await cli("search", query, "--home", str(home), "--json")
        assert code == 0, err
        hits[:] = json.loads(out)
        return bool(hits)

    await until(found, 60)
    return hits


SCRIPT = """
import asyncio, sys
from pathlib import Path
from memtrails import Memory
from memtrails.testing import HashingEmbedder

home, stop = Path(sys.argv[1]), Path(sys.argv[2])

async def rows():
    n = 0
    while not stop.exists():  # a database cursor that keeps finding rows
        yield {"id": f"row-{n}", "text": f"ticket {n}: the ferry timetable changed again"}
        n += 1
        await asyncio.sleep(0.01)

async def main():
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(rows(), name="app.db:tickets", batch=8, idle=0.05)
        print("ingested", report.added, flush=True)
        await asyncio.to_thread(sys.stdin.readline)  # still open: the parent looks first

asyncio.run(main())
"""


async def test_a_scripts_ingest_answers_other_processes_reads_and_refuses_their_writes(
    tmp_path: Path,
) -> None:
    home, stop = tmp_path / "memory", tmp_path / "stop"
    script = await asyncio.create_subprocess_exec(
        sys.executable, "-c", SCRIPT, str(home), str(stop),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert script.stdin is not None and script.stdout is not None
    try:

        def serving() -> bool:
            assert script.returncode is None, "the script ended before the checks"
            info = find_service(home)
            return info is not None and info.pid == script.pid

        await until(serving, 120)
        info = find_service(home)
        assert info is not None and info.importing is not None
        assert info.importing.startswith("python -c")

        # Another process's search is answered with what the script has written so far.
        hits = await searched(home, "ferry timetable")
        assert all(hit["source"] == "app.db:tickets" for hit in hits)
        code, out, err = await cli("status", "--home", str(home))
        assert code == 0, err
        assert "importing: python -c" in out and f"(pid {script.pid})" in out
        # Its writes are refused in one line naming the script's import.
        code, out, err = await cli("forget", hits[0]["id"], "--home", str(home))
        assert code == 1
        assert f"an import is running (pid {script.pid}: python -c" in err, err
        assert "Traceback" not in err

        # The import ends: its server and service.json go before the script closes the
        # folder, and the lock no longer says it serves.
        stop.touch()
        line = (await script.stdout.readline()).decode().split()
        assert line[0] == "ingested" and int(line[1]) > 0
        assert said(home) is None and find_service(home) is None
        assert is_lender(lock_role(home))
        # A reader that comes now waits for the folder (before, it was refused at once).
        show = asyncio.create_task(cli("show", "row-0", "--home", str(home), "--json"))
        await asyncio.sleep(1.0)  # time to find the folder held (not an assert on time)
        script.stdin.write(b"\n")
        await script.stdin.drain()
        _, err_bytes = await script.communicate()
        assert script.returncode == 0, err_bytes.decode()
        code, out, err = await show
        assert code == 0, err
        assert json.loads(out)["id"] == "row-0"
    finally:
        if script.returncode is None:
            script.kill()
            await script.wait()
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        assert not memory.remote
        assert (await memory.status()).records == int(line[1])


async def rows_then(home: Path, fail: asyncio.Event) -> AsyncIterator[dict[str, str]]:
    """Rows until this process serves the folder's reads; then it waits, and fails once
    ``fail`` is set."""
    n = 0
    while said(home) is None:
        yield {"id": f"n{n}", "text": f"note {n} on the harbour crane"}
        n += 1
        await asyncio.sleep(0.02)
    await fail.wait()
    raise RuntimeError("the database connection was lost")


@pytest.mark.parametrize("how", ["cancelled", "failing"])
async def test_an_ingest_that_is_cancelled_or_fails_takes_its_server_down(
    tmp_path: Path, how: str
) -> None:
    home = tmp_path / "memory"
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        fail = asyncio.Event()
        task = asyncio.create_task(
            memory.ingest(rows_then(home, fail), name="db", batch=4, idle=0.05)
        )
        await until(lambda: said(home) is not None, 60)
        info = said(home)
        assert info is not None and info["pid"] == os.getpid()
        assert lock_role(home) == SERVING_IMPORT
        url = f"http://127.0.0.1:{info['port']}/v1/health"
        headers = {"Authorization": f"Bearer {read_token(home)}"}
        async with httpx.AsyncClient() as client:
            assert (await client.get(url, headers=headers)).status_code == 200
        if how == "cancelled":
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        else:
            fail.set()
            with pytest.raises(RuntimeError, match="connection was lost"):
                await task
        # Gone with the import, though the memory is still open: no orphan server.
        assert said(home) is None
        assert is_lender(lock_role(home))
        async with httpx.AsyncClient() as client:
            with pytest.raises(httpx.ConnectError):
                await client.get(url, headers=headers)
        assert not [t for t in asyncio.all_tasks() if "reads during import" in t.get_name()]
        assert (await memory.status()).records > 0  # what it wrote before is kept


async def test_several_imports_in_one_serving_reads_block_share_one_server(
    tmp_path: Path,
) -> None:
    home = tmp_path / "memory"
    seen: list[dict[str, Any] | None] = []

    async def rows(table: str) -> AsyncIterator[dict[str, str]]:
        yield {"id": f"{table}-1", "text": f"first row of {table}"}
        await until(lambda: said(home) is not None, 60)
        seen.append(said(home))
        yield {"id": f"{table}-2", "text": f"second row of {table}"}

    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        async with memory.serving_reads():
            await memory.ingest(rows("notes"), name="app.db:notes")
            between = said(home)  # the block still serves between its imports
            await memory.ingest(rows("tickets"), name="app.db:tickets")
            assert lock_role(home) == SERVING_IMPORT
        assert said(home) is None
    assert between is not None
    assert seen == [between, between]  # one server: the same port, started once


async def test_a_memory_opened_with_serve_reads_false_serves_nothing(tmp_path: Path) -> None:
    home = tmp_path / "memory"
    looked: list[tuple[dict[str, Any] | None, str]] = []

    async def rows() -> AsyncIterator[dict[str, str]]:
        yield {"id": "1", "text": "a row"}
        await asyncio.sleep(START_AFTER + 1.0)  # past the moment an import starts serving
        looked.append((said(home), lock_role(home)))
        yield {"id": "2", "text": "another row"}

    async with Memory.open(home, embedder=HashingEmbedder(), serve_reads=False) as memory:
        assert not memory.serves_reads
        await memory.ingest(rows(), name="db")
    assert looked == [(None, "")]


READER = """
import asyncio, sys
from memtrails import Memory

async def main() -> None:
    print("opening", flush=True)
    async with Memory.open(sys.argv[1], brief=True, catch_up=False) as memory:
        print(memory.remote, (await memory.get("a")) is not None, flush=True)

asyncio.run(main())
"""


async def test_a_reader_that_comes_before_a_scripts_import_serves_waits_for_it(
    tmp_path: Path,
) -> None:
    """A script holds the folder from its ``Memory.open`` on, before its import starts (and
    serves 1.5 s later): a reader that comes then waits for the service (before, it was
    refused at once)."""
    home = tmp_path / "memory"
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        assert is_lender(lock_role(home))  # from the open on, before any import
        reader = await asyncio.create_subprocess_exec(
            sys.executable, "-c", READER, str(home),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        assert reader.stdout is not None
        assert await reader.stdout.readline() == b"opening\n"
        await asyncio.sleep(1.0)  # time to find the folder held (not an assert on time)
        answered = asyncio.create_task(reader.communicate())

        async def rows() -> AsyncIterator[dict[str, str]]:
            yield {"id": "a", "text": "the ferry leaves at nine"}
            while not answered.done():  # the import runs until the reader has its answer
                await asyncio.sleep(0.05)

        await memory.ingest(rows(), name="notes", idle=0.05)
        out, err = await answered
        assert reader.returncode == 0, err.decode()
        assert out.decode().split() == ["True", "True"]


async def test_the_mcp_add_tool_answers_other_processes_reads_while_it_imports(
    tmp_path: Path,
) -> None:
    home = tmp_path / "memory"
    source = tmp_path / "notes.jsonl"
    with source.open("w", encoding="utf-8") as f:
        for n in range(2000):
            f.write(json.dumps({"id": f"n{n}", "text": f"note {n}: the lighthouse keeper"}) + "\n")
    # A slow model: the import runs far longer than the checks.
    access = FolderAccess(home, embedder=HashingEmbedder(delay=1.0))
    adding = asyncio.create_task(add_tool(access, str(source)))
    try:
        await until(lambda: said(home) is not None and (home / "records.jsonl").exists(), 60)
        info = said(home)
        assert info is not None and info["importing"].endswith(f": add {source}")
        assert lock_role(home) == SERVING_IMPORT
        hits = await searched(home, "lighthouse keeper")
        assert hits[0]["source"] == str(source.resolve())
        code, _, err = await cli("forget", "n0", "--home", str(home))
        assert code == 1 and f"an import is running (pid {os.getpid()}" in err, err
    finally:
        adding.cancel()
        with pytest.raises(asyncio.CancelledError):
            await adding
        await access.aclose()
    assert said(home) is None
    assert not (home / "memory.lock").read_text().strip()  # released


async def test_the_mcp_servers_own_reads_are_answered_while_its_add_imports(
    tmp_path: Path,
) -> None:
    """A search sent to the server whose ``add`` runs is answered from what it has written
    so far (before, it waited ``--wait`` seconds behind the add, then said it was busy)."""
    home = tmp_path / "memory"
    source = tmp_path / "notes.jsonl"
    with source.open("w", encoding="utf-8") as f:
        for n in range(2000):
            f.write(json.dumps({"id": f"n{n}", "text": f"note {n}: the lighthouse keeper"}) + "\n")
    access = FolderAccess(home, embedder=HashingEmbedder(delay=1.0), wait=1.0)
    adding = asyncio.create_task(add_tool(access, str(source)))
    try:
        await until(lambda: said(home) is not None, 60)  # its import serves reads
        found: dict[str, Any] = {}

        async def answered() -> bool:
            assert not adding.done(), "the add ended before the checks"
            found.update(await search_tool(access, "lighthouse keeper", k=3))
            return found["count"] > 0

        await until(answered, 60)
        assert {row["source"] for row in found["results"]} == {str(source.resolve())}
        assert (await get_tool(access, "n0"))["id"] == "n0"
        # Its status says the counts are those of the add that runs, as a client's does.
        status = await status_tool(access, writes=True)
        assert status["importing"]["command"].endswith(f": add {source}")
        assert status["importing"]["pid"] == os.getpid()
        assert not adding.done()
    finally:
        adding.cancel()
        with pytest.raises(asyncio.CancelledError):
            await adding
        await access.aclose()
    assert not (home / "memory.lock").read_text().strip()  # released


HOLDER = """
import asyncio, sys
from memtrails import Memory

async def rows():
    yield {"id": "ferry", "text": "the ferry to the island leaves at nine"}
    yield {"id": "bus", "text": "the bus to the airport leaves at ten"}
    await asyncio.to_thread(sys.stdin.readline)  # until told to end

async def main():
    async with Memory.open(sys.argv[1], model="minilm", threads=1) as memory:
        await memory.ingest(rows(), name="notes", idle=0.05)
        print("ended", flush=True)  # its server is down; the folder is held a moment more
        await asyncio.sleep(1.0)
    print("closed", flush=True)

asyncio.run(main())
"""


async def test_a_reader_whose_import_ends_under_it_reads_the_folder_itself(
    tmp_path: Path,
) -> None:
    """A client of an import's server (a script's ``Memory.open``, ``memtrails mcp``'s
    request) that reads after the import ended gets the answer from the folder, once the
    import lets go of it; before, "the service ... did not answer"."""
    home = tmp_path / "memory"
    holder = await asyncio.create_subprocess_exec(
        sys.executable, "-c", HOLDER, str(home),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert holder.stdin is not None and holder.stdout is not None
    access = FolderAccess(home, threads=1)
    try:

        async def written() -> bool:
            assert holder.returncode is None, "the import ended before the checks"
            info = find_service(home)
            return info is not None and info.pid == holder.pid and (home / "table.sqlite").exists()

        await until(written, 180)
        remote = await Memory.open(home)
        assert isinstance(remote, RemoteMemory)
        await until(lambda: _found(remote), 60)
        async with access.open(model=True) as through:
            assert through.remote
            holder.stdin.write(b"end\n")
            await holder.stdin.drain()
            assert await holder.stdout.readline() == b"ended\n"
            assert find_service(home) is None

            # The script's client: answered from the folder once the import lets go.
            hits = await remote.search("when does the ferry leave?", k=1)
            assert [hit.id for hit in hits] == ["ferry"]
            assert remote.handed_over and imported_through(remote) is None
            assert (await remote.status()).records == 2
            assert (await remote.get("bus")) is not None
            assert [r.id async for r in remote.records()] == ["ferry", "bus"]
            await remote.aclose()  # lets go of the folder it read

            # The MCP server's request, with the server's own model.
            hits = await through.search("the bus to the airport", k=1)
            assert [hit.id for hit in hits] == ["bus"]
        out, err = await holder.communicate()
        assert holder.returncode == 0, err.decode()
        assert out == b"closed\n"
    finally:
        await access.aclose()
        if holder.returncode is None:
            holder.kill()
            await holder.wait()


async def _found(remote: Memory) -> bool:
    return [hit.id for hit in await remote.search("ferry", k=1)] == ["ferry"]


LEAN = """
import asyncio, json, sys
from pathlib import Path
from memtrails import Memory
from memtrails.testing import HashingEmbedder

home = Path(sys.argv[1])
served = []

async def rows():
    for n in range(40):
        yield {"id": f"n{n}", "text": f"note {n} about the harbour"}
        await asyncio.sleep(0.1)
        served.append((home / "service.json").exists())

async def main():
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        await memory.ingest(rows(), batch=1)
    print(json.dumps({"served": any(served), "mcp": "mcp.server" in sys.modules}))

asyncio.run(main())
"""


async def test_an_imports_read_server_leaves_the_mcp_sdk_unloaded(tmp_path: Path) -> None:
    """Its readers use /v1 (memtrails mcp over stdio too): an import that serves reads does
    not load the MCP SDK, which held 30 MiB more of a 100k import's memory."""
    script = await asyncio.create_subprocess_exec(
        sys.executable, "-c", LEAN, str(tmp_path / "memory"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    out, err = await script.communicate()
    assert script.returncode == 0, err.decode()
    assert json.loads(out) == {"served": True, "mcp": False}
