"""Aider's chat history, as Aider writes it (``aider/io.py``: ``append_chat_history``,
``user_input``, ``ai_output``, ``tool_output``; prompt_toolkit's ``FileHistory`` for the
inputs). Written here by those rules, no real session."""

from __future__ import annotations

from pathlib import Path

from helpers import collect, records

from memtrails.importers.detect import detect_kind
from memtrails.importers.transcripts import from_agent_transcripts, is_transcript_file
from memtrails.records import At, MemoryRecord, SourceState


def started(at: str) -> str:
    return f"\n# aider chat started at {at}\n\n"


def user(text: str) -> str:  # user_input: each line "#### ", joined by two spaces and LF
    lines = "  \n#### ".join(text.splitlines())
    return f"\n#### {lines}  \n"


def tool(text: str) -> str:  # tool_output: a blockquote with a line break
    return f"> {text}  \n"


def ai(text: str) -> str:  # ai_output
    return "\n" + text.strip() + "\n\n"


HISTORY = (
    started("2025-06-19 14:32:16")
    + tool("Aider v0.85.1")
    + tool("Main model: anthropic/claude-sonnet-4 with diff edit format")
    + user("/add shop/total.py")
    + tool("Added shop/total.py to the chat")
    + user("Why is the total off by a cent?\nIt is 10.01, not 10.00.")
    + ai("It rounds twice.\n\n```python\nround(round(x, 2), 2)\n```\n\nRound once instead.")
    + tool("Tokens: 2.1k sent, 120 received.")
    + tool("Applied edit to shop/total.py")
    + tool("Commit 1a2b3c4 fix: round once")
    + started("2025-06-20 09:00:02")
    + user("Thanks, now the tests.")
)

INPUTS = (
    "\n# 2025-06-19 14:32:20.101010\n+/add shop/total.py\n"
    "\n# 2025-06-19 14:33:05.202020\n+Why is the total off by a cent?\n+It is 10.01, not 10.00.\n"
    "\n# 2025-06-20 09:00:30.303030\n+Thanks, now the tests.\n"
)


def history_file(tmp_path: Path, history: str, project: str = "shop") -> Path:
    """Write ``history`` as the Aider chat history of a project folder; return its path."""
    folder = tmp_path / project
    folder.mkdir()
    path = folder / ".aider.chat.history.md"
    path.write_text(history, encoding="utf-8")
    return path


def project(tmp_path: Path) -> Path:
    path = history_file(tmp_path, HISTORY)
    (path.parent / ".aider.input.history").write_text(INPUTS, encoding="utf-8")
    return path


async def test_aiders_chat_history_is_its_turns(tmp_path: Path) -> None:
    path = project(tmp_path)
    # Before: "files", the history a note of Markdown.
    assert detect_kind(path) == "transcripts"
    items = await collect(from_agent_transcripts(path))
    assert [i for i in items if not isinstance(i, MemoryRecord | SourceState)] == []
    turns = records(items)
    assert [(t.author, t.text) for t in turns] == [
        ("user", "/add shop/total.py"),
        ("user", "Why is the total off by a cent?\nIt is 10.01, not 10.00."),
        ("aider", "It rounds twice.\n\n```python\nround(round(x, 2), 2)\n```\n\nRound once instead."),
        ("user", "Thanks, now the tests."),
    ]  # fmt: skip
    assert [t.thread for t in turns] == ["aider-20250619T143216"] * 3 + ["aider-20250620T090002"]
    assert len({t.id for t in turns}) == 4
    # a user turn at the time its input was typed, the answer at that of its question
    assert [t.at for t in turns] == [
        At.of(v) for v in ("2025-06-19T14:32:20.101", "2025-06-19T14:33:05.202",
                           "2025-06-19T14:33:05.202", "2025-06-20T09:00:30.303")
    ]  # fmt: skip
    assert turns[0].meta["project"] == str(path.parent) and turns[0].meta["agent"] == "aider"


async def test_a_rerun_reads_what_aider_added_since(tmp_path: Path) -> None:
    path = project(tmp_path)
    first = await collect(from_agent_transcripts(path))
    state = first[-1]
    assert isinstance(state, SourceState)
    before = {t.id: t for t in records(first)}
    with path.open("a", encoding="utf-8") as f:
        f.write(ai("Added three tests.") + user("Run them."))
    again = records(await collect(from_agent_transcripts(path, state=state.state)))
    # the last run read again, its turns as they were, and what is new
    assert [(t.author, t.text) for t in again] == [
        ("user", "Thanks, now the tests."),
        ("aider", "Added three tests."),
        ("user", "Run them."),
    ]
    assert again[0] == before[again[0].id]
    whole = records(await collect(from_agent_transcripts(path)))
    assert {t.id: t.text for t in whole} == {
        **{t.id: t.text for t in first if isinstance(t, MemoryRecord)},
        **{t.id: t.text for t in again},
    }


def test_a_markdown_file_of_that_name_not_aiders_is_a_note(tmp_path: Path) -> None:
    path = tmp_path / ".aider.chat.history.md"
    path.write_text("# My chat notes\n\nNothing from aider.\n", encoding="utf-8")
    assert not is_transcript_file(path)


