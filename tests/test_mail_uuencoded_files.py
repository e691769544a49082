"""A uuencoded file in a mail's text is read as the same file attached would be, and its
encoded lines are never the mail's searchable text."""

from __future__ import annotations

import base64
import binascii
import random
from pathlib import Path

import pytest
from helpers import benchmark, mail_record

from memtrails.items import ATTACHMENT_HEADING

NOTES = (
    "The quarterly numbers are attached here.\n"
    "Revenue grew by twelve percent in the north region.\n"
    "Costs stayed flat; the south office opens in May.\n"
)


def _uu(data: bytes, name: str, *, end: bool = True) -> bytes:
    lines = [f"begin 644 {name}".encode()]
    lines += [binascii.b2a_uu(data[i : i + 45]).rstrip(b"\n") for i in range(0, len(data), 45)]
    lines += [b"`", b"end"] if end else []
    return b"\n".join(lines) + b"\n"


def _uu_base64(data: bytes, name: str) -> bytes:  # uuencode -m
    coded = base64.encodebytes(data).rstrip(b"\n")
    return f"begin-base64 644 {name}\n".encode() + coded + b"\n====\n"


def _mail(block: bytes, *, charset: str | None = None, crlf: bool = False) -> bytes:
    head = b"From: a@example.com\nSubject: numbers\nMessage-ID: <uu@example.com>\n"
    if charset:
        head += f"MIME-Version: 1.0\nContent-Type: text/plain; charset={charset}\n".encode()
    raw = head + b"\nHere is the file:\n\n" + block + b"\nthanks, bye\n"
    return raw.replace(b"\n", b"\r\n") if crlf else raw


def _own_text(text: str) -> str:
    return text.split(ATTACHMENT_HEADING.strip("\n"))[0]


def _no_encoded_lines(text: str) -> bool:
    return not any(
        line.startswith(("M", "begin")) and len(line) >= 40 for line in text.splitlines()
    )


SHAPES = {
    "uuencode": lambda data, name: _uu(data, name),
    "no end line (cut short)": lambda data, name: _uu(data, name, end=False),
    "uuencode -m": _uu_base64,
}


@pytest.mark.parametrize("crlf", [False, True])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_uuencoded_text_file_is_read_as_an_attached_one(shape: str, crlf: bool) -> None:
    # Before: named only (its words not searchable); cut short or -m, its encoded lines
    # were the mail's text
    rec = mail_record(_mail(SHAPES[shape](NOTES.encode(), "notes.txt"), crlf=crlf))
    assert _own_text(rec.text).strip() == "Here is the file:\n\nthanks, bye"
    assert f"{ATTACHMENT_HEADING.lstrip()}notes.txt]\n\n{NOTES.strip()}" in rec.text
    assert _no_encoded_lines(rec.text)
    (entry,) = rec.meta["attachments"]
    assert (entry["name"], entry["type"], entry["size"]) == (
        "notes.txt",
        "text/plain",
        len(NOTES.encode()),
    )
    assert entry["chars"] == len(NOTES.strip())


def test_a_uuencoded_text_file_is_read_in_the_mail_s_charset() -> None:
    words = "Déjà vu: le café du coin ferme à midi, ça change tout pour nous.\n"
    rec = mail_record(_mail(_uu(words.encode("latin-1"), "note.txt"), charset="iso-8859-1"))
    assert f"note.txt]\n\n{words.strip()}" in rec.text


def test_a_uuencoded_table_is_read_as_an_attached_table() -> None:
    table = b"city,sales\nOslo,12\nLima,7\n"
    rec = mail_record(_mail(_uu(table, "sales.csv")))
    (entry,) = rec.meta["attachments"]
    assert entry["name"] == "sales.csv" and entry["chars"] > 0
    section = rec.text.split("sales.csv]", 1)[1]
    assert "Oslo" in section and "Lima" in section


def test_a_uuencoded_binary_file_is_named_only() -> None:
    data = random.Random(7).randbytes(3000)
    rec = mail_record(_mail(_uu(data, "photo.bin", end=False)))
    assert rec.text == "Here is the file:\n\nthanks, bye"
    (entry,) = rec.meta["attachments"]
    assert entry["name"] == "photo.bin" and entry["size"] == len(data)


def test_text_after_a_block_cut_short_stays_text() -> None:
    block = _uu(NOTES.encode(), "notes.txt", end=False)
    rec = mail_record(_mail(block + b"Meeting at five, room 4.\n"))
    assert "Meeting at five, room 4." in _own_text(rec.text)


def test_a_uuencoded_pdf_is_read_as_an_attached_one(tmp_path: Path) -> None:
    # Before: named only, its text not read (a MIME-attached PDF's is)
    samples = benchmark("documents_samples")
    sentence = "The harbour crane rental for the regatta costs four thousand euros per week."
    samples.write_pdf(tmp_path / "quote.pdf", sentence)
    data = (tmp_path / "quote.pdf").read_bytes()
    rec = mail_record(_mail(_uu(data, "quote.pdf")))
    assert _own_text(rec.text).strip() == "Here is the file:\n\nthanks, bye"
    assert f"{ATTACHMENT_HEADING.lstrip()}quote.pdf]" in rec.text
    assert sentence in " ".join(rec.text.split())
    (entry,) = rec.meta["attachments"]
    assert entry["name"] == "quote.pdf" and entry["size"] == len(data) and entry["chars"] > 50


def test_a_damaged_uuencoded_pdf_is_named_with_why() -> None:
    rec = mail_record(_mail(_uu(b"%PDF-1.4\n" + b"\x00garbage" * 40, "broken.pdf")))
    (entry,) = rec.meta["attachments"]
    assert entry["name"] == "broken.pdf" and "error" in entry
    assert rec.text.startswith("Here is the file:")
