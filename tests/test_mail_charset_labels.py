# ruff: noqa: RUF001, RUF003 (full-width forms on purpose)
"""Text in a charset a little larger than its label says (Outlook's ISO-2022-JP with NEC and
IBM characters, Hong Kong's Big5, EUC-JP with NEC's row), and labels written loosely
(``cp-850``, ``win-1251``, ``koi8r``): the text reads as written, not escape sequences or
another charset's letters."""

from __future__ import annotations

import base64

import pytest
from helpers import mail_record

from memtrails.importers.mail.charsets import decode_bytes, python_codec
from memtrails.importers.mail.jis import decode_jis

HEAD = b"From: a@example.com\nMessage-ID: <m@example.com>\nMIME-Version: 1.0\n"


def _jis(text: str) -> bytes:
    """``text`` as Outlook writes ISO-2022-JP (CP50221): Shift_JIS characters as JIS rows."""
    out = bytearray()
    kanji = False
    for char in text:
        if char.isascii():
            if kanji:
                out += b"\x1b(B"
                kanji = False
            out += char.encode()
            continue
        s1, s2 = char.encode("cp932")
        # Shift_JIS back to its JIS X 0208 row and cell (NEC row 13 and IBM rows 89-92 too)
        row = (s1 - 0x70 if s1 < 0xA0 else s1 - 0xB0) * 2 - (1 if s2 < 0x9F else 0)
        cell = s2 - (0x1F if s2 < 0x7F else 0x20) if s2 < 0x9F else s2 - 0x7E
        if not kanji:
            out += b"\x1b$B"
            kanji = True
        out += bytes((row, cell))
    return bytes(out + (b"\x1b(B" if kanji else b""))


OUTLOOK = ["①番の会議室で", "㈱山田商事 髙橋様", "ご確認ください。Ⅲ期の件", "№12 ∵ ≒"]


@pytest.mark.parametrize("text", OUTLOOK)
def test_outlooks_iso_2022_jp_reads_as_japanese(text: str) -> None:
    # Before: one NEC or IBM character (①, ㈱, 髙, Ⅲ) made Python's codec fail, and the
    # subject and body were their escape sequences ('\x1b$B-!\x1b(B...')
    data = _jis(text)
    subject = b"=?ISO-2022-JP?B?" + base64.b64encode(data) + b"?="
    raw = (
        HEAD
        + b"Subject: "
        + subject
        + b"\nContent-Type: text/plain; charset=ISO-2022-JP\n\n"
        + data
        + b"\n"
    )
    record = mail_record(raw)
    assert (record.title, record.text) == (text, text)
    assert "\x1b" not in record.text


def test_iso_2022_jp_without_a_label_is_read_too() -> None:
    text = "①明日の会議について"
    assert mail_record(HEAD + b"Subject: s\n\n" + _jis(text) + b"\n").text == text


def test_standard_iso_2022_jp_reads_as_python_reads_it() -> None:
    text = "日本語のテキスト、ｶﾀｶﾅ and ASCII."
    data = text.encode("iso2022_jp_ext")
    assert decode_bytes(data, "iso-2022-jp") == text
    assert decode_jis(text.replace("ｶﾀｶﾅ", "").encode("iso2022_jp")) == text.replace("ｶﾀｶﾅ", "")


def test_every_jis_x_0208_character_reads_as_pythons_codec_reads_it() -> None:
    # but the six Outlook reads as Windows does (～ for 〜, ∥ for ‖, － ￠ ￡ ￢)
    windows = {"〜": "～", "‖": "∥", "−": "－", "¢": "￠", "£": "￡", "¬": "￢"}
    for row in range(0x21, 0x7F):
        for cell in range(0x21, 0x7F):
            data = b"\x1b$B" + bytes((row, cell)) + b"\x1b(B"
            try:
                expected = data.decode("iso2022_jp")
            except UnicodeDecodeError:
                continue
            assert decode_jis(data) == windows.get(expected, expected), (row, cell)


def test_a_set_cp932_lacks_is_left_to_pythons_codecs() -> None:
    assert decode_jis(b"\x1b$(D\x22\x2f\x1b(B") is None  # JIS X 0212


@pytest.mark.parametrize(
    ("label", "text", "codec"),
    [
        ("big5", "香港 堃 喆 會議", "big5hkscs"),
        ("euc-jp", "①番 会議", "euc_jis_2004"),
        ("shiftjis", "①番 会議", "cp932"),
        ("gb2312", "镕 会议", "gb18030"),
    ],
)
def test_text_in_a_superset_of_its_label(label: str, text: str, codec: str) -> None:
    # Before: Big5-HKSCS labelled big5 came out as Windows-1252 letters, every word of it
    raw = HEAD + f"Subject: s\nContent-Type: text/plain; charset={label}\n\n".encode()
    assert mail_record(raw + text.encode(codec) + b"\n").text == text


@pytest.mark.parametrize(
    ("label", "codec"),
    [
        ("cp-850", "cp850"),
        ("ibm-866", "cp866"),
        ("win-1251", "cp1251"),
        ("windows1251", "cp1251"),
        ("koi8r", "koi8-r"),
        ("latin-9", "iso8859-15"),
        ("x-cp-1250", "cp1250"),
    ],
)
def test_a_loosely_written_label_is_the_charset_it_names(label: str, codec: str) -> None:
    assert python_codec(label) == codec
    text = {"cp850": "Grüße", "cp866": "Привет", "cp1251": "Привет", "koi8-r": "Привет"}.get(
        codec, "Žluťoučký" if codec == "cp1250" else "€uro œuvre"
    )
    raw = HEAD + f"Subject: s\nContent-Type: text/plain; charset={label}\n\n".encode()
    assert mail_record(raw + text.encode(codec) + b"\n").text == text


@pytest.mark.parametrize("label", ["x-unknown", "unknown-8bit", "8bit", "default"])
def test_a_label_that_names_no_charset_stays_unknown(label: str) -> None:
    assert python_codec(label) is None
