"""Tests for the files importer: the walk, .gitignore rules, encodings, titles, skips, re-runs."""

from __future__ import annotations

import hashlib
import os
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers import collect, write_files

from memtrails._exceptions import SourceError
from memtrails.importers.files import _walk as files_walk
from memtrails.importers.files import from_files
from memtrails.limits import Limits
from memtrails.records import At, MemoryRecord, RecordError, Seen, SourceState

ROOT = Path(__file__).resolve().parents[1]


def records(items: list[Any]) -> dict[str, MemoryRecord]:
    return {i.id: i for i in items if isinstance(i, MemoryRecord)}


def errors(items: list[Any]) -> dict[str, str]:
    return {i.where: i.reason for i in items if isinstance(i, RecordError)}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    write_files(
        root,
        {
            ".gitignore": "# build output\nbuild/\n*.log\n!keep.log\n/top-only.txt\n",
            "README.md": "Intro line\n\n# Project Notes #\n\nBody.\n",
            "setext.md": "Some Title\n==========\n\ntext\n",
            "fenced.md": "```\n# not a heading\n```\n\n## Real heading\n",
            "front.md": '---\ntitle: "From Front Matter"\ntags: [a]\n---\n# Heading\n',
            "plain.txt": "# not a heading in a .txt\n",
            "code.py": "print('hi')\n",
            "debug.log": "ignored\n",
            "keep.log": "kept by negation\n",
            "top-only.txt": "ignored at the top\n",
            "build/out.md": "# ignored\n",
            "sub/top-only.txt": "kept: the rule is anchored to the root\n",
            "sub/.gitignore": "local.md\n*.tmp\ndeep/**/gen.py\n",
            "sub/local.md": "ignored by the nested file\n",
            "sub/x.tmp": "ignored\n",
            "sub/deep/a/b/gen.py": "ignored\n",
            "sub/deep/gen.py": "ignored: ** matches zero folders\n",
            "sub/deep/keep.py": "kept\n",
            "other/local.md": "kept: the nested rule only applies under sub/\n",
            ".hidden/secret.md": "# hidden folder\n",
            ".env": "TOKEN=hidden file\n",
            "image.png": b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256)),
            "control.dat": b"\x01\x02\x03\x04abc\x05\x06\x07\x08" * 20,
            "big.md": "# Big\n" + "x" * 5000,
            "latin1.txt": "caf\u00e9 na\u00efve \u00ff".encode("latin-1"),
            "cp1252.txt": b"\x93quoted\x94 \x80 5",
            "undefined.txt": b"byte \x81 has no cp1252 meaning \xe9",
            "bom.md": b"\xef\xbb\xbf# BOM Title\n\ntext\n",
            "utf16.txt": "\ufeffwide text \u00e9".encode("utf-16-le"),
            "empty.txt": b"",
        },
    )
    (root / "utf16.txt").write_bytes(b"\xff\xfe" + "wide text \u00e9".encode("utf-16-le"))
    return root


async def test_walk_order_kinds_and_skips(tree: Path) -> None:
    items = await collect(from_files(tree, limits=Limits(max_file_bytes=4096)))
    recs, errs = records(items), errors(items)
    assert list(recs) == [
        "README.md",
        "bom.md",
        "code.py",
        "cp1252.txt",
        "empty.txt",
        "fenced.md",
        "front.md",
        "keep.log",
        "latin1.txt",
        "other/local.md",
        "plain.txt",
        "setext.md",
        "sub/deep/keep.py",
        "sub/top-only.txt",
        "undefined.txt",
        "utf16.txt",
    ]
    assert errs == {
        "big.md": "larger than Limits.max_file_bytes (5,006 bytes; the limit is 4,096: "
        "raise it with `memtrails add --max-file-bytes`)",
        "control.dat": "binary file",
        "image.png": "binary file",
    }
    assert recs["README.md"].kind == "note"
    assert recs["code.py"].kind == "file"
    assert recs["keep.log"].kind == "file"
    assert {r.source for r in recs.values()} == {str(tree.resolve())}


async def test_titles(tree: Path) -> None:
    recs = records(await collect(from_files(tree)))
    assert recs["README.md"].title == "Project Notes"
    assert recs["setext.md"].title == "Some Title"
    assert recs["fenced.md"].title == "Real heading"
    assert recs["front.md"].title == "From Front Matter"
    assert recs["bom.md"].title == "BOM Title"
    assert recs["plain.txt"].title == "plain.txt"
    assert recs["code.py"].title == "code.py"


