"""Who wrote a commit, as ``git log`` shows them: names mapped by ``.mailmap``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gitrepos import BASE, Repo, git, raw_commit
from helpers import collect, records

from memtrails.importers.git import from_git

MAILMAP = (
    "Ada King <ada@lovelace.example> Ada Lovelace <ada@example.org>\n"
    "Charles Babbage <charles@engine.example> <cb@example.org>\n"
)


async def test_authors_are_named_as_mailmap_maps_them(tmp_path: Path) -> None:
    """A project's ``.mailmap`` gives each person one name and address (``git log``,
    ``git shortlog`` and blame show them): the records name them so, in a work tree and in
    a bare clone (whose ``.mailmap`` git reads from HEAD)."""
    repo = Repo(tmp_path / "r")
    repo.commit("first", {"a.txt": "a\n"})
    repo.commit("add the mailmap", {".mailmap": MAILMAP})
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo.path), str(bare))
    for path in (repo.path, bare):
        recs = records(await collect(from_git(path)))
        assert len(recs) == 2
        for rec in recs:
            shown = git(path, "log", "-1", "--format=%aN <%aE>|%cN <%cE>", rec.id).split("|")
            assert rec.author == shown[0] == "Ada King <ada@lovelace.example>"
            assert rec.meta["committer"] == shown[1] == "Charles Babbage <charles@engine.example>"


async def test_mailmap_still_maps_a_commit_whose_encoding_header_lies(tmp_path: Path) -> None:
    """A commit that names ISO-8859-1 but is UTF-8 is read as UTF-8, and its author is still
    the one ``.mailmap`` names."""
    repo = Repo(tmp_path / "r")
    repo.commit("add the mailmap", {".mailmap": "Ada King <ada@example.org>\n"})
    ident = "José <ada@example.org> %d +0000\n".encode() % BASE
    sha = raw_commit(
        repo,
        b"author " + ident + b"committer " + ident + b"encoding ISO-8859-1\n",
        "Café crème\n".encode(),
    )
    rec = records(await collect(from_git(repo.path)))[0]
    assert (rec.id, rec.title) == (sha, "Café crème")
    assert rec.author == rec.meta["committer"] == "Ada King <ada@example.org>"


async def test_no_other_folders_mailmap_is_read(tmp_path: Path, monkeypatch: Any) -> None:
    """Imported from inside another project (the folder the command runs in), a repository
    is read with its own ``.mailmap`` only; a bare one with none has its names as written."""
    other = tmp_path / "other"
    other.mkdir()
    (other / ".mailmap").write_text("Someone Else <x@example.org> <ada@example.org>\n")
    monkeypatch.chdir(other)
    repo = Repo(tmp_path / "r")
    repo.commit("first")
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo.path), str(bare))
    for path in (repo.path, repo.path / ".git", bare):
        rec = records(await collect(from_git(path)))[0]
        assert rec.author == "Ada Lovelace <ada@example.org>"
