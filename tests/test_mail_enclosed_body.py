"""An enclosed mail whose text starts with a line shaped like a header keeps that line."""

from __future__ import annotations

import pytest
from helpers import mail_record

INNER = (
    b"From: Bo <bo@example.org>\nSubject: the plan\nMessage-ID: <inner@example.org>\n\n"
    b"%s\nSubject to approval: the budget\nsee you there\n"
)


def _forward(part: bytes) -> bytes:
    return (
        b"From: Al <al@example.com>\nSubject: fwd\nMessage-ID: <outer@example.com>\n"
        b'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="b"\n\n'
        b"--b\nContent-Type: text/plain\n\nsee below\n--b\n" + part + b"--b--\n"
    )


def _digest(part: bytes) -> bytes:
    return (
        b"From: list <list@example.com>\nSubject: digest\nMessage-ID: <d@example.com>\n"
        b'MIME-Version: 1.0\nContent-Type: multipart/digest; boundary="b"\n\n'
        b"--b\n" + part + b"--b--\n"
    )


FRAMES = {
    # a message/rfc822 part with no blank line after its Content-Type
    "rfc822 part, headers run together": lambda first: _forward(
        b"Content-Type: message/rfc822\n" + INNER % first
    ),
    # a digest part with no blank line before its mail (RFC 2046 5.1.5 wants one)
    "digest part, no blank line": lambda first: _digest(INNER % first),
}


@pytest.mark.parametrize("frame", sorted(FRAMES))
@pytest.mark.parametrize(
    ("first", "shown"),
    [
        (b"Note: tomorrow at ten", "Note: tomorrow at ten"),
        (b"Re: your mail", "Re: your mail"),
        (b"Agenda:item one", "Agenda: item one"),  # read back as a header writes it
    ],
)
def test_a_header_like_first_line_of_an_enclosed_mail_stays_its_text(
    frame: str, first: bytes, shown: str
) -> None:
    # Before: the first line was read as a header of the enclosed mail and lost
    rec = mail_record(FRAMES[frame](first))
    text = rec.text
    assert "Subject: the plan" in text  # the enclosed mail's own headers are shown
    body = text[text.index("Subject: the plan") :]
    assert f"\n\n{shown}\n" in body
    assert "Subject to approval: the budget\nsee you there" in body
