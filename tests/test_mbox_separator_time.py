"""An mbox mail with neither a usable Date nor Received header takes its separator's time."""

from __future__ import annotations

from contextlib import aclosing
from pathlib import Path

import pytest

from memtrails.importers.mail.dates import mail_time
from memtrails.importers.mbox import from_mbox
from memtrails.importers.mbox_lines import separator_time
from memtrails.records import MemoryRecord, SourceState


async def _records(path: Path) -> list[MemoryRecord]:
    async with aclosing(from_mbox(path)) as items:
        got = [item async for item in items if not isinstance(item, SourceState)]
    assert all(isinstance(i, MemoryRecord) for i in got), got
    return [i for i in got if isinstance(i, MemoryRecord)]


def _mail(n: int, headers: str = "") -> bytes:
    return (
        f"From: a@example.org\nSubject: mail {n}\nMessage-ID: <m{n}@example.org>\n{headers}"
        f"\nbody {n}\n"
    ).encode()


async def test_a_mail_without_date_or_received_takes_the_separator_time(tmp_path: Path) -> None:
    path = tmp_path / "stripped.mbox"
    path.write_bytes(
        b"From alice@example.org Tue Mar  3 10:00:00 2009\n"
        + _mail(1)
        + b"\nFrom bob@example.org Wed Apr 15 08:30:05 2009\n"
        + _mail(2, "Date: Thu, 16 Apr 2009 09:00:00 +0000\n")
    )
    first, second = await _records(path)
    assert first.at is not None and first.at.iso() == "2009-03-03T10:00:00.000Z"
    assert first.meta["date_from"] == "separator"
    # a Date header still comes first
    assert second.at is not None and second.at.iso() == "2009-04-16T09:00:00.000Z"
    assert "date_from" not in second.meta


async def test_received_comes_before_the_separator(tmp_path: Path) -> None:
    path = tmp_path / "received.mbox"
    received = "Received: from x by y; Wed, 4 Mar 2009 11:00:00 +0000\n"
    path.write_bytes(b"From a@b Tue Mar  3 10:00:00 2009\n" + _mail(1, received))
    (rec,) = await _records(path)
    assert rec.at is not None and rec.at.iso() == "2009-03-04T11:00:00.000Z"
    assert rec.meta["date_from"] == "received"


async def test_a_junk_date_header_falls_back_to_the_separator(tmp_path: Path) -> None:
    path = tmp_path / "junk.mbox"
    path.write_bytes(
        b"From a@b Sat Mar  7 16:20:00 PST 2009 remote from host\n"
        + _mail(1, "Date: Thu, 01 Jan 1970 00:00:00 +0000\n")
    )
    (rec,) = await _records(path)
    assert rec.at is not None and rec.at.iso() == "2009-03-08T00:20:00.000Z"  # PST is -08:00
    assert rec.meta["date_from"] == "separator"
    assert rec.meta["date_raw"] == "Thu, 01 Jan 1970 00:00:00 +0000"


@pytest.mark.parametrize(
    "line",
    [
        b"From a@b Thu Jan  1 00:00:00 1970\n",  # a zero time stamp
        b"From a@b Mon Jan  1 00:00:00 3609\n",  # a clock set wrong
        b"From a@b Fri Jan  1 00:00:00 1830\n",  # before any mail
        b"From a@b Mon Feb 30 10:00:00 2009\n",  # a day the month has not
        b"From -\n",  # Mozilla's, no time
        b"From 1844347792267117879@xxx\n",  # Gmail Takeout's, no time
    ],
)
async def test_a_separator_without_a_usable_time_gives_none(tmp_path: Path, line: bytes) -> None:
    path = tmp_path / "no-time.mbox"
    path.write_bytes(line + _mail(1))
    (rec,) = await _records(path)
    assert rec.at is None and "date_from" not in rec.meta


def test_separator_time_reads_each_separator_shape() -> None:
    assert separator_time(b"From a@b Tue Mar  3 10:00:00 2009\n") == "Tue Mar  3 10:00:00 2009"
    assert separator_time(b"From x at y.org  Tue Apr  1 12:21:37 2003\r\n") == (
        "Tue Apr  1 12:21:37 2003"
    )
    assert separator_time(b"From a@b 3 Mar 2009 10:00\n") == "3 Mar 2009 10:00"
    assert separator_time(b"From Russia with love\n") is None
    assert separator_time(b"From -\n") is None


def test_mail_time_orders_date_received_then_separator() -> None:
    now = 1_800_000_000_000
    stored = "Tue Mar  3 10:00:00 2009"
    assert mail_time(None, [], stored=stored, now_ms=now) == (1236074400000, "separator")
    assert (
        mail_time("junk", ["x; Wed, 4 Mar 2009 11:00:00 +0000"], stored=stored, now_ms=now)[1]
        == "received"
    )
    assert mail_time(None, [], stored="Tue Mar  3 10:00:00 2099", now_ms=now) == (None, None)
