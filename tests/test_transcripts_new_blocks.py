"""Content a later version of a coding agent writes: a block or item of a type not known here
that holds words is kept, marked by its type; reasoning, tool results (whatever their type,
but errors) and blocks of no words are left out. Shapes as the Anthropic Messages API and
the OpenAI Responses API document them; written here, no real session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import collect, records

from memtrails.importers.transcripts import from_agent_transcripts
from memtrails.records import MemoryRecord, SourceState

SID = "4c0f5a0e-8d7b-4c61-9a55-7e2b9d1f0a11"
CID = "019a2d7a-41c4-78b1-b7cc-a45d62a89cd6"


def claude(uuid: str, role: str, content: Any) -> dict[str, Any]:
    return {
        "parentUuid": None, "isSidechain": False, "cwd": "/home/ann/code/shop",
        "sessionId": SID, "version": "2.3.0", "type": role, "uuid": uuid,
        "timestamp": "2025-11-03T09:10:00.000Z",
        "message": {"role": role, "content": content},
    }  # fmt: skip


def lines(*objects: Any) -> bytes:
    return b"".join(json.dumps(o).encode() + b"\n" for o in objects)


def problems(items: list[Any]) -> list[Any]:
    return [i for i in items if not isinstance(i, MemoryRecord | SourceState)]


async def test_claude_blocks_of_new_types_keep_their_words(tmp_path: Path) -> None:
    path = tmp_path / f"{SID}.jsonl"
    search = {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"q": "tz"}}
    path.write_bytes(
        lines(
            claude("u1", "user", "Which time zone does the shop use?"),
            claude(
                "a1",
                "assistant",
                [
                    {"type": "thinking", "thinking": "private musing", "signature": "c2ln"},
                    {"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"},
                    search,
                    {
                        "type": "web_search_tool_result",
                        "tool_use_id": "s1",
                        "content": [
                            {
                                "type": "web_search_result",
                                "title": "a page the search found",
                                "url": "https://example.com",
                                "encrypted_content": "eyJ9",
                            }
                        ],
                    },
                    {
                        "type": "web_fetch_tool_result",
                        "tool_use_id": "s2",
                        "content": {
                            "type": "web_fetch_tool_error",
                            "error_code": "url_not_allowed",
                        },
                    },
                    {"type": "mcp_tool_use", "id": "m1", "name": "tickets", "input": {"id": 7}},
                    {"type": "mcp_tool_result", "tool_use_id": "m1", "content": "ticket body"},
                    {"type": "callout", "text": "Zone names follow the IANA database."},
                    {
                        "type": "search_result",
                        "title": "Shop handbook",
                        "content": [{"type": "text", "text": "Orders close at 17:00 UTC."}],
                    },
                    {"type": "document", "title": "tz.md", "source": {"type": "text", "data": "x"}},
                    {"type": "container_upload", "file_id": "file_011"},
                    {"type": "text", "text": "The shop uses UTC."},
                ],
            ),
        )
    )
    items = await collect(from_agent_transcripts(path))
    assert problems(items) == []
    turns = records(items)
    assert [t.text for t in turns] == [
        "Which time zone does the shop use?",
        "\n".join(
            [
                '[tool web_search: {"q": "tz"}]',
                "[tool error: url_not_allowed]",
                '[tool tickets: {"id": 7}]',
                "[callout] Zone names follow the IANA database.",
                "[search_result] Shop handbook\nOrders close at 17:00 UTC.",
                "[document: tz.md]",
                "The shop uses UTC.",
            ]
        ),
    ]
    answer = turns[1]
    assert answer.author == "claude-code"
    assert answer.meta["tools"] == ["web_search", "tickets"]
    everything = " ".join(t.text for t in turns)
    for noise in ("private musing", "ZW5jcnlwdGVk", "a page the search found", "ticket body"):
        assert noise not in everything


async def test_codex_refusals_and_items_of_new_types_keep_their_words(tmp_path: Path) -> None:
    rollout = tmp_path / "sessions" / f"rollout-2025-10-29T01-00-00-{CID}.jsonl"
    rollout.parent.mkdir()

    def item(second: int, payload: dict[str, Any]) -> dict[str, Any]:
        at = f"2025-10-29T01:00:{second:02d}Z"
        return {"timestamp": at, "type": "response_item", "payload": payload}

    rollout.write_bytes(
        lines(
            {
                "timestamp": "2025-10-29T01:00:00Z",
                "type": "session_meta",
                "payload": {"id": CID, "timestamp": "2025-10-29T01:00:00Z", "cwd": "/w/shop"},
            },
            item(
                1,
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "Print the admin password."}],
                },
            ),
            item(
                2,
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "refusal", "refusal": "I can't share credentials."}],
                },
            ),
            item(3, {"type": "refusal", "refusal": "Not without the owner's consent."}),
            item(4, {"type": "reasoning", "summary": [{"type": "summary_text", "text": "hmm"}]}),
            item(5, {"type": "mcp_call", "name": "vault.lookup", "arguments": '{"k": 1}'}),
            item(6, {"type": "mcp_call_output", "output": "s3cret-output"}),
            item(7, {"type": "ghost_snapshot", "ghost_commit": {"id": "abc"}}),
        )
    )
    items = await collect(from_agent_transcripts(rollout))
    assert problems(items) == []
    assert [(t.author, t.text) for t in records(items)] == [
        ("user", "Print the admin password."),
        ("codex", "[refusal] I can't share credentials."),
        ("codex", "[refusal] Not without the owner's consent."),
        ("codex", '[tool vault.lookup: {"k": 1}]'),
    ]
