"""A From_ line quoted in a mail's text (not >From-escaped) stays in that mail."""

from __future__ import annotations

from contextlib import aclosing
from pathlib import Path

import pytest

from memtrails.importers.mbox import from_mbox
from memtrails.records import MemoryRecord, RecordError, SourceState

QUOTED = b"From someone Tue Mar  3 10:00:00 2009"


def _mail(n: int, body: bytes) -> bytes:
    return (
        b"From a@example.org Mon Jan  1 00:00:00 2024\nFrom: a@example.org\n"
        + f"Subject: mail {n}\nMessage-ID: <m{n}@example.org>\n\n".encode()
        + body
    )


async def _items(path: Path, **kwargs: object) -> list[MemoryRecord | RecordError]:
    async with aclosing(from_mbox(path, **kwargs)) as items:  # type: ignore[arg-type]
        return [i async for i in items if not isinstance(i, SourceState)]


def _titles(items: list[MemoryRecord | RecordError]) -> list[str | None]:
    return [i.title if isinstance(i, MemoryRecord) else i.reason for i in items]


@pytest.mark.parametrize("eol", [b"\n", b"\r\n"], ids=["LF", "CRLF"])
async def test_a_from_line_quoted_after_text_stays_in_its_mail(tmp_path: Path, eol: bytes) -> None:
    body = b"Here is the log the server kept:\n" + QUOTED + b"\nand the bounce after it.\n"
    path = tmp_path / "quoted.mbox"
    path.write_bytes((_mail(1, body) + b"\n" + _mail(2, b"second\n")).replace(b"\n", eol))
    items = await _items(path)
    assert _titles(items) == ["mail 1", "mail 2"]
    first = items[0]
    assert isinstance(first, MemoryRecord)
    assert QUOTED.decode() in first.text and first.text.endswith("and the bounce after it.")


async def test_quoted_lines_in_a_row_and_resuming_after_them(tmp_path: Path) -> None:
    body = b"Two of them:\n" + QUOTED + b"\n" + QUOTED + b"\nend of quote\n"
    path = tmp_path / "rows.mbox"
    path.write_bytes(_mail(1, body) + _mail(2, b"second\n"))
    ends = [i async for i in from_mbox(path) if isinstance(i, SourceState)]
    assert _titles(await _items(path)) == ["mail 1", "mail 2"]
    with path.open("ab") as f:
        f.write(_mail(3, b"Again:\n" + QUOTED + b"\nquoted\n") + _mail(4, b"fourth\n"))
    again = await _items(path, state=ends[-1].state)  # the last message is read again
    assert _titles(again) == ["mail 2", "mail 3", "mail 4"]


@pytest.mark.parametrize(
    "between",
    [
        b"",  # right after text, followed by headers: twisted-divunal's 385 of 399
        b"\n",  # after a blank line
    ],
)
async def test_a_separator_followed_by_headers_still_separates(
    tmp_path: Path, between: bytes
) -> None:
    path = tmp_path / "real.mbox"
    path.write_bytes(_mail(1, b"text right before it\n" + between) + _mail(2, b"second\n"))
    assert _titles(await _items(path)) == ["mail 1", "mail 2"]


async def test_a_separator_followed_by_a_blank_line_separates(tmp_path: Path) -> None:
    # nothing tells such a line from a message that has no header block: it separates
    path = tmp_path / "blank.mbox"
    sep = b"From b@example.org Mon Jan  1 00:00:00 2024\n"
    path.write_bytes(_mail(1, b"text\n") + sep + b"\nno headers here\n" + _mail(2, b"second\n"))
    items = await _items(path)
    assert len(items) == 3 and _titles(items)[0] == "mail 1" and _titles(items)[-1] == "mail 2"
    first = items[0]
    assert isinstance(first, MemoryRecord) and first.text == "text"
