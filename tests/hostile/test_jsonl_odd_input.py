"""Hostile JSON Lines input: a disk that fails mid-read, numbers too long to read, CR line ends."""

from __future__ import annotations

import errno
import io
import os
from pathlib import Path
from typing import Any

import pytest
from helpers import collect, errors, records

from memtrails import Memory
from memtrails.importers._input import Input
from memtrails.importers.jsonl import from_jsonl
from memtrails.records import SourceState
from memtrails.testing import HashingEmbedder


def lines(n: int) -> bytes:
    return b"".join(b'{"id": "r%d", "text": "line %d"}\n' % (i, i) for i in range(n))


class FailingDisk(io.BufferedReader):
    """A file whose disk gives a read error (EIO) once ``good`` lines have been read."""

    def __init__(self, path: Path, good: int) -> None:
        super().__init__(io.FileIO(path, "rb"))
        self._good = good

    def readline(self, size: int | None = -1, /) -> bytes:
        if self._good == 0:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        self._good -= 1
        return super().readline(size)


def failing(path: Path, good: int) -> Input:
    file: Any = FailingDisk(path, good)
    size = path.stat().st_size
    return Input(
        str(path),
        file,
        fd=file.fileno(),
        regular=True,
        size=size,
        compression=None,
        counted=None,
        replay=None,
    )


async def test_a_read_error_keeps_the_lines_before_it_and_says_where(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(lines(5))
    items = await collect(from_jsonl(failing(path, 2)))
    assert [r.id for r in records(items)] == ["r0", "r1"]
    (error,) = errors(items)
    assert error.source == str(path.resolve())
    assert error.where == "line 3"
    assert error.reason.startswith("cannot read further: ")
    assert os.strerror(errno.EIO) in error.reason
    # The run is not complete (nothing is pruned for it); the next one resumes at line 3.
    state = [i for i in items if isinstance(i, SourceState)][-1]
    assert not state.complete
    assert state.state["offset"] == len(lines(2)) and state.state["lines"] == 2


async def test_a_read_error_prunes_nothing(tmp_path: Path) -> None:
    """Through ``Memory.ingest`` (the lines read unparsed): counted, and nothing forgotten."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(lines(5))
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        assert (await memory.ingest(from_jsonl(path))).added == 5
        report = await memory.ingest(from_jsonl(failing(path, 2)), prune=True)
        assert (report.unchanged, report.removed, len(report.errors)) == (2, 0, 1)
        assert "cannot read further" in report.errors[0].reason
        assert await memory.get("r4") is not None


@pytest.mark.parametrize("following", [False, True])
async def test_a_number_too_long_to_read_is_that_lines_error(
    tmp_path: Path, following: bool
) -> None:
    """Python reads an integer of at most 4,300 digits: the error says so in words, not with
    its own advice to call ``sys.set_int_max_str_digits()``."""
    path = tmp_path / "nums.jsonl"
    long = b'{"id": "long", "n": -' + b"9" * 5000 + b"}"
    path.write_bytes(lines(1) + long + b"\n" + lines(2)[len(lines(1)) :] + long)
    items = await collect(from_jsonl(path, following=following))
    assert [r.id for r in records(items)] == ["r0", "r1"]
    assert [e.where for e in errors(items)] == ["line 2", "line 4"]
    for error in errors(items):
        assert error.reason.startswith("holds a number of more than 4,300 digits")
        assert "set_int_max_str_digits" not in error.reason


async def test_a_line_that_is_not_utf8_is_not_json(tmp_path: Path) -> None:
    """Its ``UnicodeDecodeError`` is a ``ValueError`` too: not taken for a number too long."""
    path = tmp_path / "bytes.jsonl"
    path.write_bytes(b'{"text": "\xff\xfe"}\n' + lines(1) + b'{"text": "\xff"}')
    items = await collect(from_jsonl(path))
    assert [r.id for r in records(items)] == ["r0"]
    assert [(e.where, e.reason.split(":")[0]) for e in errors(items)] == [
        ("line 1", "not JSON"),
        ("line 3", "truncated last line (no newline at end of file)"),
    ]
