"""A body labelled ``Content-Transfer-Encoding: base64`` that is plain text (a list or
gateway that decoded it and kept the header): no line of it is base64 and its lines hold
words, so it is read as the text it is, not decoded into bytes of noise. Real base64,
with junk lines or characters in it, is still decoded."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from helpers import collect, records

from memtrails.importers.eml import from_eml

HEAD = (
    b"From: ann@example.org\nDate: Mon, 1 Jan 2024 10:00:00 +0000\nMessage-ID: <m@x>\n"
    b"Subject: minutes\nMIME-Version: 1.0\n"
)
TEXT = "The meeting moved to Thursday, 10:00.\nRoom 4.2 — bring the Q3 numbers.\nThanks, Ann"


async def text_of(tmp_path: Path, raw: bytes) -> str:
    (tmp_path / "a.eml").write_bytes(raw)
    [record] = records(await collect(from_eml(tmp_path)))
    return record.text


async def test_a_plain_body_labelled_base64_is_read_as_it_is(tmp_path: Path) -> None:
    raw = HEAD + (
        b"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n"
        + TEXT.encode()
        + b"\n"
    )
    assert await text_of(tmp_path, raw) == TEXT


async def test_a_part_of_a_multipart_too(tmp_path: Path) -> None:
    raw = HEAD + (
        b'Content-Type: multipart/mixed; boundary="b"\n\n--b\n'
        b"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n"
        + TEXT.encode()
        + b"\n--b--\n"
    )
    assert await text_of(tmp_path, raw) == TEXT


@pytest.mark.parametrize(
    "tail",
    [b"", b"\n_______________\nlist mailing list\nlist@example.org\n", b"\n-- \nsent by me\n"],
    ids=["clean", "list-footer", "signature"],
)
async def test_real_base64_is_still_decoded(tmp_path: Path, tail: bytes) -> None:
    encoded = base64.encodebytes(TEXT.encode())
    raw = HEAD + (
        b"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n"
        + encoded
        + tail
    )
    assert await text_of(tmp_path, raw) == TEXT


async def test_an_enclosed_mail_labelled_base64_is_read_as_the_mail_it_is(tmp_path: Path) -> None:
    raw = HEAD + (
        b'Content-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: text/plain\n\n'
        b"see below\n--b\nContent-Type: message/rfc822\nContent-Transfer-Encoding: base64\n\n"
        b"From: bob@example.org\nSubject: budget\nDate: Sun, 31 Dec 2023 09:00:00 +0000\n\n"
        b"The enclosed words about the budget review.\n--b--\n"
    )
    text = await text_of(tmp_path, raw)
    assert "Subject: budget" in text
    assert text.endswith("The enclosed words about the budget review.")
