"""mbox separator lines of odd shapes start their mail; none joins the text of the one before."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import collect, records

from memtrails.importers.mbox import from_mbox
from memtrails.importers.mbox_lines import looks_like_mbox
from memtrails.records import RecordError


def _box(path: Path, separator: bytes, *, date: bool = False) -> Path:
    seps = [b"From a@x Mon Jan  1 00:00:00 2024", separator, b"From c@x Tue Jan  2 00:00:00 2024"]
    out = b""
    for i, sep in enumerate(seps):
        dated = b"Date: Wed, 03 Jan 2024 10:00:00 +0000\n" if date else b""
        out += sep + b"\nFrom: p%d@x\nSubject: s%d\nMessage-ID: <%d@x>\n" % (i, i, i)
        out += dated + b"\nhello %d\n\n" % i
    path.write_bytes(out)
    return path


ODD = [
    b"From b@x Mon Jan  1 00:00:00 10000",  # a five-digit year
    b"From b@x Mon Jan  1 00:00:00 UTC 10000",
    b"From b@x Mon Jan  1 00:00:00 12345678901234567890",
    b"From b@x Mon Jan  1 00:00:00 1",
    b"From b@x Mon Jan  1 00:00:00 0000",
    b"From b@x Mon Jan  1 99:99:99 2024",
    b"From b@x Mon Feb 30 00:00:00 2024",
    b"From b@x Monday January  1 00:00:00 2024",
    b"From b@x MON JAN  1 00:00:00 2024",
    b"From b@x 2024-01-01 00:00:00",
    b"From b@x Mon Jan 1 2024 00:00:00",
    b'From "Jo Doe"@x.com Mon Jan  1 00:00:00 2024',
    b"From b@x Mon Jan  1 00:00:00 ABCDEFG 2024",
    b"From b@x Mon Jan  1 00:00:00 -9999 2024",
]


@pytest.mark.parametrize("date", [False, True])
@pytest.mark.parametrize("separator", ODD)
async def test_an_odd_separator_starts_its_mail(
    tmp_path: Path, separator: bytes, date: bool
) -> None:
    # Before: the line was no separator: the mail after it was lost in the text of the one
    # before it
    items = await collect(from_mbox(_box(tmp_path / "odd.mbox", separator, date=date)))
    assert not [i for i in items if isinstance(i, RecordError)]
    recs = records(items)
    assert [(r.title, r.text) for r in recs] == [(f"s{n}", f"hello {n}") for n in range(3)]
    if date:  # the Date header's time, whatever the separator's says
        assert recs[1].at is not None and recs[1].at.iso() == "2024-01-03T10:00:00.000Z"


@pytest.mark.parametrize("separator", ODD[:8])
def test_a_file_starting_with_an_odd_separator_is_an_mbox(tmp_path: Path, separator: bytes) -> None:
    data = _box(tmp_path / "odd.mbox", separator).read_bytes()
    head = data[data.index(separator) :]  # the file from the odd separator on
    assert looks_like_mbox(head)


async def test_from_lines_of_a_text_stay_in_it(tmp_path: Path) -> None:
    body = (
        b"the plan:\n\nFrom 9:30 to 10:00 we meet\nbring coffee\n\n"
        b"From 10:00 on, Note: nothing\nNote: a line shaped like a header\n"
    )
    path = tmp_path / "one.mbox"
    path.write_bytes(
        b"From a@x Mon Jan  1 00:00:00 2024\nSubject: one\nMessage-ID: <1@x>\n\n" + body
    )
    (rec,) = records(await collect(from_mbox(path)))
    assert rec.text == body.decode().strip()


def _run_together(separator: bytes, following: bytes) -> bytes:
    return (
        b"From a@x Mon Jan  1 00:00:00 2024\nSubject: s0\nMessage-ID: <0@x>\n\nhello 0\n"
        + separator
        + b"\n"
        + following
        + b"\nSubject: s1\nMessage-ID: <1@x>\n\nhello 1\n"
    )


@pytest.mark.parametrize("separator", [ODD[9], ODD[11], b"From  2024-01-01 00:00:00"])
async def test_an_odd_separator_right_after_text_starts_a_delivered_mail(
    tmp_path: Path, separator: bytes
) -> None:
    # no blank line before it (as many writers leave none), a header only delivery writes
    path = tmp_path / "odd.mbox"
    path.write_bytes(_run_together(separator, b"Return-Path: <b@x>"))
    recs = records(await collect(from_mbox(path)))
    assert [(r.title, r.text) for r in recs] == [("s0", "hello 0"), ("s1", "hello 1")]


async def test_a_from_line_right_after_text_before_a_subject_stays_text(tmp_path: Path) -> None:
    path = tmp_path / "one.mbox"
    path.write_bytes(_run_together(b"From Jo, 2024-01-01 10:00:", b"To: the team"))
    (rec,) = records(await collect(from_mbox(path)))
    assert "From Jo, 2024-01-01 10:00:\nTo: the team" in rec.text
