"""A bug while one record is converted is that record's error: the importer yields the rest.

Each importer's per-record converter is made to raise on one chosen record (as a bug in a
parser or a date reader would); the import must still yield every other record, and one
RecordError naming that record, the importer and the exception, with the traceback in the
``memtrails.importers`` debug log and never on the user's terminal.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from gitrepos import Repo
from helpers import collect, errors, records, write_json

from memtrails._exceptions import SourceError
from memtrails.importers import jsonl as jsonl_module
from memtrails.importers import transcripts as transcripts_module
from memtrails.importers._guard import RecordStep
from memtrails.importers._jsonl_source import JsonlSource
from memtrails.importers.files import _walk as walk_module
from memtrails.importers.files import from_files
from memtrails.importers.git import _history as history_module
from memtrails.importers.git import from_git
from memtrails.importers.jsonl import from_jsonl
from memtrails.importers.slack import _messages as slack_messages
from memtrails.importers.slack import from_slack_export
from memtrails.importers.transcripts import from_agent_transcripts
from memtrails.records import MemoryRecord, RecordError, SourceState

ROOT = Path(__file__).resolve().parents[1]
CLAUDE = ROOT / "tests" / "data" / "transcripts" / "claude"
TOKEN = "ghp_" + "Z1y2X3w4V5u6T7s8R9q0P1o2N3m4L5k6J7i8"  # a GitHub token's shape, made up


def the_error(items: list[Any], importer: str, exc: str, message: str) -> RecordError:
    """Return the one error of ``items``, checking it names the importer and the exception."""
    (error,) = errors(items)
    assert f"the {importer} importer failed on this" in error.reason, error
    assert f"{exc}: {message}" in error.reason, error
    assert "import went on" in error.reason
    return error


def logged(caplog: pytest.LogCaptureFixture, exc: type[BaseException]) -> bool:
    """Whether the importers' debug log holds the traceback of an ``exc``."""
    return any(
        r.name == "memtrails.importers"
        and r.levelno == logging.DEBUG
        and r.exc_info is not None
        and r.exc_info[0] is exc
        for r in caplog.records
    )


async def test_a_bug_on_one_commit_is_that_commits_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    repo = Repo(tmp_path / "repo")
    shas = [repo.commit(f"change {n}", {"f.txt": str(n)}) for n in range(3)]
    real = history_module.commit_record

    def buggy(commit: Any, *args: Any) -> MemoryRecord:
        if commit.sha == shas[1]:
            raise RuntimeError("the date reader broke")
        return real(commit, *args)

    monkeypatch.setattr(history_module, "commit_record", buggy)
    with caplog.at_level(logging.DEBUG, logger="memtrails.importers"):
        items = await collect(from_git(repo.path))
    assert [r.id for r in records(items)] == [shas[2], shas[0]]
    error = the_error(items, "git", "RuntimeError", "the date reader broke")
    # named by its sha, and kept by a prune: the commit is still in the repository
    assert error.where == shas[1] and error.id == shas[1]
    assert isinstance(items[-1], SourceState) and items[-1].state["heads"]
    assert logged(caplog, RuntimeError)


def slack_export(root: Path) -> Path:
    write_json(root / "users.json", [{"id": "U1", "name": "ada", "real_name": "Ada Lovelace"}])
    write_json(root / "channels.json", [{"id": "C1", "name": "general"}])
    write_json(
        root / "general" / "2024-01-01.json",
        [
            {"type": "message", "user": "U1", "ts": f"170406720{n}.000100", "text": f"msg {n}"}
            for n in range(3)
        ],
    )
    write_json(
        root / "general" / "2024-01-02.json",
        [{"type": "message", "user": "U1", "ts": "1704153600.000100", "text": "next day"}],
    )
    return root


async def test_a_bug_on_one_slack_message_is_that_messages_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    root = slack_export(tmp_path / "export")
    real = slack_messages.message_record

    def buggy(reader: Any, channel: str, where: str, message: Any) -> Any:
        if message.get("text") == "msg 1":
            raise IndexError("list index out of range")
        return real(reader, channel, where, message)

    monkeypatch.setattr(slack_messages, "message_record", buggy)
    with caplog.at_level(logging.DEBUG, logger="memtrails.importers"):
        items = await collect(from_slack_export(root))
    assert [r.text for r in records(items)] == ["msg 0", "msg 2", "next day"]
    error = the_error(items, "Slack", "IndexError", "list index out of range")
    assert error.where == "general/2024-01-01.json, message 2"
    assert logged(caplog, IndexError)


async def test_a_bug_on_one_note_is_that_files_error_and_it_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    for name in ("a.md", "b.md", "c.md"):
        (notes / name).write_text(f"# {name}\n\nabout {name}\n", encoding="utf-8")
    real = walk_module.title_of

    def buggy(text: str, name: str, suffix: str) -> str | None:
        if name == "b.md":
            raise KeyError("front matter")
        return real(text, name, suffix)

    monkeypatch.setattr(walk_module, "title_of", buggy)
    with caplog.at_level(logging.DEBUG, logger="memtrails.importers"):
        items = await collect(from_files(notes))
    assert [r.id for r in records(items)] == ["a.md", "c.md"]
    error = the_error(items, "notes", "KeyError", "'front matter'")
    assert error.where == "b.md" and error.id == "b.md"
    assert logged(caplog, KeyError)
    # Its record was never made, so the position must not call it read: once the bug is
    # gone, the next run reads it (instead of taking it for unchanged).
    state = items[-1]
    assert isinstance(state, SourceState) and "b.md" not in state.state["files"]
    monkeypatch.setattr(walk_module, "title_of", real)
    again = await collect(from_files(notes, state=state.state))
    assert [r.id for r in records(again)] == ["b.md"] and errors(again) == []


