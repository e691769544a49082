"""Repositories git itself reads, with commits no one would write: each is still a commit."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from gitrepos import BASE, Repo, git, raw_commit
from helpers import collect, errors, records

from memtrails import Memory
from memtrails._exceptions import SourceError
from memtrails.importers.git import from_git
from memtrails.limits import Limits

PEOPLE = b"author Ann <ann@example.org> %d +0000\ncommitter Ann <ann@example.org> %d +0000\n" % (
    BASE,
    BASE,
)


async def test_a_commit_with_no_message_is_imported(tmp_path: Path, embedder: Any) -> None:
    """``git commit --allow-empty-message`` (or a converted history) makes commits with no
    message: they are commits of the history, found by what they changed."""
    repo = Repo(tmp_path / "r")
    first = repo.commit("first", {"a.txt": "a\n"})
    (repo.path / "renamed_module.py").write_text("x = 1\n")
    git(repo.path, "add", "-A")
    git(repo.path, "commit", "-q", "--allow-empty-message", "-m", "", i=2)
    silent = git(repo.path, "rev-parse", "HEAD")
    blank = raw_commit(repo, PEOPLE, b"\n\n   \n")  # only blank lines, no file changed
    items = await collect(from_git(repo.path))
    recs = {r.id: r for r in records(items)}
    assert set(recs) == {first, silent, blank}
    assert recs[silent].title is None and "renamed_module.py" in recs[silent].text
    assert recs[blank].title is None and recs[blank].text.strip()
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        report = await memory.ingest(from_git(repo.path))
        assert (report.added, len(report.errors)) == (3, 0), report
        assert await memory.get(blank) is not None
        assert await memory.get(silent) is not None


async def test_hostile_but_readable_commits_are_each_a_record(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "r")
    repo.commit("first")
    future = raw_commit(
        repo,
        b"author Ann <ann@example.org> 99999999999 +0000\n"
        b"committer Ann <ann@example.org> 99999999999 +0000\n",
        b"far in the future\n",
    )
    huge_body = b"x" * (10 * 1024 * 1024)
    huge = raw_commit(repo, PEOPLE, b"a huge message\n\n" + huge_body + b"\n")
    zones = raw_commit(
        repo,
        b"author Ann <ann@example.org> %d +1400\ncommitter <> %d -1200\n" % (BASE, BASE),
        b"odd zones and an empty committer\n",
    )
    git(repo.path, "checkout", "-q", "--detach", "HEAD")  # a detached HEAD is walked too
    items = await collect(from_git(repo.path))
    assert errors(items) == []
    recs = {r.id: r for r in records(items)}
    assert recs[future].at is not None and recs[future].at.iso().startswith("5138-")
    # Read up to what a record's text can hold (and more: the record's cut says so).
    assert recs[huge].title == "a huge message"
    assert len(recs[huge].text) > Limits().max_text_units
    assert recs[zones].title == "odd zones and an empty committer"
    assert recs[zones].at is not None and recs[zones].at.ms == BASE * 1000


async def test_tags_on_a_blob_and_a_tree_are_no_history(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "r")
    tip = repo.commit("first", {"a.txt": "a\n"})
    blob = git(repo.path, "rev-parse", "HEAD:a.txt")
    git(repo.path, "tag", "blob-tag", blob)
    git(repo.path, "tag", "-a", "-m", "annotated, on a blob", "annotated-blob", blob)
    git(repo.path, "tag", "tree-tag", "HEAD^{tree}")
    items = await collect(from_git(repo.path, all_branches=True))
    assert [r.id for r in records(items)] == [tip]
    assert errors(items) == []


async def test_a_commit_with_no_email_keeps_its_author_and_date(tmp_path: Path) -> None:
    """An ident with no ``<email>`` (converters write them; git fsck's missingEmail): git log
    prints no name and no date for it, so both are read from the commit object."""
    repo = Repo(tmp_path / "r")
    repo.commit("first")
    bare = raw_commit(
        repo,
        b"author Grace Hopper %d +0200\ncommitter cvs2svn %d +0000\n" % (BASE, BASE + 60),
        b"converted from CVS\n",
    )
    empty = raw_commit(
        repo, b"author Ann <> %d +0000\ncommitter Ann <> %d +0000\n" % (BASE, BASE), b"empty\n"
    )
    items = await collect(from_git(repo.path))
    assert errors(items) == []
    recs = {r.id: r for r in records(items)}
    assert recs[bare].author == "Grace Hopper"
    assert recs[bare].at is not None and recs[bare].at.ms == BASE * 1000
    assert recs[bare].meta["committer"] == "cvs2svn"
    assert "date_error" not in recs[bare].meta
    assert recs[empty].author == "Ann"  # not "Ann <>"


async def test_a_repository_another_user_owns_says_how_to_trust_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git refuses a repository another user owns (a copy from another account, a USB
    drive): the error says so and gives git's command to trust it, not a cut tail of it."""
    repo = Repo(tmp_path / "r")
    repo.commit("first")
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")  # git's own test switch
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    with pytest.raises(SourceError) as caught:
        await collect(from_git(repo.path))
    reason = str(caught.value)
    assert "another user owns" in reason
    assert reason.endswith(f"git config --global --add safe.directory {repo.path}")
