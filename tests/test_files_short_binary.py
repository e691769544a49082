"""A few bytes of binary data (a key, a nonce, a truncated header, a small ``.bin``) are
binary files, not notes of junk: a single-byte code page, UTF-16 or a double-byte charset
reads any such bytes, so what they read as must be words. Short real text, in UTF-8, a
legacy charset or UTF-16, still is text."""

# ruff: noqa: RUF001 (Cyrillic, Greek and East Asian text on purpose)

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from helpers import collect, errors, records

from memtrails.importers.files import from_files
from memtrails.importers.files._text import decode


def _random(n: int, seed: str) -> bytes:
    return hashlib.sha256(seed.encode()).digest()[:n]


@pytest.mark.parametrize("size", range(6, 17))
def test_a_few_random_bytes_are_binary(size: int) -> None:
    """Random bytes of 6 to 16 bytes: before, up to half of them read as text (Windows-1252
    ``Â(Jàµ*``, Windows-1251, UTF-16 Han); now a few in a hundred at 6 bytes, fewer longer."""
    samples = [_random(size, f"{size}-{k}") for k in range(400)]
    read = [data for data in samples if decode(data) is not None]
    allowed = 400 * (6 if size < 8 else 2 if size < 11 else 1) // 100
    assert len(read) <= allowed, [(d, decode(d)) for d in read[:5]]


TINY_BINARIES = {
    "key.bin": bytes.fromhex("8cd7a236b70cc6803d6db699f4ebdafb"),  # read as Cyrillic before
    "nonce.bin": bytes.fromhex("c2284ae0b52a90d2"),
    "mac.bin": bytes.fromhex("9ff2c3d8a1e4b7c9fe"),
    "truncated.png": b"\x89PNG\r\n\x1a\n",
    "header.jpg": b"\xff\xd8\xff\xe1\xa8\x93Exif",
    "blob.dat": bytes.fromhex("a3b7c2d9e1f08a4c5e"),
}


async def test_a_folder_of_tiny_binaries_and_short_notes(tmp_path: Path) -> None:
    notes = {
        "utf8.md": "Café".encode(),
        "cp1252.txt": "Grüße".encode("cp1252"),
        "cp1251.txt": "Привет".encode("cp1251"),
        "greek.txt": "Ελλάδα".encode("cp1253"),
        "bom16.txt": "回".encode("utf-16"),
        "le16.txt": "ラーメン".encode("utf-16-le"),
        "sjis.txt": "お疲れさまでした".encode("shift_jis"),
    }
    for name, data in {**TINY_BINARIES, **notes}.items():
        (tmp_path / name).write_bytes(data)
    items = await collect(from_files(tmp_path))
    texts = {r.id: r.text for r in records(items)}
    assert texts == {
        "utf8.md": "Café",
        "cp1252.txt": "Grüße",
        "cp1251.txt": "Привет",
        "greek.txt": "Ελλάδα",
        "bom16.txt": "回",
        "le16.txt": "ラーメン",
        "sjis.txt": "お疲れさまでした",
    }
    assert {e.where: e.reason for e in errors(items)} == dict.fromkeys(TINY_BINARIES, "binary file")


@pytest.mark.parametrize(
    "text",
    [
        "x² + y²",
        "10 m³",
        "Total: 5 €",
        "A→B",
        "✓ done",
        "l’été",
        "Jean-François",
        "1ª vez",
        "«déjà vu»",
    ],
)
def test_short_text_with_signs_is_text(text: str) -> None:
    for codec in ("utf-8", "cp1252"):
        try:
            data = text.encode(codec)
        except UnicodeEncodeError:
            continue
        assert decode(data) is not None and decode(data)[0] == text  # type: ignore[index]


def test_a_stray_undefined_byte_leaves_text_text() -> None:
    assert decode(b"byte \x81 has no cp1252 meaning \xe9") is not None


@pytest.mark.parametrize(
    "text",
    [
        "Привет, мир! Это заметка о встрече.\n",
        "Привет",
        "Γεια σου κόσμε, αυτή είναι μια σημείωση.\n",
        "מרחבא: שלום עולם זו הערה\n",
        "مرحبا بالعالم هذه ملاحظة\n",
        "नमस्ते दुनिया यह एक नोट है\n",
        "สวัสดีชาวโลก\n",
    ],
)
@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_an_alphabet_in_utf16_without_a_bom_is_text(text: str, encoding: str) -> None:
    """Cyrillic, Greek, Hebrew, Arabic, Devanagari or Thai in UTF-16 with no byte order
    mark: before, 'binary file' (not Latin's zero bytes, not East Asian)."""
    assert decode(text.encode(encoding)) == (text, encoding)


def test_a_lone_key_file_is_said_to_hold_binary_data(tmp_path: Path) -> None:
    """``memtrails add key.bin`` said it held 'text that starts as neither JSON Lines ...'."""
    from memtrails._exceptions import SourceError
    from memtrails.importers.detect import detect_kind

    key = tmp_path / "key.bin"
    key.write_bytes(TINY_BINARIES["key.bin"])
    with pytest.raises(SourceError, match="it holds binary data"):
        detect_kind(key)


@pytest.mark.parametrize(
    "text",
    [
        "Name;Straße;Ort\nMüller;Hauptstraße 5;Köln\nJosé;Calle Mayor;Málaga\n",
        "id,name,città\n1,Pérez,Zürich\n2,Ødegaard,Tromsø\n",
        "key=välue\nname=Jürgen\n",
        "<td>Müller</td><td>Köln</td>",
        'msgid "Öffnen"\nmsgstr "Ouvrir"\n',
        "Prix: 12€, Größe: 10 m³, ½ Liter\n",
    ],
)
def test_legacy_data_files_are_text(text: str) -> None:
    """Fields of data joined by separators (a European CSV's ';', key=value, tags) are
    words apart, not one word of junk."""
    assert decode(text.encode("cp1252")) == (text, "cp1252")


@pytest.mark.parametrize(
    ("text", "codec"),
    [("październik", "cp1250"), ("Październik 2024", "cp1250"), ("abans-d’ahir", "cp1252")],
)
def test_a_word_junk_in_windows_1252_reads_in_its_charset(text: str, codec: str) -> None:
    """Windows-1252 stands unless another charset reads the words clearly better; where
    its reading is junk (paŸdziernik: a capital inside a word), the charset that reads them
    best at all is taken when its reading is clean, not a 'binary file' nor the junk."""
    assert decode(text.encode(codec)) == (text, codec)
