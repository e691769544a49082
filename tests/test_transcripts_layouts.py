"""Agent sessions where and how the tools keep them: the folders as they are on a disk that
has used them a while, long tool outputs, images, a line being written, what a later
version adds.

Layouts as public notes on the tools describe them (Claude Code 2.x keeps a session's long
tool outputs in ``<session id>/tool-results/``, its subagents in ``<session id>/subagents/``
with an ``agent-*.meta.json`` each, a project's ``memory/MEMORY.md`` and a
``sessions-index.json``; Gemini CLI a project's ``shell_history`` and ``logs.json`` beside
``chats/``). Written here, no real session.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

from helpers import collect, records

from memtrails import Memory
from memtrails.importers.detect import detect_kind
from memtrails.importers.transcripts import from_agent_transcripts
from memtrails.records import MemoryRecord, SourceState
from memtrails.testing import HashingEmbedder

SID = "9d1e7c52-3b0a-4f7e-8c11-2a6b5d4e3f21"
CID = "019a2d7a-41c4-78b1-b7cc-a45d62a89cd5"


def claude(uuid: str, role: str, content: Any, **extra: Any) -> dict[str, Any]:
    return {
        "parentUuid": None, "isSidechain": False, "userType": "external",
        "cwd": "/home/ann/code/shop", "sessionId": SID, "version": "2.1.3",
        "gitBranch": "main", "type": role, "uuid": uuid,
        "timestamp": "2025-11-03T09:10:00.000Z",
        "message": {"role": role, "content": content}, **extra,
    }  # fmt: skip


def lines(*objects: Any, end: bytes = b"\n") -> bytes:
    return b"".join(json.dumps(o).encode() + end for o in objects)


def problems(items: list[Any]) -> list[Any]:
    return [i for i in items if not isinstance(i, MemoryRecord | SourceState)]


def test_the_tools_folders_as_they_are_after_a_while_are_sessions(tmp_path: Path) -> None:
    project = tmp_path / ".claude" / "projects" / "-home-ann-code-shop"
    (project / SID / "tool-results").mkdir(parents=True)
    (project / SID / "subagents").mkdir()
    (project / "memory").mkdir()
    (project / f"{SID}.jsonl").write_bytes(lines(claude("u1", "user", "Fix the total.")))
    (project / SID / "tool-results" / "toolu_01ABC.txt").write_text("a long output")
    (project / SID / "subagents" / "agent-a1b2.meta.json").write_text('{"agentType": "Explore"}')
    (project / "memory" / "MEMORY.md").write_text("# What this project taught\n")
    (project / "sessions-index.json").write_text("{}")
    gemini = tmp_path / ".gemini" / "tmp" / ("ab" * 32)
    (gemini / "chats").mkdir(parents=True)
    session = {"sessionId": "g-1", "projectHash": "ab" * 32, "startTime": "2025-10-29T01:00:00Z",
               "messages": [{"id": "m1", "type": "user", "content": "hi"}]}  # fmt: skip
    (gemini / "chats" / "session-2025-10-29T01-00-abcd1234.json").write_text(json.dumps(session))
    (gemini / "logs.json").write_text("[]")
    (gemini / "shell_history").write_text("ls\n")
    # Before: "files", every session then read as plain JSON Lines.
    assert detect_kind(tmp_path / ".claude" / "projects") == "transcripts"
    assert detect_kind(tmp_path / ".gemini" / "tmp") == "transcripts"
    # a folder of notes that holds a session stays a folder of notes
    (project / "notes.md").write_text("# notes\n")
    assert detect_kind(tmp_path / ".claude" / "projects") != "transcripts"


async def test_long_outputs_and_images_stay_out_of_the_turns(tmp_path: Path) -> None:
    big = "x" * (5 << 20)
    png = base64.b64encode(os.urandom(1 << 20)).decode()
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}
    call = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "cat big.log"}}
    path = tmp_path / f"{SID}.jsonl"
    path.write_bytes(
        lines(
            claude("u1", "user", [{"type": "text", "text": "Look at this"}, image]),
            claude("a1", "assistant", [call]),
            claude(
                "r1",
                "user",
                [{"type": "tool_result", "tool_use_id": "t1", "content": big}],
                toolUseResult={"stdout": big},
            ),
            claude(
                "r2",
                "user",
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "is_error": True,
                        "content": [image, {"type": "text", "text": big}],
                    }
                ],
            ),
            end=b"\r\n",
        )
    )
    items = await collect(from_agent_transcripts(path))
    assert problems(items) == []
    turns = records(items)
    assert [t.text[:22] for t in turns] == [
        "Look at this\n[image]",
        '[tool Bash: {"command"',
        "[tool error: [image] x",
    ]
    assert max(len(t.text) for t in turns) < 200


async def test_what_a_later_version_adds_is_read_past_quietly(tmp_path: Path) -> None:
    server = {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "q"}}
    path = tmp_path / f"{SID}.jsonl"
    path.write_bytes(
        lines(
            {"type": "future-thing", "sessionId": SID, "data": [1, 2]},
            {"type": "ai-title", "sessionId": SID, "aiTitle": "Rounding"},
            claude("u1", "user", "Why?"),
            claude(
                "a1",
                "assistant",
                [
                    {"type": "redacted_thinking", "data": "abc"},
                    server,
                    {"type": "future_block", "x": 1},
                    {"type": "text", "text": "Because."},
                ],
            ),
        )
    )
    items = await collect(from_agent_transcripts(path))
    assert problems(items) == []
    # Before: a search the API ran for the model was left out of the turn.
    assert [t.text for t in records(items)] == [
        "Why?",
        '[tool web_search: {"query": "q"}]\nBecause.',
    ]
    rollout = tmp_path / "sessions" / f"rollout-2025-10-29T01-00-00-{CID}.jsonl"
    rollout.parent.mkdir()
    rollout.write_bytes(
        lines(
            {
                "timestamp": "2025-10-29T01:00:00Z",
                "type": "session_meta",
                "payload": {"id": CID, "timestamp": "2025-10-29T01:00:00Z"},
            },
            {"timestamp": "2025-10-29T01:00:01Z", "type": "future_envelope", "payload": {"x": 1}},
            {
                "timestamp": "2025-10-29T01:00:02Z",
                "type": "response_item",
                "payload": {
                    "type": "web_search_call",
                    "status": "completed",
                    "action": {"type": "search", "query": "codex rollout"},
                },
            },
        )
    )
    items = await collect(from_agent_transcripts(rollout))
    assert problems(items) == []
    assert [t.text for t in records(items)] == [
        '[tool web_search: {"type": "search", "query": "codex rollout"}]'
    ]


async def test_a_line_being_written_waits_for_its_end(tmp_path: Path) -> None:
    path = tmp_path / f"{SID}.jsonl"
    torn = json.dumps(claude("u2", "user", "caf\u00e9 au lait")).encode("cp1252")
    path.write_bytes(lines(claude("u1", "user", "First.")) + torn[:-20])
    first = await collect(from_agent_transcripts(path))
    assert problems(first) == [] and [t.text for t in records(first)] == ["First."]
    state = first[-1]
    assert isinstance(state, SourceState)
    with path.open("ab") as f:
        f.write(torn[-20:] + b"\r\n")
    again = await collect(from_agent_transcripts(path, state=state.state))
    assert problems(again) == [] and [t.text for t in records(again)] == ["caf\u00e9 au lait"]


async def test_sessions_that_copy_others_add_no_errors_and_move_no_turn(tmp_path: Path) -> None:
    """A Claude Code session resumed into a new file copies the earlier one's lines (their
    ``sessionId`` kept); a Codex fork its parent's items, written anew."""
    new = "4c0f5a9e-7d21-4b8e-9f3a-6e2d1c0b9a87"
    answer = claude("u2", "assistant", [{"type": "text", "text": "Fixed."}])
    answer["message"]["id"] = "msg_1"
    first = [claude("u1", "user", "Fix the total."), answer]
    project = tmp_path / "projects" / "-home-ann-code-shop"
    project.mkdir(parents=True)
    (project / f"{SID}.jsonl").write_bytes(lines(*first))
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(from_agent_transcripts(tmp_path / "projects"))
        assert report.added == 2
        resumed = {**claude("u3", "user", "Now the tests."), "sessionId": new}
        (project / f"{new}.jsonl").write_bytes(lines(*first, resumed))
        again = await memory.ingest(from_agent_transcripts(tmp_path / "projects"))
        # Before: each copied turn was read again: an update moving it to the new file (or,
        # read in one run with the earlier file, an error "another record ... same id").
        assert (again.added, again.updated, list(again.errors)) == (1, 0, [])
        kept = await memory.get(f"{SID}:u1")
        assert kept is not None and kept.meta["file"].endswith(f"{SID}.jsonl")
    async with Memory.open(tmp_path / "m2", embedder=HashingEmbedder()) as memory:
        both = await memory.ingest(from_agent_transcripts(tmp_path / "projects"))
        assert (both.added, list(both.errors)) == (3, [])
