"""The service's /mcp has the bounds of `memtrails mcp --http`: a body over 1 MiB is refused
(413) before it is parsed; the SDK's defaults, which /mcp had, read up to 4 MiB of it."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import httpx
import pytest
import uvicorn

from memtrails import Memory, MemoryRecord
from memtrails.mcp.wire import MAX_REQUEST_BYTES
from memtrails.service.app import build_app
from memtrails.service.jobs import Jobs
from memtrails.testing import HashingEmbedder

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]

TOKEN = "t" * 43


async def test_a_body_over_1_mib_to_the_services_mcp_is_refused(tmp_path: Path) -> None:
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        await memory.ingest([MemoryRecord(id="a", text="apples")])
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        app = build_app(
            memory, Jobs(memory), asyncio.Event(), token=TOKEN, host="127.0.0.1", port=port
        )
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        task = asyncio.ensure_future(server.serve(sockets=[sock]))
        try:
            while not server.started:
                assert not task.done()
                await asyncio.sleep(0.01)
            body = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"q": "'
            body += b"x" * (2 * MAX_REQUEST_BYTES) + b'"}}'
            headers = {
                "Authorization": f"Bearer {TOKEN}",
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
            }
            async with httpx.AsyncClient(timeout=60) as http:
                url = f"http://127.0.0.1:{port}/mcp"
                answer = await http.post(url, headers=headers, content=body)
            assert answer.status_code == 413, answer.text[:200]
        finally:
            server.should_exit = True
            await task
            sock.close()
