"""A line or two of Japanese, Chinese or Korean in its legacy double-byte charset
(Shift_JIS, EUC-JP, GBK/GB18030, Big5, EUC-KR): too short for a detector, read before as
Cyrillic, Windows-1252 or UTF-16 junk (``花英苉芿苍`` for ``こんにちは``)."""

# ruff: noqa: RUF001 (East Asian text and punctuation on purpose)

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import collect, errors, records

from memtrails.importers._legacy_text import utf8_first
from memtrails.importers.files import from_files

CASES = [
    ("shift_jis", "こんにちは"),
    ("shift_jis", "会議メモ: 明日10時"),
    ("shift_jis", "買い物リスト：牛乳、卵、パン"),
    ("cp932", "パスワードを変更してください"),
    ("euc_jp", "お疲れさまでした"),
    ("euc_jp", "東京駅で待ち合わせ"),
    ("euc_jp", "今週の予定\n月曜日：打ち合わせ\n"),
    ("gbk", "你好世界"),
    ("gbk", "今天天气很好，我们去公园吧。"),
    ("gb18030", "会议记录：明天十点"),
    ("gb2312", "购物清单：牛奶、鸡蛋、面包"),
    ("big5", "你好世界"),
    ("big5", "謝謝你的幫助"),
    ("big5", "這是一個測試檔案"),
    ("euc_kr", "안녕하세요"),
    ("euc_kr", "오늘 날씨가 좋네요"),
    ("euc_kr", "장보기 목록: 우유, 계란, 빵"),
    ("cp949", "비밀번호를 변경하세요"),
    # Latin words in Chinese or Japanese, Hanja beside Korean
    ("gbk", "使用Python编程很简单。"),
    ("big5", "如何在 Python 中使用既有的 C 函式庫？"),
    ("shift_jis", "多くの機能がありますが、Python では違います。"),
    ("euc_kr", "파이썬의 우아(優雅)한 문법"),
]


@pytest.mark.parametrize(("codec", "text"), CASES)
def test_a_short_east_asian_line_reads_in_its_charset(codec: str, text: str) -> None:
    assert utf8_first(text.encode(codec))[0] == text


async def test_short_east_asian_notes(tmp_path: Path) -> None:
    for k, (codec, text) in enumerate(CASES):
        (tmp_path / f"n{k:02}.txt").write_bytes(text.encode(codec))
    items = await collect(from_files(tmp_path))
    assert errors(items) == []
    assert {r.id: r.text for r in records(items)} == {
        f"n{k:02}.txt": text for k, (_, text) in enumerate(CASES)
    }


@pytest.mark.parametrize(
    ("codec", "text"),
    [("cp1251", "Привет мир"), ("koi8_r", "версия"), ("cp1252", "Größe"), ("cp1250", "Zażółć")],
)
def test_single_byte_words_are_not_read_as_east_asian(codec: str, text: str) -> None:
    assert utf8_first(text.encode(codec)) == (text, codec)
