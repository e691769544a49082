"""A note of one short word in a legacy charset is that word, not a binary file: two
letters (ёж in Windows-1251, 学习 in GB18030, whose four bytes are also valid UTF-8 that
reads as junk), and a word that only a rarer code page reads as letters (ślub in
ISO-8859-2: its ś is ¶ in the pages before it; نعم in Windows-1256). Before, each was
skipped as a binary file. And a KOI8-R word is not read as Windows-1251 capitals."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import collect, errors, records

from memtrails.importers._legacy_text import utf8_first
from memtrails.importers.files import from_files

_WORDS = [("ёж", "cp1251"), ("学习", "gb18030"), ("ślub", "iso8859_2"), ("نعم", "cp1256")]


@pytest.mark.parametrize(("word", "charset"), _WORDS, ids=[c for _, c in _WORDS])
async def test_a_short_legacy_word_is_a_note(tmp_path: Path, word: str, charset: str) -> None:
    (tmp_path / "word.txt").write_bytes(word.encode(charset))
    (tmp_path / "line.txt").write_bytes(word.encode(charset) + b"\n")
    items = await collect(from_files(tmp_path))
    assert not errors(items)
    assert {r.id: r.text.strip() for r in records(items)} == {"word.txt": word, "line.txt": word}


@pytest.mark.parametrize(
    ("word", "charset"),
    [("книга", "koi8_r"), ("время", "koi8_r"), ("ГИБДД", "cp1251"), ("МВД", "cp1251")],
)
def test_a_koi8_word_is_not_read_as_windows_capitals(word: str, charset: str) -> None:
    """KOI8-R's small letters are Windows-1251's capitals: книга was read as ЛОЙЗБ, время as
    ЧТЕНС; a word of capitals is the less likely reading, but an abbreviation in
    Windows-1251 (ГИБДД, МВД) stays one."""
    assert utf8_first(word.encode(charset)) == (word, charset)
