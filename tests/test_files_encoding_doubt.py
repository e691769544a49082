"""A short note in a legacy charset that another charset reads as well (in another script),
or a longer one whose best reading is still junk, is refused with the reason, not kept as
mojibake; UTF-8 with a stray Latin-1 byte stays UTF-8 however short."""

# ruff: noqa: RUF001 (Cyrillic, Greek and CJK letters, on purpose)

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import collect, errors, records

from memtrails._exceptions import SourceError
from memtrails.importers.files import from_files
from memtrails.importers.files._doubt import doubt
from memtrails.importers.files._text import decode
from memtrails.importers.files.lone import note_of

# Bytes that more than one charset reads as words of another script: "ок" in KOI8-R is
# "ПЛ" in Windows-1251, two Han characters in GB18030 two Hangul syllables in EUC-KR,
# "àéè" in Windows-1252 "айи" in Windows-1251.
_UNSURE = [
    ("ок", "koi8_r"),
    ("àéè", "cp1252"),  # айи in Windows-1251: neither is a word
    ("âêî", "cp1252"),
    ("κόσμε", "cp1253"),  # кьуме in Windows-1251: the Greek model is weak on it
    ("βιβλίο", "cp1253"),  # 砠硅熄 in EUC-JP
    ("笔记", "gb18030"),
    ("메모", "euc_kr"),
]
# A Ukrainian sentence in ISO-8859-5, a code page not tried: every reading is junk.
_JUNK = "Треба зателефонувати їй у четвер і домовитися про зустріч у кав'ярні.".encode("iso8859_5")
# Read as before: their readings stand.
_SURE = [
    ("Москва", "cp1251"),
    ("Zażółć gęślą", "cp1250"),
    ("10 m³", "latin-1"),
    ("Œuvre — «déjà vu»", "cp1252"),
    ("ёж", "cp1251"),
    ("да", "cp1251"),  # äà in Windows-1252; да is a word Russian prose writes
    ("ναι", "cp1253"),
    ("会议", "gb18030"),
    ("Ricordarsi di prenotare il treno; la riunione è alle undici.", "cp1252"),
]


@pytest.mark.parametrize(("text", "charset"), _UNSURE)
def test_an_ambiguous_short_legacy_note_is_refused_with_both_readings(
    text: str, charset: str
) -> None:
    data = text.encode(charset)
    decoded = decode(data)
    assert decoded is not None
    why = doubt(data, decoded[1])
    assert why is not None and why.startswith("its encoding cannot be told: too short")
    assert "save it as UTF-8" in why


def test_a_note_in_a_code_page_not_tried_is_refused_not_mojibake() -> None:
    decoded = decode(_JUNK)
    assert decoded is not None and "зустріч" not in decoded[0]  # what the reading is
    why = doubt(_JUNK, decoded[1])
    assert why is not None and "words beyond ASCII are no language's" in why


@pytest.mark.parametrize(("text", "charset"), _SURE)
def test_a_clear_legacy_note_is_read(text: str, charset: str) -> None:
    data = text.encode(charset)
    decoded = decode(data)
    assert decoded is not None and decoded[0] == text
    assert doubt(data, decoded[1]) is None


@pytest.mark.parametrize("text", ["Заметки", "Σημειώσεις", "רשימות", "ок"])
def test_a_short_utf8_note_with_a_stray_latin1_byte_stays_utf8(text: str) -> None:
    data = text[:1].encode() + b"\xe9" + text[1:].encode()
    assert decode(data) == (text[:1] + "é" + text[1:], "utf-8")


async def test_a_folder_says_which_note_and_why_and_reads_the_rest(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "ok.txt").write_bytes("ок".encode("koi8_r"))
    (notes / "junk.txt").write_bytes(_JUNK)
    (notes / "fine.md").write_bytes("# Москва\n".encode("cp1251"))
    items = await collect(from_files(notes))
    assert [r.text for r in records(items)] == ["# Москва\n"]
    why = {e.where: e.reason for e in errors(items)}
    assert sorted(why) == ["junk.txt", "ok.txt"]
    assert "'ПЛ' in cp1251" in why["ok.txt"] or "'ок' in koi8_r" in why["ok.txt"]


def test_a_lone_ambiguous_note_says_why(tmp_path: Path) -> None:
    note = tmp_path / "ok.txt"
    note.write_bytes("ок".encode("koi8_r"))
    with pytest.raises(SourceError, match="its encoding cannot be told"):
        note_of(note)


@pytest.mark.parametrize(
    "text",
    [
        "Weather: 18°C today, 20°C tomorrow, 25°C on Friday.",  # was Big5: 18蚓 today
        "Ergebnis: 3×4 = 12, 10÷2 = 5",  # was a binary file
        "±0,5 mm, 90° turn",
        "Copyright © 2020 ACME™ Corp® — all rights reserved…",
        "x² + y² = z², a³ + b³",
        "Notes: µs latency, 5µm, 10µF",  # was KOI8-R: ╣s latency
    ],
)
def test_a_short_western_note_with_units_and_signs_is_read(text: str) -> None:
    data = text.encode("cp1252")
    assert decode(data) == (text, "cp1252")
    assert doubt(data, "cp1252") is None


@pytest.mark.parametrize(
    ("text", "charset"),
    [
        ("Настроить Wi-Fi-роутер, iPhone-приложение, API-ключ и VPN-сервер до пятницы.", "cp1251"),
        ("Купить: SSD-диск 1ТБ, USB-кабель, HDMI-переходник; позвонить в IT-отдел", "cp1251"),
    ],
)
def test_a_note_of_compounds_of_two_scripts_is_read(text: str, charset: str) -> None:
    """Latin and Cyrillic joined by a hyphen are words, not a reading's junk."""
    data = text.encode(charset)
    assert decode(data) == (text, charset)
    assert doubt(data, charset) is None
