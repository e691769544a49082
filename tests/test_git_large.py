"""Large commits: a message of many MB streams in as many reads, each read once."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepos import BASE, Repo, raw_commit
from helpers import collect, records

from memtrails.importers.git import _log, _raw, from_git


@pytest.mark.timeout(300)
async def test_a_message_of_many_reads_is_read_in_linear_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit message of one long line (a bot's dump) arrives in many reads of git's
    output: it is read whole, each byte copied a bounded number of times (here 8 MiB in
    reads of 64 bytes: 131,072 reads; were the message copied again at every read, as it
    was, that is 2**39 bytes copied, and the test runs out of its time)."""
    monkeypatch.setattr(_log, "_READ_SIZE", 64)
    # Read whole, past the budget a message is cut at by default.
    monkeypatch.setattr(_log, "MAX_FIELD_BYTES", 16 << 20)
    monkeypatch.setattr(_raw, "MAX_FIELD_BYTES", 16 << 20)
    repo = Repo(tmp_path / "r")
    repo.commit("first")
    line = b"0123456789abcdef" * (1 << 19)  # 8 MiB, one line
    people = b"author Ann <ann@example.org> %d +0000\ncommitter Ann <ann@example.org> %d +0000\n"
    sha = raw_commit(repo, people % (BASE, BASE), b"dump: " + line + b"\n")
    rec = records(await collect(from_git(repo.path)))[0]
    assert rec.id == sha
    assert rec.text == "dump: " + line.decode()
