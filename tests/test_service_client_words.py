"""A client of the service sends any string a caller has: a command-line word of bytes that
are not UTF-8 (Python reads it with lone surrogates) reached httpx, which raised
UnicodeEncodeError (`memtrails show` printed a traceback while `serve` ran). Each such half
pair is sent as U+FFFD, as the folder reads it when opened locally."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import httpx
import pytest

from memtrails import Memory, MemoryRecord
from memtrails.service.app import build_app
from memtrails.service.client import RemoteMemory
from memtrails.service.discovery import ServiceInfo
from memtrails.service.jobs import Jobs
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.timeout(120)

TOKEN = "t" * 43
ODD = "\udcff\udcfe"  # how Python reads the argv bytes b"\xff\xfe"


async def test_lone_surrogates_reach_the_service_as_replacement_characters(
    tmp_path: Path,
) -> None:
    home = tmp_path / "m"
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        await memory.ingest([MemoryRecord(id=f"a{ODD}", text="apples and pears")])
        async with Jobs(memory) as jobs:
            app = build_app(memory, jobs, asyncio.Event(), token=TOKEN, host="127.0.0.1", port=8765)
            remote = RemoteMemory(ServiceInfo(home, os.getpid(), "127.0.0.1", 8765, TOKEN))
            await remote.http.aclose()
            remote.http = httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app),
                base_url="http://127.0.0.1:8765",
                headers={"Authorization": f"Bearer {TOKEN}"},
            )
            try:
                found = await remote.get(f"a{ODD}")  # stored as a\ufffd\ufffd, found so
                assert found is not None and found.text == "apples and pears"
                assert await remote.get(f"b{ODD}") is None
                hits = await remote.search(f"apples {ODD}", k=1, author=None)
                assert [hit.id for hit in hits] == ["a\ufffd\ufffd"]
                assert await remote.search("apples", author=ODD) == []
            finally:
                await remote.aclose()
