"""Hostile MCP requests over stdio: each gets an answer; none is dropped, none held whole."""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memtrails import Memory, MemoryRecord
from memtrails.mcp.wire import MAX_REQUEST_BYTES

pytestmark = pytest.mark.timeout(180)


def _line(obj: object) -> bytes:
    return json.dumps(obj).encode() + b"\n"


async def test_a_lone_surrogate_and_an_oversized_request_are_answered(
    tmp_path: Path, embedder: object
) -> None:
    home = tmp_path / "m"
    async with Memory.open(home, embedder=embedder) as memory:  # type: ignore[arg-type]
        await memory.ingest([MemoryRecord(id="a", text="apples and pears")])
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "memtrails",
        "mcp",
        "--home",
        str(home),
        "--threads",
        "2",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ},
        limit=1 << 24,
    )
    assert proc.stdin is not None and proc.stdout is not None
    init = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    proc.stdin.write(_line({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}))
    proc.stdin.write(_line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    surrogate = b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search", "arguments": {"query": "apples \\ud800"}}}\n'
    proc.stdin.write(surrogate)
    huge = {"name": "search", "arguments": {"query": "x" * (8 * MAX_REQUEST_BYTES)}}
    proc.stdin.write(_line({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": huge}))
    proc.stdin.write(_line({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}))
    await proc.stdin.drain()
    answers: dict[int, dict[str, object]] = {}
    while len(answers) < 4:
        line = await asyncio.wait_for(proc.stdout.readline(), 120)
        assert line, (await proc.stderr.read()).decode()[-2000:] if proc.stderr else ""
        reply = json.loads(line)
        if "id" in reply:
            answers[reply["id"]] = reply
    proc.stdin.close()
    await asyncio.wait_for(proc.wait(), 60)
    assert "result" in answers[2], answers[2]  # searched, U+FFFD for the lone half
    assert "error" in answers[3] and "over" in json.dumps(answers[3]), answers[3]
    assert "result" in answers[4]


async def _mcp_stdio(home: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "memtrails", "mcp", "--home", str(home), "--threads", "2",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, limit=1 << 24,
    )  # fmt: skip


def _init(request_id: int = 1) -> bytes:
    params = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    return _line({"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params})


def _call(request_id: int, name: str, arguments: dict[str, object]) -> bytes:
    params = {"name": name, "arguments": arguments}
    return _line({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})


async def test_requests_sent_before_the_input_ends_are_all_answered() -> None:
    """A client that writes its requests and closes stdin (a shell pipe) gets each answer;
    the SDK cancelled those still running, answering "Connection closed" or nothing."""
    import anyio
    from mcp.server.mcpserver import MCPServer

    from memtrails.mcp.server import run_stdio

    server = MCPServer("t")

    @server.tool()
    async def slow(word: str) -> str:
        await anyio.sleep(0.5)  # still running when the input ends, read at once
        return word * 2

    requests = [
        _init(),
        _line({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        _call(2, "slow", {"word": "ab"}),
        _call(3, "slow", {"word": "cd"}),
        _call(3, "slow", {"word": "ef"}),  # an id used twice is answered twice
        _call(4, "slow", {"word": "gh"}),
        _line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4}}),
        b"not json\n",
    ]
    out = io.StringIO()
    with anyio.fail_after(60):
        await run_stdio(server, io.BytesIO(b"".join(requests)), anyio.wrap_file(out))
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    got = sorted((str(a["id"]), json.dumps(a.get("result") or a["error"])) for a in answers)
    assert [request_id for request_id, _ in got] == ["1", "2", "3", "3", "None"], got
    for word in ("abab", "cdcd", "efef"):
        assert any(word in text for _, text in got), got


async def test_a_client_gone_from_stdout_ends_the_server_without_a_traceback() -> None:
    """The pipe the answers go to is closed (the client died, stdin still open): serving
    ends quietly, where the SDK's writer raised a BrokenPipeError group."""
    import anyio
    from mcp.server.mcpserver import MCPServer

    from memtrails.mcp.server import run_stdio

    class Gone:
        async def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        async def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

    read, write = os.pipe()
    os.write(write, _init() + _line({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
    with os.fdopen(read, "rb") as stdin:
        try:
            with anyio.fail_after(60):
                await run_stdio(MCPServer("t"), stdin, Gone())
        finally:
            os.close(write)  # the reading thread, left blocked, sees the end


@pytest.mark.slow
def test_a_client_that_closes_stdout_stops_the_server_in_one_line(tmp_path: Path) -> None:
    """A client gone while its stdin stays open: no traceback, no server left running."""
    argv = [sys.executable, "-m", "memtrails", "mcp", "--home", str(tmp_path / "none")]
    # no folder: nothing to load, and nothing may be created
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        proc.stdin.write(_init())
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1
        proc.stdout.close()
        proc.stdin.write(_line({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
        proc.stdin.flush()
        assert proc.wait(60) == 141
        err = proc.stderr.read().decode()
        assert "Traceback" not in err and "closed its end of stdout" in err, err
        assert not (tmp_path / "none").exists()
    finally:
        proc.kill()
        proc.wait()
        proc.stdin.close()
        proc.stderr.close()


async def test_a_client_that_never_reads_its_answers_holds_a_bounded_number() -> None:
    """Reading stops while ``most`` requests wait for their answers (a client writing pings
    and never reading held a task and an answer per line), and goes on as answers leave."""
    import anyio

    from memtrails.mcp.wire import RequestLines

    pings = b"".join(_line({"jsonrpc": "2.0", "id": n, "method": "ping"}) for n in range(1, 5))
    lines = RequestLines(io.BytesIO(pings), most=2)
    passed = [await lines.__anext__(), await lines.__anext__()]
    async with anyio.create_task_group() as tasks:

        async def next_line() -> None:
            passed.append(await lines.__anext__())

        tasks.start_soon(next_line)
        await anyio.wait_all_tasks_blocked()
        assert len(passed) == 2  # two unanswered: the third is not read
        lines.answered(1)
    assert [json.loads(line)["id"] for line in passed] == [1, 2, 3]
    lines.close()
    lines.replies.close()
