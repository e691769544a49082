"""Mail whose bytes were damaged or re-encoded on the way: a base64 body with odd characters
inside a line, a message or an mbox saved as UTF-16 text by a Windows tool."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from helpers import collect, mail, mail_record

from memtrails._exceptions import SourceError
from memtrails.importers.eml import from_eml
from memtrails.importers.mbox import from_mbox

BODY = "".join(f"Grüße aus Köln, Zeile {n} des Textes. " for n in range(40))
LINES = base64.encodebytes(BODY.encode()).decode().splitlines()


def _base64_mail(lines: list[str]) -> bytes:
    return mail(
        "Content-Type: text/plain; charset=utf-8",
        "Content-Transfer-Encoding: base64",
        body="\n".join(lines),
    )


@pytest.mark.parametrize(
    ("damage", "lost"),
    [
        ("inserted", 0),  # a character put in: left out, nothing lost
        ("replaced", 1),  # a character put in the place of one: only its byte is lost
    ],
)
def test_a_base64_line_with_odd_characters_inside_keeps_its_text(damage: str, lost: int) -> None:
    line = LINES[5]
    damaged = list(LINES)
    damaged[5] = (
        line[:30] + "!*" + line[30:] if damage == "inserted" else line[:30] + "!" + line[31:]
    )
    text = mail_record(_base64_mail(damaged)).text
    # Every sentence of the body is there: the line (57 bytes) is not dropped whole.
    assert all(f"Zeile {n} des" in text for n in range(40) if n != 5 or not lost)
    differing = sum(a != b for a, b in zip(text, BODY.strip(), strict=False))
    assert len(text) == len(BODY.strip()) and differing <= lost * 2
    assert "Ã" not in text  # still read as UTF-8


def test_a_footer_after_a_base64_body_is_still_left_out() -> None:
    footer = ["____________", "Mailing list: list@example.org, http://example.org/list"]
    text = mail_record(_base64_mail([*LINES, *footer])).text
    assert text == BODY.strip()


UTF16_MAIL = (
    "From: Ann <ann@example.org>\r\nSubject: Grüße\r\nMessage-ID: <u16@example.org>\r\n"
    "Date: Mon, 1 Jan 2024 10:00:00 +0000\r\n\r\nHallo Welt, schöne Grüße.\r\n"
)


@pytest.mark.parametrize(
    "encoded",
    [
        b"\xff\xfe" + UTF16_MAIL.encode("utf-16-le"),
        b"\xfe\xff" + UTF16_MAIL.encode("utf-16-be"),
        UTF16_MAIL.encode("utf-16-le"),  # no byte order mark
    ],
    ids=["le-bom", "be-bom", "le"],
)
async def test_a_message_saved_as_utf16_is_read(tmp_path: Path, encoded: bytes) -> None:
    path = tmp_path / "saved.eml"
    path.write_bytes(encoded)
    items = await collect(from_eml(path))
    (rec,) = [item for item in items if hasattr(item, "text")]
    assert (rec.title, rec.author) == ("Grüße", "Ann <ann@example.org>")
    assert rec.text == "Hallo Welt, schöne Grüße."


@pytest.mark.parametrize(("bom", "iconv"), [(True, "UTF-16"), (False, "UTF-16LE")])
async def test_an_mbox_saved_as_utf16_is_an_error_saying_how_to_convert_it(
    tmp_path: Path, bom: bool, iconv: str
) -> None:
    path = tmp_path / "archive.mbox"
    mbox = "From ann@example.org Mon Jan  1 10:00:00 2024\r\n" + UTF16_MAIL
    path.write_bytes((b"\xff\xfe" if bom else b"") + (mbox * 2).encode("utf-16-le"))
    with pytest.raises(SourceError) as caught:
        await collect(from_mbox(path))
    said = str(caught.value)
    assert "UTF-16" in said and "archive.mbox" in said
    assert f"iconv -f {iconv} -t UTF-8 archive.mbox > utf8-archive.mbox" in said


def _word(text: str) -> str:
    return "=?utf-8?b?" + base64.b64encode(text.encode()).decode() + "?="


def test_names_and_subjects_read_as_they_show_on_one_line() -> None:
    """A sender's name or a subject crafted with terminal escapes (retitling a window,
    clearing the screen), control characters or line breaks (to look like another header)
    is stored as what it shows: one line, no escapes."""
    name, to = _word("Ann \x1b]0;owned\x07Archer"), _word("Bob\r\nBcc: victim@example.org")
    subject = _word("Invoice \x1b[2J\x1b[31mpaid\x1b[0m\x08\x00 today")
    rec = mail_record(
        "\n".join(
            [
                f"From: {name} <ann@example.org>",
                f"To: {to} <bob@example.org>",
                f"Subject: {subject}",
                "Message-ID: <inject@example.org>",
                "",
                "hello",
            ]
        ).encode()
    )
    assert rec.author == "Ann Archer <ann@example.org>"
    assert rec.title == "Invoice paid today"
    assert rec.meta["to"] == ["Bob Bcc: victim@example.org <bob@example.org>"]


def test_a_body_loses_terminal_colours_and_reads_windows_bytes_as_meant() -> None:
    body = "tests \x1b[32;1m[OK]\x1b[0m\nit can\x92t cost 5 \x80\x07"
    text = mail_record(mail("Content-Type: text/plain; charset=utf-8", body=body)).text
    assert text == "tests [OK]\nit can\u2019t cost 5 \u20ac"


def test_a_mail_to_thousands_of_recipients_keeps_the_first_thousand_counted() -> None:
    """A To of 5,000 addresses (30,000 in a mass mailing: over Limits.max_field_bytes, and
    so left out whole) keeps its first 1,000 and counts the rest."""
    to = ",\n ".join(f"User {n} <u{n}@example.org>" for n in range(5000))
    cc = ", ".join(f"c{n}@example.org" for n in range(10))
    rec = mail_record(mail(f"To: {to}", f"Cc: {cc}"))
    assert len(rec.meta["to"]) == 1000 and rec.meta["to"][999] == "User 999 <u999@example.org>"
    assert rec.meta["to_left_out"] == 4000
    assert len(rec.meta["cc"]) == 10 and "cc_left_out" not in rec.meta


def test_a_sender_of_thousands_of_addresses_is_cut_to_a_name_a_record_holds() -> None:
    """A From of megabytes got the whole record refused (Limits.max_field_bytes)."""
    senders = ", ".join(f"Sender Number {n} <s{n}@example.org>" for n in range(2000))
    raw = f"From: {senders}\nSubject: flood\nMessage-ID: <flood@example.org>\n\nhi\n"
    author = mail_record(raw.encode()).author
    assert author is not None and author.startswith("Sender Number 0 <s0@example.org>, ")
    assert len(author) == 1000 and author.endswith("\u2026")


@pytest.mark.parametrize("bom", [b"\xff\xfe", b""], ids=["bom", "no-bom"])
def test_a_utf16_mailbox_or_message_with_no_ending_is_told_by_its_bytes(bom: bytes) -> None:
    """A folder's `Inbox` or `1234` saved as UTF-16 is mail (the mbox then an error saying
    how to convert it), not a note of text."""
    from memtrails.importers.detect import sniff

    mbox = "From ann@example.org Mon Jan  1 10:00:00 2024\r\n" + UTF16_MAIL
    assert sniff(bom + mbox.encode("utf-16-le"), "Inbox") == "mbox"
    assert sniff(bom + UTF16_MAIL.encode("utf-16-le"), "1234") == "eml"
