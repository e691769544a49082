"""A ``memtrails add`` run without a service answers other processes' reads while it imports:
the CLI's search, ``Memory.open`` in a script, ``memtrails mcp`` over stdio; writes are
refused naming the import; service.json goes when it ends, and a killed one's is ignored
(real subprocesses, the real model, a real corpus)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from helpers import memtrails_cli as cli
from helpers import until
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from memtrails import Memory, ServiceError
from memtrails.folder.lock import SERVING_IMPORT
from memtrails.service import RemoteMemory, find_service
from memtrails.service.discovery import SERVICE_FILE
from memtrails.service.during_import import reads_served, serving_import
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.slow

MEMTRAILS = str(Path(sys.executable).parent / "memtrails")
COPIES = 8  # of GSM8K's 1,319 problems: an import that runs far longer than the checks


def big_input(corpora: Path, out: Path) -> Path:
    """The real GSM8K test set, ``COPIES`` times over under distinct ids (one record each)."""
    lines = (corpora / "jsonl" / "gsm8k-test.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    with out.open("w", encoding="utf-8") as f:
        for copy in range(COPIES):
            for n, row in enumerate(rows):
                text = f"{row['question']}\n{row['answer']}"
                f.write(json.dumps({"id": f"c{copy}-{n}", "text": text}) + "\n")
    return out


def added_ids(home: Path) -> list[str]:
    """The ids of the records the import has written to the log so far."""
    path = home / "records.jsonl"
    if not path.exists():
        return []
    ids = []
    for line in path.read_text(encoding="utf-8").splitlines():
        with contextlib.suppress(ValueError, KeyError):  # a line being written
            ids.append(json.loads(line)["id"])
    return ids


@asynccontextmanager
async def importing(home: Path, source: Path) -> AsyncIterator[asyncio.subprocess.Process]:
    """A ``memtrails add`` of ``source`` into ``home``, running; killed if still running."""
    proc = await asyncio.create_subprocess_exec(
        MEMTRAILS, "add", str(source), "--home", str(home), "--model", "minilm",
        "--threads", "1", "--batch", "16", "-q",
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        yield proc
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def served(home: Path, proc: asyncio.subprocess.Process) -> None:
    """Wait until the import serves reads and has written a first batch."""

    def ready() -> bool:
        assert proc.returncode is None, "the import ended before the checks"
        info = find_service(home)
        return info is not None and info.pid == proc.pid and len(added_ids(home)) >= 16

    await until(ready, 300)


async def test_reads_are_answered_and_writes_refused_while_a_cli_add_imports(
    corpora: Path, tmp_path: Path
) -> None:
    home = tmp_path / "memory"
    source = big_input(corpora, tmp_path / "problems.jsonl")
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"id": "x", "text": "an unrelated note"}) + "\n")
    async with importing(home, source) as adding:
        await served(home, adding)
        info = find_service(home)
        assert info is not None and info.importing is not None
        assert info.importing.startswith("memtrails add") and str(source) in info.importing

        # The CLI's search finds a record the import has already written.
        with source.open(encoding="utf-8") as f:
            first = json.loads(f.readline())
        code, out, err = await cli("search", first["text"], "--home", str(home), "--json")
        assert code == 0, err
        hits = json.loads(out)
        assert hits and hits[0]["id"] == first["id"]
        assert hits[0]["id"] in added_ids(home)
        code, out, err = await cli("status", "--home", str(home))
        assert code == 0, err
        assert "records:" in out
        assert "importing: " in out and "what it has written so far" in out

        # A script's Memory.open gets the import's reads; its writes are refused.
        async with Memory.open(home) as memory:
            assert memory.remote
            found = await memory.search(first["text"], k=1)
            assert [hit.id for hit in found] == [first["id"]]
            with pytest.raises(ServiceError, match=f"an import is running \\(pid {adding.pid}"):
                await memory.forget(first["id"])
            # The API's status says whose counts these are.
            assert isinstance(memory, RemoteMemory)
            said = await memory.call("GET", "/v1/status")
            assert said["service"]["importing"].startswith("memtrails add"), said

        # Another process's add and forget are refused in one line naming the import.
        for args in (["add", str(other)], ["forget", first["id"]]):
            code, out, err = await cli(*args, "--home", str(home))
            assert code == 1, (args, out, err)
            assert f"an import is running (pid {adding.pid}: memtrails add" in err, err
            assert "Traceback" not in err

        # `memtrails mcp` over stdio answers a search; its forget is refused the same way.
        params = StdioServerParameters(
            command=MEMTRAILS, args=["mcp", "--home", str(home), "--allow-writes"]
        )
        with (tmp_path / "mcp-stderr.txt").open("w") as errlog:
            async with Client(
                stdio_client(params, errlog=errlog), read_timeout_seconds=300
            ) as client:
                result = await client.call_tool("search", {"query": first["text"], "k": 1})
                assert not result.is_error, result
                assert result.structured_content is not None
                assert result.structured_content["results"][0]["id"] == first["id"]
                status = await client.call_tool("status", {})
                assert status.structured_content is not None
                assert status.structured_content["importing"]["pid"] == adding.pid
                assert status.structured_content["writes_allowed"] is True
                refused = await client.call_tool("forget", {"id": first["id"]})
                assert refused.is_error
                said = " ".join(getattr(c, "text", "") for c in refused.content)
                assert "an import is running" in said, said
        assert "Traceback" not in (tmp_path / "mcp-stderr.txt").read_text()

        # Ctrl-C ends the import: what it wrote is kept, its service and service.json go.
        assert adding.returncode is None, "the import ended before the checks"
        adding.send_signal(signal.SIGINT)
        _, err_bytes = await adding.communicate()
        assert adding.returncode == 130, err_bytes.decode()
        assert b"Traceback" not in err_bytes
    assert not (home / SERVICE_FILE).exists()
    assert find_service(home) is None
    kept = added_ids(home)
    assert first["id"] in kept
    async with Memory.open(home, model="minilm") as memory:  # a plain open, as before
        assert not memory.remote
        assert (await memory.status()).records == len(set(kept))


async def test_a_killed_add_leaves_a_service_json_that_readers_ignore(
    corpora: Path, tmp_path: Path
) -> None:
    home = tmp_path / "memory"
    source = big_input(corpora, tmp_path / "problems.jsonl")
    async with importing(home, source) as adding:
        await served(home, adding)
        os.kill(adding.pid, signal.SIGKILL)
        await adding.wait()
    assert (home / SERVICE_FILE).exists()  # left behind
    assert find_service(home) is None  # and ignored: its pid is gone
    code, _, err = await cli("status", "--home", str(home))
    assert code == 0, err
    async with Memory.open(home) as memory:
        assert not memory.remote
        assert (await memory.status()).records > 0
    # The next import, holding the folder, removes the stale file.
    small = tmp_path / "small.jsonl"
    small.write_text(json.dumps({"id": "n1", "text": "a note after the crash"}) + "\n")
    code, _, err = await cli("add", str(small), "--home", str(home), "-q")
    assert code == 0, err
    assert not (home / SERVICE_FILE).exists()


READER = """
import asyncio, sys
from memtrails import Memory

