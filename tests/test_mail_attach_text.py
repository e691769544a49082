"""A mail's small text attachments become searchable text of the mail: an invitation's event,
a contact card's name and address, a table's first rows, a text file's start; binary data
stays named only, and a hostile invitation of megabytes gives a few lines."""

from __future__ import annotations

from email.mime.base import MIMEBase
from email.mime.text import MIMEText
from pathlib import Path

from helpers import mail_record, multipart_mail

from memtrails import Memory
from memtrails.importers.eml import from_eml
from memtrails.importers.mail.attach_text import MAX_CHARS
from memtrails.testing import HashingEmbedder

# As Exchange sends one: folded lines (one with a tab), escaped commas, semicolons and line
# breaks, a quoted CN holding a comma, an alarm whose DESCRIPTION is no part of the event.
ICS = (
    "BEGIN:VCALENDAR\r\nMETHOD:REQUEST\r\nVERSION:2.0\r\n"
    "BEGIN:VTIMEZONE\r\nTZID:W. Europe Standard Time\r\nBEGIN:STANDARD\r\n"
    "DTSTART:16010101T030000\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
    'BEGIN:VEVENT\r\nORGANIZER;CN="Doe, Jane":mailto:jane@example.com\r\n'
    "DESCRIPTION;LANGUAGE=en-US:We go over the harbour crane budget\\, and the reg\r\n"
    " atta plan.\\nBring the numbers\\; all\r\n\t of them.\\n\r\n"
    "SUMMARY;LANGUAGE=en-US:Quarterly crane review\r\n"
    "DTSTART;TZID=W. Europe Standard Time:20250401T100000\r\n"
    "DTEND;TZID=W. Europe Standard Time:20250401T113000\r\n"
    "LOCATION:Harbour office\\, room 4\r\n"
    "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:REMINDER\r\nEND:VALARM\r\n"
    "END:VEVENT\r\nEND:VCALENDAR\r\n"
)


def _mail(*parts: MIMEBase, body: str = "See attached.") -> bytes:
    return multipart_mail(*parts, body=body, subject="For you", message_id="<m1@example.com>")


def _attached(data: str | bytes, ctype: str, name: str | None) -> MIMEBase:
    maintype, subtype = ctype.split("/")
    if isinstance(data, str):
        part: MIMEBase = MIMEText(data, subtype, "utf-8")
    else:
        part = MIMEBase(maintype, subtype)
        part.set_payload(data)
        from email import encoders

        encoders.encode_base64(part)
    if name is not None:
        part.add_header("Content-Disposition", "attachment", filename=name)
    return part


def test_an_invitation_is_searchable_text_of_its_mail() -> None:
    # Sent twice, as invitations are: inline (no name) and as invite.ics.
    inline = _attached(ICS, "text/calendar", None)
    inline.set_param("method", "REQUEST")
    record = mail_record(_mail(inline, _attached(ICS, "text/calendar", "invite.ics")))
    text = record.text
    assert "Event: Quarterly crane review" in text
    assert "When: 2025-04-01 10:00 to 11:30 (W. Europe Standard Time)" in text
    assert "Where: Harbour office, room 4" in text
    assert "Organizer: Doe, Jane <jane@example.com>" in text
    assert "harbour crane budget, and the regatta plan.\nBring the numbers; all of them." in text
    assert "REMINDER" not in text and "VEVENT" not in text and "\\," not in text
    assert text.count("Quarterly crane review") == 1  # the same invitation, said once
    entries = record.meta["attachments"]
    assert [e.get("chars", 0) > 0 for e in entries] == [True, True]


def test_a_cancelled_event_and_a_whole_day_say_so() -> None:
    ics = (
        "BEGIN:VCALENDAR\nMETHOD:CANCEL\nBEGIN:VEVENT\nSUMMARY:Boat show\n"
        "DTSTART;VALUE=DATE:20250614\nDTEND;VALUE=DATE:20250616\nEND:VEVENT\nEND:VCALENDAR\n"
    )
    text = mail_record(_mail(_attached(ics, "application/octet-stream", "show.ics"))).text
    assert "Event: Boat show (cancelled)" in text and "When: 2025-06-14 to 2025-06-16" in text


def test_a_hostile_invitation_gives_a_bounded_text() -> None:
    event = (
        "BEGIN:VEVENT\r\nSUMMARY:Standup {n}\r\nDTSTART:20250101T090000Z\r\n"
        "DESCRIPTION:" + "long words " * 10 + "\r\nEND:VEVENT\r\n"
    )
    many = "BEGIN:VCALENDAR\r\n" + "".join(event.format(n=n) for n in range(100_000))
    huge_line = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:" + "y" * 10_000_000 + "\r\n"
    begins = "BEGIN:VALARM\r\n" * 300_000
    for ics in (many, huge_line, begins):
        record = mail_record(_mail(_attached(ics, "text/calendar", "big.ics")))
        assert len(record.text) < MAX_CHARS + 200
    text = mail_record(_mail(_attached(many, "text/calendar", "big.ics"))).text
    assert "Event: Standup 0" in text and "more events" in text and "Standup 99999" not in text


