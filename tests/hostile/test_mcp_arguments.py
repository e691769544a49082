"""Tool arguments out of range or of the wrong type: the error names each argument and what
it must be, in words, with the value given cut short; not pydantic's report for the tool's
programmer ('1 validation error for searchArguments', error types, a documentation link)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client

from memtrails.mcp.access import FolderAccess
from memtrails.mcp.server import build_server
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.timeout(120)

CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("search", {"query": "x", "k": 0}, ["`k`: input should be greater than or equal to 1 (got 0)"]),
    ("search", {"query": "x", "k": 10**6}, ["`k`: input should be less than or equal to 50"]),
    ("search", {"query": "x", "k": -1}, ["`k`", "(got -1)"]),
    ("search", {"query": "x", "k": 2.5}, ["`k`", "integer"]),
    ("search", {}, ["`query` is required"]),
    ("search", {"query": ["y" * 100_000]}, ["`query`: input should be a valid string", "..."]),
    ("search", {"query": "x", "kind": "email"}, ["`kind`: input should be 'mail'"]),
    ("search", {"query": "x", "min_confidence": 7}, ["`min_confidence`"]),
    ("get", {"id": "a", "max_chars": -5}, ["`max_chars`: input should be greater than"]),
    ("get", {}, ["`id` is required"]),
]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("none") / "m"  # arguments are judged before any folder


@pytest.mark.parametrize(("tool", "arguments", "said"), CASES)
async def test_bad_arguments_are_said_in_words(
    home: Path, tool: str, arguments: dict[str, Any], said: list[str]
) -> None:
    server = build_server(FolderAccess(home, embedder=HashingEmbedder()))
    async with Client(server) as client:
        result = await client.call_tool(tool, arguments)
    assert result.is_error
    text = " ".join(getattr(part, "text", "") for part in result.content)
    for words in said:
        assert words in text, text
    assert "validation error" not in text and "pydantic" not in text and "[type=" not in text
    assert len(text) < 400, text
    assert not home.exists()
