"""Hostile notes folders: links out, a memory inside, FIFOs, unreadable folders, odd names."""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import deny, write_files

from memtrails import Memory
from memtrails._exceptions import SourceError
from memtrails.add import add_path
from memtrails.importers.files._ignore import ignored, kept_tree, read_ignore
from memtrails.records import ImportReport
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.timeout(60)  # a FIFO opened for reading would hang: fail instead


def stored(memory: Memory) -> dict[str, str]:
    """The stored records' ids and texts."""
    out = {}
    for line in (memory.path / "records.jsonl").read_text(encoding="utf-8").splitlines():
        if '"text"' in line:
            obj = json.loads(line)
            out[obj["id"]] = obj["text"]
    return out


def reasons(report: ImportReport) -> dict[str, str]:
    return {e.where: e.reason for e in report.errors}


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """Files of every kind memtrails reads, outside the folder to be imported."""
    out = tmp_path / "outside"
    write_files(
        out,
        {
            "secret.jsonl": '{"id": "s1", "text": "outside jsonl"}\n',
            "box.mbox": "From a@b Mon Jan  1 00:00:00 2024\nSubject: outside mbox\n\nbody\n",
            "m.eml": "From: a@b\nTo: c@d\nSubject: outside eml\nDate: Mon, 1 Jan 2024\n\nx\n",
            "Maildir/cur/1:2,S": "From: a@b\nSubject: outside maildir\n\nx\n",
            "notes/n.md": "# outside note\n",
        },
    )
    (out / "Maildir" / "new").mkdir()
    (out / "Maildir" / "tmp").mkdir()
    return out


async def test_no_link_leads_outside_the_folder(tmp_path: Path, outside: Path) -> None:
    root = tmp_path / "notes"
    write_files(root, {"mine.md": "# mine\n", "sub/also.md": "# also\n"})
    for name, target in {
        "data.jsonl": outside / "secret.jsonl",
        "box.mbox": outside / "box.mbox",
        "mail.eml": outside / "m.eml",
        "Maildir": outside / "Maildir",
        "x.eml": Path("/etc/passwd"),
        "sub/up": outside / "notes",
        "sub/loop": root,
    }.items():
        os.symlink(target, root / name)
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await add_path(memory, root)
        assert sorted(stored(memory)) == ["mine.md", "sub/also.md"]
        assert not any("outside" in t or "root:" in t for t in stored(memory).values())
    said = reasons(report)
    for link in ("data.jsonl", "box.mbox", "mail.eml", "Maildir", "x.eml", "sub/up", "sub/loop"):
        assert "symbolic link" in said[link], (link, said)


@pytest.mark.parametrize("where", ["inside", "deeper/inside", "."])
async def test_a_memory_folder_is_never_a_source_of_itself(tmp_path: Path, where: str) -> None:
    root = tmp_path / "notes"
    home = root / where
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        write_files(root, {"a.md": "# a\n", "deeper/b.md": "# b\n"})
        if where == ".":
            with pytest.raises(SourceError, match="memory folder"):
                await add_path(memory, root)
            return
        first = await add_path(memory, root)
        again = await add_path(memory, root)
        assert sorted(stored(memory)) == ["a.md", "deeper/b.md"]
    assert first.added == 2 and again.added == 0
    assert "memtrails memory folder" in reasons(first)[where]


@pytest.mark.parametrize("name", ["pipe", "pipe.txt", "pipe.md", "pipe.mbox", ".gitignore"])
async def test_a_fifo_is_skipped_never_opened(tmp_path: Path, name: str) -> None:
    root = tmp_path / "notes"
    write_files(root, {"a.md": "# a\n"})
    os.mkfifo(root / name)
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await add_path(memory, root)
        assert sorted(stored(memory)) == ["a.md"]
    if not name.startswith("."):  # hidden names are never notes, and never said
        assert "named pipe (FIFO)" in reasons(report)[name]


async def test_a_socket_is_skipped(tmp_path: Path) -> None:
    import socket

    root = tmp_path / "n"
    write_files(root, {"a.md": "# a\n"})
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(root / "s.sock"))
        async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
            report = await add_path(memory, root)
    assert "a socket" in reasons(report)["s.sock"]


async def test_an_unreadable_folder_is_named_and_the_rest_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "notes"
    files = {"a.md": "# a\n", "locked/b.md": "# b\n", "z/c.md": "# c\n"}
    write_files(root, {**files, "d.jsonl": '{"text": "hi"}\n'})
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        deny(monkeypatch, root / "locked")
        report = await add_path(memory, root)
        monkeypatch.undo()
        assert sorted(stored(memory)) == ["a.md", "d.jsonl:1", "z/c.md"]
    assert "cannot read the folder" in reasons(report)["locked"]


