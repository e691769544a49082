"""A file name in raw 8-bit bytes (not RFC 2231/2047 encoded) is read in the mail's charset."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import mail_record

from memtrails.items import ATTACHMENT_HEADING

OUTLOOK_EXPRESS = Path("/work/shared/corpora/eml/flanker/outlook-express.eml")


def _mail(name: bytes, charset: str | None, header: bytes, body_cs: bytes = b"") -> bytes:
    declared = b"; charset=" + charset.encode() if charset else b""
    return (
        b"From: a@example.com\nSubject: files\nMessage-ID: <f@example.com>\nMIME-Version: 1.0\n"
        b'Content-Type: multipart/mixed; boundary="b"\n\n'
        b"--b\nContent-Type: text/plain" + declared + b"\nContent-Transfer-Encoding: 8bit\n\n"
        b"see the files\n" + body_cs + b"\n"
        b"--b\n" + header.replace(b"; charset", declared) % name + b"\n\n"
        b"the report says hello\n--b--\n"
    )


# A text file's part headers ("; charset": where the mail's charset is declared, if any).
HEADERS = {
    "filename": b'Content-Type: text/plain; charset\nContent-Disposition: attachment; filename="%s"',
    "folded filename": (
        b'Content-Type: text/plain; charset\nContent-Disposition: attachment;\n\tfilename="%s"'
    ),
    "name": b'Content-Type: text/plain; charset;\n name="%s"\nContent-Disposition: attachment',
}


@pytest.mark.parametrize("header", sorted(HEADERS))
@pytest.mark.parametrize(
    ("name", "charset"),
    [
        ("отчёт за май.txt", "windows-1251"),
        ("отчёт.txt", "koi8-r"),
        ("新建文本文档.txt", "gbk"),
        ("résumé.txt", "iso-8859-1"),
        ("Ελληνικά.txt", "iso-8859-7"),
    ],
)
def test_an_8bit_file_name_is_read_in_the_charset_the_mail_declares(
    name: str, charset: str, header: str
) -> None:
    # Before: read as Latin-1 whatever the mail declared (mojibake for "отчёт.txt")
    rec = mail_record(_mail(name.encode(charset), charset, HEADERS[header]))
    assert [a["name"] for a in rec.meta["attachments"]] == [name]
    assert f"{ATTACHMENT_HEADING}{name}]\n\nthe report says hello" in rec.text


def test_an_8bit_file_name_in_utf8_stays_utf8_in_a_mail_of_another_charset() -> None:
    rec = mail_record(_mail("Ünïcödé.txt".encode(), "iso-8859-1", HEADERS["filename"]))
    assert [a["name"] for a in rec.meta["attachments"]] == ["Ünïcödé.txt"]


def test_an_8bit_file_name_in_a_forwarded_mail_is_read_in_that_mail_s_charset() -> None:
    inner = _mail("отчёт.txt".encode("koi8-r"), "koi8-r", HEADERS["filename"])
    outer = (
        b"From: b@example.com\nSubject: fwd\nMessage-ID: <o@example.com>\nMIME-Version: 1.0\n"
        b'Content-Type: multipart/mixed; boundary="o"\n\n--o\nContent-Type: text/plain\n\n'
        b"forwarded\n--o\nContent-Type: message/rfc822\n\n" + inner + b"--o--\n"
    )
    rec = mail_record(outer)
    assert [a["name"] for a in rec.meta["attachments"]] == ["отчёт.txt"]


@pytest.mark.skipif(not OUTLOOK_EXPRESS.is_file(), reason="the flanker corpus is not here")
def test_outlook_express_8bit_name_is_read_as_the_utf8_it_is() -> None:
    # flanker's outlook-express.eml: a raw 8-bit name= that is valid UTF-8 (a GBK name some
    # relay already turned into U+FFFD and Latin letters), the mail's only part
    rec = mail_record(OUTLOOK_EXPRESS.read_bytes())
    raw = OUTLOOK_EXPRESS.read_bytes()
    start = raw.index(b'name="') + 6
    written = raw[start : raw.index(b'"', start)].decode("utf-8")
    (entry,) = rec.meta["attachments"]
    assert entry["name"] == written
    assert entry["chars"] > 0  # the text file is read under that name
    assert f"{ATTACHMENT_HEADING.lstrip()}{written}]" in rec.text


@pytest.mark.parametrize(
    ("name", "charset"), [("отчёт.txt", "windows-1251"), ("Ελληνικά.txt", "iso-8859-7")]
)
def test_an_rfc2231_file_name_that_names_no_charset_is_read_in_the_mail_s(
    name: str, charset: str
) -> None:
    # filename*=''%F1%F7... : RFC 2231 with the charset left empty; was read as UTF-8 (U+FFFD)
    encoded = "".join(f"%{b:02X}" for b in name.encode(charset)).encode()
    header = b"Content-Type: text/plain; charset\nContent-Disposition: attachment; filename*=''%s"
    rec = mail_record(_mail(encoded, charset, header))
    assert [a["name"] for a in rec.meta["attachments"]] == [name]
    # Valid UTF-8 stays UTF-8 whatever the mail declares.
    utf8 = "".join(f"%{b:02X}" for b in name.encode()).encode()
    rec = mail_record(_mail(utf8, charset, header))
    assert [a["name"] for a in rec.meta["attachments"]] == [name]


@pytest.mark.parametrize(
    "params",
    [
        b"filename=\"resume.txt\"; filename*=utf-8''r%C3%A9sum%C3%A9.txt",
        b"filename*=utf-8''r%C3%A9sum%C3%A9.txt; filename=\"resume.txt\"",
    ],
)
def test_an_rfc2231_name_wins_over_its_plain_fallback(params: bytes) -> None:
    # Before: the plain fallback ("resume.txt", or a mailer's "=?UTF-8?...", "____.txt")
    # named the attachment, in either order
    header = b"Content-Type: text/plain; charset\nContent-Disposition: attachment; " + params
    rec = mail_record(_mail(b"", "utf-8", header.replace(b"%", b"%%") + b"%s"))
    assert [a["name"] for a in rec.meta["attachments"]] == ["résumé.txt"]
    assert f"{ATTACHMENT_HEADING.lstrip()}résumé.txt]" in rec.text
