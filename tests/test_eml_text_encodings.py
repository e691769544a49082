"""A message saved by a Windows editor or mail client as text with a byte order mark:
UTF-8 with a BOM before its first header, or "Unicode" (UTF-16, UTF-32) text. Before,
the BOM hid the first header and the parser found no header block: the whole mail was
an error ("no mail headers found"), or, UTF-16, every byte pair was unreadable."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import collect, errors, records

from memtrails.importers.eml import from_eml

MAIL = (
    "From: José Núñez <jose@example.com>\r\nSubject: Año nuevo\r\n"
    "Message-ID: <ny@example.com>\r\nDate: Mon, 1 Jan 2024 10:00:00 +0100\r\n\r\n"
    "¡Feliz año! Nos vemos el día 3.\r\n"
)


@pytest.mark.parametrize(
    ("bom", "codec"),
    [
        (b"\xef\xbb\xbf", "utf-8"),
        (b"\xff\xfe", "utf-16-le"),
        (b"\xfe\xff", "utf-16-be"),
        (b"\xff\xfe\x00\x00", "utf-32-le"),
    ],
    ids=["utf8-bom", "utf16le", "utf16be", "utf32le"],
)
async def test_a_message_saved_with_a_byte_order_mark_is_read(
    tmp_path: Path, bom: bytes, codec: str
) -> None:
    (tmp_path / "saved.eml").write_bytes(bom + MAIL.encode(codec))
    (tmp_path / "plain.eml").write_bytes(
        b"From: a@example.com\nSubject: plain\nMessage-ID: <p@example.com>\n\nwords\n"
    )
    items = await collect(from_eml(tmp_path))
    assert errors(items) == []
    got = {r.title: r for r in records(items)}
    assert sorted(got) == ["Año nuevo", "plain"]
    saved = got["Año nuevo"]
    assert saved.id == "ny@example.com"
    assert saved.author is not None and "José Núñez" in saved.author
    assert saved.text == "¡Feliz año! Nos vemos el día 3."


async def test_a_maildir_message_with_a_utf8_bom_is_read(tmp_path: Path) -> None:
    from memtrails.importers.maildir import from_maildir

    for sub in ("cur", "new", "tmp"):
        (tmp_path / sub).mkdir()
    raw = b"\xef\xbb\xbf" + b"Message-ID: <bom@example.com>\nSubject: marked\n\nwords\n"
    (tmp_path / "cur" / "1.M1.host:2,S").write_bytes(raw)
    items = await collect(from_maildir(tmp_path))
    assert errors(items) == []
    (record,) = records(items)
    assert (record.id, record.title, record.text) == ("bom@example.com", "marked", "words")
