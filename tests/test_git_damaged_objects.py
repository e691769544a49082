"""A commit object damaged in the middle of the history: the commits around it are kept, and
the error names it."""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from gitrepos import linear, repo_source
from helpers import collect, errors, records

from memtrails.importers.git import from_git
from memtrails.records import SourceState


def _truncate(data: bytes) -> bytes:
    return data[: len(data) // 2]


DAMAGE: dict[str, Callable[[bytes], bytes]] = {
    "cut in half": _truncate,
    "not compressed": lambda data: b"not a git object at all\n" * 4,
    "empty": lambda data: b"",
    "bad header": lambda data: zlib.compress(b"commit 999\x00tree 1234\n"),
    "another type": lambda data: zlib.compress(b"blob 5\x00hello"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
async def test_a_damaged_commit_object_keeps_its_child_and_is_named(
    tmp_path: Path, damage: str
) -> None:
    """The disk or a copy damaged one commit's object: the commits after it are each a
    record (the one whose parent it is without its files), one error names the damaged
    commit, and the walk is not complete (no prune)."""
    repo = linear(tmp_path / "r", 6)
    shas = repo.rev_list("HEAD")
    path = repo.path / ".git" / "objects" / shas[3][:2] / shas[3][2:]
    os.chmod(path, 0o644)
    path.write_bytes(DAMAGE[damage](path.read_bytes()))
    items = await collect(from_git(repo.path))
    recs, errs = records(items), errors(items)
    assert [r.id for r in recs] == shas[:3]
    assert "files" not in recs[2].meta and "could not be read" in recs[2].meta["files_error"]
    assert len(errs) == 1 and shas[3] in errs[0].where + errs[0].reason
    assert items[-1] == SourceState(repo_source(repo), {"heads": {}}, "full", False)
