"""The first pass over an mbox (its threads, read before any record) moves the position
the progress display shows, which then names it: ``scanning N%``, not ``starting`` for
minutes on a large file."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from memtrails.importers._input import open_input
from memtrails.importers.mail import MailBook
from memtrails.importers.mbox import _read_mbox
from memtrails.pipeline.progress import _Progress
from memtrails.records import ImportReport, MemoryRecord


def _mbox(path: Path, count: int) -> int:
    body = "words of a mail body line\n" * 30
    with path.open("w") as f:
        for n in range(count):
            f.write("From a@example.com Mon Jan  1 00:00:00 2024\nFrom: a@example.com\n")
            f.write(f"Subject: mail {n}\nMessage-ID: <{n}@example.com>\n\n{body}\n")
    return path.stat().st_size


def test_the_first_pass_reads_through_the_file_whose_position_is_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    size = _mbox(tmp_path / "big.mbox", 2000)
    stream = open_input(tmp_path / "big.mbox", "big")
    seen: list[int] = []
    planned = MailBook.plan

    def plan(self: MailBook, raw: bytes) -> None:
        seen.append(stream.position())
        planned(self, raw)

    monkeypatch.setattr(MailBook, "plan", plan)
    with stream:
        items = _read_mbox(stream, "big", None, 256)
        first = next(items)
        assert isinstance(first, MemoryRecord)
        assert len(seen) == 2000  # the whole first pass ran before the first record
        assert max(seen) > size // 2
        rest = list(items)
    records = [first, *(i for i in rest if isinstance(i, MemoryRecord))]
    assert [r.title for r in records] == [f"mail {n}" for n in range(2000)]  # read whole again


def test_the_display_names_reading_before_any_record_a_scan() -> None:
    read = [0]
    progress = _Progress("big.mbox", io.StringIO(), False, 2000, 1000, lambda: read[0])
    assert progress.phase() == "starting"
    read[0] = 100  # the first bytes, read to tell the file's kind: still starting
    assert progress.phase() == "starting"
    read[0] = 370
    assert progress.phase() == "scanning 37%"
    read[0] = 50
    progress.update(ImportReport(added=1))
    assert progress.phase() == "reading"
