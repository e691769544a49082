"""Coding-agent transcripts (Claude Code, Codex) as conversation turns with sessions."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers import collect, records

from memtrails import Memory
from memtrails.importers.detect import detect_kind, plan
from memtrails.importers.transcripts import TOOL_CHARS, from_agent_transcripts
from memtrails.records import MemoryRecord, SourceState
from memtrails.testing import HashingEmbedder

DATA = Path(__file__).parent / "data" / "transcripts"
CLAUDE = DATA / "claude"
CODEX = DATA / "codex"
SESSION = "5b1f2c3d-0a4e-4c8b-9d21-7e6f5a4b3c2d"


async def test_a_claude_code_session_is_its_turns() -> None:
    turns = records(await collect(from_agent_transcripts(CLAUDE)))
    # a tool's error is the agent's, not words of the user's (Claude Code writes it as a user line)
    authors = ["user", "claude-code", "claude-code", "claude-code", "user"]
    assert [t.author for t in turns] == authors
    assert {t.thread for t in turns} == {SESSION}
    assert {t.kind for t in turns} == {"chat"}
    first = turns[0]
    assert first.id == f"{SESSION}:u1" and first.text.startswith("The checkout total is off")
    assert first.at is not None and first.at.iso() == "2025-11-03T09:14:02.511Z"
    assert first.meta["project"] == "/home/ann/code/shop" and first.meta["branch"] == "main"
    assert first.title == "claude-code session in shop"
    # a tool call is one short line; thinking and a successful tool result are left out
    look = turns[1]
    assert "[tool Grep:" in look.text and "Probably float rounding" not in look.text
    assert look.meta["tools"] == ["Grep"] and look.meta["model"] == "claude-sonnet-4-5"
    assert not any("tax = round(subtotal" in t.text for t in turns)
    # a tool's error is kept, short
    (error,) = [t for t in turns if "[tool error:" in t.text]
    assert "cannot import name 'ROUND_HALF_UP'" in error.text and error.meta["tool_result"]
    for t in turns:
        for line in t.text.splitlines():
            if line.startswith("[tool"):
                assert len(line) <= TOOL_CHARS + len("[tool error: ]") + 20


async def test_a_codex_rollout_is_its_turns() -> None:
    turns = records(await collect(from_agent_transcripts(CODEX)))
    texts = [t.text for t in turns]
    # the repeated context block, the reasoning, the tool output and the event copies: out
    assert texts[0] == "Why do the nightly backups stop after the retention step?"
    assert texts[1].startswith("[tool shell:") and "grep -n prune" in texts[1]
    assert texts[2].startswith("The retention step runs")
    assert len(turns) == 3 and not any("environment_context" in t for t in texts)
    assert [t.author for t in turns] == ["user", "codex", "codex"]
    assert {t.thread for t in turns} == {"019a2d7a-41c4-78b1-b7cc-a45d62a89cd5"}
    assert turns[2].meta["model"] == "gpt-5-codex"
    assert turns[2].meta["branch"] == "restic-migration"
    assert turns[0].title == "codex session in backup-tool"


def test_detection_of_sessions_whatever_they_are_named(tmp_path: Path) -> None:
    assert detect_kind(CLAUDE) == "transcripts"
    assert detect_kind(CODEX) == "transcripts"
    (one,) = CLAUDE.glob("*/*.jsonl")
    assert detect_kind(one) == "transcripts"
    # plain JSON Lines stays JSON Lines, and a notes folder with a session in it stays notes
    plain = tmp_path / "rows.jsonl"
    plain.write_text('{"id": "1", "text": "a row"}\n')
    assert detect_kind(plain) == "jsonl"
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "todo.md").write_text("# todo\n")
    shutil.copy(one, notes / "session.jsonl")
    assert detect_kind(notes) == "files"
    assert sorted(p.kind for p in plan(notes)) == ["files", "transcripts"]


async def test_imported_turns_are_found_and_their_secrets_scrubbed(
    tmp_path: Path, embedder: Any
) -> None:
    sessions = tmp_path / "projects"
    shutil.copytree(CLAUDE, sessions)
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        report = await memory.ingest(from_agent_transcripts(sessions))
        assert report.added == 5 and report.secrets.get("stripe-key", 0) >= 1, report
        hits = await memory.search("why is the checkout total wrong by a cent", k=3)
        assert hits and hits[0].id == f"{SESSION}:u1"
        stored = await memory.get(f"{SESSION}:u4")
        assert stored is not None and "sk_live_" not in stored.text

        # the session goes on: appended turns are read from where the last run stopped,
        # and a torn last line waits for the next run
        (file,) = sessions.glob("*/*.jsonl")
        more = {
            "type": "assistant",
            "uuid": "u7",
            "sessionId": SESSION,
            "timestamp": "2025-11-03T09:17:00.000Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
        }
        with file.open("a") as f:
            f.write(json.dumps(more) + "\n" + '{"type": "user", "uuid": "u8"')
        again = await memory.ingest(from_agent_transcripts(sessions))
        assert (again.added, again.unchanged) == (1, 5)  # the 5 earlier turns were not read
        assert again.sources[0].mode == "incremental"
        assert (await memory.get(f"{SESSION}:u7")) is not None


async def test_a_field_of_another_type_keeps_what_the_session_knew(tmp_path: Path) -> None:
    """A number or an object where the working folder, branch or model is (another version,
    a damaged line) is no name: the turn is still read, under the session's known project."""
    lines = [
        {"type": "user", "sessionId": "s1", "uuid": "u1", "cwd": "/home/ann/shop",
         "gitBranch": "main", "message": {"role": "user", "content": "first"}},
        {"type": "assistant", "sessionId": "s1", "uuid": "u2", "cwd": 5, "gitBranch": ["x"],
         "message": {"role": "assistant", "model": {"id": 1}, "content": "second"}},
    ]  # fmt: skip
    path = tmp_path / "s1.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    items = await collect(from_agent_transcripts(path))
    assert [i for i in items if not isinstance(i, MemoryRecord | SourceState)] == []
    second = records(items)[1]
    assert second.text == "second" and second.title == "claude-code session in shop"
    assert second.meta["project"] == "/home/ann/shop" and second.meta["branch"] == "main"
    assert "model" not in second.meta


