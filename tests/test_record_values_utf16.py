"""A text column whose bytes are UTF-16 (Windows' "Unicode" text with its byte order mark,
SQL Server's ``NVARCHAR`` cast to bytes): read as that text. It was refused as binary data
(a NUL after each ASCII letter), and the row was an error."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

import pytest

from memtrails import At, Memory
from memtrails.record_values import id_value, text_value
from memtrails.testing import HashingEmbedder


@pytest.mark.parametrize(
    ("data", "text"),
    [
        ("Grüße aus Köln".encode("utf-16"), "Grüße aus Köln"),  # with its byte order mark
        ("東京の天気".encode("utf-16"), "東京の天気"),
        ("The roofer comes on Friday.".encode("utf-16-le"), "The roofer comes on Friday."),
        ("Big end first".encode("utf-16-be"), "Big end first"),
    ],
    ids=["bom-latin", "bom-cjk", "le-no-bom", "be-no-bom"],
)
def test_utf16_bytes_are_their_text(data: bytes, text: str) -> None:
    assert text_value("text", data) == text


@pytest.mark.parametrize(
    "data",
    [b"\x00" * 64, bytes(range(256)), b"a\x00b\x00\x00\x00c\x00"],
    ids=["nuls", "all-bytes", "a-nul-unit"],
)
def test_binary_data_is_still_refused(data: bytes) -> None:
    with pytest.raises(ValueError, match="binary data"):
        text_value("text", data)


async def test_a_row_of_utf16_blobs_is_a_record(tmp_path: Path) -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE notes (id TEXT, title BLOB, text BLOB, at BLOB)")
    db.execute(
        "INSERT INTO notes VALUES (?, ?, ?, ?)",
        (
            "n1",
            "Dach".encode("utf-16"),
            "Der Dachdecker kommt am Freitag.".encode("utf-16-le"),
            "2024-05-03".encode("utf-16"),
        ),
    )
    async with Memory.open(tmp_path, embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(db.execute("SELECT * FROM notes"), name="notes")
        record = await memory.get("n1", source="notes")
    assert report.errors == []
    assert record is not None
    assert (record.title, record.text) == ("Dach", "Der Dachdecker kommt am Freitag.")
    assert record.at == At.of("2024-05-03")


def test_utf16_ids_are_their_text_and_binary_uuids_stay_uuids() -> None:
    assert id_value("id", "n1234567".encode("utf-16-le")) == "n1234567"  # 16 bytes: no UUID
    assert id_value("id", "note-42".encode("utf-16")) == "note-42"  # its BOM and 14 bytes
    assert id_value("id", "ticket 9001".encode("utf-16-le")) == "ticket 9001"
    data = bytes.fromhex("fffe00112233445566778899aabbccdd")  # a UUID that begins as a BOM
    assert id_value("id", data) == str(uuid.UUID(bytes=data))
    data = bytes.fromhex("3f2504e04f8941d39a0c0305e82c3301")
    assert id_value("id", data) == "3f2504e0-4f89-41d3-9a0c-0305e82c3301"


def test_bytes_after_a_byte_order_mark_that_are_no_text_are_refused() -> None:
    noise = bytes((i * 97 + 13) % 256 for i in range(400))  # no text in any encoding
    with pytest.raises(ValueError, match="binary data"):
        text_value("text", b"\xff\xfe" + noise)
