"""Gemini CLI's hidden parts follow the rule the other agents' do: the model's reasoning
(a part marked ``thought``) and what a tool gave back (a function's response, code run's
output, the files an ``@`` mention read into the user's words) are no one's words to keep;
a tool's failure is the agent's ``[tool error: ...]``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import collect, records

from memtrails.importers.transcripts import from_agent_transcripts
from memtrails.records import RecordError

SID = "e2a1c0d4-5b6f-4a7e-9c8d-1f2e3a4b5c6d"


async def turns_of(tmp_path: Path, messages: list[dict[str, Any]]) -> list[Any]:
    chats = tmp_path / "tmp" / "5f3a9c" / "chats"
    chats.mkdir(parents=True)
    session = {
        "sessionId": SID,
        "projectHash": "5f3a9c",
        "startTime": "2025-09-01T10:00:00Z",
        "lastUpdated": "2025-09-01T10:05:00Z",
        "messages": messages,
    }
    (chats / "session-2025-09-01T10-00-e2a1c0d4.json").write_text(json.dumps(session), "utf-8")
    items = await collect(from_agent_transcripts(chats))
    assert [i for i in items if isinstance(i, RecordError)] == []
    return records(items)


def message(n: int, kind: str, content: Any, **extra: Any) -> dict[str, Any]:
    at = f"2025-09-01T10:0{n}:00.000Z"
    return {"id": f"m{n}", "timestamp": at, "type": kind, "content": content, **extra}


async def test_a_thought_part_is_left_out_as_claude_s_thinking_is(tmp_path: Path) -> None:
    turns = await turns_of(
        tmp_path,
        [
            message(1, "user", [{"text": "Why is the build red?"}]),
            message(
                2,
                "gemini",
                [
                    {"text": "**Weighing options** the private musing here", "thought": True},
                    {"text": "The lint step fails.", "thoughtSignature": "c2lnbmF0dXJl"},
                ],
            ),
        ],
    )
    assert [t.text for t in turns] == ["Why is the build red?", "The lint step fails."]


async def test_tool_output_parts_are_left_out_unless_they_failed(tmp_path: Path) -> None:
    turns = await turns_of(
        tmp_path,
        [
            message(
                1,
                "gemini",
                [
                    {"text": "Running it."},
                    {"functionCall": {"name": "run_shell_command", "args": {"command": "ls"}}},
                    {"executableCode": {"language": "PYTHON", "code": "print(6 * 7)"}},
                    {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "42 secret"}},
                    {"codeExecutionResult": {"outcome": "OUTCOME_FAILED", "output": "boom"}},
                ],
            ),
            message(
                2,
                "user",
                [
                    {
                        "functionResponse": {
                            "name": "run_shell_command",
                            "response": {"output": "private listing of files"},
                        }
                    },
                    {
                        "functionResponse": {
                            "name": "read_file",
                            "response": {"error": "no such file"},
                        }
                    },
                ],
            ),
        ],
    )
    assert turns[0].text.splitlines() == [
        "Running it.",
        '[tool run_shell_command: {"command": "ls"}]',
        "[tool code_execution: print(6 * 7)]",
        "[tool error: boom]",
    ]
    assert [t.text for t in turns[1:]] == ["[tool error: no such file]"]
    everything = " ".join(t.text for t in turns)
    assert "42 secret" not in everything and "private listing" not in everything


async def test_files_an_at_mention_read_are_not_the_user_s_words(tmp_path: Path) -> None:
    referenced = (
        "Summarize @README.md please\n--- Content from referenced files ---\n"
        "Content from @README.md:\n# Project\nAPI key notes and a long file\n"
        "--- End of content ---"
    )
    turns = await turns_of(
        tmp_path,
        [
            message(1, "user", referenced),
            message(
                2,
                "user",
                [
                    {"text": "Explain @src/app.ts"},
                    {"text": "\n--- Content from referenced files ---\n"},
                    {"text": "export const app = 1;"},
                    {"text": "\n--- End of content ---\n"},
                ],
            ),
        ],
    )
    assert [t.text for t in turns] == ["Summarize @README.md please", "Explain @src/app.ts"]


def _aider(answer: str) -> str:
    return (
        "\n# aider chat started at 2025-06-19 14:32:16\n\n"
        "\n#### Why is the total off by a cent?  \n"
        "\n" + answer.strip() + "\n\n"
        "> Tokens: 2.1k sent, 120 received.  \n"
    )


async def test_aider_s_reasoning_in_an_answer_is_left_out(tmp_path: Path) -> None:
    """Aider writes a reasoning model's thoughts into its history between its reasoning tags
    (``reasoning_tags.py``), or as it shows them (``► **THINKING**`` / ``► **ANSWER**``); a
    model may open its answer with its own ``<think>``."""
    tag = "thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b"
    answers = [
        f"<{tag}>\n\nhidden musing one\n\n</{tag}>\n\nIt rounds twice.",
        "--------------\n► **THINKING**\n\nhidden musing two\n\n------------\n► **ANSWER**\n\n"
        "It rounds twice.",
        "<think>\nhidden musing three\n</think>\n\nIt rounds twice.",
    ]
    for n, answer in enumerate(answers):
        folder = tmp_path / f"p{n}"
        folder.mkdir()
        (folder / ".aider.chat.history.md").write_text(_aider(answer), "utf-8")
        turns = records(await collect(from_agent_transcripts(folder / ".aider.chat.history.md")))
        assert [(t.author, t.text) for t in turns] == [
            ("user", "Why is the total off by a cent?"),
            ("aider", "It rounds twice."),
        ], answer
    # An answer that speaks of the tag mid-way keeps its words.
    folder = tmp_path / "kept"
    folder.mkdir()
    said = "Wrap it in <think> and </think> tags, as R1 does."
    (folder / ".aider.chat.history.md").write_text(_aider(said), "utf-8")
    turns = records(await collect(from_agent_transcripts(folder / ".aider.chat.history.md")))
    assert turns[-1].text == said


async def test_a_thought_flag_written_as_a_string_is_a_thought_still(tmp_path: Path) -> None:
    turns = await turns_of(
        tmp_path,
        [
            message(
                1,
                "gemini",
                [
                    {"text": "private musing", "thought": "true"},
                    {"text": "Done."},
                    {"inlineData": {"mimeType": 5, "data": "AAAA"}},
                ],
            )
        ],
    )
    assert [t.text for t in turns] == ["Done.\n[file]"]
