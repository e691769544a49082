"""Commits ``git log`` prints cut short: a message holding a NUL byte (git prints it only up
to the NUL) and dates before 1970 (git prints no time at all), read from the commit object."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gitrepos import Repo, raw_commit
from helpers import collect, errors, records

from memtrails import At, Memory
from memtrails.importers.git import from_git


def crafted(repo: Repo, author: bytes, committer: bytes, message: bytes, extra: bytes = b"") -> str:
    """Write a commit by Ann (``author``: her date and zone), committed by Bob (``committer``),
    with the ``extra`` header lines and exactly these bytes, on top of HEAD; return its sha."""
    people = b"author Ann <ann@example.org> %s\ncommitter Bob <bob@example.org> %s\n"
    return raw_commit(repo, people % (author, committer) + extra, message)


@pytest.mark.parametrize(
    ("message", "extra", "title"),
    [
        (b"Fix the poller\x00and the retry loop\n", b"", "Fix the poller and the retry loop"),
        (b"Fix the poller\n\nwhy:\x00\x00\x00a race\nin the timer\n", b"", "Fix the poller"),
        (b"\x00Fix the poller\n", b"", "Fix the poller"),
        (b"Sch\xf6ne Gr\xfc\xdfe\x00und mehr\n", b"encoding ISO-8859-1\n", "Schöne Grüße und mehr"),
        (b"Fix the poller\n\x00", b"", "Fix the poller"),
    ],
)
async def test_a_message_holding_a_nul_byte_is_read_whole(
    tmp_path: Path, message: bytes, extra: bytes, title: str
) -> None:
    repo = Repo(tmp_path / "r")
    first = repo.commit("first")
    sha = crafted(repo, b"1700000000 +0000", b"1700000000 +0000", message, extra)
    after = repo.commit("after")
    items = await collect(from_git(repo.path))
    assert errors(items) == []
    recs = {r.id: r for r in records(items)}
    assert set(recs) == {first, sha, after}
    record = recs[sha]
    assert record.title == title
    assert "\x00" not in record.text
    # The text on each side of the NUL bytes is kept, none of it lost.
    for part in message.split(b"\x00"):
        for line in part.decode("latin-1" if extra else "utf-8").split("\n"):
            assert line.strip() in record.text


async def test_a_nul_message_is_found_by_the_words_after_the_nul(
    tmp_path: Path, embedder: Any
) -> None:
    repo = Repo(tmp_path / "r")
    repo.commit("first")
    sha = crafted(
        repo, b"1700000000 +0000", b"1700000000 +0000", b"Fix it\x00rotate the flamingo keys\n"
    )
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        report = await memory.ingest(from_git(repo.path))
        assert (report.added, len(report.errors)) == (2, 0), report
        record = await memory.get(sha)
        assert record is not None and "flamingo" in record.text


@pytest.mark.parametrize(
    ("author", "committer", "authored", "committed"),
    [
        (b"-123456789 +0000", b"-123456789 +0000", -123456789, -123456789),
        (b"-1 +0530", b"-86400 -0800", -1, -86400),
        (b"-62135596800 +0000", b"1700000000 +0000", -62135596800, 1700000000),  # the year 1
        (b"1700000000 +0000", b"-5 +0000", 1700000000, -5),
        (b"8640000000000 +0000", b"99999999999 +0000", 8640000000000, 99999999999),
        (b"-8640000000000 +0000", b"0 +0000", -8640000000000, 0),
    ],
)
async def test_a_commit_is_dated_when_it_says_before_1970_and_far_ahead(
    tmp_path: Path, author: bytes, committer: bytes, authored: int, committed: int
) -> None:
    repo = Repo(tmp_path / "r")
    repo.commit("first")
    sha = crafted(repo, author, committer, b"An old one\n")
    items = await collect(from_git(repo.path))
    assert errors(items) == []
    record = {r.id: r for r in records(items)}[sha]
    assert record.at == At(authored * 1000)
    assert record.meta["committed_at"] == At(committed * 1000).iso()
    assert "date_error" not in record.meta


@pytest.mark.parametrize(
    ("author", "committer", "at"),
    [
        (b"8640000000001 +0000", b"1700000000 +0000", 1700000000),
        (b"99999999999999999999 +0000", b"-200 +0000", -200),
        (b"soon +0000", b"1700000000 +0000", 1700000000),
        (b"8640000000001 +0000", b"-8640000000001 +0000", None),
    ],
)
async def test_a_date_no_record_holds_is_no_false_1970(
    tmp_path: Path, author: bytes, committer: bytes, at: int | None
) -> None:
    """Past what a date holds (after the year 275760) or damaged: the committer's date when
    it is readable, else no time at all; never the epoch, never a lost commit."""
    repo = Repo(tmp_path / "r")
    repo.commit("first")
    sha = crafted(repo, author, committer, b"From the far future\n")
    items = await collect(from_git(repo.path))
    assert errors(items) == []
    record = {r.id: r for r in records(items)}[sha]
    assert record.at == (None if at is None else At(at * 1000))
    assert "author date" in record.meta["date_error"]
    assert record.title == "From the far future"


async def test_dates_before_1970_in_a_memory_folder(tmp_path: Path, embedder: Any) -> None:
    repo = Repo(tmp_path / "r")
    repo.commit("first")
    old = crafted(repo, b"-123456789 +0000", b"-123456789 +0000", b"Moon landing prep\n")
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        report = await memory.ingest(from_git(repo.path))
        assert (report.added, len(report.errors)) == (2, 0), report
        record = await memory.get(old)
        assert record is not None and record.at is not None
        assert record.at.iso().startswith("1966-02-02")
