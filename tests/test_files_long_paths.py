"""A folder or file whose path is longer than the system allows (``PATH_MAX``): its error
names it once (as where it is) and says why in words, not the path again in Python's
``[Errno 36] File name too long: '/…'``; the rest of the folder is imported."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from helpers import collect, errors, records

from memtrails.importers.files import from_files
from memtrails.importers.files._entries import os_reason


def _deep(root: Path, depth: int) -> str:
    """Make folders ``depth`` deep under ``root`` (200-byte names, made one at a time
    relative to the last, as a path that long cannot be given whole); return the
    relative path of the deepest."""
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("d" * 200, dir_fd=fd)
            inner = os.open("d" * 200, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        note = os.open("deep.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(note, b"# deep\n")
        os.close(note)
    finally:
        os.close(fd)
    return "/".join(["d" * 200] * depth)


async def test_a_path_past_path_max_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "near.md").write_text("# near\n")
    _deep(tmp_path, 24)  # 24 * 201 bytes: past 4,096 whatever tmp_path is
    items = await collect(from_files(tmp_path))
    assert [r.id for r in records(items)] == ["near.md"]
    [error] = errors(items)
    assert error.where.startswith("d" * 200 + "/")
    assert "d" * 200 not in error.reason
    assert "Errno" not in error.reason
    assert "over the system's limit of" in error.reason
    assert len(error.reason) < 120


def test_a_name_past_name_max_says_so() -> None:
    name = "n" * 300 + ".md"
    exc = OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG), "/tmp/" + name)
    reason = os_reason(exc, "/tmp/" + name)
    assert reason.startswith("a name in its path is 303 bytes")
    assert name not in reason
    assert os_reason(OSError(errno.EACCES, "Permission denied", "/x/y")) == "Permission denied"
