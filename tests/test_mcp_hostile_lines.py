"""Hostile clients of ``memtrails mcp``: malformed stdio lines, and bursts of requests.

Each malformed line with an id is answered (JSON-RPC 2.0) and the server lives on; a burst
of requests from the one client waits in line, none refused as busy.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from memtrails import FolderBusyError, Memory, MemoryRecord
from memtrails.mcp.access import FolderAccess

pytestmark = pytest.mark.timeout(180)

_PING = b'"method":"ping"'
_DEEP = b"[" * 100_000 + b"]" * 100_000
_SEARCH = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":{"query":"x","k":%s}}}'

# (line, the id its answer carries, the error code): one answer each, in any order.
HOSTILE: list[tuple[bytes, int | str | None, int]] = [
    (b"garbage", None, -32700),
    (b"{", None, -32700),
    (b"\xff\xfe\xfd", None, -32700),
    (b'{"jsonrpc":"2.0","id":904,' + _PING + b"}\x00", None, -32700),
    (b"[]", None, -32600),
    (b'[{"jsonrpc":"2.0","id":900,' + _PING + b"}]", 900, -32600),
    (b'{"jsonrpc":"2.0","id":901}', 901, -32600),
    (b'{"jsonrpc":"1.0","id":902,' + _PING + b"}", 902, -32600),
    (b'{"jsonrpc":"2.0","id":{"a":1},' + _PING + b"}", None, -32600),
    (b'{"jsonrpc":"2.0","id":1.5,' + _PING + b"}", None, -32600),
    (b'{"jsonrpc":"2.0","id":null,' + _PING + b"}", None, -32600),
    (b'{"jsonrpc":"2.0","id":910,' + _PING + b',"params":[1]}', 910, -32600),
    (_SEARCH % (906, _DEEP), 906, -32600),
    (_SEARCH % (907, b"9" * 5000), 907, -32600),
    (b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b"," + _PING + b"}", None, -32600),
    (b'"just a string"', None, -32600),
]

# Lines that ask for no answer: a notification (even a malformed one), a response, a blank.
SILENT = [
    b'{"jsonrpc":"2.0","method":"notifications/whatever","params":[1]}',
    b'{"jsonrpc":"2.0","id":77,"result":[1]}',
    b"   ",
]


async def _start(home: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "memtrails", "mcp", "--home", str(home), "--threads", "1"),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ},
        limit=1 << 24,
    )


async def _answer(proc: asyncio.subprocess.Process, line: bytes) -> dict[str, object]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(line + b"\n")
    await proc.stdin.drain()
    got = await asyncio.wait_for(proc.stdout.readline(), 30)
    assert got, "the server closed stdout"
    answer: dict[str, object] = json.loads(got)
    return answer


async def test_every_malformed_line_is_answered_and_the_server_keeps_serving(
    tmp_path: Path,
) -> None:
    proc = await _start(tmp_path / "m")
    init = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    first = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}
    assert "result" in await _answer(proc, json.dumps(first).encode())
    assert proc.stdin is not None
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    for line, request_id, code in HOSTILE:
        answer = await _answer(proc, line)
        assert answer["id"] == request_id, (line[:80], answer)
        assert answer["error"]["code"] == code, (line[:80], answer)  # type: ignore[index]
    for line in SILENT:
        proc.stdin.write(line + b"\n")
    # The next answer is the ping's: nothing above was answered, and the server still serves.
    assert await _answer(proc, b'{"jsonrpc":"2.0","id":999,' + _PING + b"}") == {
        "jsonrpc": "2.0",
        "id": 999,
        "result": {},
    }
    proc.stdin.close()
    await asyncio.wait_for(proc.wait(), 60)


def test_a_notification_with_an_id_in_its_params_is_still_served() -> None:
    from memtrails.mcp.wire import verdict

    line = '{"jsonrpc":"2.0","method":"notifications/x","params":{"id":3}}'
    assert verdict(line) == line


async def _folder(tmp_path: Path, embedder: object) -> Path:
    home = tmp_path / "m"
    async with Memory.open(home, embedder=embedder) as memory:  # type: ignore[arg-type]
        await memory.ingest([MemoryRecord(id="a", text="apples and pears")])
    return home


async def test_a_burst_of_reads_waits_in_line_past_wait(tmp_path: Path, embedder: object) -> None:
    # Each request holds the folder longer than `wait` (0.2 s apart at least): in a burst of
    # 12 the last waits seconds, but for its own server's reads, not another process.
    access = FolderAccess(await _folder(tmp_path, embedder), embedder=embedder, wait=0.05)  # type: ignore[arg-type]
    order: list[int] = []

    async def read(n: int) -> int:
        async with access.open() as memory:
            order.append(n)
            return (await memory.status()).records

    try:
        assert await asyncio.gather(*(read(n) for n in range(12))) == [1] * 12
    finally:
        await access.aclose()
    assert order == list(range(12))  # in the order they came


async def test_a_read_that_gives_up_its_place_leaves_the_line_moving(
    tmp_path: Path, embedder: object
) -> None:
    access = FolderAccess(await _folder(tmp_path, embedder), embedder=embedder, wait=0.05)  # type: ignore[arg-type]

    async def read() -> None:
        async with access.open():
            await asyncio.sleep(0.3)

    try:
        first = asyncio.create_task(read())
        await asyncio.sleep(0.05)
        quitter = asyncio.create_task(read())
        await asyncio.sleep(0.1)
        quitter.cancel()  # a client's notifications/cancelled, while it waits its turn
        await asyncio.wait_for(asyncio.gather(first, read()), 30)
        assert quitter.cancelled()
        # The server's own import still bounds a read's wait, as another process's does.
        async with access.open(write="mcp add"):
            with pytest.raises(FolderBusyError, match="busy with `mcp add`"):
                async with access.open():
                    pass
    finally:
        await access.aclose()
