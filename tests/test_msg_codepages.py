"""An Outlook .msg file's 8-bit strings (PT_STRING8, ``001E``) are read in the message's
code page, and the headers it came with (PR_TRANSPORT_MESSAGE_HEADERS) fill in what its
properties lack: no mojibake in the subject, sender, recipients or attachment names."""

from __future__ import annotations

import struct
from typing import Any

from msgfile import _message, write_cfb

from memtrails.importers.documents import DocumentReader

_MESSAGE_CODEPAGE, _INTERNET_CPID = 0x3FFD0003, 0x3FDE0003


def _fixed(header: int, tags: dict[int, int]) -> bytes:
    """A ``__properties_version1.0`` stream: its header, then each PT_LONG property."""
    return b"\0" * header + b"".join(struct.pack("<IIQ", t, 6, v) for t, v in tags.items())


def _msg(strings: dict[str, bytes], fixed: dict[int, int] | None = None, **more: Any) -> bytes:
    tree = _message({"1000": "the body"}, more.pop("attachments", []), top=True)
    for tag, value in strings.items():
        tree[f"__substg1.0_{tag}001E"] = value
    if fixed:
        tree["__properties_version1.0"] = _fixed(32, fixed)
    tree.update(more.pop("extra", {}))
    return write_cfb(tree)


def _mail(data: bytes) -> dict[str, Any]:
    with DocumentReader(timeout_s=60) as reader:
        got = reader.read(data, ".msg")
    assert not isinstance(got, str), got
    mail = got.meta["mail"]
    assert isinstance(mail, dict)
    return mail


def test_utf8_strings_of_a_message_that_names_no_code_page_are_read_as_utf8() -> None:
    subject, name = "Réunion: café — “notes”", "José Müller"
    mail = _mail(
        _msg(
            {
                "0037": subject.encode(),
                "0C1A": name.encode(),
                "0C1F": b"jose@example.com",
            }
        )
    )
    assert mail["subject"] == subject
    assert mail["from"] == f"{name} <jose@example.com>"


def test_windows_1252_strings_of_a_message_that_names_no_code_page_stay_right() -> None:
    subject = "Réunion: café — “notes”"
    mail = _mail(_msg({"0037": subject.encode("cp1252"), "0C1A": "Zoë".encode("cp1252")}))
    assert mail["subject"] == subject
    assert mail["from"] == "Zoë"


def test_strings_are_read_in_the_internet_code_page_when_it_alone_is_named() -> None:
    subject = "Привет, мир"
    data = _msg({"0037": subject.encode("cp1251")}, {_INTERNET_CPID: 1251})
    assert _mail(data)["subject"] == subject


def test_recipients_and_attachment_names_are_read_in_the_code_page() -> None:
    name, file = "Ирина Петрова", "отчёт.txt"
    recipient = {
        "__properties_version1.0": _fixed(8, {0x0C150003: 2}),  # PR_RECIPIENT_TYPE: Cc
        "__substg1.0_3001001E": name.encode("koi8-r"),
        "__substg1.0_39FE001E": b"irina@example.ru",
    }
    data = _msg(
        {"0037": b"x"},
        {_MESSAGE_CODEPAGE: 20866},
        attachments=[{"3707": file, "3701": b"report words"}],
        extra={"__recip_version1.0_#00000000": recipient},
    )
    # the attachment's name as an 8-bit string too
    data = data.replace(
        "__substg1.0_3707001F".encode("utf-16-le"), "__substg1.0_3707001E".encode("utf-16-le")
    ).replace(file.encode("utf-16-le"), file.encode("koi8-r").ljust(len(file) * 2, b"\0"))
    mail = _mail(data)
    assert mail["cc"] == [f"{name} <irina@example.ru>"]
    assert [a["name"] for a in mail["attachments"]] == [file]


def test_the_transport_headers_give_what_the_properties_lack_in_their_code_page() -> None:
    headers = (
        "Received: from mail.example.com\r\n"
        "From: Jérôme Dupré <jerome@example.fr>\r\n"
        "To: Zoë <zoe@example.com>,\r\n =?utf-8?q?Ren=C3=A9e?= <renee@example.com>\r\n"
        "Subject: Réunion du comité\r\n"
        "Message-ID: <1234.abcd@example.fr>\r\n"
        "Date: Mon, 1 Jun 2009 10:00:00 +0200\r\n\r\n"
    )
    data = _msg({"007D": headers.encode("cp1252")}, {_MESSAGE_CODEPAGE: 1252})
    mail = _mail(data)
    assert mail["subject"] == "Réunion du comité"
    assert mail["from"] == "Jérôme Dupré <jerome@example.fr>"
    assert mail["to"] == ["Zoë <zoe@example.com>", "Renée <renee@example.com>"]
    assert mail["message_id"] == "1234.abcd@example.fr"
    # raw UTF-8 in the headers of a message whose code page is Windows-1252
    mail = _mail(_msg({"007D": headers.encode()}, {_MESSAGE_CODEPAGE: 1252}))
    assert mail["subject"] == "Réunion du comité"


def test_an_attached_messages_subject_is_read_in_its_code_page() -> None:
    subject = "Привет из вложения"
    inner = {"0037": "placeholder", "1000": "inner body"}
    data = _msg(
        {"0037": b"outer"}, {_MESSAGE_CODEPAGE: 1251}, attachments=[{"message": (inner, [])}]
    )
    placeholder = "placeholder".encode("utf-16-le")
    encoded = subject.encode("cp1251")
    assert len(encoded) <= len(placeholder)
    data = data.replace(
        "__substg1.0_0037001F".encode("utf-16-le"), "__substg1.0_0037001E".encode("utf-16-le")
    )
    data = data.replace(placeholder, encoded.ljust(len(placeholder), b"\0"))
    mail = _mail(data)
    assert mail["attachments"][0]["name"] == subject


def test_an_8_bit_body_is_read_in_the_code_page_too() -> None:
    body = "Здравствуйте, коллеги — привет"
    for fixed, codec in (({}, "utf-8"), ({_MESSAGE_CODEPAGE: 1251}, "cp1251")):
        tree = _message({"0037": "s"}, [], top=True)
        tree["__substg1.0_1000001E"] = body.encode(codec)
        tree["__properties_version1.0"] = _fixed(32, fixed)
        with DocumentReader(timeout_s=60) as reader:
            got = reader.read(write_cfb(tree), ".msg")
        assert not isinstance(got, str), got
        assert got.text == body


def test_the_message_id_and_thread_are_the_mail_importers() -> None:
    # the same mail saved from Outlook and read from an mbox: one Message-ID, one thread
    headers = (
        "From: a@example.com\r\nSubject: Re: plans\r\nMessage-ID: < reply.1@example.com >\r\n"
        "In-Reply-To: <root.0@example.com>\r\n\r\n"
    )
    mail = _mail(_msg({"007D": headers.encode()}))
    assert mail["message_id"] == "reply.1@example.com"
    assert mail["thread"] == "root.0@example.com"
    refs = {"1035": b"<x.2@example.com>", "1039": b"<root.0@example.com> <reply.1@example.com>"}
    mail = _mail(_msg(refs))
    assert (mail["message_id"], mail["thread"]) == ("x.2@example.com", "root.0@example.com")
    mail = _mail(_msg({"1035": b"<alone@example.com>"}))
    assert mail["thread"] == "alone@example.com"