async def main() -> None:
    print("opening", flush=True)
    async with Memory.open(sys.argv[1], brief=True, catch_up=False) as memory:
        print(memory.remote, (await memory.status()).records, flush=True)

asyncio.run(main())
"""


async def test_a_reader_that_comes_before_the_import_serves_waits_for_it(tmp_path: Path) -> None:
    """A reader that finds the folder held by a serving import before its service.json is
    written waits for it (before, it failed at once, as it does for any other import)."""
    home = tmp_path / "memory"
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        await memory.ingest([{"id": "a", "text": "the ferry leaves at nine"}], name="notes")
    with serving_import():
        async with Memory.open(home, embedder=HashingEmbedder()) as memory:
            pid, role = (home / "memory.lock").read_text().strip().split(" ", 1)
            assert (pid, role) == (str(os.getpid()), SERVING_IMPORT)
            reader = await asyncio.create_subprocess_exec(
                sys.executable, "-c", READER, str(home),
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            )  # fmt: skip
            assert reader.stdout is not None
            assert await reader.stdout.readline() == b"opening\n"
            await asyncio.sleep(1.0)  # time to find the folder held (not an assert on time)
            async with reads_served(memory, "memtrails add notes.jsonl", after=0):
                out, err = await reader.communicate()
                assert reader.returncode == 0, err.decode()
                assert out.decode().split() == ["True", "1"]
            assert not (home / SERVICE_FILE).exists()
        # The service's lock role ends with the import: a plain open works again.
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        assert not memory.remote and (await memory.status()).records == 1
