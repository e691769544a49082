"""A .gitignore of tens of thousands of lines (generated ones list every build output):
read like any other, not a crash of the whole import."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import collect

from memtrails.importers.files import from_files
from memtrails.records import MemoryRecord


@pytest.mark.slow  # about 10 s: pathspec reads each of the 20,000 lines
async def test_a_gitignore_of_twenty_thousand_lines_is_read(tmp_path: Path) -> None:
    rules = [f"build/output-{k}.o" for k in range(20_000)] + ["drafts/", "!drafts/keep.md"]
    (tmp_path / ".gitignore").write_text("\n".join(rules) + "\n", encoding="utf-8")
    for name in ("notes.md", "build/output-7.o", "build/readme.md", "drafts/keep.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(f"text of {name}\n", encoding="utf-8")
    items = await collect(from_files(tmp_path))
    # As git: drafts/ is ignored whole (a file in an ignored folder cannot be taken back).
    assert sorted(i.id for i in items if isinstance(i, MemoryRecord)) == [
        "build/readme.md",
        "notes.md",
    ]
