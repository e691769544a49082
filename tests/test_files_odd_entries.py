"""A notes folder's odd entries: names that differ in case alone, names holding a line feed
or an ESC, a file that became a folder (and back) between runs, hard links, and notes
written in UTF-32 without a byte order mark."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from helpers import collect, errors, records

from memtrails.importers.files import from_files
from memtrails.records import SourceState


def _state(items: list[object]) -> dict[str, object]:
    return [i for i in items if isinstance(i, SourceState)][-1].state


async def test_names_that_differ_in_case_are_two_notes(tmp_path: Path) -> None:
    (tmp_path / "Note.md").write_text("# Upper\nthe first\n")
    try:
        (tmp_path / "note.md").write_text("# lower\nthe second\n")
    except OSError:
        pytest.skip("a case-insensitive file system holds one of them")
    if len(os.listdir(tmp_path)) < 2:
        pytest.skip("a case-insensitive file system holds one of them")
    items = await collect(from_files(tmp_path))
    assert {r.id: r.title for r in records(items)} == {"Note.md": "Upper", "note.md": "lower"}


@pytest.mark.parametrize("odd", ["new\nline", "esc\x1b[31mred", "bell\x07", "c1\x9bx"])
async def test_a_name_with_a_control_character_is_a_one_line_title(
    tmp_path: Path, odd: str
) -> None:
    """The record's id is the path as it is (the file is found again by it); its title,
    the name where the note has no heading, shows each control character as ``?``."""
    try:
        (tmp_path / f"{odd}.txt").write_text("no heading in it\n")
    except (OSError, ValueError):
        pytest.skip("the file system refuses the name")
    (record,) = records(await collect(from_files(tmp_path)))
    assert record.id == f"{odd}.txt"
    assert record.title.isprintable() and "?" in record.title
    assert record.title.replace("?", "") == "".join(c for c in record.id if c.isprintable())


async def test_a_file_that_became_a_folder_and_back(tmp_path: Path) -> None:
    (tmp_path / "x.md").write_text("# X\n")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "in.md").write_text("# In\n")
    first = await collect(from_files(tmp_path))
    (tmp_path / "x.md").unlink()
    (tmp_path / "x.md").mkdir()
    (tmp_path / "x.md" / "inner.md").write_text("# Inner\n")
    shutil.rmtree(tmp_path / "d")
    (tmp_path / "d").write_text("now a file\n")
    second = await collect(from_files(tmp_path, state=_state(first)))
    assert errors(second) == []
    assert {r.id for r in records(second)} == {"x.md/inner.md", "d"}
    assert set(_state(second)["files"]) == {"x.md/inner.md", "d"}  # type: ignore[call-overload]


async def test_hard_links_are_a_note_each(tmp_path: Path) -> None:
    """Two names of one file (a hard link) are two records, each found by its own path, as
    two copies are; changed through one name, both are read again."""
    (tmp_path / "a.md").write_text("# Shared\nbody\n")
    os.link(tmp_path / "a.md", tmp_path / "b.md")
    first = await collect(from_files(tmp_path))
    assert sorted(r.id for r in records(first)) == ["a.md", "b.md"]
    with (tmp_path / "b.md").open("a") as f:
        f.write("more\n")
    second = await collect(from_files(tmp_path, state=_state(first)))
    assert {r.id: r.text for r in records(second)} == {
        "a.md": "# Shared\nbody\nmore\n",
        "b.md": "# Shared\nbody\nmore\n",
    }


@pytest.mark.parametrize("encoding", ["utf-32-le", "utf-32-be"])
@pytest.mark.parametrize(
    "text",
    ["Meeting notes: call Anna on Monday.\n", "Заметки: позвонить Анне 😀\n", "会議のメモ\n"],
)
async def test_utf32_without_a_byte_order_mark_is_text(
    tmp_path: Path, encoding: str, text: str
) -> None:
    (tmp_path / "note.txt").write_bytes(text.encode(encoding))
    items = await collect(from_files(tmp_path))
    assert errors(items) == []
    (record,) = records(items)
    assert record.text == text


@pytest.mark.parametrize(
    ("data", "form"),
    [
        # a PDF whose objects are all text (no compressed stream): it decoded as a note
        (b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< >>\n%%EOF\n", "PDF"),
        (b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, "PNG image"),
        (b"SQLite format 3\x00" + bytes(100), "SQLite database"),
    ],
)
async def test_a_file_of_another_format_under_a_notes_name_says_which(
    tmp_path: Path, data: bytes, form: str
) -> None:
    (tmp_path / "report.md").write_bytes(data)
    (error,) = errors(await collect(from_files(tmp_path)))
    # a picture or a database is binary; a PDF is read as one, and says why it cannot be
    assert error.reason.startswith(
        f"a {form} document under the name 'report.md': corrupt"
        if form == "PDF"
        else "binary file ("
    )
    assert form in error.reason and "'report.md'" in error.reason


@pytest.mark.parametrize(
    ("encoding", "cut"), [("utf-16-le", 1), ("utf-16-be", 1), ("utf-32-le", 3)]
)
async def test_a_utf16_or_utf32_note_cut_short_is_read_to_its_last_character(
    tmp_path: Path, encoding: str, cut: int
) -> None:
    """A copy or download that stopped inside the last character: the text before it."""
    (tmp_path / "note.txt").write_bytes("Meeting notes: call Anna.\n".encode(encoding)[:-cut])
    items = await collect(from_files(tmp_path))
    assert errors(items) == []
    (record,) = records(items)
    assert record.text == "Meeting notes: call Anna."
