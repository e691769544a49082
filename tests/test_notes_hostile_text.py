"""Notes made of odd pieces: two files joined (a byte order mark in the middle, mixed line
ends), a front matter that is no valid YAML."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import collect, errors, records

from memtrails.importers.files import from_files


async def test_a_byte_order_mark_in_the_middle_is_dropped(tmp_path: Path) -> None:
    """``cat a.md b.md`` of two files saved with a BOM: the second BOM, an invisible
    character, stood before the heading (no title) and inside the words."""
    (tmp_path / "joined.md").write_bytes(
        b"\xef\xbb\xbfintro text\r\n\xef\xbb\xbf# Second part\rbody one\nbody\xef\xbb\xbftwo\n"
    )
    (tmp_path / "joined16.txt").write_bytes(
        "first\r\n".encode("utf-16") + "second\n".encode("utf-16")
    )
    items = await collect(from_files(tmp_path))
    assert errors(items) == []
    recs = {r.id: r for r in records(items)}
    assert recs["joined.md"].text == "intro text\r\n# Second part\nbody one\nbodytwo\n"
    assert recs["joined.md"].title == "Second part"
    assert recs["joined16.txt"].text == "first\r\nsecond\n"


@pytest.mark.parametrize(
    "front",
    [
        "title: [unclosed\n  - : : bad",
        "title: {a: 1",
        "title: [a, b]",
        "title: {key: value}",
    ],
)
async def test_a_title_that_is_no_string_gives_way_to_the_heading(
    tmp_path: Path, front: str
) -> None:
    (tmp_path / "note.md").write_text(f"---\n{front}\n---\n# Real heading\nbody\n")
    items = await collect(from_files(tmp_path))
    [record] = records(items)
    assert record.title == "Real heading"


async def test_a_quoted_title_with_brackets_is_still_the_title(tmp_path: Path) -> None:
    (tmp_path / "note.md").write_text('---\ntitle: "[Draft] Plan"\n---\n# Heading\n')
    [record] = records(await collect(from_files(tmp_path)))
    assert record.title == "[Draft] Plan"


@pytest.mark.parametrize(
    ("data", "text"),
    [
        # Notepad's UTF-8 with a BOM, a Windows-1252 quote pasted in later
        (b"\xef\xbb\xbfcaf\xc3\xa9 and a \x93quote\x94 pasted", "café and a “quote” pasted"),
        ("hello world, a note".encode("utf-16")[:-1], "hello world, a not"),  # cut short
        ("hello world".encode("utf-32")[:-2], "hello worl"),
        ("a note".encode("utf-16") + b"\x00\xd8", "a note\ufffd"),  # a lone surrogate
    ],
)
async def test_a_note_with_a_bom_and_a_flaw_is_text(tmp_path: Path, data: bytes, text: str) -> None:
    """Before, one bad byte after a byte order mark made the whole note 'binary file'."""
    (tmp_path / "note.txt").write_bytes(data)
    items = await collect(from_files(tmp_path))
    assert errors(items) == []
    assert [r.text for r in records(items)] == [text]
