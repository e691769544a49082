"""A text column whose bytes are UTF-16 (Windows' "Unicode" text with its byte order mark,
SQL Server's ``NVARCHAR`` cast to bytes): read as that text. It was refused as binary data
(a NUL after each ASCII letter), and the row was an error."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memtrails import At, Memory
from memtrails.record_values import text_value
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
