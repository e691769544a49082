"""An MCP resource error names the URI it could not read, without the secret inside it."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.client import Client
from mcp.shared.exceptions import MCPError

from memtrails import Memory, MemoryRecord
from memtrails.mcp.access import FolderAccess
from memtrails.mcp.server import build_server
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.timeout(120)

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.mark.parametrize(
    "uri",
    [
        f"memtrails://record/{TOKEN}",  # the template matches: no such record
        f"memtrails://record/a/{TOKEN}",  # no template matches
        f"memtrails://other/{TOKEN}",
    ],
)
async def test_a_resource_error_never_echoes_a_token(tmp_path: Path, uri: str) -> None:
    embedder = HashingEmbedder()
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        await memory.ingest([MemoryRecord(id="a", text="apples")])
    access = FolderAccess(tmp_path / "m", embedder=embedder)
    server = build_server(access)
    async with Client(server) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource(uri)
    said = f"{caught.value.message} {caught.value.data}"
    assert TOKEN not in said and TOKEN[:20] not in said, said
    assert "[secret:github-token]" in said, said


async def test_an_add_of_a_folder_holding_a_fifo_answers_and_frees_the_folder(
    tmp_path: Path,
) -> None:
    import os

    embedder = HashingEmbedder()
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# apples\n", encoding="utf-8")
    os.mkfifo(notes / "pipe")
    os.mkfifo(notes / "pipe.txt")
    access = FolderAccess(tmp_path / "m", embedder=embedder)
    server = build_server(access, allow_writes=True)
    async with Client(server) as client:
        result = await client.call_tool("add", {"path": str(notes)})
    assert not result.is_error, result
    out = result.structured_content or {}
    assert out.get("added") == 1, out
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:  # the folder is free
        assert await memory.get("a.md") is not None


@pytest.mark.parametrize("folder", ["missing", "not-a-memory"])
async def test_every_read_on_a_folder_without_a_memory_says_so_and_creates_nothing(
    tmp_path: Path, folder: str
) -> None:
    """Each read tool and the record resource say to create one with `memtrails add`
    (the resource gave a library's advice: 'open it with create=True')."""
    home = tmp_path / folder
    if folder == "not-a-memory":
        home.mkdir()
        (home / "notes.txt").write_text("mine\n", encoding="utf-8")
    before = sorted(p.name for p in tmp_path.rglob("*"))
    server = build_server(FolderAccess(home, embedder=HashingEmbedder()))
    said: list[str] = []
    async with Client(server) as client:
        for tool, arguments in [("search", {"query": "apples"}), ("get", {"id": "a"})]:
            result = await client.call_tool(tool, arguments)
            assert result.is_error, result
            said.append(str(result.content))
        with pytest.raises(MCPError) as caught:
            await client.read_resource("memtrails://record/a")
        said.append(caught.value.message)
        status = await client.call_tool("status", {})
        said.append(str(status.content))
    for text in said:
        assert f"no memory folder at {home}" in text and "`memtrails add`" in text, said
        assert "create=True" not in text, said
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
