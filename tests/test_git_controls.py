"""Terminal escapes and control characters in what a commit says: gone from its record."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepos import BASE, Repo, raw_commit
from helpers import collect, records

from memtrails.importers.git import from_git

# (what is written, what reads): colours, a window title, a hyperlink, a cursor move, a
# bell, a backspace, DEL and a C1 control.
MESSAGES = [
    (b"\x1b[1;31mFAILED\x1b[0m test_parser", "FAILED test_parser"),
    (b"\x1b]0;owned\x07Fix the build", "Fix the build"),
    (b"See \x1b]8;;https://example.org\x1b\\the docs\x1b]8;;\x1b\\ now", "See the docs now"),
    (b"Bump\x1b[2K\x1b[1A version\x07", "Bump version"),
    (b"Tidy\x08\x7f up \xc2\x9bthe code", "Tidy up the code"),
]


@pytest.mark.parametrize(("written", "read"), MESSAGES)
async def test_escapes_in_a_message_and_names_are_not_kept(
    tmp_path: Path, written: bytes, read: str
) -> None:
    """A message pasted from a coloured terminal, or an author name crafted to retitle the
    window of whoever lists the history, reads as its words; the body keeps its lines."""
    repo = Repo(tmp_path / "r")
    repo.commit("first")
    people = b"author Ev\x1b[31mil\x07 Ann <ann\x1b]0;x\x07@example.org> %d +0000\n" % BASE
    people += b"committer Bo\x1b[0mb <bob@example.org> %d +0000\n" % BASE
    sha = raw_commit(repo, people, written + b"\n\n\tline one\x1b[0m\n" + written + b"\n")
    rec = records(await collect(from_git(repo.path)))[0]
    assert rec.id == sha
    assert rec.title == read
    assert rec.text == f"{read}\n\n\tline one\n{read}"
    assert rec.author == "Evil Ann <ann@example.org>"
    assert rec.meta["committer"] == "Bob <bob@example.org>"


async def test_a_path_with_a_newline_or_an_escape_is_one_line_of_the_list(
    tmp_path: Path,
) -> None:
    """A file name may hold a line feed or an ESC: the "Files changed" list shows it on one
    line (as ``ls`` does, ``?`` for each), and the file list in ``meta`` keeps it as it is."""
    repo = Repo(tmp_path / "r")
    odd = "notes\n\x1b[2Jsecret.md"
    repo.commit("add notes", {odd: "x\n", "plain.txt": "y\n"})
    rec = records(await collect(from_git(repo.path)))[0]
    assert rec.text.split("Files changed:\n")[1].split("\n") == ["notes??[2Jsecret.md", "plain.txt"]
    assert [f["path"] for f in rec.meta["files"]] == [odd, "plain.txt"]


@pytest.mark.parametrize(
    ("ident", "read"),
    [
        (b"A\x00nn <ann@example.org>", "A nn <ann@example.org>"),
        (b"Ann <ann\x00\x00@example.org>", "Ann <ann @example.org>"),
        (b"Ann\x00 \x1b[31mB <ann@example.org>", "Ann  B <ann@example.org>"),
    ],
)
async def test_a_nul_in_a_name_or_address_is_a_space(
    tmp_path: Path, ident: bytes, read: str
) -> None:
    """A crafted commit may hold NUL bytes in its author line (``git log`` then prints no
    author at all): each run of them reads as one space, as in a message."""
    repo = Repo(tmp_path / "r")
    repo.commit("first")
    people = b"author %s %d +0100\ncommitter Bob <bob@example.org> %d +0000\n" % (
        ident,
        BASE - 3600,
        BASE,
    )
    sha = raw_commit(repo, people, b"crafted\n")
    rec = records(await collect(from_git(repo.path)))[0]
    assert (rec.id, rec.author, rec.meta["committer"]) == (sha, read, "Bob <bob@example.org>")
    assert rec.at is not None and rec.at.ms == (BASE - 3600) * 1000


async def test_an_address_with_no_name_has_no_leading_space(tmp_path: Path) -> None:
    """``author  <ann@example.org>`` (no name, or one of control characters only): the
    author is the address, as ``<ann@example.org>``."""
    repo = Repo(tmp_path / "r")
    repo.commit("first")
    people = b"author  <ann@example.org> %d +0000\ncommitter \x1b[0m <bob@example.org> %d +0000\n"
    raw_commit(repo, people % (BASE, BASE), b"no names\n")
    rec = records(await collect(from_git(repo.path)))[0]
    assert (rec.author, rec.meta["committer"]) == ("<ann@example.org>", "<bob@example.org>")
