"""Mail in shapes real archives hold that a reader gets wrong: a text body in UTF-16, a
UTF-8 body cut inside its last character, Outlook's winmail.dat, an Outlook file named
.eml."""

from __future__ import annotations

import asyncio
import base64
import shutil
from pathlib import Path

from helpers import collect, mail_record, records

from memtrails.importers.eml import from_eml
from memtrails.records import RecordError

HEAD = (
    "From: a@example.com\nSubject: shapes\nMessage-ID: <shape@example.com>\n"
    "Date: Mon, 1 Jan 2024 10:00:00 +0000\nMIME-Version: 1.0\n"
)
WORDS = "Grüße aus Köln: the meeting moves to Thursday."


def test_a_utf16_text_body_in_base64_is_the_mails_text() -> None:
    # Before: its NUL bytes made it "binary": the body was an unnamed attachment and the
    # record's text "Attachments: text/plain"
    for declared, data in (
        ("utf-16", WORDS.encode("utf-16")),
        ("utf-16le", WORDS.encode("utf-16-le")),
        (None, WORDS.encode("utf-16")),  # no charset, a byte order mark
    ):
        charset = f"; charset={declared}" if declared else ""
        raw = (
            f"{HEAD}Content-Type: text/plain{charset}\nContent-Transfer-Encoding: base64\n\n"
            + base64.encodebytes(data).decode()
        ).encode()
        rec = mail_record(raw)
        assert rec.text == WORDS, declared
        assert not rec.meta.get("attachments")


def test_a_binary_base64_body_is_still_named_not_read() -> None:
    raw = (
        f"{HEAD}Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\n"
        + base64.encodebytes(b"\x00\x01\x02\x03" * 50).decode()
    ).encode()
    rec = mail_record(raw)
    assert rec.meta["attachments"][0]["type"] == "text/plain"


def test_utf8_cut_inside_its_last_character_keeps_its_letters() -> None:
    # Before: the cut character made the whole body "not UTF-8": a short one was read as
    # Windows-1252 ("GrÃ¼ÃŸe")
    cut = WORDS.encode()[: -len(".")] + "é".encode()[:1]
    raw = f"{HEAD}Content-Type: text/plain; charset=utf-8\n\n".encode() + cut
    rec = mail_record(raw)
    assert rec.text == WORDS[:-1] + "\ufffd"


def test_latin1_ending_in_an_accent_is_not_taken_for_cut_utf8() -> None:
    raw = f"{HEAD}Content-Type: text/plain; charset=iso-8859-1\n\n".encode()
    rec = mail_record(raw + "On se voit au café".encode("latin-1"))
    assert rec.text == "On se voit au café"


def test_a_damaged_winmail_dat_says_so() -> None:
    # Outlook's TNEF wrapping, cut short after its signature: the entry says why its files
    # are not in the record (before: a bare name, like any picture)
    raw = (
        f"{HEAD}Content-Type: multipart/mixed; boundary=Q\n\n--Q\nContent-Type: text/plain\n\n"
        "see attached\n--Q\nContent-Type: application/ms-tnef; name=winmail.dat\n"
        "Content-Transfer-Encoding: base64\n\neJ8+IgAAAAAAAAAA\n--Q--\n"
    ).encode()
    rec = mail_record(raw)
    (entry,) = rec.meta["attachments"]
    assert entry["name"] == "winmail.dat" and "TNEF" in entry["error"]
    assert rec.text == "see attached"


def test_an_outlook_file_named_eml_says_what_it_is(tmp_path: Path) -> None:
    # Before: "no mail headers found: not an RFC 5322 message", which says nothing of
    # what to do
    folder = tmp_path / "mail"
    folder.mkdir()
    shutil.copy(Path(__file__).parent / "data" / "documents" / "quick.msg", folder / "a.eml")
    (folder / "b.eml").write_bytes(f"{HEAD}\nstill read\n".encode())
    items = asyncio.run(collect(from_eml(folder)))
    (error,) = [i for i in items if isinstance(i, RecordError)]
    assert error.where == "a.eml" and "Outlook message file (.msg)" in error.reason
    assert [r.text for r in records(items)] == ["still read"]
