"""The service's connections: a request head that never completes does not hold a socket."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import uvicorn

from memtrails.service._http import head_deadline_protocol

DEADLINE = 0.5


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    await send(
        {"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]}
    )
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture
async def port() -> AsyncIterator[int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        _app, http=head_deadline_protocol(DEADLINE), log_level="warning", lifespan="off"
    )
    server = uvicorn.Server(config)
    task = asyncio.ensure_future(server.serve(sockets=[sock]))
    while not server.started:
        await asyncio.sleep(0.01)
    yield sock.getsockname()[1]
    server.should_exit = True
    await task
    sock.close()


@asynccontextmanager
async def _connection(
    port: int,
) -> AsyncIterator[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        yield reader, writer
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


async def _closed(reader: asyncio.StreamReader) -> bytes:
    """Read until the server closes the connection (the test's guard: 20 s)."""
    async with asyncio.timeout(20):
        try:
            return await reader.read()
        except ConnectionResetError:  # a drip crossed the close: closed all the same
            return b""


async def test_a_head_sent_a_line_at_a_time_is_cut_off(port: int) -> None:
    async with _connection(port) as (reader, writer):
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")
        for n in range(10):  # a header line more often than the deadline: still cut off
            await asyncio.sleep(DEADLINE / 4)
            if writer.is_closing() or reader.at_eof():
                break
            writer.write(b"X-Drip-%d: 1\r\n" % n)
        assert await _closed(reader) == b""


async def test_a_connection_that_sends_nothing_is_closed(port: int) -> None:
    async with _connection(port) as (reader, _):
        assert await _closed(reader) == b""


async def test_whole_requests_are_answered_and_a_slow_second_head_is_cut_off(port: int) -> None:
    async with _connection(port) as (reader, writer):
        for _ in range(2):  # keep-alive: two requests on one connection, each answered
            writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            head = await reader.readuntil(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200")
            assert await reader.readexactly(2) == b"ok"
        writer.write(b"GET / HTTP/1.1\r\n")  # then a head that never ends
        assert await _closed(reader) == b""
