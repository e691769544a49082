"""A program that keeps a memory open (an agent's ``Memory.open``), a cron import and the
commands a user types, in pairs: each works, or fails at once saying what holds the folder
and what to do (real folders and processes; no wait of 10 s ending in "wait for it")."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import memtrails_cli as cli
from helpers import until

from memtrails import Memory, MemoryLockedError
from memtrails.folder.lock import (
    KEEPS_OPEN,
    LENDER_WAIT,
    READER,
    FolderLock,
    acquire_lock,
    is_lender,
    lender,
)
from memtrails.service import RemoteMemory, find_service
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.slow


def lock_role(home: Path) -> str:
    return (home / "memory.lock").read_text(encoding="utf-8").strip().partition(" ")[2]


def idle_for(home: Path, seconds: float) -> None:
    """Date the lock's last change of role ``seconds`` back: as if its holder had imported
    nothing for that long (what readers judge its idleness by)."""
    then = time.time() - seconds
    os.utime(home / "memory.lock", (then, then))


AGENT = """
import asyncio, sys
from memtrails import Memory
from memtrails.testing import HashingEmbedder

async def main():
    memory = await Memory.open(sys.argv[1], embedder=HashingEmbedder())  # kept open
    await memory.ingest([{"id": "a", "text": "the ferry leaves at nine"}], name="notes")
    print("ready", flush=True)
    await asyncio.to_thread(sys.stdin.readline)  # until told to end
    print((await memory.status()).records, flush=True)
    await memory.aclose()

asyncio.run(main())
"""


async def test_an_agent_that_keeps_a_memory_open_is_named_at_once_to_commands_and_cron(
    tmp_path: Path,
) -> None:
    """Before, each of them waited 10 s and failed with 'wait for it to finish' (the agent
    never finishes); a cron import was refused the same way."""
    home = tmp_path / "memory"
    notes = tmp_path / "cron.jsonl"
    notes.write_text(json.dumps({"id": "b", "text": "the bus leaves at ten"}) + "\n")
    agent = await asyncio.create_subprocess_exec(
        sys.executable, "-c", AGENT, str(home),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert agent.stdin is not None and agent.stdout is not None
    try:
        assert await agent.stdout.readline() == b"ready\n"
        assert is_lender(lock_role(home))  # between its imports: readers wait a moment
        idle_for(home, LENDER_WAIT + 50)  # an agent that has imported nothing for a minute
        for command in (
            ["search", "ferry"],
            ["status"],
            ["show", "a"],
            ["check"],
            ["reindex"],
            ["add", str(notes), "--model", "minilm"],  # the cron import
        ):
            code, out, err = await cli(*command, "--home", str(home))
            assert code == 1, (command, out, err)
            assert f"process {agent.pid} ({KEEPS_OPEN}: python -c" in err, (command, err)
            assert f"start `memtrails serve --home {home}` before it" in err, (command, err)
            assert "Traceback" not in err
        agent.stdin.write(b"\n")
        await agent.stdin.drain()
        out_bytes, err_bytes = await agent.communicate()
        assert agent.returncode == 0, err_bytes.decode()
        assert out_bytes.decode().split() == ["1"]  # the cron import added nothing meanwhile
    finally:
        if agent.returncode is None:
            agent.kill()
            await agent.wait()
    # The agent closed: the same commands work.
    code, out, err = await cli("show", "a", "--home", str(home), "--json")
    assert code == 0, err
    assert json.loads(out)["id"] == "a"
    code, out, err = await cli("check", "--home", str(home))
    assert code == 0, err


async def test_a_lender_idle_past_its_wait_is_not_waited_for(tmp_path: Path) -> None:
    """A cron import (or memtrails mcp) that waits for writers gives up on a program that
    keeps the folder open at once, not after its own wait."""
    home = tmp_path / "memory"
    await (await Memory.open(home, embedder=HashingEmbedder())).aclose()
    held = FolderLock(home, lender("python agent.py"))
    try:
        # Within its wait since it opened: still waited for, named as it is.
        with pytest.raises(MemoryLockedError) as fresh:
            await acquire_lock(home, wait_writer=0.2)
        assert fresh.value.role == lender("python agent.py")
        idle_for(home, LENDER_WAIT + 1)
        with pytest.raises(MemoryLockedError) as idle:
            await asyncio.wait_for(acquire_lock(home, wait=3600, wait_writer=3600), 60)
        assert idle.value.role == f"{KEEPS_OPEN}: python agent.py"
    finally:
        held.release()
    (await acquire_lock(home, role=READER)).release()  # the folder is free again


IMPORT = """
import asyncio, sys
from pathlib import Path
from memtrails import Memory
from memtrails.testing import HashingEmbedder

home, stop = Path(sys.argv[1]), Path(sys.argv[2])

async def rows():
    n = 0
    while not stop.exists():
        yield {"id": f"row-{n}", "text": f"ticket {n}: the ferry timetable changed again"}
        n += 1
        await asyncio.sleep(0.01)

async def main():
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(rows(), name="tickets", batch=8, idle=0.05)
    print("added", report.added, flush=True)

asyncio.run(main())
"""


async def test_an_agent_that_opened_during_a_cron_import_keeps_the_folder_after_it(
    tmp_path: Path,
) -> None:
    """An agent that opens the memory while an import runs reads through the import's
    server; once the import ends it reads the folder itself and keeps it. A check run during
    the import, and the next import after it, are told at once what holds the folder (the
    next import waited 30 s for a 'reader' before)."""
    home, stop = tmp_path / "memory", tmp_path / "stop"
    notes = tmp_path / "cron.jsonl"
    notes.write_text(json.dumps({"id": "b", "text": "the bus leaves at ten"}) + "\n")
    job = await asyncio.create_subprocess_exec(
        sys.executable, "-c", IMPORT, str(home), str(stop),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    remote: Memory | None = None
    try:

        def serving() -> bool:
            assert job.returncode is None, "the import ended before the checks"
            info = find_service(home)
            return info is not None and info.pid == job.pid

        await until(serving, 120)
        # memtrails check during the import: refused at once, naming the import.
        code, _, err = await cli("check", "--home", str(home))
        assert code == 1
        assert f"`check` cannot run now: an import is running (pid {job.pid}" in err, err
        remote = await Memory.open(home)  # the agent
        assert isinstance(remote, RemoteMemory)
        await until(lambda: _has(remote, "row-0"), 60)
        stop.touch()
        out, err_bytes = await job.communicate()
        assert job.returncode == 0, err_bytes.decode()
        added = int(out.decode().split()[1])
        assert await remote.get("row-0") is not None  # now from the folder itself
        assert remote.handed_over
        code, _, err = await cli("add", str(notes), "--home", str(home), "--model", "minilm")
        assert code == 1
        assert f"process {os.getpid()} ({KEEPS_OPEN}: " in err, err
        assert "memtrails serve --home" in err
        assert (await remote.status()).records == added  # nothing of the refused import
    finally:
        if remote is not None:
            await remote.aclose()
        if job.returncode is None:
            job.kill()
            await job.wait()
    code, out, err = await cli("show", "row-0", "--home", str(home), "--json")
    assert code == 0, err


async def _has(memory: Memory, id: str) -> bool:
    return await memory.get(id) is not None
