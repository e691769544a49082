"""OpenPGP armor in mail text: the signed words are searchable, the signature's base64 is not."""

from __future__ import annotations

from contextlib import aclosing
from pathlib import Path

from helpers import mail_record

from memtrails.importers.mail.armor import unarmored
from memtrails.importers.mbox import from_mbox
from memtrails.records import MemoryRecord

SIGNATURE = """-----BEGIN PGP SIGNATURE-----
Version: GnuPG v1.2.1 (Darwin)

iD8DBQE+if4svVGR4uSOE2wRArcOAKCKs4sHno57LtUWgB+U2C1Oc1X6qgCfbg5N
qHg2Z9ZDNkGHddmnKvWEFBw=
=FtOD
-----END PGP SIGNATURE-----"""


def _mail(body: str) -> bytes:
    head = "From: Glyph <glyph@example.com>\nSubject: warnings\nMessage-ID: <a@example.com>\n"
    return f"{head}Content-Type: text/plain\n\n{body}\n".encode()


def test_a_clearsigned_mail_keeps_its_words_and_loses_its_signature() -> None:
    body = (
        "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA1\n\n"
        "Itamar checked in a fix, so errors are logged to stderr.\n"
        "- -- not a signature separator, a dash-escaped line\n"
        f"{SIGNATURE}\n"
    )
    text = mail_record(_mail(body)).text
    assert "Itamar checked in a fix" in text
    assert "-- not a signature separator" in text and "- --" not in text
    for noise in ("PGP", "Hash: SHA1", "iD8DBQE", "=FtOD", "GnuPG"):
        assert noise not in text


def test_a_signature_quoted_in_a_reply_goes_too() -> None:
    quoted = "\n".join("> " + line if line else ">" for line in SIGNATURE.split("\n"))
    body = f"Agreed.\n\n> Itamar checked in a fix.\n>\n{quoted}\n\nGlyph"
    text = mail_record(_mail(body)).text
    assert "Agreed." in text and "> Itamar checked in a fix." in text and "Glyph" in text
    assert "iD8DBQE" not in text and "PGP" not in text


def test_encrypted_text_and_keys_leave_a_line_that_says_so() -> None:
    block = "-----BEGIN PGP MESSAGE-----\n\nhQEMA5a6Xv0=\n=abcd\n-----END PGP MESSAGE-----"
    key = "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQGiBD6=\n-----END PGP PUBLIC KEY BLOCK-----"
    text = mail_record(_mail(f"Here it is:\n{block}\nand my key:\n{key}")).text
    assert "(PGP-encrypted text)" in text and "(a PGP public key)" in text
    assert "hQEMA5a6Xv0" not in text and "mQGiBD6" not in text


def test_a_block_without_its_end_is_left_as_written() -> None:
    cut = "Before.\n-----BEGIN PGP SIGNATURE-----\n\niD8DBQE+if4sv\nAfter, nothing ends it."
    assert unarmored(cut) == cut
    # Nor does an END line of another kind end it.
    other = "-----BEGIN PGP SIGNATURE-----\nabc\n-----END PGP MESSAGE-----\ntext"
    assert unarmored(other) == other


async def test_a_mailing_list_month_holds_no_signature_base64(corpora: Path) -> None:
    path = corpora / "mbox" / "twisted-python-2003-April.mbox"  # 62 clearsigned mails
    async with aclosing(from_mbox(path)) as items:
        records = [i async for i in items if isinstance(i, MemoryRecord)]
    armored = [r.id for r in records if "BEGIN PGP" in r.text or "END PGP" in r.text]
    assert len(records) > 500 and armored == []
    signed = [r for r in records if "Sorry, glyph :) Itamar just checked in a fix" in r.text]
    assert signed and not any("GnuPG" in r.text for r in signed)
