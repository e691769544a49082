"""A ``format=flowed`` body (RFC 3676: Thunderbird, Apple Mail) reads as its sender wrote it,
wrapped lines joined (a word cut by ``delsp=yes`` whole again); a ``message/partial`` keeps
the text of the part it holds, not only its headers."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import collect, mail_record, records

from memtrails.importers.mbox import from_mbox

HEAD = b"From: a@example.com\nSubject: s\nMessage-ID: <m@example.com>\nMIME-Version: 1.0\n"


def _flowed(body: str, *params: str) -> bytes:
    ctype = "; ".join(["text/plain; charset=utf-8; format=flowed", *params])
    return HEAD + f"Content-Type: {ctype}\n\n".encode() + body.encode()


def test_a_word_cut_with_delsp_is_whole_again() -> None:
    # Before: "confi\nrmed" stayed two pieces, and a search for "confirmed" missed it;
    # where the cut is at a space, the mailer writes that space and its own
    body = "The meeting is confi \nrmed for Thursday in the main  \nroom.\n"
    text = mail_record(_flowed(body, "delsp=yes")).text
    assert "The meeting is confirmed for Thursday in the main room." in text


@pytest.mark.parametrize("params", [(), ("DelSp=No",), ("Format=Flowed",)])
def test_wrapped_lines_are_one_paragraph_again(params: tuple[str, ...]) -> None:
    body = "First para that goes \non here.\n\nSecond one, a \nlong line.\n-- \nJo\n"
    text = mail_record(_flowed(body, *params)).text
    assert "First para that goes on here.\n\nSecond one, a long line." in text
    assert text.rstrip().endswith("--\nJo")  # the signature line is not continued


def test_quoted_lines_join_only_at_their_own_depth() -> None:
    body = "> You said we \n> should meet \n>> and I \n>> agreed\nFine by \nme.\n"
    text = mail_record(_flowed(body)).text
    assert text.splitlines() == ["> You said we should meet", "> > and I agreed", "Fine by me."]


def test_space_stuffing_goes() -> None:
    text = mail_record(_flowed(" From here on\n >not a quote\n")).text
    assert text.splitlines() == ["From here on", ">not a quote"]


def test_a_body_that_is_not_flowed_keeps_its_lines() -> None:
    raw = HEAD + b"Content-Type: text/plain; charset=utf-8\n\nline one \nline two\n"
    assert mail_record(raw).text.splitlines() == ["line one", "line two"]


async def test_a_flowed_mail_in_an_mbox_with_crlf(tmp_path: Path) -> None:
    mail = _flowed("Bonjour, la r\u00e9union est d\u00e9 \nplac\u00e9e.\n", "delsp=yes")
    box = tmp_path / "box.mbox"
    box.write_bytes(b"From x Mon Jan  1 00:00:00 2024\n" + mail.replace(b"\n", b"\r\n"))
    (record,) = records(await collect(from_mbox(box)))
    assert record.text == "Bonjour, la r\u00e9union est d\u00e9plac\u00e9e."


def test_the_text_of_a_message_partial_is_kept() -> None:
    # Before: only the enclosed headers were kept, "Budget figures..." was lost
    raw = HEAD + (
        b'Content-Type: message/partial; id="abc@example.com"; number=1; total=2\n\n'
        b"From: b@example.com\nSubject: Q3 budget\n\nBudget figures for the third quarter.\n"
    )
    text = mail_record(raw).text
    assert "Subject: Q3 budget" in text
    assert "Budget figures for the third quarter." in text
