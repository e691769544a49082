"""A multipart whose close delimiter is written wrong (another ending than ``--``, or cut
short) keeps its last part whole: the line and the epilogue after it are not the part's."""

from __future__ import annotations

import base64

import pytest

from memtrails.importers.mail.message import message_to_item
from memtrails.records import MemoryRecord

_HEAD = (
    b"From: a@example.com\nTo: b@example.com\nSubject: t\nMessage-ID: <x@example.com>\n"
    b"MIME-Version: 1.0\n"
)
_NOTES = "attached notes line\n" * 3
# The close delimiter as mailers and damage have written it, then what may follow it.
_CLOSES = [
    b"--np42_b0undary-\n",
    b"--np42_b0undaryxyz\n",
    b"--np42_b0undary--xyz\n",
    b"--np42_b0undary_end\nThis is the epilogue of the message.\n",
    b"--np42_b0undary- -\n",
    b"--np42_b0u\n",
    b"--np42_b0undary-",
]


def _read(raw: bytes) -> MemoryRecord:
    record = message_to_item(raw, source="s", where="w")
    assert isinstance(record, MemoryRecord), record
    return record


def _mixed(last: bytes, close: bytes) -> bytes:
    return (
        _HEAD
        + b'Content-Type: multipart/mixed; boundary="np42_b0undary"\n\npreamble\n'
        + b"--np42_b0undary\nContent-Type: text/plain\n\nfirst part text\n"
        + b"--np42_b0undary\n"
        + last
        + close
    )


@pytest.mark.parametrize("close", _CLOSES)
def test_a_last_text_part_ends_where_its_close_line_begins(close: bytes) -> None:
    record = _read(_mixed(b"Content-Type: text/plain\n\nlast part words here\n", close))
    assert record.text == "first part text\n\nlast part words here"


@pytest.mark.parametrize("close", _CLOSES)
def test_a_last_base64_attachment_decodes_to_its_own_bytes(close: bytes) -> None:
    attachment = (
        b"Content-Type: text/plain; name=notes.txt\n"
        b"Content-Disposition: attachment; filename=notes.txt\n"
        b"Content-Transfer-Encoding: base64\n\n" + base64.encodebytes(_NOTES.encode())
    )
    record = _read(_mixed(attachment, close))
    assert record.meta["attachments"][0]["size"] == len(_NOTES)
    assert record.text.endswith("[attachment: notes.txt]\n\n" + _NOTES.strip())


@pytest.mark.parametrize("close", _CLOSES)
def test_an_unclosed_inner_multipart_and_its_outer_one_both_end(close: bytes) -> None:
    inner = (
        b'Content-Type: multipart/alternative; boundary="INNER"\n\n'
        b"--INNER\nContent-Type: text/plain\n\nplain words\n"
        b"--INNER\nContent-Type: text/html\n\n<p>html words</p>\n--INNER-\n"
    )
    record = _read(_mixed(inner, close))
    assert record.text == "first part text\n\nplain words"


def test_a_text_ending_in_a_dash_rule_keeps_it_when_the_mail_is_closed_right() -> None:
    record = _read(
        _mixed(b"Content-Type: text/plain\n\nwords\n--np42_b0undaryS\n", b"--np42_b0undary--\n")
    )
    assert record.text == "first part text\n\nwords\n--np42_b0undaryS"