async def _turns(path: Path) -> list[tuple[str, str]]:
    return [(r.author or "", r.text) for r in records(await collect(from_agent_transcripts(path)))]


async def test_who_speaks_in_aiders_history_follows_how_aider_writes_it(tmp_path: Path) -> None:
    """The rule of ``transcripts_aider.py``, case by case: a ``#### `` line is the user's
    when it ends in Aider's two spaces (a Markdown heading in an answer does not); a ``> ``
    line and the unquoted lines right after it are Aider's output; Aider answering its own
    question is no one's words; an answer starts after a blank line."""
    answer = "#### Step 1\nRound once.\n\n#### Step 2\nRun the tests."
    history = (
        started("2025-06-19 14:32:16")
        + tool("Aider v0.85.1")
        + user("Fix the rounding.")
        # A message of several lines: tool_output quotes the first alone.
        + tool("Run shell commands?\npytest -q\nruff check .")
        + ai(answer)
        # Aider answering for the user, for a group of questions (confirm_ask).
        + user("Add shop/tax.py to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: a")
        + tool("Applied edit to shop/total.py")
        + user("#### not a heading: the user typed hashes")
    )  # fmt: skip
    path = history_file(tmp_path, history)
    assert await _turns(path) == [
        ("user", "Fix the rounding."),
        ("aider", answer),
        ("user", "#### not a heading: the user typed hashes"),
    ]


async def test_a_history_that_lost_its_trailing_spaces_keeps_the_users_turns(
    tmp_path: Path,
) -> None:
    """An editor that trims trailing spaces leaves no line ending in two: then every
    ``#### `` line is the user's, as before."""
    trimmed = "\n".join(line.rstrip() for line in HISTORY.split("\n"))
    path = history_file(tmp_path, trimmed)
    turns = await _turns(path)
    assert [a for a, _ in turns] == ["user", "user", "aider", "user"]
    assert turns[1] == ("user", "Why is the total off by a cent?\nIt is 10.01, not 10.00.")


async def test_a_quote_in_an_answer_stays_in_that_answer(tmp_path: Path) -> None:
    """Aider's output is a ``> `` line ending in its two spaces (``append_chat_history``'s
    ``blockquote`` and ``linebreak``), right after the user's input or more of its output,
    or a paragraph of its own whose last line ends so; a Markdown quote the model wrote
    is none of those, and stays in its answer, wherever in it."""
    quoted = (
        "Python's docs say:\n\n> round() rounds half to even.\n> Use Decimal.\n\nSo use Decimal."
    )
    inline = "As the log said\n> 3 tests failed\nthe fix is in total.py."
    opening = "> Round once.\n\nThat is all it takes."
    history = (
        started("2025-06-19 14:32:16")
        + tool("Aider v0.85.1")
        + user("Why is it off?")
        + ai(quoted)
        + tool("Tokens: 2.1k sent, 120 received.")
        + user("And the tests?")
        + ai(inline)
        # Aider asking about commands of several lines right after an answer: the
        # first, the longest, padded by nothing, is Aider's all the same.
        + tool("pytest -q tests/test_total.py\nruff check .")
        + tool("Run shell commands? (Y)es/(N)o/(D)on't ask again [Yes]: n")
        + user("Summarise.")
        + ai(opening)
        + tool("Applied edit to shop/total.py")
    )  # fmt: skip
    path = history_file(tmp_path, history)
    assert await _turns(path) == [
        ("user", "Why is it off?"),
        ("aider", quoted),
        ("user", "And the tests?"),
        ("aider", inline),
        ("user", "Summarise."),
        ("aider", opening),
    ]
    # A file that lost its trailing spaces tells no quote from Aider's output: as before,
    # its "> " lines are Aider's, its users' turns kept.
    trimmed = "\n".join(line.rstrip() for line in history.split("\n"))
    path.write_text(trimmed, encoding="utf-8")
    users = [t for a, t in await _turns(path) if a == "user"]
    assert users == ["Why is it off?", "And the tests?", "Summarise."]


async def test_a_message_of_aiders_of_several_paragraphs_is_no_answer(tmp_path: Path) -> None:
    """Older Aider quotes the first line of a message of several alone (``tool_error``),
    blank lines and all, its last line ending in the two spaces: what follows a blank line
    in it is Aider's still, up to that last line, and the output after it no answer's."""
    answer = "Here is the edit.\n\n```python\nx = 1\n```"
    error = (
        "# 1 SEARCH/REPLACE block failed to match!\n\n"
        "## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines\n"
        "<<<<<<< SEARCH\nx = 0\n=======\nx = 1\n>>>>>>> REPLACE\n\n"
        "Just reply with fixed versions of the block above that failed to match."
    )
    history = (
        started("2025-04-01 10:00:00")
        + user("Set x to one.")
        + ai(answer)
        + tool("Tokens: 13k sent, 2.3k received.")
        + tool(error)
        + tool("litellm.RateLimitError: quota exceeded")
        + tool("Retrying in 0.2 seconds...")
        + ai("Fixed: the block now matches.")
        + user("Thanks.")
    )
    path = history_file(tmp_path, history, "calc")
    assert await _turns(path) == [
        ("user", "Set x to one."),
        ("aider", answer),
        ("aider", "Fixed: the block now matches."),
        ("user", "Thanks."),
    ]
