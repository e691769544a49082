"""The MCP HTTP transport refuses an oversized body before reading it into a request."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest
from helpers import mcp_http

from memtrails import Memory, MemoryRecord
from memtrails.mcp.wire import MAX_REQUEST_BYTES
from memtrails.testing import HashingEmbedder

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]


async def test_a_request_over_1_mib_is_refused_cheaply(tmp_path: Path) -> None:
    home = tmp_path / "m"
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        await memory.ingest([MemoryRecord(id="a", text="apples")])
    async with mcp_http(home, sys.executable, "-m", "memtrails") as port:
        body = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"q": "'
        body += b"x" * (2 * MAX_REQUEST_BYTES) + b'"}}'
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        async with httpx.AsyncClient(timeout=60) as http:
            answer = await http.post(f"http://127.0.0.1:{port}/mcp", headers=headers, content=body)
        assert answer.status_code == 413, answer.text[:200]
