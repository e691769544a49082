"""A header in raw 8-bit bytes of a charset the mail does not declare (a subject, a sender's
name, a file name) is read in the charset its words read in, however short: a KOI8-R
subject is Russian, not Shift_JIS; a header in the charset the mail declares stays in it."""

from __future__ import annotations

import pytest
from helpers import mail_record

from memtrails.importers.mail.headers import decode_raw_header

# Short phrases as subjects are: a word or three, in the code pages mail without a declared
# charset was most often written in.
PHRASES = {
    "koi8_r": ["Счёт", "Кофе?", "Отчёт за май", "Re: Скидки!", "Иван Петров"],
    "cp1251": ["Привет", "Счёт", "Отчёт за май", "Re: Скидки!", "Иван Петров"],
    "cp1250": ["Zażółć gęślą jaźń", "Příliš žluťoučký kůň", "Łódź"],
    "iso8859_7": ["Καλημέρα", "Συνάντηση αύριο"],
    "cp1252": ["Müller", "Café résumé", "Größe"],
}
CASES = [(enc, p) for enc, phrases in PHRASES.items() for p in phrases]
# What the mail says of its charset: nothing, a default that says nothing of 8-bit bytes,
# or another charset than the header's (its body's).
BODIES = {
    "no charset": b"Hello, see attached.\n",
    "us-ascii": b"Content-Type: text/plain; charset=us-ascii\n\nHello.\n",
    "utf-8": b"Content-Type: text/plain; charset=utf-8\n\n" + "Добрый день.\n".encode(),
}


def _mail(subject: bytes, body: bytes) -> bytes:
    head = b"From: a@example.com\nSubject: " + subject + b"\nMessage-ID: <m@example.com>\n"
    return head + (body if body.startswith(b"Content-Type") else b"\n" + body)


@pytest.mark.parametrize(("enc", "phrase"), CASES)
@pytest.mark.parametrize("body", list(BODIES))
def test_an_undeclared_8bit_subject_reads_in_its_own_charset(
    enc: str, phrase: str, body: str
) -> None:
    # Before: "Отчёт за май" in KOI8-R came out as Shift_JIS ('鱥ﾞ｣ﾔ ﾚﾁ ﾍﾁﾊ'), "Счёт" as
    # Windows-1252 ('óÞ£Ô'), Greek as Windows-1252
    assert mail_record(_mail(phrase.encode(enc), BODIES[body])).title == phrase


@pytest.mark.parametrize(
    ("enc", "declared"), [("koi8_r", "windows-1251"), ("cp1251", "koi8-r"), ("cp1250", "koi8-r")]
)
def test_a_subject_in_another_charset_than_the_body_declares(enc: str, declared: str) -> None:
    body = f"Content-Type: text/plain; charset={declared}\n\n".encode() + "Текст.\n".encode(
        declared
    )
    for phrase in PHRASES[enc]:
        assert mail_record(_mail(phrase.encode(enc), body)).title == phrase


@pytest.mark.parametrize(("enc", "phrase"), CASES)
def test_a_header_in_the_declared_charset_stays_in_it(enc: str, phrase: str) -> None:
    assert decode_raw_header(phrase.encode(enc), enc) == phrase


def test_a_senders_name_and_a_file_name_read_alike() -> None:
    name, file = "Дмитрий Иванов", "Отчёт за май.txt"
    raw = (
        b"From: " + name.encode("koi8_r") + b" <d@example.com>\nSubject: report\n"
        b"Message-ID: <n@example.com>\nMIME-Version: 1.0\n"
        b'Content-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: text/plain\n\n'
        b"see the file\n--b\nContent-Type: text/plain\n"
        b'Content-Disposition: attachment; filename="' + file.encode("koi8_r") + b'"\n\n'
        b"data\n--b--\n"
    )
    record = mail_record(raw)
    assert record.author == f"{name} <d@example.com>"
    assert [a["name"] for a in record.meta["attachments"]] == [file]


@pytest.mark.parametrize(("enc", "phrase"), [(e, p) for e, p in CASES if e != "cp1252"])
def test_an_rfc_2231_file_name_that_names_no_charset(enc: str, phrase: str) -> None:
    # filename*=''%CF%D2... (no charset, in a mail that declares none): read as its words
    # read, as a raw 8-bit name is; before, Windows-1252 letters ("Ïðèâåò.txt")
    name = "".join(f"%{b:02X}" for b in f"{phrase}.txt".encode(enc))
    raw = (
        b"From: a@example.com\nSubject: s\nMessage-ID: <f@example.com>\nMIME-Version: 1.0\n"
        b'Content-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: text/plain\n\n'
        b"see the file\n--b\nContent-Type: application/octet-stream\n"
        b"Content-Disposition: attachment; filename*=''" + name.encode() + b"\n\nAAAA\n--b--\n"
    )
    assert [a["name"] for a in mail_record(raw).meta["attachments"]] == [f"{phrase}.txt"]
