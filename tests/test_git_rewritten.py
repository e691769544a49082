"""A history rewritten between two imports (amend, rebase, force-push): what the memory keeps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gitrepos import git, linear

from memtrails import Memory
from memtrails.importers.git import from_git


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
