"""Office 97-2003 files (.doc, .xls, .ppt) and Outlook .msg messages, in a notes folder and
attached to mail. The files are Apache POI's test documents (tests/data/documents/README.md)."""

from __future__ import annotations

import shutil
import struct
from contextlib import aclosing
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memtrails.cli import main
from memtrails.importers.documents import DocumentReader, is_document
from memtrails.importers.documents._msg import ATTACHMENT_HEADING as MSG_HEADING
from memtrails.importers.files import from_files
from memtrails.importers.mail import message_to_item
from memtrails.items import ATTACHMENT_HEADING
from memtrails.records import MemoryRecord, RecordError

DATA = Path(__file__).parent / "data" / "documents"


async def _items(folder: Path) -> list[Any]:
    async with aclosing(from_files(folder)) as items:
        return [item async for item in items]


def _copy(tmp_path: Path, *names: str) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir(exist_ok=True)
    for name in names:
        shutil.copy(DATA / name, folder / name)
    return folder


async def test_word_excel_and_powerpoint_97_files_are_read_as_documents(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "SampleDoc.doc", "SampleSS.xls", "basic_test_ppt_file.ppt")
    records = {r.id: r for r in await _items(folder) if isinstance(r, MemoryRecord)}
    assert set(records) == {"SampleDoc.doc", "SampleSS.xls", "basic_test_ppt_file.ppt"}
    doc, xls, ppt = (
        records["SampleDoc.doc"],
        records["SampleSS.xls"],
        records["basic_test_ppt_file.ppt"],
    )
    assert doc.kind == "document" and doc.meta["document"]["format"] == "doc"
    assert (
        "I am Calibri (Body) in font size 11" in doc.text and "It\u2019s also in blue" in doc.text
    )
    assert doc.title == "Test Document" and doc.author == "Nick Burch"
    # Every sheet, by name, with its cells.
    assert "Sheet Number 2" in xls.text and "I'm in bold blue, on a yellow background" in xls.text
    assert xls.meta["document"]["pages"] == 3
    # Slides and their speaker notes.
    assert "These are the notes on page two" in ppt.text and "This is page two" in ppt.text
    assert ppt.title == "This is a test title" and ppt.author == "Hogwarts"
    # The file's own dates, title and author (its SummaryInformation): kreuzberg 4.10 gives no
    # dates for these formats, and no title or author for .xls; the mtime is the copy's.
    assert doc.at is not None and doc.at.iso().startswith("2008-01-04T09:15:00")
    assert ppt.at is not None and ppt.at.iso().startswith("2005-05-13T17:03:55")
    assert xls.at is not None and xls.at.iso().startswith("2008-01-04T11:56:04")
    assert xls.title == "Sample Spreadsheet" and xls.author == "Nick Burch"
    assert doc.meta["document"]["created"] == "2008-01-04T09:15:00Z"


async def test_a_title_in_the_files_code_page_is_read_in_it(tmp_path: Path) -> None:
    # kreuzberg 4.10 read this windows-1252 en dash as U+FFFD.
    folder = _copy(tmp_path, "simple-list.doc")
    (record,) = [r for r in await _items(folder) if isinstance(r, MemoryRecord)]
    assert record.title == "This is a simple word document created using Word 97 \u2013 SR2"
    assert "Third item in list" in record.text


def test_a_damaged_summary_costs_only_its_fields() -> None:
    from memtrails.importers.documents._oleguard import layout

    good = (DATA / "SampleSS.xls").read_bytes()
    summary = layout(good).stream("\x05SummaryInformation", 1 << 16)
    assert summary is not None
    at = good.find(summary[:64])
    bad = bytearray(good)
    bad[at + 44 : at + 48] = (0xFFFFFFF0).to_bytes(4, "little")  # its section: past the end
    with DocumentReader() as reader:
        got = reader.read(bytes(bad), ".xls")
    assert not isinstance(got, str)
    assert "Sheet Number 2" in got.text and "created" not in got.meta


