"""The first pass over a compressed mbox (its threads, read anew before any record) is
shown by the progress display as ``scanning N%`` of the compressed bytes it has read, then
``reading``: before, the display followed the import's own stream only, which stays at the
start during that pass, and said ``starting`` throughout."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from memtrails.importers._first_pass import FirstPasses
from memtrails.importers._input import open_input
from memtrails.importers.mail import MailBook
from memtrails.importers.mbox import _read_mbox
from memtrails.pipeline.progress import _Progress
from memtrails.records import MemoryRecord, SourceState

COUNT = 300
PACKERS: dict[str, Callable[[bytes], bytes]] = {
    "gz": gzip.compress,
    "bz2": lambda data: bz2.compress(data, 1),  # blocks of 100 kB: more than one here
    "xz": lzma.compress,
}


@pytest.mark.parametrize("suffix", sorted(PACKERS))
def test_a_compressed_mbox_first_pass_is_shown_as_a_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    path = tmp_path / f"list.mbox.{suffix}"
    rnd = random.Random(7)  # words that do not compress away: the bytes read move
    text = io.StringIO()
    for n in range(COUNT):
        words = " ".join(f"w{rnd.randrange(10**9)}" for _ in range(150))
        text.write("From a@example.com Mon Jan  1 00:00:00 2024\nFrom: a@example.com\n")
        text.write(f"Subject: mail {n}\nMessage-ID: <{n}@example.com>\n\n{words}\n\n")
    path.write_bytes(PACKERS[suffix](text.getvalue().encode()))
    stream = open_input(path, "list")
    passes = FirstPasses()
    # as memtrails add shows a compressed mbox: its compressed bytes read, of its size
    progress = _Progress(
        "list",
        io.StringIO(),
        False,
        None,
        path.stat().st_size,
        stream.position,
        scan=lambda: passes.scanned("list"),
    )
    phases: list[str] = []
    planned = MailBook.plan

    def plan(self: MailBook, raw: bytes) -> None:
        phases.append(progress.phase())
        planned(self, raw)

    monkeypatch.setattr(MailBook, "plan", plan)
    with stream, passes.watching():
        items = _read_mbox(stream, "list", None, 256)
        first = next(items)
        assert isinstance(first, MemoryRecord)
        assert len(phases) == COUNT  # the whole first pass ran before the first record
        assert all(p.startswith("scanning ") for p in phases)
        shown = [int(p.split()[1][:-1]) for p in phases]
        assert shown == sorted(shown) and shown[0] < 50 <= shown[-1] < 100
        assert len(set(shown)) >= 5  # it moves as the pass goes
        assert progress.phase() == "reading"  # the pass is over: reading, no record yet
        rest = list(items)
    assert len([i for i in rest if isinstance(i, MemoryRecord)]) == COUNT - 1
    assert isinstance(rest[-1], SourceState) and rest[-1].complete
    assert passes.scanned("list") is None  # over: nothing left shown for it


def test_an_unchanged_compressed_mbox_shows_no_scan(tmp_path: Path) -> None:
    path = tmp_path / "list.mbox.gz"
    path.write_bytes(gzip.compress(b"From a@b Mon Jan  1 00:00:00 2024\nSubject: s\n\nwords\n"))
    with open_input(path, "list") as stream:
        *_, end = _read_mbox(stream, "list", None, 256)
    assert isinstance(end, SourceState) and end.complete
    passes = FirstPasses()
    with open_input(path, "list") as stream, passes.watching():
        items = _read_mbox(stream, "list", end.state, 256)
        again = next(items)  # skipped unread: its first pass never runs
        assert isinstance(again, SourceState) and again.mode == "incremental"
        assert passes.scanned("list") is None  # no 'scanning 0%' that never moves
        assert list(items) == []