async def test_encodings(tree: Path) -> None:
    recs = records(await collect(from_files(tree)))
    enc = {rid: r.meta["encoding"] for rid, r in recs.items()}
    assert enc["README.md"] == "utf-8"
    assert (enc["latin1.txt"], recs["latin1.txt"].text) == ("cp1252", "café naïve ÿ")
    assert (enc["cp1252.txt"], recs["cp1252.txt"].text) == ("cp1252", "\u201cquoted\u201d \u20ac 5")
    assert enc["undefined.txt"] == "latin-1"
    assert recs["undefined.txt"].text == "byte \x81 has no cp1252 meaning é"
    assert (enc["bom.md"], recs["bom.md"].text) == ("utf-8-sig", "# BOM Title\n\ntext\n")
    assert (enc["utf16.txt"], recs["utf16.txt"].text) == ("utf-16", "wide text é")
    assert recs["empty.txt"].text == ""


async def test_meta_and_ids_are_stable(tree: Path) -> None:
    first = await collect(from_files(tree))
    recs = records(first)
    readme = recs["README.md"]
    path = tree / "README.md"
    st = path.stat()
    assert readme.meta == {
        "path": str(path.resolve()),
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "encoding": "utf-8",
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
    }
    assert readme.at == At(st.st_mtime_ns // 1_000_000)
    again = await collect(from_files(tree))
    assert [i.to_json() for i in again if not isinstance(i, SourceState)] == [
        i.to_json() for i in first if not isinstance(i, SourceState)
    ]
    assert again[-1] == first[-1]  # the same position too


async def test_gitignore_matches_git(tmp_path: Path) -> None:
    """The same tree, read by us and listed by git itself, gives the same files."""
    root = tmp_path / "repo"
    write_files(
        root,
        {
            ".gitignore": "\n".join(
                [
                    "*.o",
                    "!important.o",
                    "/anchored.txt",
                    "docs/*.html",
                    "**/cache/",
                    "logs/**",
                    "!logs/keep/",
                    "a/**/z.txt",
                    "[bc]at.txt",
                    "d?g.txt",
                    "trailing\\ ",
                    "\\#hash.txt",
                    "name.txt/",
                    "nested/dir/",
                    "*.sw[!a]",
                ]
            )
            + "\n",
            "x.o": "",
            "important.o": "",
            "sub/y.o": "",
            "anchored.txt": "",
            "sub/anchored.txt": "",
            "docs/a.html": "",
            "docs/deep/b.html": "<p>kept</p>",  # a document: an empty one is an error
            "cache/c.txt": "",
            "m/cache/d.txt": "",
            "logs/l.txt": "",
            "logs/keep/k.txt": "",
            "a/z.txt": "",
            "a/b/c/z.txt": "",
            "bat.txt": "",
            "cat.txt": "",
            "hat.txt": "",
            "dog.txt": "",
            "doog.txt": "",
            "trailing ": "",
            "#hash.txt": "",
            "name.txt": "",
            "nested/dir/f.txt": "",
            "other/nested/dir/g.txt": "",
            "f.swp": "",
            "f.swa": "",
            "lib/.gitignore": "*.txt\n!/keep.txt\n/only-here.md\n",
            "lib/keep.txt": "",
            "lib/drop.txt": "",
            "lib/inner/drop.txt": "",
            "lib/inner/keep.txt": "",
            "lib/only-here.md": "",
            "lib/inner/only-here.md": "",
        },
    )
    subprocess.run(["git", "init", "-q", str(root)], check=True, capture_output=True)
    listed = (
        subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--others", "--exclude-standard"],
            check=True,
            capture_output=True,
        )
        .stdout.decode()
        .split("\0")
    )
    expected = sorted(
        p for p in listed if p and not any(part.startswith(".") for part in p.split("/"))
    )
    ours = records(await collect(from_files(root)))
    assert sorted(ours) == expected
    assert "logs/keep/k.txt" not in ours  # git cannot re-include inside an ignored folder
    assert "important.o" in ours and "x.o" not in ours


def git_lists(root: Path) -> list[str]:
    """The files git itself would add: untracked and not ignored, hidden ones left out."""
    subprocess.run(["git", "init", "-q", str(root)], check=True, capture_output=True)
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z", "--others", "--exclude-standard"],
        check=True,
        capture_output=True,
    ).stdout.decode()
    return sorted(
        p for p in listed.split("\0") if p and not any(s.startswith(".") for s in p.split("/"))
    )