async def test_a_template_or_show_ending_is_read_as_its_format(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    shutil.copy(DATA / "SampleDoc.doc", folder / "letter.dot")
    shutil.copy(DATA / "basic_test_ppt_file.ppt", folder / "talk.pps")
    shutil.copy(DATA / "SampleSS.xls", folder / "budget.xlt")
    records = {r.id: r for r in await _items(folder) if isinstance(r, MemoryRecord)}
    assert "I am a test document" in records["letter.dot"].text
    assert "This is page two" in records["talk.pps"].text
    assert "Sheet Number 2" in records["budget.xlt"].text


async def test_an_outlook_message_is_a_mail_record(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "quick.msg", "attachment_test_msg.msg")
    records = {r.id: r for r in await _items(folder) if isinstance(r, MemoryRecord)}
    quick = records["quick.msg"]
    assert quick.kind == "mail"
    assert quick.title == "Test the content transformer"
    assert quick.text == "The quick brown fox jumps over the lazy dog"  # the body, no header lines
    # An Exchange sender (/O=.../CN=...) is no mail address: its name only.
    assert quick.author == "Kevin Roast"
    assert quick.meta["to"] == ["Kevin Roast <kevin.roast@alfresco.org>"]
    # its Message-ID as a mail importer makes it the id (no brackets), and its thread
    assert quick.meta["message_id"].startswith("B17B1CFF4282214AB8BAADDDC20711220E0C025E@")
    assert quick.thread == quick.meta["message_id"]
    assert quick.at is not None and quick.at.iso().startswith("2007-06-14T09:42:53")
    assert quick.meta["path"].endswith("quick.msg") and quick.meta["document"]["format"] == "msg"
    # Its attachments' text joins it under the heading a mail's attachments get.
    both = records["attachment_test_msg.msg"]
    assert both.title == "test pièce jointe 1"
    assert both.author == "Nicolas1 23456 <nicolas1.23456@free.fr>"
    assert both.text.startswith("contenu")
    assert f"{ATTACHMENT_HEADING}test-unicode.doc]" in both.text  # an attached Word 97 file
    assert "euro : € (20AC)" in both.text
    names = [a["name"] for a in both.meta["attachments"]]
    assert names == ["test-unicode.doc", "pj1.txt"]
    assert all(a["chars"] > 0 for a in both.meta["attachments"])


def test_the_msg_reader_writes_the_mail_attachment_heading() -> None:
    assert MSG_HEADING == ATTACHMENT_HEADING


async def test_a_word_6_document_is_read(tmp_path: Path) -> None:
    # kreuzberg 4.10 refuses Word 6.0/95 files ("Invalid DOC magic number: 0xA5DC").
    folder = _copy(tmp_path, "Word6.doc")
    (record,) = [r for r in await _items(folder) if isinstance(r, MemoryRecord)]
    assert record.text == "The quick brown fox jumps over the lazy dog"
    assert record.title == "The quick brown fox jumps over the lazy dog"
    assert record.author == "Nevin Nollop"
    assert record.at is not None and record.at.iso().startswith("2005-09-20T17:25")


async def test_encrypted_files_are_named_errors(tmp_path: Path) -> None:
    folder = _copy(
        tmp_path,
        "password_tika_binaryrc4.doc",
        "Password_Protected-hello.ppt",
        "xor-encryption-abc.xls",
    )
    errors = {e.id: e.reason for e in await _items(folder) if isinstance(e, RecordError)}
    # kreuzberg 4.10 called the .doc damaged, gave the .ppt as no text, the .xls a codepage error.
    for name in (
        "password_tika_binaryrc4.doc",
        "Password_Protected-hello.ppt",
        "xor-encryption-abc.xls",
    ):
        assert errors[name].startswith("encrypted document"), (name, errors[name])


async def test_office_names_on_other_formats_are_read_as_what_they_are(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    # Word saves RTF and HTML as .doc; exports name an HTML table .xls.
    (folder / "memo.doc").write_bytes(
        rb"{\rtf1\ansi {\b Budget} memo about the orchard fence.\par}"
    )
    (folder / "export.xls").write_bytes(
        b"<html><body><table><tr><td>Pelican</td><td>42</td></tr></table></body></html>"
    )
    (folder / "junk.ppt").write_bytes(b"neither an OLE file nor anything else\n" * 40)
    items = await _items(folder)
    records = {r.id: r for r in items if isinstance(r, MemoryRecord)}
    errors = {e.id: e.reason for e in items if isinstance(e, RecordError)}
    assert "orchard fence" in records["memo.doc"].text
    assert records["memo.doc"].meta["document"] == {"format": "doc", "read_as": "rtf"}
    assert "Pelican" in records["export.xls"].text
    assert errors["junk.ppt"].startswith("corrupt file: not an Office 97-2003 file")


async def test_a_mail_saved_as_text_under_msg_stays_text(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    saved = Path(__file__).parent / "data" / "mail" / "saved" / "meeting.msg"
    shutil.copy(saved, folder / "meeting.msg")
    (record,) = [r for r in await _items(folder) if isinstance(r, MemoryRecord)]
    assert isinstance(record, MemoryRecord) and record.kind == "file"
    assert "Subject: Saved as a .msg" in record.text  # as before .msg was a document
    assert not is_document("meeting.msg", saved.read_bytes())
    assert is_document("quick.msg", (DATA / "quick.msg").read_bytes())


def test_empty_cells_do_not_fill_a_sheet_with_spaces() -> None:
    # 31 KB: kreuzberg 4.10 wrote each empty cell as a space, 4.2 million characters in all.
    with DocumentReader() as reader:
        got = reader.read((DATA / "SharedFormulaTest.xls").read_bytes(), ".xls")
    assert not isinstance(got, str)
    assert len(got.text) < 100_000 and "  " not in got.text
    assert "1 2 2 1" in got.text  # the cells, one space apart


def _mail_with(parts: list[tuple[bytes, str, str | None]]) -> bytes:
    msg = EmailMessage()
    msg["From"] = "Archive <archive@example.com>"
    msg["To"] = "ann@example.com"
    msg["Subject"] = "Old files"
    msg["Date"] = "Tue, 01 Apr 2003 10:00:00 +0000"
    msg["Message-ID"] = "<old-files@example.com>"
    msg.set_content("The old files, as promised.\n")
    for data, ctype, name in parts:
        maintype, subtype = ctype.split("/")
        msg.add_attachment(data, maintype=maintype, subtype=subtype, filename=name)
    return msg.as_bytes()


def test_legacy_office_and_outlook_attachments_join_the_mail(tmp_path: Path) -> None:
    raw = _mail_with(
        [
            ((DATA / "SampleDoc.doc").read_bytes(), "application/msword", "report.doc"),
            ((DATA / "SampleSS.xls").read_bytes(), "application/vnd.ms-excel", "figures.xls"),
            (
                (DATA / "basic_test_ppt_file.ppt").read_bytes(),
                "application/vnd.ms-powerpoint",
                "talk.ppt",
            ),
            ((DATA / "quick.msg").read_bytes(), "application/vnd.ms-outlook", "forwarded.msg"),
            (
                (DATA / "password_tika_binaryrc4.doc").read_bytes(),
                "application/msword",
                "locked.doc",
            ),
        ]
    )
    item = message_to_item(raw, source="mail", where="1")
    assert isinstance(item, MemoryRecord)
    assert item.text.startswith("The old files")
    for name, sentence in (
        ("report.doc", "I am Calibri (Body) in font size 11"),
        ("figures.xls", "Sheet Number 2"),
        ("talk.ppt", "These are the notes on page two"),
        ("forwarded.msg", "The quick brown fox jumps over the lazy dog"),
    ):
        assert f"{ATTACHMENT_HEADING}{name}]" in item.text
        assert sentence in item.text, name
    by_name = {a["name"]: a for a in item.meta["attachments"]}
    assert all(by_name[n]["chars"] > 0 for n in ("report.doc", "figures.xls", "talk.ppt"))
    assert by_name["locked.doc"]["error"].startswith("encrypted document")


def test_an_unnamed_word_attachment_is_read_by_its_type(tmp_path: Path) -> None:
    msg = EmailMessage()
    msg["From"] = "a@example.com"
    msg["Subject"] = "no name"
    msg.set_content("see attached")
    msg.add_attachment(
        (DATA / "SampleDoc.doc").read_bytes(), maintype="application", subtype="msword"
    )
    item = message_to_item(msg.as_bytes(), source="mail", where="1")
    assert isinstance(item, MemoryRecord)
    assert "I am Calibri (Body) in font size 11" in item.text


def test_memtrails_add_reads_a_msg_and_a_doc_given_alone(tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    for name in ("quick.msg", "SampleDoc.doc"):
        shutil.copy(DATA / name, tmp_path / name)
        done = CliRunner().invoke(main, ["add", str(tmp_path / name), "--home", home])
        assert done.exit_code == 0 and "added 1," in done.output, done.output
    done = CliRunner().invoke(main, ["search", "quick brown fox jumps", "--home", home])
    assert "Test the content transformer" in done.output and "mail" in done.output, done.output
    done = CliRunner().invoke(main, ["search", "Calibri font size eleven", "--home", home])
    assert "SampleDoc.doc" in done.output, done.output


def test_a_word_6_field_gives_its_result_not_its_code() -> None:
    from memtrails.importers.documents._olemeta import _unfield

    text = "Date\x13DATE \\@ dd/MM/yy\x1412/12/97\x15; page \x13PAGE\x15 of \x13 IF \x13X\x141\x15 \x142\x15."
    assert _unfield(text) == "Date12/12/97; page  of 2."
    assert _unfield("\x13" * 1000 + "lost") == ""  # fields never closed: all code
    assert _unfield("\x15\x14kept").endswith("kept")  # a stray end or separator opens none


def _word6_in(tmp_path: Path, text: bytes, lid: int | None = None) -> Path:
    """Word6.doc with its 43-byte text replaced by ``text`` (as many bytes), and the
    language of the Word that saved it set to ``lid`` (else left as it is: English, 1033)."""
    data = bytearray((DATA / "Word6.doc").read_bytes())
    fib = data.index(b"\xdc\xa5\x65\x00")
    start, end = struct.unpack_from("<II", data, fib + 0x18)
    assert end - start == len(text) + 1 == 44  # the text, then its paragraph mark
    data[fib + start : fib + start + 43] = text
    if lid is not None:
        struct.pack_into("<H", data, fib + 6, lid)
    folder = tmp_path / "notes"
    folder.mkdir(exist_ok=True)
    (folder / "word6.doc").write_bytes(bytes(data))
    return folder


RUSSIAN = "Съешь же ещё этих мягких булок, да выпей чаю"[:43]


@pytest.mark.parametrize("lid", [0x0419, None], ids=["russian-word", "western-word"])
async def test_a_cyrillic_word_6_document_is_read_in_windows_1251(
    tmp_path: Path, lid: int | None
) -> None:
    """Word 6.0/95 text has no charset of its own: the code page is the summary's, else the
    one of the saving Word's language (Russian: 1251), else told by its bytes."""
    folder = _word6_in(tmp_path, RUSSIAN.encode("cp1251"), lid)
    (record,) = [r for r in await _items(folder) if isinstance(r, MemoryRecord)]
    assert record.text == RUSSIAN


async def test_a_western_word_6_document_stays_in_windows_1252(tmp_path: Path) -> None:
    text = "Café crème, déjà vu: naïve Zürich résumé ok"
    folder = _word6_in(tmp_path, text.encode("cp1252"))
    (record,) = [r for r in await _items(folder) if isinstance(r, MemoryRecord)]
    assert record.text == text


async def test_a_cyrillic_title_in_a_summary_not_in_its_code_page(tmp_path: Path) -> None:
    """A summary that says UTF-8 or 1252 around a title written in Windows-1251."""
    folder = _word6_in(tmp_path, RUSSIAN.encode("cp1251"))
    path = folder / "word6.doc"
    data = path.read_bytes()
    title = b"The quick brown fox jumps over the lazy dog"
    at = data.index(title)  # the summary's title, before the document's text
    path.write_bytes(data[:at] + RUSSIAN.encode("cp1251") + data[at + len(title) :])
    (record,) = [r for r in await _items(folder) if isinstance(r, MemoryRecord)]
    assert record.title == RUSSIAN
    assert record.author == "Nevin Nollop"