async def test_names_differing_in_a_bad_byte_keep_two_ids(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    for raw in (b"note\xff.md", b"note\xfe.md", b"note\xef\xbf\xbd.md"):
        with open(os.path.join(os.fsencode(root), raw), "wb") as f:
            f.write(b"# " + raw + b"\n")
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        first = await add_path(memory, root)
        again = await add_path(memory, root, full=True)
        ids = sorted(stored(memory))
        # Each is a note, titled by its heading: a bad byte's hex after the id's "//" hid
        # the .md ending (a "file", titled with the hex).
        kinds = {(r.kind, "//" in (r.title or "")) async for r in memory.records()}
    assert (first.added, first.skipped) == (3, 0), first.errors
    assert (again.added, again.unchanged) == (0, 3)
    assert len(set(ids)) == 3 and "note\ufffd.md" in ids  # the valid name is its own id
    assert kinds == {("note", False)}


def deep_tree(root: Path, depth: int = 1100) -> None:
    """Make ``root/d/d/.../d/bottom.md``, deeper than Python's recursion limit."""
    here = str(root)
    os.mkdir(here)
    for _ in range(depth):
        here += "/d"
        os.mkdir(here)  # one level at a time: makedirs itself recurses
    with open(here + "/bottom.md", "w", encoding="utf-8") as f:
        f.write("# bottom\n")


@pytest.fixture
def deep(tmp_path: Path) -> Iterator[Path]:
    """A deep tree's root, removed level by level afterwards: pytest's own clean-up of old
    temporary folders (shutil.rmtree, recursive) fails on a tree this deep."""
    root = tmp_path / "deep"
    yield root
    here = str(root) + "/d" * 1100
    if os.path.exists(here + "/bottom.md"):
        os.unlink(here + "/bottom.md")
    while len(here) >= len(str(root)):
        with contextlib.suppress(FileNotFoundError):
            os.rmdir(here)
        here = here[: -len("/d")] if here != str(root) else ""


def test_a_folder_deeper_than_the_recursion_limit_is_walked(deep: Path) -> None:
    deep_tree(deep)
    walked = [rel for _, rel, _, files in kept_tree(deep) if files]
    assert walked == ["/".join(["d"] * 1100)]


@pytest.mark.slow
async def test_a_deep_folder_imports(tmp_path: Path, deep: Path) -> None:
    root = deep
    deep_tree(root)
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await add_path(memory, root)
    assert report.added == 1, report.errors


def _match_seconds(rule: str, name: str, tmp_path: Path) -> float:
    ignore_file = tmp_path / f"rules-{len(rule)}"
    ignore_file.write_text(rule + "\n", encoding="utf-8")
    rules = read_ignore(ignore_file, "")
    assert rules is not None
    best = float("inf")
    for _ in range(3):
        start = time.thread_time()  # this thread's CPU: the load moves the wall clock
        for _ in range(200):
            ignored(name, False, [rules])
        best = min(best, time.thread_time() - start)
    return best


def test_gitignore_rules_match_in_linear_time(tmp_path: Path) -> None:
    """``a*a*...a*b`` against ``aaaa...`` backtracks exponentially in Python's ``re``."""
    stars = "a*" * 12 + "b"
    name = "a" * 2000
    base = _match_seconds(stars, name, tmp_path)
    longer = _match_seconds(stars, name * 2, tmp_path)
    more_stars = _match_seconds("a*" * 24 + "b", name, tmp_path)
    assert longer < 3 * base + 0.01, (base, longer)
    assert more_stars < 3 * base + 0.01, (base, more_stars)
    # and the rule still means what git means
    rules = read_ignore(_rules(tmp_path, "a*a*b"), "")
    assert rules is not None
    assert ignored("aXaYb", False, [rules]) and ignored("q/aab", True, [rules])
    assert not ignored("xaab", False, [rules]) and not ignored("ab", False, [rules])


def _rules(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "one.gitignore"
    path.write_text(text + "\n", encoding="utf-8")
    return path


def test_a_gitignore_line_pathspec_refuses_leaves_the_other_rules(tmp_path: Path) -> None:
    rules = read_ignore(_rules(tmp_path, "!\n*.log\n"), "")
    assert rules is not None and ignored("a.log", False, [rules])
