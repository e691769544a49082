"""`memtrails add` given several inputs, one of which goes away (or is replaced) after the
command planned it and before its turn to be read: that input is one error in the report,
and the inputs before and after it are imported."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memtrails import Memory
from memtrails.add import add_path
from memtrails.cli import main
from memtrails.importers import detect
from memtrails.importers import plan as planner


def _removed(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()


def _made_a_folder(path: Path) -> None:
    _removed(path)
    path.mkdir()
    (path / "x.md").write_text("# X\n", encoding="utf-8")


def _made_a_file(path: Path) -> None:
    _removed(path)
    path.write_text("not a folder any more\n", encoding="utf-8")


def _inputs(root: Path) -> dict[str, Path]:
    root.mkdir(parents=True, exist_ok=True)
    first = root / "first.jsonl"
    first.write_text('{"id": "f", "text": "the harbour crane"}\n', encoding="utf-8")
    last = root / "last.jsonl"
    last.write_text('{"id": "l", "text": "the lighthouse"}\n', encoding="utf-8")
    mbox = root / "list.mbox"
    mbox.write_text(
        "From a@example.com Tue Apr  1 12:21:37 2003\nFrom: a@example.com\nSubject: tides\n"
        "Message-ID: <tides@example.com>\n\nthe tides table\n\n",
        encoding="utf-8",
    )
    notes = root / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nthe regatta\n", encoding="utf-8")
    return {"first": first, "list.mbox": mbox, "notes": notes, "last": last}


def _after_planning(
    monkeypatch: pytest.MonkeyPatch, last: Path, change: Callable[[], None]
) -> None:
    """Make ``change`` happen once every input is planned (the last one is ``last``)."""
    real = planner.plan

    def plan(path: str, **kwargs: Any) -> list[detect.Part]:
        parts = real(path, **kwargs)
        if Path(path) == last:
            change()
        return parts

    monkeypatch.setattr(planner, "plan", plan)  # the planner of ``add``'s inputs


@pytest.mark.parametrize(
    ("victim", "how", "reason"),
    [
        ("list.mbox", _removed, "no such file"),
        ("list.mbox", _made_a_folder, "is a folder, not a file"),
        ("notes", _removed, "no such folder"),
        ("notes", _made_a_file, "not a folder"),
    ],
)
def test_an_input_gone_after_planning_is_its_error_and_the_others_are_imported(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    victim: str,
    how: Callable[[Path], None],
    reason: str,
) -> None:
    paths = _inputs(tmp_path / "in")
    _after_planning(monkeypatch, paths["last"], lambda: how(paths[victim]))
    home = str(tmp_path / "home")
    args = ["add", *map(str, paths.values()), "--home", home, "--json"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    (error,) = report["errors"]
    assert error["where"] == str(paths[victim]) and reason in error["reason"], error
    assert error["source"] == str(paths[victim].resolve())
    assert (report["added"], report["skipped"]) == (3, 1)
    read = {Path(s["source"]).name for s in report["sources"]}
    assert read == {"first.jsonl", "last.jsonl", "list.mbox", "notes"} - {victim}


async def test_a_part_of_a_folder_gone_after_planning_leaves_the_others(
    tmp_path: Path, embedder: Any
) -> None:
    # A folder holding notes and an mbox is two parts: the mbox, deleted once planned, is
    # its error; the notes are read.
    folder = tmp_path / "mixed"
    paths = _inputs(folder)
    parts = detect.plan(str(folder))
    assert len(parts) > 1
    paths["list.mbox"].unlink()
    async with Memory.open(tmp_path / "home", embedder=embedder) as memory:
        report = await add_path(memory, parts)
    (error,) = report.errors
    assert error.where == str(paths["list.mbox"]) and "no such file" in error.reason
    assert report.added == 3 and report.skipped == 1


def test_an_input_given_twice_is_read_once(tmp_path: Path) -> None:
    paths = _inputs(tmp_path / "in")
    twice = [paths["first"], paths["notes"], paths["first"], paths["notes"] / ".."]
    args = ["add", *map(str, twice), "--home", str(tmp_path / "home"), "--json"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    # the folder above the notes holds every input: each of its parts once, the rest not again
    read = [Path(s["source"]).name for s in report["sources"]]
    assert sorted(read) == sorted(set(read)), read
    assert (report["unchanged"], report["errors"]) == (0, [])


def test_a_repository_gone_after_planning_is_its_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess

    paths = _inputs(tmp_path / "in")
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.org"}
    env |= {"GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@example.org"}
    for command in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "the first commit"]):
        subprocess.run(["git", "-C", str(repo), *command], check=True, env={**os.environ, **env})
    import memtrails.add

    real = memtrails.add.add_path

    async def add_path_then_delete(*args: Any, **kwargs: Any) -> Any:
        report = await real(*args, **kwargs)
        shutil.rmtree(repo, ignore_errors=True)  # once the files are read, before the repo
        return report

    monkeypatch.setattr(memtrails.add, "add_path", add_path_then_delete)
    args = ["add", str(paths["first"]), str(paths["last"]), "--git", str(repo)]
    args += ["--home", str(tmp_path / "home"), "--json"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    (error,) = report["errors"]
    assert str(repo) in error["where"] + error["source"], error
    assert report["added"] == 2


def test_a_git_path_that_is_no_repository_is_its_error(tmp_path: Path) -> None:
    paths = _inputs(tmp_path / "in")
    plain = tmp_path / "plain"
    plain.mkdir()
    home = tmp_path / "home"
    args = ["add", str(paths["first"]), "--git", str(plain), "--home", str(home), "--json"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    (error,) = report["errors"]
    assert error["source"] == f"git:{plain}" and "not a git repository" in error["reason"]
    assert (report["added"], report["skipped"]) == (1, 1)
    alone = CliRunner().invoke(main, ["add", "--git", str(plain), "--home", str(tmp_path / "h")])
    assert alone.exit_code == 1 and "not a git repository" in alone.output
    assert not (tmp_path / "h").exists()  # refused before a memory folder is made