async def test_a_bug_on_one_transcript_line_is_that_lines_error(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    whole = records(await collect(from_agent_transcripts(CLAUDE)))
    hit = whole[1].meta["line"]
    real = transcripts_module._Session.turn

    def buggy(self: Any, obj: Any, n: int, source: str) -> MemoryRecord | None:
        if n == hit:
            raise AttributeError("'list' object has no attribute 'get'")
        return real(self, obj, n, source)

    monkeypatch.setattr(transcripts_module._Session, "turn", buggy)
    with caplog.at_level(logging.DEBUG, logger="memtrails.importers"):
        items = await collect(from_agent_transcripts(CLAUDE))
    assert [r.id for r in records(items)] == [r.id for i, r in enumerate(whole) if i != 1]
    error = the_error(
        items, "agent transcripts", "AttributeError", "'list' object has no attribute 'get'"
    )
    assert error.where.endswith(f".jsonl: line {hit}")
    assert logged(caplog, AttributeError)


async def test_a_transcript_line_nested_too_deeply_is_that_lines_error(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    head = '{"type": "user", "sessionId": "s1", "uuid": "u1", "message": {"role": "user", "content": "hi"}}\n'
    tail = '{"type": "user", "sessionId": "s1", "uuid": "u2", "message": {"role": "user", "content": "bye"}}\n'
    session.write_text(head + "[" * 100_000 + "]" * 100_000 + "\n" + tail, encoding="utf-8")
    items = await collect(from_agent_transcripts(session))
    assert [r.text for r in records(items)] == ["hi", "bye"]
    (error,) = errors(items)
    assert error.where == "s.jsonl: line 2" and "nested too deeply" in error.reason


def jsonl_file(path: Path) -> Path:
    lines = [{"id": f"r{n}", "text": f"line {n}"} for n in range(1, 4)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def buggy_record(monkeypatch: pytest.MonkeyPatch, on_line: int, exc: Exception) -> None:
    """Make the JSON Lines converter raise ``exc`` on line ``on_line``."""
    real = jsonl_module._record

    def buggy(obj: Any, line_no: int, *args: Any) -> MemoryRecord:
        if line_no == on_line:
            raise exc
        return real(obj, line_no, *args)

    monkeypatch.setattr(jsonl_module, "_record", buggy)


async def test_a_bug_on_one_json_line_is_that_lines_error_with_no_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    path = jsonl_file(tmp_path / "notes.jsonl")
    # The exception quotes the record, as a parser's often does: the error must not.
    buggy_record(monkeypatch, 2, RuntimeError(f"cannot read {TOKEN!r}"))
    with caplog.at_level(logging.DEBUG, logger="memtrails.importers"):
        items = await collect(from_jsonl(path))
    assert [r.id for r in records(items)] == ["r1", "r3"]
    error = the_error(items, "JSON Lines", "RuntimeError", "cannot read ")
    assert error.where == "line 2"
    assert TOKEN not in str(error) and "cannot read '[secret:github-token]'" in error.reason
    assert logged(caplog, RuntimeError)


async def test_a_bug_on_one_unparsed_json_line_is_that_lines_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import reads a file's lines unparsed (``raw_lines``) and parses those it must."""
    path = jsonl_file(tmp_path / "notes.jsonl")
    buggy_record(monkeypatch, 3, ZeroDivisionError("division by zero"))
    parsed: list[Any] = []
    reader = from_jsonl(path).resume(None)
    assert isinstance(reader, JsonlSource)
    async for chunk in reader.raw_lines(b"salt"):
        for item in chunk:
            if isinstance(item, MemoryRecord | RecordError | SourceState):
                parsed.append(item)
            else:
                parsed.append(item.parse(item.raw, item.where)[0])
    assert [r.id for r in records(parsed)] == ["r1", "r2"]
    assert the_error(parsed, "JSON Lines", "ZeroDivisionError", "division by zero").where == (
        "line 3"
    )


@pytest.mark.parametrize("exc", [MemoryError(), SourceError("s", "gone")])
def test_what_is_no_one_records_fault_still_ends_the_import(exc: Exception) -> None:
    def convert() -> None:
        raise exc

    with pytest.raises(type(exc)):
        RecordStep("test", "record").run("s", "here", convert)


def test_an_exception_that_cannot_be_shown_is_named_by_its_type() -> None:
    class Unprintable(Exception):
        def __str__(self) -> str:
            raise ValueError("no")

    def convert() -> None:
        raise Unprintable

    error = RecordStep("test", "record").run("s", "here", convert)
    assert isinstance(error, RecordError) and "(Unprintable)" in error.reason


_BUGGY_ADD = """
import sys
from memtrails.cli import main
from memtrails.importers import jsonl

real = jsonl._record

def buggy(obj, line_no, *args):
    if line_no == 2:
        raise RuntimeError("a bug in the parser")
    return real(obj, line_no, *args)

jsonl._record = buggy
main(sys.argv[1:])
"""


@pytest.mark.slow
def test_memtrails_add_reports_the_bug_in_one_line_without_a_traceback(tmp_path: Path) -> None:
    path = jsonl_file(tmp_path / "notes.jsonl")
    home = tmp_path / "home"
    done = subprocess.run(
        [sys.executable, "-c", _BUGGY_ADD, "add", str(path), "--home", str(home), "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
        check=False,
    )
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    report = json.loads(done.stdout)
    assert report["added"] == 2
    (error,) = report["errors"]
    assert error["where"] == "line 2"
    assert "RuntimeError: a bug in the parser" in error["reason"]
