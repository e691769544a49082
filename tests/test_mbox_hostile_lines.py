"""Damaged mbox lines: NULs a crash left, a separator line longer than a read, mixed line ends."""

from __future__ import annotations

from contextlib import aclosing
from pathlib import Path

from memtrails.importers.mbox import from_mbox
from memtrails.importers.mbox_lines import LINE_LIMIT
from memtrails.records import MemoryRecord, SourceState

SEP = b"From a@example.org Mon Jan  1 00:00:00 2024\n"


def _mail(n: int, body: bytes = b"hi\n") -> bytes:
    return f"From: b@example.org\nSubject: mail {n}\nMessage-ID: <m{n}@x>\n\n".encode() + body


async def _titles(path: Path) -> list[str | None]:
    async with aclosing(from_mbox(path)) as items:
        got = [i async for i in items if not isinstance(i, SourceState)]
    return [i.title if isinstance(i, MemoryRecord) else f"error: {i.reason}" for i in got]


async def test_a_separator_after_the_nuls_of_a_crash_separates(tmp_path: Path) -> None:
    # a write cut short by a crash leaves a block of NULs; the next mail was appended after it
    path = tmp_path / "crash.mbox"
    path.write_bytes(
        SEP + _mail(1, b"the last line written\n") + b"\x00" * 4096 + SEP + _mail(2) + b"\n"
    )
    assert await _titles(path) == ["mail 1", "mail 2"]


async def test_nul_lines_before_a_mails_headers_are_passed_over(tmp_path: Path) -> None:
    path = tmp_path / "nul-lines.mbox"
    path.write_bytes(SEP + b"\x00\x00\x00\n\x00\n" + _mail(1) + b"\n" + SEP + _mail(2))
    assert await _titles(path) == ["mail 1", "mail 2"]


async def test_a_separator_line_longer_than_one_read_keeps_its_mail(tmp_path: Path) -> None:
    path = tmp_path / "long-separator.mbox"
    junk = b" remote from " + b"y" * (3 * LINE_LIMIT)
    first = SEP[:-1] + junk + b"\n"
    path.write_bytes(first + _mail(1) + b"\n" + SEP + _mail(2))
    assert await _titles(path) == ["mail 1", "mail 2"]
    path.write_bytes(SEP + _mail(1) + b"\n" + first + _mail(2))  # not the first line too
    assert await _titles(path) == ["mail 1", "mail 2"]


async def test_crlf_and_lf_mixed_from_mail_to_mail(tmp_path: Path) -> None:
    crlf = SEP.replace(b"\n", b"\r\n")
    path = tmp_path / "mixed.mbox"
    path.write_bytes(
        crlf
        + _mail(1).replace(b"\n", b"\r\n")
        + b"\r\n"
        + SEP
        + _mail(2)
        + b"\n"
        + crlf
        + _mail(3)
        + b"\r\n"
        + SEP
        + _mail(4).replace(b"\n", b"\r\n")
    )
    assert await _titles(path) == ["mail 1", "mail 2", "mail 3", "mail 4"]
