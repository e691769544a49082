"""A repository in a folder whose name is not UTF-8: git is asked about the folder it is,
and its source keeps the name's bytes, as a notes folder's does."""

from __future__ import annotations

import os
from pathlib import Path

from gitrepos import Repo
from helpers import collect, errors, records

from memtrails.importers._shared import default_source
from memtrails.importers.git import from_git, git_source


async def test_a_repository_whose_folder_name_is_not_utf8(tmp_path: Path) -> None:
    path = Path(os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9-repo"))
    repo = Repo(path)
    sha = repo.commit("first commit", {"a.txt": "x"})
    items = await collect(from_git(path))
    assert errors(items) == []
    (record,) = records(items)
    assert record.id == sha and record.title == "first commit"
    source = git_source(path)
    assert record.source == source == "git:" + default_source(path)
    assert source.endswith("//" + (os.fsencode(tmp_path) + b"/caf\xe9-repo").hex())
    source.encode("utf-8")  # no lone surrogate: a name every key and log can hold
