"""Entries of a notes folder that are no regular file (a device, FIFOs where the ignore rules
are read): listed as skipped with their reason, never opened, so the walk never blocks."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from helpers import collect, errors, records

from memtrails.importers.files import from_files


@pytest.mark.timeout(60)  # a FIFO opened for reading waits for a writer forever
async def test_fifos_where_ignore_rules_are_read_block_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Kept\n")
    os.mkfifo(tmp_path / ".gitignore")
    (tmp_path / ".git" / "info").mkdir(parents=True)
    os.mkfifo(tmp_path / ".git" / "info" / "exclude")
    (tmp_path / "sub").mkdir()
    os.mkfifo(tmp_path / "sub" / ".gitignore")
    os.mkfifo(tmp_path / "sub" / "pipe.md")
    items = await collect(from_files(tmp_path))
    assert [r.id for r in records(items)] == ["a.md"]
    (skipped,) = errors(items)
    assert skipped.where == "sub/pipe.md" and "named pipe (FIFO)" in skipped.reason


@pytest.mark.timeout(60)
async def test_a_device_in_a_notes_folder_is_skipped_unopened(tmp_path: Path) -> None:
    try:  # /dev/zero's numbers: read, it would never end
        os.mknod(tmp_path / "zero.md", stat.S_IFCHR | 0o600, os.makedev(1, 5))
    except PermissionError:
        pytest.skip("making a device needs CAP_MKNOD")
    (tmp_path / "b.md").write_text("# B\n")
    items = await collect(from_files(tmp_path))
    assert [r.id for r in records(items)] == ["b.md"]
    (skipped,) = errors(items)
    assert skipped.where == "zero.md" and skipped.reason.startswith("a device, left out")
