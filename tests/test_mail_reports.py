"""Bounce reports and receipts: who could not be reached and why is searchable text."""

from __future__ import annotations

import base64
import quopri

import pytest
from helpers import mail_record

STATUS = (
    "Reporting-MTA: dns; mx.example.net\r\n\r\n"
    "Final-Recipient: rfc822; ann@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\n"
    "Diagnostic-Code: smtp; 550 5.1.1 mailbox unavailable\r\n\r\n"
    "Final-Recipient: rfc822; bob@example.org\r\nAction: failed\r\nStatus: 5.2.2\r\n"
    "Diagnostic-Code: smtp; 552 mailbox full\r\n"
)


def _bounce(ctype: str, encoding: str | None) -> bytes:
    body = STATUS
    if encoding == "base64":
        body = base64.encodebytes(STATUS.encode()).decode()
    elif encoding == "quoted-printable":
        body = quopri.encodestring(STATUS.encode()).decode()
    cte = f"Content-Transfer-Encoding: {encoding}\r\n" if encoding else ""
    return (
        "From: MAILER-DAEMON@example.net\r\nSubject: Undelivered Mail\r\n"
        "Message-ID: <d1@example.net>\r\nMIME-Version: 1.0\r\n"
        "Content-Type: multipart/report; report-type=delivery-status; boundary=b\r\n\r\n"
        "--b\r\nContent-Type: text/plain\r\n\r\nYour message could not be delivered.\r\n"
        f"--b\r\nContent-Type: {ctype}\r\n{cte}\r\n{body}\r\n--b--\r\n"
    ).encode()


@pytest.mark.parametrize("encoding", [None, "base64", "quoted-printable"])
@pytest.mark.parametrize("ctype", ["message/delivery-status", "message/global-delivery-status"])
def test_every_recipient_of_a_bounce_is_in_its_text(ctype: str, encoding: str | None) -> None:
    text = mail_record(_bounce(ctype, encoding)).text
    assert "Your message could not be delivered." in text
    for said in ("ann@example.org", "550 5.1.1 mailbox unavailable", "bob@example.org"):
        assert said in text, (said, text)
    assert "552 mailbox full" in text