async def test_a_line_holding_a_number_too_long_to_read_is_named_in_plain_words(
    tmp_path: Path,
) -> None:
    # Python's own words for it tell the user to change the interpreter's limit.
    turn = {"type": "user", "sessionId": "s1", "uuid": "u1", "cwd": "/home/ann/shop"}
    lines = [
        json.dumps({**turn, "message": {"role": "user", "content": "first"}}),
        json.dumps({**turn, "uuid": "u2", "message": {"role": "user", "content": "x"}})[:-1]
        + ', "n": ' + "9" * 5000 + "}",
        json.dumps({**turn, "uuid": "u3", "message": {"role": "user", "content": "third"}}),
    ]  # fmt: skip
    path = tmp_path / "s1.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    items = await collect(from_agent_transcripts(path))
    assert [r.text for r in records(items)] == ["first", "third"]
    (error,) = [i for i in items if not isinstance(i, MemoryRecord | SourceState)]
    assert error.where.endswith("line 2") and "digits, too long to read" in error.reason
    assert "set_int_max_str_digits" not in error.reason


async def test_a_folder_that_cannot_be_listed_is_named_and_its_sessions_not_pruned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions = tmp_path / "sessions"
    shutil.copytree(CLAUDE, sessions / "claude")
    shutil.copytree(CODEX, sessions / "codex")
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        first = await memory.ingest(from_agent_transcripts(sessions))
        locked, real_scandir = str(sessions / "codex"), os.scandir

        def scandir(path: Any = ".") -> Any:
            if os.fsdecode(path) == locked:  # another user's folder (root ignores chmod)
                raise PermissionError(13, "Permission denied", locked)
            return real_scandir(path)

        monkeypatch.setattr(os, "scandir", scandir)
        again = await memory.ingest(from_agent_transcripts(sessions), full=True, prune=True)
        monkeypatch.undo()
        # Before, the folder was passed over unsaid and the full run pruned its sessions.
        assert [(e.where, e.reason) for e in again.errors] == [
            ("codex", "cannot list the folder: Permission denied; its sessions were not read")
        ]
        codex = records(await collect(from_agent_transcripts(CODEX)))
        assert (again.removed, again.unchanged) == (0, first.added - len(codex))
        assert all([await memory.get(t.id) for t in codex])
