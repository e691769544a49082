"""A .gitignore of tens of thousands of lines (generated ones list every build output):
read like any other, not a crash of the whole import."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers import collect

from memtrails.importers.files import _ignore, from_files
from memtrails.records import MemoryRecord


@pytest.mark.slow  # about 10 s: pathspec reads each of the 20,000 lines
async def test_a_gitignore_of_twenty_thousand_lines_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = [f"build/output-{k}.o" for k in range(20_000)] + ["drafts/", "!drafts/keep.md"]
    (tmp_path / ".gitignore").write_text("\n".join(rules) + "\n", encoding="utf-8")
    for name in ("notes.md", "build/output-7.o", "build/readme.md", "drafts/keep.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(f"text of {name}\n", encoding="utf-8")
    runs: list[str] = []
    run = _ignore._matches

    def counted(rule: Any, path: str, is_dir: bool) -> bool:
        runs.append(path)
        return run(rule, path, is_dir)

    monkeypatch.setattr(_ignore, "_matches", counted)
    items = await collect(from_files(tmp_path))
    # Lines naming one path are looked up, not each run against every path (20,000 runs
    # per file and folder made 2,000 notes take minutes).
    assert len(runs) < 100
    # As git: drafts/ is ignored whole (a file in an ignored folder cannot be taken back).
    assert sorted(i.id for i in items if isinstance(i, MemoryRecord)) == [
        "build/readme.md",
        "notes.md",
    ]


def test_literal_rules_decide_as_git_does(tmp_path: Path) -> None:
    """Lines with no wildcard are looked up, not run: each shape and each order of them
    with negations and wildcard lines, against git's own list of what it keeps."""
    ignore = [
        "name.md",  # a name at any depth
        "/top.md",  # anchored at the .gitignore's folder
        "sub/exact.md",  # a path: anchored too
        "dironly/",  # a folder at any depth, not a file of that name
        "/anchdir/",
        "a/b/",
        "dirfile/",
        "x.md",
        "!x.md",  # the last matching line decides
        "!y.md",
        "y.md",
        "*.log",
        "!important.log",  # a literal negation after a wildcard line
        "special.txt",
        "!*.txt",  # a wildcard negation after a literal line
    ]
    files = [
        "name.md", "d/name.md", "top.md", "d/top.md", "sub/exact.md", "other/sub/exact.md",
        "dironly/f.md", "q/dironly/f.md", "anchdir/f.md", "q/anchdir/f.md", "a/b/f.md",
        "q/a/b/f.md", "w/dirfile", "x.md", "y.md", "z.log", "important.log", "special.txt",
        "n/local.md", "n/m/local.md", "n/m/deep.md", "n/deep.md", "n/name.md",
    ]  # fmt: skip
    (tmp_path / ".gitignore").write_text("\n".join(ignore) + "\n", encoding="utf-8")
    (tmp_path / "n").mkdir()
    (tmp_path / "n" / ".gitignore").write_text("/local.md\ndeep.md\n!name.md\n", encoding="utf-8")
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, capture_output=True)
    listed = subprocess.run(
        ["git", "-C", str(tmp_path), "ls-files", "--others", "--exclude-standard"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    expected = sorted(p for p in listed if not p.endswith(".gitignore"))
    ours = sorted(
        i.id for i in asyncio.run(collect(from_files(tmp_path))) if isinstance(i, MemoryRecord)
    )
    assert ours == expected
    assert "n/name.md" in ours and "w/dirfile" in ours and "special.txt" in ours