async def test_gitignore_folder_rules_match_git(tmp_path: Path) -> None:
    """Rules on folders, "**" at the end, and re-inclusion, over every folder/file mix."""
    root = tmp_path / "repo"
    rules = [
        "logs/**",  # what is under logs, not logs itself: so a file in it can come back
        "!logs/x.txt",
        "only/*",
        "!only/*/",
        "only/**/*.tmp",
        "abc/**/",  # folders under abc, not abc itself
        "x/**/y",
        "*.bak",
        "!/keep/*.bak",
        "build/",
        "!build/x.txt",  # cannot come back: its folder is ignored
        "docs/*",  # a file directly in docs, and a folder, but nothing deeper by itself
        "!docs/sub/",
        "\\!bang.txt",
        "cache",
        "!*/cache/x.txt",
    ]
    folders = ["logs", "only", "abc", "x", "y", "keep", "build", "docs", "sub", "cache"]
    names = ["x.txt", "y.txt", "a.bak", "h.tmp", "!bang.txt", "bang.txt"]
    files: dict[str, str | bytes] = {".gitignore": "\n".join(rules) + "\n"}
    for a in ["", *folders]:
        for b in ["", *folders]:
            for name in names:
                files["/".join(p for p in (a, b, name) if p)] = "x"
    files["sub/.gitignore"] = "!*.bak\ny.txt\n"
    write_files(root, files)
    expected = git_lists(root)
    ours = records(await collect(from_files(root)))
    assert sorted(ours) == expected
    assert "logs/x.txt" in ours and "build/x.txt" not in ours and "abc/x.txt" in ours


def random_rule(rng: random.Random) -> str:
    pieces = ["a", "b", "c", "d", "e", "*", "?", "**", "[ab]", "[!a]*", "*e", "f?", "*.txt"]
    rule = "/".join(rng.choice(pieces) for _ in range(rng.randint(1, 3)))
    if rng.random() < 0.3:
        rule = "/" + rule
    if rng.random() < 0.3:
        rule += "/"
    return "!" + rule if rng.random() < 0.3 else rule


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(40))
async def test_random_rule_sets_match_git(tmp_path: Path, seed: int) -> None:
    """Random rules over a tree of folders named like the rules' pieces, as git lists it."""
    rng = random.Random(seed)
    root = tmp_path / "repo"
    files: dict[str, str | bytes] = {
        ".gitignore": "\n".join(random_rule(rng) for _ in range(rng.randint(1, 5))) + "\n"
    }
    folders = ["", "a", "b", "c", "d", *(f"{x}/{y}" for x in "abcd" for y in "abcd")]
    for folder in folders:
        for name in ("e", "fe", "x.txt", "y.txt", "ce"):
            files[f"{folder}/{name}".lstrip("/")] = "x"
    inner = [random_rule(rng) for _ in range(rng.randint(0, 3))]
    if inner:
        files["a/.gitignore"] = "\n".join(inner) + "\n"
    write_files(root, files)
    expected = git_lists(root)
    assert sorted(records(await collect(from_files(root)))) == expected


