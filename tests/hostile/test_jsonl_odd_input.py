"""Hostile JSON Lines input: a disk that fails mid-read, numbers too long to read, CR line ends."""

from __future__ import annotations

import errno
import gzip
import os
from pathlib import Path

import pytest
from helpers import collect, errors, failing_disk, records

from memtrails import Memory
from memtrails.importers.jsonl import from_jsonl
from memtrails.limits import Limits
from memtrails.records import SourceState
from memtrails.testing import HashingEmbedder


def lines(n: int) -> bytes:
    return b"".join(b'{"id": "r%d", "text": "line %d"}\n' % (i, i) for i in range(n))


async def test_a_read_error_keeps_the_lines_before_it_and_says_where(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(lines(5))
    items = await collect(from_jsonl(failing_disk(path, 2)))
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
        report = await memory.ingest(from_jsonl(failing_disk(path, 2)), prune=True)
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


def cr_lines(first: int, stop: int) -> bytes:
    """Lines ended by a lone CR, as classic Mac OS wrote them: no LF anywhere."""
    return b"".join(b'{"text": "line %d"}\r' % i for i in range(first, stop))


@pytest.mark.parametrize("suffix", ["", ".gz"])
async def test_lines_ended_by_a_lone_cr_are_read(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"mac.jsonl{suffix}"
    data = cr_lines(0, 5)
    path.write_bytes(gzip.compress(data) if suffix else data)
    items = await collect(from_jsonl(path))
    assert errors(items) == []
    assert [(r.id, r.text) for r in records(items)] == [
        (f"mac.jsonl:{i + 1}", f"line {i}") for i in range(5)
    ]


async def test_a_lone_cr_file_resumes_where_it_stopped(tmp_path: Path) -> None:
    path = tmp_path / "mac.jsonl"
    path.write_bytes(cr_lines(0, 3))
    first = await collect(from_jsonl(path))
    state = [i for i in first if isinstance(i, SourceState)][-1]
    assert state.complete and state.state["offset"] == len(cr_lines(0, 3))
    with path.open("ab") as f:
        f.write(cr_lines(3, 5))
    again = await collect(from_jsonl(path, state=state.state))
    assert [r.id for r in records(again)] == ["mac.jsonl:4", "mac.jsonl:5"]


async def test_lone_cr_lines_stay_bounded(tmp_path: Path) -> None:
    """Lines over ``max_line_bytes`` are refused one by one; those around them are read."""
    path = tmp_path / "mac.jsonl"
    long = b'{"text": "' + b"x" * 5000 + b'"}\r'
    path.write_bytes(cr_lines(0, 300) + long + cr_lines(300, 600) + long + cr_lines(600, 610))
    items = await collect(from_jsonl(path, limits=Limits(max_line_bytes=1000)))
    assert [r.text for r in records(items)] == [f"line {i}" for i in range(610)]
    assert [e.where for e in errors(items)] == ["line 301", "line 602"]
    assert all("over 1,000" in e.reason for e in errors(items))
