"""Agent sessions as the tools write them while they work: an answer streamed over lines,
what the tool asks its model on its own, sessions copied into forks.

The lines follow shapes described in public notes on Claude Code's session files (an
answer's blocks on lines of their own sharing ``message.id`` and ``requestId``; a
``"Warmup"`` first turn written by the tool) and in openai/codex (a fork's rollout holds its
parent's items, written again at the time of the fork). Written here, no real session.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from helpers import collect, records

from memtrails.importers.transcripts import from_agent_transcripts
from memtrails.records import MemoryRecord, SourceState

SID = "9d1e7c52-3b0a-4f7e-8c11-2a6b5d4e3f21"


def claude(uuid: str, role: str, content: Any, **extra: Any) -> dict[str, Any]:
    return {
        "parentUuid": None, "isSidechain": False, "userType": "external",
        "cwd": "/home/ann/code/shop", "sessionId": SID, "version": "2.0.55",
        "gitBranch": "main", "type": role, "uuid": uuid,
        "timestamp": f"2025-11-03T09:{10 + len(uuid)}:00.000Z",
        "message": {"role": role, "content": content}, **extra,
    }  # fmt: skip


def block(uuid: str, msg: str, *content: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """One line of a streamed answer: its blocks, the message id it shares."""
    line = claude(uuid, "assistant", list(content), requestId=f"req_{msg}", **extra)
    line["message"].update(id=msg, model="claude-opus-4-5-20251101", stop_reason=None)
    return line


def text(words: str) -> dict[str, Any]:
    return {"type": "text", "text": words}


def call(name: str, **inputs: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{name}", "name": name, "input": inputs}


THINK = {"type": "thinking", "thinking": "The total rounds twice.", "signature": "c2ln"}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_Read", "content": "def total(): ..."}


def write(path: Path, lines: list[Any], mode: str = "w") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open(mode, encoding="utf-8") as f:
        f.write("".join(json.dumps(line) + "\n" for line in lines))
    return path


def turns(items: list[Any]) -> list[tuple[str, str]]:
    return [(t.author, t.text) for t in records(items)]


async def test_an_answer_streamed_over_lines_is_one_turn(tmp_path: Path) -> None:
    lines = [
        claude("u1", "user", "Why is the total off by a cent?"),
        block("a1", "msg_1", THINK),
        block("a2", "msg_1", text("It rounds twice; reading the code.")),
        block("a3", "msg_1", call("Read", file_path="shop/total.py")),
        claude("r1", "user", [RESULT]),
        block("a4", "msg_1", call("Grep", pattern="round(")),  # a block after a result
        block("b1", "msg_2", text("Fixed: one round() left.")),
        claude("u2", "user", "Thanks."),
    ]
    items = await collect(from_agent_transcripts(write(tmp_path / f"{SID}.jsonl", lines)))
    got = records(items)
    # Before: four records for the first answer (its text, each tool call alone).
    assert turns(items) == [
        ("user", "Why is the total off by a cent?"),
        ("claude-code", 'It rounds twice; reading the code.\n[tool Read: {"file_path": '
         '"shop/total.py"}]\n[tool Grep: {"pattern": "round("}]'),
        ("claude-code", "Fixed: one round() left."),
        ("user", "Thanks."),
    ]  # fmt: skip
    answer = got[1]
    assert answer.id == f"{SID}:a1" and answer.meta["tools"] == ["Read", "Grep"]
    assert answer.meta["model"] == "claude-opus-4-5-20251101"
    assert "rounds twice" not in " ".join(t.text for t in got if t.text.startswith("The total"))


async def test_a_line_written_again_with_the_blocks_so_far_is_not_repeated(
    tmp_path: Path,
) -> None:
    first, both = text("Reading it."), [text("Reading it."), call("Read", file_path="a.py")]
    lines = [
        claude("u1", "user", "Look at a.py"),
        block("a1", "msg_1", first),
        block("a2", "msg_1", *both),
        block("a3", "msg_1", *both),
    ]
    items = await collect(from_agent_transcripts(write(tmp_path / f"{SID}.jsonl", lines)))
    # Before: "Reading it." three times over, in three records.
    assert turns(items)[1:] == [
        ("claude-code", 'Reading it.\n[tool Read: {"file_path": "a.py"}]'),
    ]


async def test_subagents_streaming_at_once_keep_their_answers_apart(tmp_path: Path) -> None:
    one, two = {"isSidechain": True, "agentId": "aa01"}, {"isSidechain": True, "agentId": "bb02"}
    lines = [
        claude("u1", "user", "Check both modules."),
        block("x1", "msg_x", text("Module a: fine."), **one),
        block("y1", "msg_y", text("Module b: a stale import."), **two),
        block("x2", "msg_x", call("Read", file_path="a.py"), **one),
        block("y2", "msg_y", call("Read", file_path="b.py"), **two),
    ]
    items = await collect(from_agent_transcripts(write(tmp_path / f"{SID}.jsonl", lines)))
    by_id = {t.id: t for t in records(items)}
    assert by_id[f"{SID}:x1"].text == 'Module a: fine.\n[tool Read: {"file_path": "a.py"}]'
    assert (
        by_id[f"{SID}:y1"].text == 'Module b: a stale import.\n[tool Read: {"file_path": "b.py"}]'
    )
    assert all(by_id[k].meta["sidechain"] for k in (f"{SID}:x1", f"{SID}:y1"))
    assert len(by_id) == 3


async def test_an_answer_still_being_written_is_read_again_whole_next_run(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path / f"{SID}.jsonl",
        [claude("u1", "user", "Fix it."), block("a1", "msg_1", text("On it."))],
    )
    first = await collect(from_agent_transcripts(path))
    assert turns(first) == [("user", "Fix it."), ("claude-code", "On it.")]
    state = first[-1]
    assert isinstance(state, SourceState)
    write(path, [block("a2", "msg_1", call("Edit", file_path="t.py"))], mode="a")
    again = await collect(from_agent_transcripts(path, state=state.state))
    (turn,) = records(again)
    # Before: the later block was a record of its own; the answer's record kept half of it.
    assert turn.id == f"{SID}:a1"
    assert turn.text == 'On it.\n[tool Edit: {"file_path": "t.py"}]'
    whole = records(await collect(from_agent_transcripts(path)))
    assert [(t.id, t.text) for t in whole][-1] == (turn.id, turn.text)


async def test_a_session_of_tool_calls_alone_is_read(tmp_path: Path) -> None:
    lines = [block(f"a{k}", f"msg_{k}", call("Bash", command=f"make t{k}")) for k in range(3)]
    items = await collect(from_agent_transcripts(write(tmp_path / f"{SID}.jsonl", lines)))
    assert [i for i in items if not isinstance(i, MemoryRecord | SourceState)] == []
    assert [t for _, t in turns(items)] == [
        f'[tool Bash: {{"command": "make t{k}"}}]' for k in range(3)
    ]


async def test_what_claude_code_asks_its_model_on_its_own_is_no_turn(tmp_path: Path) -> None:
    project = tmp_path / "projects" / "-home-ann-code-shop"
    side = {"isSidechain": True, "agentId": "5e1f0a2b"}
    write(
        project / "agent-5e1f0a2b.jsonl",
        [
            claude("w1", "user", "Warmup", **side),
            {**block("w2", "msg_w", text("I'm ready to search the codebase."), **side),
             "parentUuid": "w1"},
            {**block("w3", "msg_w", call("Glob", pattern="**/*.py"), **side), "parentUuid": "w2"},
            {**claude("w4", "user", [{**RESULT, "tool_use_id": "toolu_Glob"}], **side),
             "parentUuid": "w3"},
        ],
    )  # fmt: skip
    title = (
        "Please write a 5-10 word title for the following conversation:\n\n[Last 2 of 2 messages]"
    )
    write(
        project / f"{SID}.jsonl",
        [
            claude("t1", "user", title),
            {**block("t2", "msg_t", text("Fixing a rounding bug in totals")), "parentUuid": "t1"},
            # typed, in the middle of a session (it answers a line): the user's
            {**claude("u1", "user", "Warmup"), "parentUuid": "t2"},
            {**claude("u2", "user", "Warmup the cache first."), "parentUuid": "u1"},
            {**block("a1", "msg_a", text("Warming it.")), "parentUuid": "u2"},
        ],
    )  # fmt: skip
    items = await collect(from_agent_transcripts(tmp_path / "projects"))
    # Before: "Warmup" was a subagent's prompt and the title request the user's first turn,
    # each with its answer.
    assert sorted(turns(items)) == [
        ("claude-code", "Warming it."),
        ("user", "Warmup"),
        ("user", "Warmup the cache first."),
    ]


async def test_a_finished_answer_is_not_kept_in_the_runs_state(tmp_path: Path) -> None:
    done = block("a2", "msg_1", call("Edit", file_path="t.py"))
    done["message"]["stop_reason"] = "tool_use"
    lines = [claude("u1", "user", "Fix it."), block("a1", "msg_1", text("On it.")), done]
    path = write(tmp_path / f"{SID}.jsonl", lines)
    items = await collect(from_agent_transcripts(path))
    assert turns(items)[-1] == ("claude-code", 'On it.\n[tool Edit: {"file_path": "t.py"}]')
    state = items[-1]
    assert isinstance(state, SourceState)
    assert "On it." not in json.dumps(state.state)
    still = await collect(from_agent_transcripts(path, state=state.state))
    assert records(still) == []


async def test_the_last_answer_of_a_session_no_one_writes_to_is_not_kept(tmp_path: Path) -> None:
    lines = [claude("u1", "user", "Fix it."), block("a1", "msg_1", text("On it."))]
    path = write(tmp_path / f"{SID}.jsonl", lines)
    os.utime(path, (1_700_000_000, 1_700_000_000))  # last written in 2023
    items = await collect(from_agent_transcripts(path))
    assert turns(items)[-1] == ("claude-code", "On it.")
    state = items[-1]
    assert isinstance(state, SourceState) and "On it." not in json.dumps(state.state)


async def test_claude_codes_background_queries_are_not_read(tmp_path: Path) -> None:
    """Claude Code 2.1 writes the query that compacts a session and the one that suggests
    what to type next as subagents' files of their own."""
    project = tmp_path / "projects" / "-home-ann-code-shop"
    subagents = project / SID / "subagents"
    side = {"isSidechain": True, "agentId": "acompact-006389"}
    write(project / f"{SID}.jsonl", [claude("u1", "user", "Fix the total.")])
    write(
        subagents / "agent-acompact-006389.jsonl",
        [claude("c1", "user", "Your task is to create a detailed summary of the conversation so far.", **side),
         {**block("c2", "msg_c", text("1. Primary Request: fix the total."), **side), "parentUuid": "c1"}],
    )  # fmt: skip
    side = {"isSidechain": True, "agentId": "aprompt_suggestion-a63777"}
    write(
        subagents / "agent-aprompt_suggestion-a63777.jsonl",
        [claude("p1", "user", "You are now a prompt suggestion generator.", **side),
         {**block("p2", "msg_p", text("run the tests"), **side), "parentUuid": "p1"}],
    )  # fmt: skip
    side = {"isSidechain": True, "agentId": "a913a65"}
    write(
        subagents / "agent-a913a65.jsonl",
        [claude("t1", "user", "Find the rounding.", **side),
         {**block("t2", "msg_t", text("In tax.py."), **side), "parentUuid": "t1"}],
    )  # fmt: skip
    items = await collect(from_agent_transcripts(tmp_path / "projects"))
    # Before: the compaction request, the summary, the suggestion prompt and its answer
    # were four turns of the session.
    assert sorted(t for _, t in turns(items)) == [
        "Find the rounding.",
        "Fix the total.",
        "In tax.py.",
    ]
