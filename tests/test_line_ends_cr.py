"""Text whose lines end in a carriage return alone (classic Mac OS, some exports): each CR is a
line end, in a notes folder, in a note given alone and in a commit message; Windows' CR LF
stays as it is."""

from __future__ import annotations

from pathlib import Path

from gitrepos import BASE, Repo, raw_commit
from helpers import collect, errors, records

from memtrails.importers.files import from_files
from memtrails.importers.files.lone import note_of
from memtrails.importers.git import from_git


async def test_a_note_with_cr_line_ends_reads_line_by_line(tmp_path: Path) -> None:
    (tmp_path / "mac.md").write_bytes(b"Draft\r# Harbour plans\r\rCranes arrive in May.\r")
    (tmp_path / "list.txt").write_bytes(b"Shopping\rapples\rpears\r")
    (tmp_path / "mixed.txt").write_bytes(b"one\r\ntwo\rthree\r\n")
    (tmp_path / "legacy.md").write_bytes("# Caf\u00e9 cr\u00e8me\rla suite\r".encode("cp1252"))
    items = await collect(from_files(tmp_path))
    assert errors(items) == []
    recs = {r.id: r for r in records(items)}
    assert recs["mac.md"].title == "Harbour plans"
    assert recs["mac.md"].text.split("\n")[:3] == ["Draft", "# Harbour plans", ""]
    assert recs["list.txt"].text.split("\n")[:3] == ["Shopping", "apples", "pears"]
    assert recs["mixed.txt"].text.startswith("one\r\ntwo\nthree")  # CR LF kept as written
    assert recs["legacy.md"].title == "Caf\u00e9 cr\u00e8me"
    assert all("\r" not in r.text.replace("\r\n", "") for r in recs.values())


def test_a_lone_note_with_cr_line_ends(tmp_path: Path) -> None:
    path = tmp_path / "mac.md"
    path.write_bytes(b"\r# Old Mac note\rbody\r")
    note = note_of(path)
    assert note is not None and note.title == "Old Mac note"
    assert note.text.strip("\n").split("\n") == ["# Old Mac note", "body"]


async def test_a_commit_message_with_cr_line_ends(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "r")
    repo.commit("first")
    ident = b"Ann <ann@example.org> %d +0000\n" % BASE
    sha = raw_commit(
        repo, b"author " + ident + b"committer " + ident, b"Fix the parser\r\rIt read CRs.\r"
    )
    recs = {r.id: r for r in records(await collect(from_git(repo.path)))}
    assert recs[sha].title == "Fix the parser"
    assert recs[sha].text.startswith("Fix the parser\n\nIt read CRs.")