def test_a_contact_card_gives_its_name_address_and_organisation() -> None:
    card = (
        "BEGIN:VCARD\r\nVERSION:3.0\r\nN:Doe;Jane;;;\r\nORG:Port Office;Cranes\r\n"
        "TITLE:Harbour master\r\nEMAIL;TYPE=INTERNET:jane@example.com\r\n"
        "PHOTO;ENCODING=b;TYPE=JPEG:" + "QUFB" * 500 + "\r\nEND:VCARD\r\n"
        # vCard 2.1, its name quoted-printable over a soft line break
        "BEGIN:VCARD\r\nVERSION:2.1\r\nFN;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:J=C3=BCrgen=20=\r\n"
        "M=C3=BCller\r\nEMAIL;INTERNET:jm@example.com\r\nEND:VCARD\r\n"
    )
    text = mail_record(_mail(_attached(card, "text/x-vcard", "people.vcf"))).text
    assert "Contact: Jane Doe, Harbour master, Port Office, Cranes, jane@example.com" in text
    assert "Contact: Jürgen Müller, jm@example.com" in text
    assert "QUFB" not in text


def test_a_table_gives_its_header_and_first_rows() -> None:
    rows = "name;boat;length\n" + "".join(f"Sailor {n};Otter {n};{n}\n" for n in range(500))
    text = mail_record(_mail(_attached(rows, "text/csv", "entries.csv"))).text
    assert "name | boat | length\nSailor 0 | Otter 0 | 0" in text
    assert "Sailor 19 | Otter 19 | 19" in text and "Sailor 20 " not in text
    assert "(the first 20 rows)" in text


def test_binary_data_and_images_stay_named_only() -> None:
    record = mail_record(
        _mail(
            _attached(b"\x00\x01GIF89a" * 50, "text/csv", "photo.csv"),
            _attached(b"\x89PNG\r\n\x1a\n" + bytes(200), "image/png", "logo.png"),
        )
    )
    assert record.text == "See attached."
    by_name = {e["name"]: e for e in record.meta["attachments"]}
    assert by_name["photo.csv"]["error"] == "binary data, not text"
    assert all("chars" not in e for e in by_name.values())


def test_a_named_text_part_read_as_the_mail_text_is_not_said_twice() -> None:
    inline = MIMEText("Minutes: the crane stays blue.", "plain")
    inline.add_header("Content-Disposition", "inline", filename="minutes.txt")
    text = mail_record(_mail(inline)).text
    assert text.count("the crane stays blue") == 1 and "[attachment:" not in text


async def test_a_mail_is_found_by_the_place_of_its_invitation(tmp_path: Path) -> None:
    folder = tmp_path / "mail"
    folder.mkdir()
    (folder / "invite.eml").write_bytes(
        _mail(_attached(ICS, "text/calendar", "invite.ics"), body="Hi!")
    )
    other = MIMEText("The office moved to the old harbour building.", "plain")
    other["From"], other["Subject"], other["Message-ID"] = "b@example.com", "News", "<o@x>"
    (folder / "other.eml").write_bytes(other.as_bytes())
    async with Memory.open(tmp_path / "memory", embedder=HashingEmbedder()) as memory:
        assert (await memory.ingest(from_eml(folder))).added == 2
        hits = await memory.search("quarterly crane review harbour office room 4", k=1)
    assert hits[0].id == "m1@example.com" and hits[0].attachment == "invite.ics"


def test_a_card_or_table_typed_as_an_application_is_read_by_its_ending() -> None:
    # Outlook sends a .csv as a spreadsheet; some mailers a signature card as application/vcard.
    card = "BEGIN:VCARD\r\nVERSION:2.1\r\nN:Joseph;Mary\r\nEMAIL:mj@example.com\r\nEND:VCARD\r\n"
    rows = "boat,length\nOtter,12\n"
    xls = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(500)
    record = mail_record(
        _mail(
            _attached(card.encode(), "application/vcard", "MJOSEPH.VCF"),
            _attached(rows.encode(), "application/vnd.ms-excel", "boats.csv"),
            _attached(xls, "application/vnd.ms-excel", "old.csv"),
            _attached(xls, "application/vnd.ms-excel", "sheet.xls"),
        )
    )
    assert "[attachment: MJOSEPH.VCF]\n\nContact: Mary Joseph, mj@example.com" in record.text
    assert "[attachment: boats.csv]\n\nboat | length\nOtter | 12" in record.text
    by_name = {e["name"]: e for e in record.meta["attachments"]}
    assert by_name["old.csv"]["error"] == "binary data, not text"
    # A real .xls is a document (read by the document worker): this 508-byte stub is damaged.
    assert by_name["sheet.xls"]["error"].startswith("corrupt file: a truncated OLE compound file")
