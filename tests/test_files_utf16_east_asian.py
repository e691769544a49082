# ruff: noqa: RUF001 (East Asian punctuation and Cyrillic letters are the point)
"""Chinese, Japanese and Korean notes saved as UTF-16 without a byte order mark: read as
text, while binary data and legacy 8-bit or double-byte text are not taken for UTF-16."""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path

import pytest
from helpers import collect

from memtrails.importers.files import from_files
from memtrails.importers.files._text import decode
from memtrails.records import MemoryRecord, RecordError

NOTES = {
    "zh.md": "# 会议记录\n\n今天我们讨论了项目的进展，下一步是测试。\n负责人：王伟\n",
    "ja.txt": "日本語のメモです。\r\n明日の会議は十時からです。\r\n",
    "ko.md": "# 회의록\n\n내일 회의는 오전 열 시에 시작합니다.\n",
    "zh_tw.txt": "中文筆記：今天我們討論了項目的進展。",  # one line: no zero byte at all
}


def _pseudo_random(n: int, seed: bytes) -> bytes:
    out = b""
    while len(out) < n:
        seed = hashlib.sha256(seed).digest()
        out += seed
    return out[:n]


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
async def test_east_asian_utf16_without_a_bom_is_text(tmp_path: Path, encoding: str) -> None:
    for name, text in NOTES.items():
        (tmp_path / name).write_bytes(text.encode(encoding))
    items = await collect(from_files(tmp_path))
    recs = {r.id: r for r in items if isinstance(r, MemoryRecord)}
    assert [e for e in items if isinstance(e, RecordError)] == []
    for name, text in NOTES.items():
        assert recs[name].text == text.strip() or recs[name].text == text, name
        assert recs[name].meta["encoding"] == encoding
    assert recs["zh.md"].title == "会议记录"
    assert recs["ko.md"].title == "회의록"


def test_binary_data_near_utf16_stays_binary() -> None:
    """Data that decodes as UTF-16 but is not text: random bytes (no surrogate halves to
    trip on once they are avoided), a PNG, counters, and East Asian text with a binary tail."""
    noise = bytes(b for b in _pseudo_random(8192, b"seed") if not 0xD8 <= b <= 0xDF)[:4096]
    text = "今天我们讨论了项目的进展。\n".encode("utf-16-le")
    for data in (
        noise,
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + _pseudo_random(300, b"png"),
        struct.pack("<1024H", *range(1024)),
        text * 4 + _pseudo_random(400, b"tail"),
        b"\x00\x01\x00\x02" * 500,
        # A record of a binary format repeated: the same few "characters" over and over.
        b"\x00\x01\x02binary\x00" * 64,
        b"\x01\x00data\x00\x00\x10\x02" * 200,
    ):
        assert decode(data) is None, data[:24]


@pytest.mark.parametrize(
    ("codec", "text"),
    [
        ("shift_jis", "日本語のメモです。明日の会議について。\n"),
        ("euc_jp", "日本語のメモです。明日の会議について。\n"),
        ("gbk", "中文笔记：今天我们讨论了项目的进展。\n"),
        ("big5", "中文筆記：今天我們討論了項目的進展。\n"),
        ("euc_kr", "한국어 메모입니다. 내일 회의.\n"),
        ("cp1251", "Привет, мир! Заметка о встрече.\n"),
        ("cp1252", "Café crème, naïve résumé.\n"),
    ],
)
def test_legacy_text_is_not_taken_for_utf16(codec: str, text: str) -> None:
    decoded = decode(text.encode(codec))
    assert decoded is not None
    assert not decoded[1].startswith("utf-16")
    assert decoded[0] == text


ONE_LINERS = [
    "日本語のテキスト",
    "カタカナ",
    "안녕하세요",
    "회의록",
    "项目进展报告",
    "会議の議事録です",
]


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("text", ONE_LINERS)
def test_a_one_line_note_with_no_zero_byte(text: str, encoding: str) -> None:
    """No ASCII, so no zero byte: told from a legacy reading that is junk (``«0¿0«0Ê0``)."""
    data = text.encode(encoding)
    assert b"\0" not in data
    assert decode(data) == (text, encoding)


@pytest.mark.parametrize(
    ("codec", "word"),
    [("cp1252", "Straße"), ("cp1252", "Müller"), ("cp1251", "Привет"), ("cp1253", "Ελλάδα")],
)
def test_a_short_legacy_word_is_not_taken_for_utf16(codec: str, word: str) -> None:
    """Six bytes of Latin-1 read as UTF-16 are three Han characters (``Straße``: 瑓慲殺):
    a legacy reading that is a word wins."""
    assert decode(word.encode(codec)) == (word, codec)
