"""An MMDF mailbox (SCO, MMDF and some Unix mail tools): each message opened and closed by a
line of four Ctrl-A characters, no From_ lines. Its messages are read one by one, as an
mbox's are (it was one error: no mail headers found); a From_ line in a body is text."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import collect, errors, records

from memtrails import Memory
from memtrails.importers.detect import sniff
from memtrails.importers.eml import from_eml
from memtrails.importers.mbox import from_mbox
from memtrails.records import SourceState
from memtrails.testing import HashingEmbedder

CTRL_A = b"\x01\x01\x01\x01\n"


def message(n: int) -> bytes:
    return (
        b"From: ann@example.org\nTo: bob@example.org\n"
        b"Date: Mon, 1 Jan 2024 10:00:%02d +0000\nSubject: note %d\nMessage-ID: <n%d@x>\n\n"
        b"line one of note %d\nFrom bob@example.org Mon Jan  1 10:00:00 2024\n" % (n, n, n, n)
    )


def mmdf(*numbers: int) -> bytes:
    return b"".join(CTRL_A + message(n) + CTRL_A for n in numbers)


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
async def test_each_message_is_read(tmp_path: Path, crlf: bool) -> None:
    data = mmdf(1, 2, 3)
    path = tmp_path / "mailbox"
    path.write_bytes(data.replace(b"\n", b"\r\n") if crlf else data)
    items = await collect(from_mbox(path))
    assert not errors(items)
    got = records(items)
    assert [r.title for r in got] == ["note 1", "note 2", "note 3"]
    assert all("\x01" not in r.text for r in got)
    # A From_ line in the body is the body's: MMDF has no From_ separators.
    assert got[1].text == "line one of note 2\nFrom bob@example.org Mon Jan  1 10:00:00 2024"


def test_its_kind_is_told_by_its_first_line() -> None:
    assert sniff(mmdf(1), "Mail") == "mbox"
    assert sniff(b"\xef\xbb\xbf" + mmdf(1).replace(b"\n", b"\r\n"), "Mail") == "mbox"
    assert sniff(CTRL_A + b"not a header line\n", "Mail") != "mbox"


async def test_a_message_appended_is_read_on_the_next_run_alone(tmp_path: Path) -> None:
    path = tmp_path / "mailbox"
    path.write_bytes(mmdf(*range(1, 8)))
    async with Memory.open(tmp_path / "memory", embedder=HashingEmbedder()) as memory:
        first = await memory.ingest(from_mbox(path, checkpoint_every=2))
        assert first.added == 7
        with path.open("ab") as f:
            f.write(mmdf(8))
        again = await memory.ingest(from_mbox(path, checkpoint_every=2))
        assert [s.mode for s in again.sources] == ["incremental"]
        assert (again.added, again.updated, again.removed) == (1, 0, 0)
        assert [s.read for s in again.sources] == [2]  # the last message again, and the new


async def test_resuming_at_each_position_gives_the_messages_after_it(tmp_path: Path) -> None:
    path = tmp_path / "mailbox"
    path.write_bytes(mmdf(*range(1, 8)))
    items = await collect(from_mbox(path, checkpoint_every=2))
    states = [i for i in items if isinstance(i, SourceState)]
    assert len(states) > 2
    for state in states:
        again = await collect(from_mbox(path, state=state.state))
        titles = [r.title for r in records(again)]
        assert not errors(again)
        assert titles == [f"note {n}" for n in range(8 - len(titles), 8)]


@pytest.mark.parametrize("count", [1, 3])
async def test_an_eml_file_that_is_an_mmdf_mailbox(tmp_path: Path, count: int) -> None:
    (tmp_path / "saved.eml").write_bytes(mmdf(*range(1, count + 1)))
    items = await collect(from_eml(tmp_path))
    assert not errors(items)
    assert [r.title for r in records(items)] == [f"note {n}" for n in range(1, count + 1)]
