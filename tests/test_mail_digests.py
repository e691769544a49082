"""Digests and enclosed mails with a broken frame still give the enclosed mail's words."""

from __future__ import annotations

import base64

from helpers import mail_record

DIGEST = (
    b"From: list@example.org\nSubject: Digest 12\nMessage-ID: <d@example.org>\n"
    b'MIME-Version: 1.0\nContent-Type: multipart/digest; boundary="B"\n\n'
)
MIXED = (
    b"From: jo@example.org\nSubject: Fwd: two\nMessage-ID: <f@example.org>\n"
    b'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="B"\n\n'
    b"--B\nContent-Type: text/plain\n\nsee below\n"
)
INNER = (
    b"From: Ann <ann@example.org>\nSubject: the plan\nDate: Tue, 3 Mar 2009 10:00:00 +0100\n"
    b"\nWe meet at noon by the lighthouse.\n"
)
FORWARD = (
    "---------- Forwarded message ----------\n"
    "From: Ann <ann@example.org>\n"
    "Date: Tue, 3 Mar 2009 10:00:00 +0100\n"
    "Subject: the plan\n\n"
    "We meet at noon by the lighthouse."
)


def text(raw: bytes) -> str:
    return mail_record(raw).text


def test_a_digest_part_without_part_headers_or_blank_line_keeps_the_inner_headers() -> None:
    # RFC 2046 5.1.5: a digest part is its headers (none), a blank line, then the mail; a
    # digester that leaves the blank line out puts the mail's headers in the part's place.
    # Before: From, Date and Subject were lost, and only the text was left.
    raw = DIGEST + b"--B\n" + INNER + b"--B\n" + INNER.replace(b"noon", b"one") + b"--B--\n"
    assert text(raw) == FORWARD + "\n\n" + FORWARD.replace("noon", "one")


def test_an_enclosed_mail_run_into_its_part_headers_keeps_its_headers() -> None:
    # "Content-Type: message/rfc822" and the mail's own headers in one block, no blank line
    raw = MIXED + b"--B\nContent-Type: message/rfc822\n" + INNER + b"--B--\n"
    assert text(raw) == "see below\n\n" + FORWARD


def test_a_part_holding_a_mail_without_part_headers_reads_as_an_enclosed_mail() -> None:
    # a mixed part with no Content-Type of its own: the mail's headers are the part's
    # Before: the text only, with no sign of who wrote it or when
    raw = MIXED + b"--B\n" + INNER + b"--B--\n"
    assert text(raw) == "see below\n\n" + FORWARD


def test_an_enclosed_mail_in_base64_is_decoded() -> None:
    # RFC 2046 forbids encoding a message/rfc822 part, but mailers do it: before, the
    # record held the base64 letters instead of the mail
    for cte, body in (
        (b"base64", base64.encodebytes(INNER)),
        (b"quoted-printable", INNER.replace(b"=", b"=3D").replace(b"noon", b"no=\non")),
    ):
        raw = (
            (MIXED + b"--B\nContent-Type: message/rfc822\nContent-Transfer-Encoding: " + cte)
            + b"\n\n"
            + body
            + b"--B--\n"
        )
        assert text(raw) == "see below\n\n" + FORWARD, cte


def test_an_enclosed_mail_without_a_blank_line_after_its_headers() -> None:
    # the body starts right after the headers: read as the body (this already held)
    inner = INNER.replace(b"+0100\n\n", b"+0100\n")
    raw = DIGEST + b"--B\n\n" + inner + b"--B--\n"
    assert text(raw) == FORWARD


def test_protected_headers_of_a_signed_mail_are_not_an_enclosed_mail() -> None:
    # RFC 9788 (protected headers): the signed part repeats the mail's own Subject and From
    raw = (
        b"From: ann@example.org\nSubject: ...\nMessage-ID: <s@example.org>\nMIME-Version: 1.0\n"
        b'Content-Type: multipart/signed; protocol="application/pgp-signature"; boundary="S"\n\n'
        b'--S\nContent-Type: text/plain; charset=utf-8; protected-headers="v1"\n'
        b"From: ann@example.org\nSubject: the plan\n\nWe meet at noon.\n"
        b"--S\nContent-Type: application/pgp-signature\n\nsig\n--S--\n"
    )
    assert text(raw) == "We meet at noon."
