"""A history rewritten between two imports (amend, rebase, force-push): what the memory keeps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gitrepos import git, linear
from helpers import collect

from memtrails import Memory
from memtrails.importers.git import from_git
from memtrails.records import SourceState


async def test_commits_a_rewrite_dropped_stay_until_a_prune(tmp_path: Path, embedder: Any) -> None:
    """After a rewrite the next import reads the whole history again (``mode="full"``, saying
    why) and adds the new commits; the dropped ones stay searchable (they were the history,
    and may be on another branch or in the reflog) until ``prune`` forgets them."""
    repo = linear(tmp_path / "r", 4)
    old = repo.rev_list("HEAD")
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        first = await memory.ingest(from_git(repo.path))
        assert first.added == 4
        git(repo.path, "reset", "-q", "--hard", "HEAD~2")
        git(repo.path, "commit", "-q", "--allow-empty", "-m", "rewritten", i=9)
        new = repo.rev_list("HEAD")
        again = await memory.ingest(from_git(repo.path))
        assert (again.added, again.unchanged) == (1, 2), again
        assert all([await memory.get(sha) for sha in old + new])
        pruned = await memory.ingest(from_git(repo.path), prune=True)
        assert pruned.removed == 2, pruned
        assert all([await memory.get(sha) for sha in new])
        assert not any([await memory.get(sha) for sha in old[:2]])


async def test_a_rewrite_is_told_as_one_in_a_repository_with_grafts(tmp_path: Path) -> None:
    """git warns on every command of a repository with an ``info/grafts`` file (its
    "hint:" lines): no warning is taken for an error, so a reset HEAD is said to be one."""
    repo = linear(tmp_path / "r", 4)
    root = repo.rev_list("HEAD")[2]
    (repo.path / ".git" / "info").mkdir(exist_ok=True)
    (repo.path / ".git" / "info" / "grafts").write_text(root + "\n")
    first = (await collect(from_git(repo.path)))[-1]
    assert isinstance(first, SourceState) and first.complete
    git(repo.path, "reset", "-q", "--hard", "HEAD~1")
    git(repo.path, "commit", "-q", "--allow-empty", "-m", "rewritten", i=9)
    again = (await collect(from_git(repo.path, state=first.state)))[-1]
    assert isinstance(again, SourceState) and again.mode == "full"
    assert again.why is not None and "no longer in its history" in again.why, again.why
    assert "hint" not in again.why
