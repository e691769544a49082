"""A note in a legacy 8-bit code page is read in the code page whose reading is words of
one language: Polish and Czech in Windows-1250 or ISO-8859-2 (not ``styczeñ``), Turkish,
Hebrew, Baltic text in their Windows pages, Cyrillic abbreviations (not ``ÖÁ``)."""

# ruff: noqa: RUF001 (letters of many scripts, on purpose)

from __future__ import annotations

import pytest
from helpers import benchmark

from memtrails.importers._legacy_text import utf8_first
from memtrails.importers.files._text import decode

table = benchmark("legacy_charsets")

CASES = [
    ("styczeń", "cp1250"),
    ("Spotkanie w styczniu, październik", "cp1250"),
    ("příliš", "cp1250"),
    ("Žluťoučký kůň úpěl ďábelské ódy", "cp1250"),
    ("Árvíztűrő tükörfúrógép", "cp1250"),
    ("Zażółć gęślą jaźń, Łódź", "iso8859_2"),
    ("İstanbul'da güzel bir gün", "cp1254"),
    ("הפגישה תתקיים ביום שלישי בבוקר", "cp1255"),
    ("Labas rytas, kaip sekasi? Ačiū, gerai.", "cp1257"),
    ("ЦБ", "cp1251"),
    ("РФ", "cp1251"),
    ("Добрий день, їжак і ґанок", "koi8_u"),
    # and what Windows-1252 already read stays so
    ("café crème brûlée", "cp1252"),
    ("Große Straße", "cp1252"),
    ("id,name,città\n1,Pérez,Zürich\n2,Ødegaard,Tromsø\n", "cp1252"),
]


@pytest.mark.parametrize(("text", "codec"), CASES)
def test_a_legacy_note_reads_in_the_code_page_of_its_language(text: str, codec: str) -> None:
    assert utf8_first(text.encode(codec))[0] == text
    assert decode(text.encode(codec)) is not None
    assert decode(text.encode(codec))[0] == text  # type: ignore[index]


def test_the_accuracy_table_of_texts_in_many_languages() -> None:
    """Held-out words and sentences (none in the prose the language models are built
    from) in 12 languages and 19 code pages: most short ones and the long ones read right."""
    rows = table.rows()
    assert len({language for language, *_ in rows}) >= 8
    short = [right for _, _, size, right, _ in rows if size == "short"]
    long = [right for _, _, size, right, _ in rows if size == "long"]
    assert sum(short) >= 0.7 * len(short), sum(short)
    assert sum(long) >= 0.9 * len(long), sum(long)
