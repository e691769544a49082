"""Outlook's TNEF wrapping (winmail.dat) is unpacked: its body is the mail's text where the
mail has none of its own, the files inside are the mail's attachments (read as attached
ones are), and a damaged or hostile stream gives an error in its entry, never a crash."""

from __future__ import annotations

import base64
import random
import struct

import pytest

from memtrails.importers.mail.message import message_to_item
from memtrails.importers.mail.tnef import MAX_FILES, read_tnef
from memtrails.records import MemoryRecord

_MESSAGE, _ATTACHMENT = 1, 2


def _attribute(level: int, attribute: int, value: bytes) -> bytes:
    checksum = sum(value) & 0xFFFF
    return struct.pack("<BII", level, attribute, len(value)) + value + struct.pack("<H", checksum)


def _mapi(props: list[tuple[int, int, bytes]]) -> bytes:
    """A MAPI property block of variable-length values: (type, id, value)."""
    out = struct.pack("<I", len(props))
    for kind, tag, value in props:
        out += struct.pack("<HHII", kind, tag, 1, len(value)) + value + b"\0" * (-len(value) % 4)
    return out


def _tnef(body: bytes | None, files: list[tuple[str, bytes]], codepage: int = 1252) -> bytes:
    out = struct.pack("<IH", 0x223E9F78, 0x0101)
    out += _attribute(_MESSAGE, 0x00069007, struct.pack("<II", codepage, 0))
    if body is not None:
        out += _attribute(_MESSAGE, 0x0002800C, body)
    for name, data in files:
        out += _attribute(_ATTACHMENT, 0x00069002, b"\0" * 14)
        out += _attribute(_ATTACHMENT, 0x00018010, b"OLDNAME.DAT\0")
        out += _attribute(_ATTACHMENT, 0x0006800F, data)
        wide = (name + "\0").encode("utf-16-le")
        out += _attribute(_ATTACHMENT, 0x00069005, _mapi([(0x001F, 0x3707, wide)]))
    return out


def _mail(tnef: bytes, text: bytes = b"") -> bytes:
    parts = b""
    if text:
        parts += b"--B\nContent-Type: text/plain\n\n" + text + b"\n"
    parts += (
        b"--B\nContent-Type: application/ms-tnef; name=winmail.dat\n"
        b"Content-Disposition: attachment; filename=winmail.dat\n"
        b"Content-Transfer-Encoding: base64\n\n" + base64.encodebytes(tnef) + b"--B--\n"
    )
    return (
        b"From: a@example.com\nSubject: s\nMessage-ID: <t@example.com>\nMIME-Version: 1.0\n"
        b"Content-Type: multipart/mixed; boundary=B\n\n" + parts
    )


def _record(raw: bytes) -> MemoryRecord:
    record = message_to_item(raw, source="box.mbox", where="message 1")
    assert isinstance(record, MemoryRecord), record
    return record


_FILES = [("Bericht über Äpfel.txt", b"the quarterly apples report"), ("photo.png", b"\x89PNG\0\0")]


def test_the_body_and_files_inside_a_winmail_dat_are_the_mails() -> None:
    record = _record(_mail(_tnef("Grüße aus Köln, the meeting moved".encode("cp1252"), _FILES)))
    assert record.text.startswith("Grüße aus Köln, the meeting moved")
    assert "[attachment: Bericht über Äpfel.txt]\n\nthe quarterly apples report" in record.text
    entries = record.meta["attachments"]
    assert [(a["name"], a.get("in")) for a in entries] == [
        ("winmail.dat", None),
        ("Bericht über Äpfel.txt", "winmail.dat"),
        ("photo.png", "winmail.dat"),
    ]
    assert entries[2]["type"] == "image/png" and entries[2]["size"] == len(_FILES[1][1])
    assert "error" not in entries[0]


def test_a_mail_with_its_own_text_does_not_get_the_same_body_twice() -> None:
    record = _record(_mail(_tnef(b"the meeting moved", []), b"the meeting moved"))
    assert record.text == "the meeting moved"


def test_8_bit_names_and_body_are_read_in_the_streams_code_page() -> None:
    tnef = _tnef("Привет".encode("cp1251"), [], codepage=1251)
    tnef += _attribute(_ATTACHMENT, 0x00069002, b"\0" * 14)
    tnef += _attribute(_ATTACHMENT, 0x00018010, "отчёт.csv\0".encode("cp1251"))
    tnef += _attribute(_ATTACHMENT, 0x0006800F, b"a,b\n1,2\n")
    got = read_tnef(tnef)
    assert got.plain == "Привет"
    assert [f.name for f in got.files] == ["отчёт.csv"]
    assert got.error is None


def _whole() -> bytes:
    return _tnef(b"the body", _FILES)


@pytest.mark.parametrize("cut", range(0, 200, 3))
def test_a_stream_cut_anywhere_gives_a_record_and_never_more_than_its_bytes(cut: int) -> None:
    data = _whole()[:cut]
    got = read_tnef(data)
    assert sum(len(f.data) for f in got.files) <= len(data)
    entry = _record(_mail(data)).meta["attachments"][0]
    assert entry["name"] == "winmail.dat"
    assert ("error" in entry) == (got.error is not None)


def test_a_stream_cut_inside_a_file_names_the_damage_and_keeps_what_came_before() -> None:
    whole = _whole()
    data = whole[: whole.index(b"quarterly apples")]
    got = read_tnef(data)
    assert got.plain == "the body"
    assert got.error is not None and "past the end" in got.error
    record = _record(_mail(data))
    assert record.text.startswith("the body")
    assert (
        "Outlook's TNEF wrapping is damaged or cut short" in record.meta["attachments"][0]["error"]
    )


def test_huge_lengths_and_counts_are_damage_not_memory() -> None:
    head = struct.pack("<IH", 0x223E9F78, 0x0101)
    huge_value = head + struct.pack("<BII", _MESSAGE, 0x0002800C, 0xFFFFFFFF) + b"x" * 10
    huge_count = head + _attribute(_MESSAGE, 0x00069003, struct.pack("<I", 0xFFFFFFFF))
    huge_prop = head + _attribute(
        _MESSAGE, 0x00069003, struct.pack("<IHHII", 1, 0x0102, 0x1000, 1, 0x7FFFFFFF)
    )
    for data in (huge_value, huge_count, huge_prop):
        got = read_tnef(data)
        assert got.error is not None and "past the end" in got.error
        assert got.plain == "" and got.files == []


def test_files_beyond_the_limit_are_said_not_read() -> None:
    got = read_tnef(_tnef(None, [("f.txt", b"x")] * (MAX_FILES + 5)))
    assert len(got.files) == MAX_FILES
    assert got.error is not None and str(MAX_FILES) in got.error


def test_random_damage_never_raises() -> None:
    whole = _whole()
    rng = random.Random(53)
    for _ in range(500):
        data = bytearray(whole)
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        got = read_tnef(bytes(data))
        assert sum(len(f.data) for f in got.files) <= len(data)


def test_a_mail_with_an_html_text_does_not_get_the_body_again() -> None:
    raw = _mail(_tnef(b"the meeting moved", [])).replace(
        b"--B\nContent-Type: application/ms-tnef",
        b"--B\nContent-Type: text/html\n\n<p>the meeting moved</p>\n--B\n"
        b"Content-Type: application/ms-tnef",
    )
    assert _record(raw).text == "the meeting moved"
