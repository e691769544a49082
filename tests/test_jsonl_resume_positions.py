"""A saved position (a ``sources.json`` entry) that is not one this version reads, written by
an older version, a run that stopped part-way or a hand edit: the source is read from its
start, said in the report and the debug log, and the import never stops on it."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from gitrepos import Repo
from test_importer_guards import slack_export

from memtrails import Memory
from memtrails.add import add_git, add_path, source_name
from memtrails.importers._resume import BAD_POSITION
from memtrails.importers.git import git_source

# Each is one way a JSON Lines or mbox position can be wrong; the rest of it stays as saved.
_BROKEN: list[tuple[str, dict[str, Any]]] = [
    ("no lines", {"lines": None}),  # None: the key is left out
    ("lines as text", {"lines": "5"}),
    ("lines as null", {"lines": ...}),  # ...: the key kept, its value JSON null
    ("lines below 0", {"lines": -3}),
    ("records as a list", {"records": [1]}),
    ("records as text", {"records": "many"}),
    ("records as true", {"records": True}),
    ("offset as a float", {"offset": 10.5}),
    ("offset below 0", {"offset": -1}),
    ("no offset", {"offset": None}),
    ("head as a number", {"head": 12}),
    ("no tail", {"tail": None}),
]


def _edit(home: Path, source: str, change: dict[str, Any]) -> None:
    """Change the saved position of ``source`` in ``home``'s sources.json, as a hand would."""
    path = home / "sources.json"
    saved = json.loads(path.read_text(encoding="utf-8"))
    state = saved[source]["state"]
    for key, value in change.items():
        if value is None:
            state.pop(key, None)
        else:
            state[key] = None if value is ... else value
    path.write_text(json.dumps(saved), encoding="utf-8")


def _mbox(n: int) -> str:
    return "".join(
        f"From s{i}@example.com Tue Apr  1 12:21:37 2003\nFrom: s{i}@example.com\n"
        f"Subject: harbour {i}\nMessage-ID: <m{i}@example.com>\n\nabout the harbour {i}\n\n"
        for i in range(n)
    )


def _jsonl(n: int) -> str:
    return "".join(
        json.dumps({"id": f"j{i}", "text": f"the harbour crane {i}"}) + "\n" for i in range(n)
    )


_CASES = [
    pytest.param(kind, make, change, id=f"{kind}: {label}")
    for kind, make in (("jsonl", _jsonl), ("mbox", _mbox))
    for label, change in _BROKEN
    if kind == "jsonl" or "lines" not in change  # an mbox position has no line count
]


@pytest.mark.parametrize(("kind", "make", "change"), _CASES)
async def test_a_broken_position_reads_the_file_from_its_start(
    tmp_path: Path,
    embedder: Any,
    caplog: pytest.LogCaptureFixture,
    kind: str,
    make: Any,
    change: dict[str, Any],
) -> None:
    path = tmp_path / f"archive.{kind}"
    path.write_text(make(3), encoding="utf-8")
    home = tmp_path / "m"
    async with Memory.open(home, embedder=embedder) as memory:
        first = await add_path(memory, path)
    assert first.added == 3
    _edit(home, source_name(path), change)
    path.write_text(make(4), encoding="utf-8")  # one more, appended
    with caplog.at_level(logging.DEBUG, logger="memtrails.importers"):
        async with Memory.open(home, embedder=embedder) as memory:
            again = await add_path(memory, path)
    (read,) = again.sources
    assert (read.mode, read.why) == ("full", BAD_POSITION), change
    assert (again.added, again.unchanged, again.skipped) == (1, 3, 0)
    assert any("saved position not used" in r.getMessage() for r in caplog.records)
    # the position saved now is whole again: the next run resumes from it
    async with Memory.open(home, embedder=embedder) as memory:
        third = await add_path(memory, path)
    assert third.sources[0].mode == "incremental" and third.added == 0


async def test_a_position_of_another_type_for_every_kind_is_read_from_the_start(
    tmp_path: Path, embedder: Any
) -> None:
    """Notes, a Maildir, a Slack export and a Git repository given a position whose parts
    are of the wrong type: each is read in full, none stops the import."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nthe harbour crane\n", encoding="utf-8")
    maildir = tmp_path / "Maildir"
    for box in ("cur", "new", "tmp"):
        (maildir / box).mkdir(parents=True)
    (maildir / "cur" / "1:2,S").write_text(
        "From: a@b.test\nSubject: hi\nMessage-ID: <1@b.test>\n\nthe tide\n", encoding="utf-8"
    )
    slack = slack_export(tmp_path / "slack")
    repo = Repo(tmp_path / "repo")
    repo.commit("first", {"f.txt": "1"})
    home = tmp_path / "m"
    async with Memory.open(home, embedder=embedder) as memory:
        for folder in (notes, maildir, slack):
            await add_path(memory, folder)
        await add_git(memory, repo.path)
    broken = {
        source_name(notes): {"files": ["a.md"]},
        source_name(maildir): {"messages": "cur/1:2,S"},
        source_name(slack): {"metadata": 7, "channels": None},
        git_source(repo.path): {"heads": ["HEAD"]},
    }
    for source, state in broken.items():
        path = home / "sources.json"
        saved = json.loads(path.read_text(encoding="utf-8"))
        saved[source]["state"] = state
        path.write_text(json.dumps(saved), encoding="utf-8")
    async with Memory.open(home, embedder=embedder) as memory:
        reports = [await add_path(memory, folder) for folder in (notes, maildir, slack)]
        reports.append(await add_git(memory, repo.path))
    for report in reports:
        (read,) = report.sources
        assert read.mode == "full" and report.added == 0 and report.skipped == 0, read