async def test_git_info_exclude(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.md": "a", "b.md": "b", ".git/info/exclude": "b.md\n"})
    assert list(records(await collect(from_files(tmp_path)))) == ["a.md"]


async def test_this_projects_docs() -> None:
    items = await collect(from_files(ROOT))
    recs = records(items)
    assert {"README.md", "conformance/README.md"} <= set(recs)
    assert recs["conformance/README.md"].kind == "note"
    for rid in list(recs) + list(errors(items)):
        assert not rid.startswith((".venv", ".git/", ".git")), rid
        assert "__pycache__" not in rid and ".egg-info" not in rid, rid


async def test_cannot_open(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such folder"):
        await collect(from_files(tmp_path / "missing"))
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    with pytest.raises(SourceError, match="not a folder"):
        await collect(from_files(tmp_path / "file.txt"))
    with pytest.raises(ValueError, match="max_file_bytes"):
        await collect(from_files(tmp_path, limits=Limits(max_file_bytes=0)))


async def test_symlinks_are_left_out(tmp_path: Path) -> None:
    write_files(tmp_path, {"real/a.md": "# A\n"})
    os.symlink(tmp_path / "real", tmp_path / "loop")
    os.symlink(tmp_path / "real" / "a.md", tmp_path / "link.md")
    items = await collect(from_files(tmp_path, source="notes"))
    assert list(records(items)) == ["real/a.md"]
    # What is left out is said, each with its reason.
    assert set(errors(items)) == {"loop", "link.md"}
    assert all("symbolic link" in why for why in errors(items).values())


async def test_unreadable_file_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_files(tmp_path, {"a.md": "a", "locked.md": "b"})
    real_open = os.open

    def guarded(path: Any, *args: Any, **kwargs: Any) -> Any:
        if Path(path).name == "locked.md":  # chmod cannot lock root out, so fake the refusal
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded)
    items = await collect(from_files(tmp_path))
    assert list(records(items)) == ["a.md"]
    assert errors(items)["locked.md"].startswith("cannot read the file")


# -- re-runs with the last run's state ------------------------------------------------------

OLD_NS = 1_600_000_000_000_000_000  # 2020-09-13: well past the racy window


def age(root: Path) -> None:
    """Give every file an old mtime, so its stat is trusted on the next run."""
    for n, path in enumerate(sorted(p for p in root.rglob("*") if p.is_file())):
        os.utime(path, ns=(OLD_NS + n, OLD_NS + n))


def spy_reads(monkeypatch: pytest.MonkeyPatch, root: Path) -> list[str]:
    """Record the relative path of every file whose bytes the walk reads."""
    reads: list[str] = []
    real = files_walk._read_bytes

    def reading(path: Path, limit: int) -> bytes:
        reads.append(path.relative_to(root.resolve()).as_posix())
        return real(path, limit)

    monkeypatch.setattr(files_walk, "_read_bytes", reading)
    return reads


def final(items: list[Any]) -> SourceState:
    assert isinstance(items[-1], SourceState)
    assert not any(isinstance(i, SourceState) for i in items[:-1])
    return items[-1]


def seen(items: list[Any]) -> list[str]:
    return [i.id for i in items if isinstance(i, Seen)]


async def test_first_run_ends_with_a_complete_full_state(tree: Path) -> None:
    age(tree)
    items = await collect(from_files(tree, limits=Limits(max_file_bytes=4096)))
    state = final(items)
    assert (state.mode, state.complete, state.why) == ("full", True, None)
    assert state.source == str(tree.resolve())
    files = state.state["files"]
    readme = tree / "README.md"
    st = readme.stat()
    assert files["README.md"] == [
        st.st_size,
        st.st_mtime_ns,
        hashlib.sha256(readme.read_bytes()).hexdigest(),
    ]
    assert files["image.png"][3] == "binary file"
    # Oversized files are known from their stat alone: nothing to remember.
    assert set(files) == set(records(items)) | {"image.png", "control.dat"}
    assert {i.where: i.id for i in items if isinstance(i, RecordError)} == {
        "big.md": "big.md",
        "control.dat": "control.dat",
        "image.png": "image.png",
    }


async def test_unchanged_tree_reads_no_file(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    age(tree)
    first = await collect(from_files(tree, limits=Limits(max_file_bytes=4096)))
    reads = spy_reads(monkeypatch, tree)
    again = await collect(
        from_files(tree, limits=Limits(max_file_bytes=4096), state=final(first).state)
    )
    assert reads == []
    assert records(again) == {}
    assert sorted(seen(again)) == sorted(records(first))
    assert errors(again) == errors(first)  # the binary ones, from the state, unread
    state = final(again)
    assert (state.mode, state.complete, state.why) == ("incremental", True, None)
    assert state.state == final(first).state


async def test_touched_file_is_hashed_and_seen(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    age(tree)
    first = final(await collect(from_files(tree)))
    os.utime(tree / "README.md", ns=(OLD_NS - 7, OLD_NS - 7))
    reads = spy_reads(monkeypatch, tree)
    items = await collect(from_files(tree, state=first.state))
    assert reads == ["README.md"]
    assert records(items) == {}
    assert "README.md" in seen(items)
    stamp = final(items).state["files"]["README.md"]
    assert stamp[1] == OLD_NS - 7 and stamp[2] == first.state["files"]["README.md"][2]
    reads.clear()
    await collect(from_files(tree, state=final(items).state))
    assert reads == []  # the new stat is remembered


async def test_edited_file_gives_exactly_one_record(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    age(tree)
    first = final(await collect(from_files(tree)))
    (tree / "plain.txt").write_text("# edited, same folder\n", encoding="utf-8")
    os.utime(tree / "plain.txt", ns=(OLD_NS - 1, OLD_NS - 1))
    reads = spy_reads(monkeypatch, tree)
    items = await collect(from_files(tree, state=first.state))
    assert reads == ["plain.txt"]
    assert list(records(items)) == ["plain.txt"]
    assert records(items)["plain.txt"].text == "# edited, same folder\n"
    assert len(seen(items)) == len(first.state["files"]) - 1 - 2  # less plain.txt and 2 binaries


async def test_deleted_and_new_files(tree: Path) -> None:
    age(tree)
    first = final(await collect(from_files(tree)))
    (tree / "code.py").unlink()
    write_files(tree, {"new.md": "# New\n"})
    items = await collect(from_files(tree, state=first.state))
    assert list(records(items)) == ["new.md"]
    files = final(items).state["files"]
    assert "code.py" not in files and "new.md" in files
    assert final(items).complete


async def test_a_file_just_written_is_hashed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(tmp_path, {"fresh.md": "# just saved\n"})  # mtime: now
    first = final(await collect(from_files(tmp_path)))
    assert first.state["files"]["fresh.md"][0] == -1  # its stat is not trusted
    reads = spy_reads(monkeypatch, tmp_path)
    items = await collect(from_files(tmp_path, state=first.state))
    assert reads == ["fresh.md"]
    assert seen(items) == ["fresh.md"]


async def test_a_state_it_cannot_read_means_a_full_read(tree: Path) -> None:
    bad_states = (
        {},
        {"files": "x"},
        {"files": {"a.md": [1, 2]}},
        {"files": {"a.md": ["1", 2, "h"]}},
    )
    for bad in bad_states:
        state = final(await collect(from_files(tree, state=bad)))
        assert (state.mode, state.complete) == ("full", True)
        assert state.why == "the saved position is not one this version reads"


async def test_positions_follow_the_files_they_cover(tree: Path) -> None:
    age(tree)
    items = await collect(from_files(tree, limits=Limits(max_file_bytes=4096), checkpoint_every=4))
    positions = [n for n, i in enumerate(items) if isinstance(i, SourceState)]
    assert len(positions) == 1 + 17 // 4  # 17 files read (big.md is too big by its stat)
    for n in positions[:-1]:
        state = items[n]
        assert not state.complete
        before = {i.id for i in items[:n] if isinstance(i, MemoryRecord | RecordError)}
        assert set(state.state["files"]) <= before
    saved = items[-1].state["files"]
    # Nothing read, nothing worth saving before the end.
    unchanged = await collect(
        from_files(
            tree, limits=Limits(max_file_bytes=4096), checkpoint_every=4, state=items[-1].state
        )
    )
    assert [i for i in unchanged if isinstance(i, SourceState)] == [unchanged[-1]]
    # With a state, positions also keep last run's stamps of the files not reached yet.
    edited = ["README.md", "code.py", "cp1252.txt", "empty.txt", "plain.txt"]
    for n, name in enumerate(edited):
        (tree / name).write_text(f"edited {n}\n", encoding="utf-8")
        os.utime(tree / name, ns=(OLD_NS - n - 1, OLD_NS - n - 1))
    again = await collect(
        from_files(
            tree, limits=Limits(max_file_bytes=4096), checkpoint_every=4, state=items[-1].state
        )
    )
    assert list(records(again)) == edited
    middle = next(i for i in again if isinstance(i, SourceState))
    assert set(middle.state["files"]) == set(saved)
    assert middle.state["files"]["empty.txt"] != saved["empty.txt"]  # the 4th read
    assert middle.state["files"]["plain.txt"] == saved["plain.txt"]  # not reached yet


async def test_a_folder_it_cannot_list_makes_the_run_incomplete(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.scandir

    def scandir(path: Any) -> Any:
        if Path(path).name == "sub":
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(files_walk.os, "scandir", scandir)
    items = await collect(from_files(tree))
    assert errors(items)["sub"].startswith("cannot read the folder")
    assert not final(items).complete


async def test_a_gitignore_line_python_warns_about_is_read_quietly(tmp_path: Path) -> None:
    """A class such as ``[[a]`` makes ``re`` warn ("Possible nested set"); the walk reads
    the rule as git does and the user sees no Python warning (warnings are errors here)."""
    (tmp_path / ".gitignore").write_text("[[a]b\n*.log\n")
    (tmp_path / "keep.md").write_text("# Keep\n\nThe ferry leaves at nine.\n")
    (tmp_path / "debug.log").write_text("noise\n")
    items = await collect(from_files(tmp_path))
    records = [i for i in items if isinstance(i, MemoryRecord)]
    assert [r.id for r in records] == ["keep.md"]
