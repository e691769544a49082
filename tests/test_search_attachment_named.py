"""A search result names the attachment that holds what was asked, even when the mail's
text and all its attachments are one passage."""

from __future__ import annotations

from email.mime.text import MIMEText
from pathlib import Path

from helpers import multipart_mail

from memtrails import Memory
from memtrails.importers.eml import from_eml
from memtrails.testing import HashingEmbedder


def _attached(text: str, name: str) -> MIMEText:
    part = MIMEText(text, "plain")
    part.add_header("Content-Disposition", "attachment", filename=name)
    return part


async def test_the_attachment_holding_the_words_is_named_not_the_last(tmp_path: Path) -> None:
    raw = multipart_mail(
        _attached(
            "The quarterly budget for the lighthouse restoration is 40,000 euros.", "budget.txt"
        ),
        _attached("Lunch menu: soup, bread, apples.", "menu.txt"),
        _attached("Parking is behind the harbour office.", "parking.txt"),
        body="Three short files for Thursday's meeting.",
        subject="Thursday",
        message_id="<thursday@example.com>",
    )
    folder = tmp_path / "mail"
    folder.mkdir()
    (folder / "thursday.eml").write_bytes(raw)
    async with Memory.open(tmp_path / "memory", embedder=HashingEmbedder()) as memory:
        assert (await memory.ingest(from_eml(folder))).added == 1
        budget = await memory.search("lighthouse restoration budget", k=1)
        menu = await memory.search("soup and bread menu", k=1)
        meeting = await memory.search("files for Thursday's meeting", k=1)
    assert budget[0].attachment == "budget.txt"
    assert menu[0].attachment == "menu.txt"
    assert meeting[0].attachment is None  # the mail's own words
