"""A line with no header name in a mail's header block, with headers after it: a long
Subject a broken mailer wrapped without indenting the rest, or a stray line. Mail tools
(Dovecot, Thunderbird) read the headers after it; the stdlib parser took the line for the
start of the body, so the Message-ID, Date, To after it were lost (the record got a hash
for its id, fell out of its thread) and the header lines were read as the mail's text."""

from __future__ import annotations

from pathlib import Path

from memtrails.importers.mail import MailBook, message_to_item
from memtrails.records import MemoryRecord


def _item(raw: bytes) -> MemoryRecord:
    item = message_to_item(raw, source="s", where="m", meta={}, book=MailBook())
    assert isinstance(item, MemoryRecord), item
    return item


def test_a_subject_wrapped_without_indent_keeps_the_headers_after_it() -> None:
    raw = (
        b"From: Ann <ann@example.com>\n"
        b"Subject: the quarterly numbers for the north\n"
        b"east region, revised\n"
        b"Message-ID: <q3@example.com>\n"
        b"In-Reply-To: <q2@example.com>\n"
        b"Date: Tue, 2 Jan 2024 10:00:00 +0000\n"
        b"\n"
        b"Numbers attached.\n"
    )
    item = _item(raw)
    assert item.id == "q3@example.com"
    assert item.title == "the quarterly numbers for the north east region, revised"
    assert item.text == "Numbers attached."
    assert item.thread == "q2@example.com"
    assert item.at is not None and "2024-01-02" in str(item.at)


def test_crlf_and_a_stray_line_before_the_message_id() -> None:
    raw = (
        b"From: a@example.com\r\nSubject: hi\r\nX-Mailer junk without a colon\r\n"
        b"Message-ID: <s1@example.com>\r\n\r\nbody words\r\n"
    )
    item = _item(raw)
    assert item.id == "s1@example.com" and item.text == "body words"


def test_a_body_without_the_blank_line_stays_the_body() -> None:
    # No header after the line: nothing says it is one; the body starts there, as before.
    raw = b"From: a@example.com\nSubject: hi\nMessage-ID: <b1@example.com>\nHello Bob,\n\nsee you\n"
    item = _item(raw)
    assert item.title == "hi" and item.id == "b1@example.com"
    assert item.text.startswith("Hello Bob,") and item.text.endswith("see you")


def test_a_real_mail_with_a_stray_word_before_a_header(corpora: Path) -> None:
    # mikel/mail's raw_email_incorrect_header.eml (MIT): "quite Delivered-To: ..." among
    # its Received headers; its Date, From, Message-ID and Subject come after that line.
    path = corpora / "eml" / "mikel-mail" / "plain_emails" / "raw_email_incorrect_header.eml"
    item = _item(path.read_bytes())
    assert item.id == "4D6AA7EB.6490534@xxx.xxx"
    assert item.title == "Stop adware/spyware once and for all."
    assert item.author is not None and "xxx@xxx.xxx" in item.author
    assert item.text.startswith("You are infected with:")
    assert "Message-ID" not in item.text


def test_a_bare_cr_inside_a_header_value_does_not_end_the_headers() -> None:
    # A subject pasted from classic Mac text keeps a CR alone: the parser took it for a
    # line end, "world" for the body's first line, and lost every header after it.
    raw = (
        b"From: a@example.com\r\nSubject: hello\rworld\r\nMessage-ID: <cr@example.com>\r\n"
        b"Date: Mon, 1 Jan 2024 10:00:00 +0000\r\n\r\nbody\r\n"
    )
    item = _item(raw)
    assert item.id == "cr@example.com"
    assert item.title == "hello world"
    assert item.text == "body"


def test_a_message_whose_lines_end_in_cr_alone_is_still_read() -> None:
    raw = b"From: a@example.com\rSubject: mac\rMessage-ID: <mac@example.com>\r\rbody\r"
    item = _item(raw)
    assert (item.id, item.title, item.text) == ("mac@example.com", "mac", "body")
