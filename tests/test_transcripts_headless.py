"""Claude Code's print mode (``claude -p``, headless): its session file and its stream-json
output, each turn once, the prompt the user's.

The lines follow the shapes of Claude Code's stream-json output as its documentation of
headless mode and the Agent SDK's message types describe them (``system``/``init``, ``user``,
``assistant``, ``result``), written here; no real session.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import collect, errors, records

from memtrails.importers.detect import detect_kind
from memtrails.importers.transcripts import from_agent_transcripts

SID = "5b3c8e2a-1f4d-4a6b-9c7e-0d2f4a6b8c1e"
PROMPT = "summarise the README"


def _write(path: Path, lines: list[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _init(**extra: Any) -> dict[str, Any]:
    return {
        "type": "system", "subtype": "init", "cwd": "/home/ann/shop", "session_id": SID,
        "tools": ["Bash", "Read", "Task"], "mcp_servers": [], "model": "claude-sonnet-4-5",
        "permissionMode": "default", "apiKeySource": "none", "uuid": "i0", **extra,
    }  # fmt: skip


def _said(uuid: str, role: str, content: Any, msg: str = "", **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": role, "content": content}
    if role == "assistant":
        message.update(id=msg, type="message", model="claude-sonnet-4-5", stop_reason=None)
    return {
        "type": role, "message": message, "parent_tool_use_id": None, "session_id": SID,
        "uuid": uuid, **extra,
    }  # fmt: skip


def _result() -> dict[str, Any]:
    return {
        "type": "result", "subtype": "success", "is_error": False, "duration_ms": 2100,
        "num_turns": 2, "result": "It is a shop's code.", "session_id": SID, "uuid": "r0",
    }  # fmt: skip


def _run(replayed: bool) -> list[Any]:
    read = [
        {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "README.md"}}
    ]
    lines = [
        _init(),
        *([_said("u1", "user", PROMPT, isReplay=True)] if replayed else []),
        _said("a1", "assistant", read, "msg_1"),
        _said("t1", "user", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "# Shop"}]),
        # A subagent's line names the Task call it works for.
        _said("s1", "assistant", [{"type": "text", "text": "Looked."}], "msg_s", parent_tool_use_id="toolu_9"),
        _said("a2", "assistant", [{"type": "text", "text": "It is a shop's code."}], "msg_2"),
        _result(),
    ]  # fmt: skip
    return lines


async def test_print_modes_stream_json_is_a_session_each_turn_once(tmp_path: Path) -> None:
    path = _write(tmp_path / "runs" / "run.jsonl", _run(replayed=True))
    assert detect_kind(path) == "transcripts"
    items = await collect(from_agent_transcripts(path))
    assert errors(items) == []
    turns = [(r.author, r.text) for r in records(items)]
    # The prompt is the user's, once; the last answer once, not again from `result`.
    assert turns == [
        ("user", PROMPT),
        ("claude-code", '[tool Read: {"file_path": "README.md"}]'),
        ("claude-code", "Looked."),
        ("claude-code", "It is a shop's code."),
    ]
    recs = records(items)
    assert {r.thread for r in recs} == {SID}
    assert recs[0].id == f"{SID}:u1"
    assert recs[2].meta.get("sidechain") is True
    assert recs[3].meta["model"] == "claude-sonnet-4-5"
    assert recs[3].meta["project"] == "/home/ann/shop"


async def test_print_mode_output_without_the_prompt_has_no_user_turn(tmp_path: Path) -> None:
    path = _write(tmp_path / "run.jsonl", _run(replayed=False))
    turns = [(r.author, r.text) for r in records(await collect(from_agent_transcripts(path)))]
    assert [a for a, _ in turns] == ["claude-code"] * 3
    assert [t for _, t in turns].count("It is a shop's code.") == 1


def test_a_long_init_line_still_tells_print_modes_output(tmp_path: Path) -> None:
    commands = [f"command-{n}" for n in range(600)]  # the init line lists slash commands
    path = _write(tmp_path / "run.jsonl", [_init(slash_commands=commands), _result()])
    assert path.stat().st_size > 8192
    assert detect_kind(path) == "transcripts"


async def test_print_modes_session_file_holds_the_prompt_once(tmp_path: Path) -> None:
    """The session file of ``claude -p`` opens with the prompt queued (enqueue, dequeue)
    before the user line that holds it: one user turn."""
    base = {
        "parentUuid": None, "isSidechain": False, "userType": "external",
        "cwd": "/home/ann/shop", "sessionId": SID, "version": "2.0.55", "gitBranch": "main",
    }  # fmt: skip
    at = "2025-11-03T09:00:00.000Z"
    answer = {"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5",
              "content": [{"type": "text", "text": "It is a shop."}], "stop_reason": "end_turn"}  # fmt: skip
    lines = [
        {"type": "queue-operation", "operation": "enqueue", "timestamp": at, "sessionId": SID, "content": PROMPT},
        {"type": "queue-operation", "operation": "dequeue", "timestamp": at, "sessionId": SID},
        {**base, "type": "user", "uuid": "u1", "timestamp": at, "message": {"role": "user", "content": PROMPT}},
        {**base, "parentUuid": "u1", "type": "assistant", "uuid": "a1", "timestamp": at, "message": answer},
    ]  # fmt: skip
    path = _write(tmp_path / "projects" / "-home-ann-shop" / f"{SID}.jsonl", lines)
    turns = [(r.author, r.text) for r in records(await collect(from_agent_transcripts(path)))]
    assert turns == [("user", PROMPT), ("claude-code", "It is a shop.")]
