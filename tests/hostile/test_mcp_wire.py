"""Hostile MCP requests over stdio: each gets an answer; none is dropped, none held whole."""

from __future__ import annotations

import asyncio
import json
import os
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
