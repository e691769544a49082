"""Outlook .msg files as Outlook writes many: a body only in HTML or only in compressed
RTF (no plain text), and attachments read through the checks every other document goes
through (the OLE guard), so a hostile attached file is one named error in the mail.

The fixtures are Apache POI's test messages (tests/data/documents), changed in place, and
messages written by tests/msgfile.py."""

from __future__ import annotations

import struct
from pathlib import Path

from helpers import benchmark
from msgfile import msg_file

from memtrails.importers.documents import DocumentReader
from memtrails.importers.documents._msgparts import (
    MAX_MESSAGES,
    MsgParts,
    decompress_rtf,
    msg_parts,
)
from memtrails.importers.documents._oleguard import OLE_MAGIC, layout

DATA = Path(__file__).parent / "data" / "documents"
QUICK = (DATA / "quick.msg").read_bytes()
BOTH = (DATA / "attachment_test_msg.msg").read_bytes()
PLAIN_BODY = "__substg1.0_1000001E".encode("utf-16-le")


def _renamed(data: bytes, old: bytes, new: str) -> bytes:
    """Rename the first directory entry named ``old`` (the root's: it comes first)."""
    assert old in data
    return data.replace(old, new.encode("utf-16-le"), 1)


def _html_only() -> bytes:
    # no plain body, and the compressed RTF body's stream becomes an HTML body (PR_HTML)
    # holding markup, over the RTF's bytes
    data = _renamed(QUICK, PLAIN_BODY, "__substg1.0_1000001D")
    data = _renamed(data, "__substg1.0_10090102".encode("utf-16-le"), "__substg1.0_10130102")
    at = data.find(b"LZFu") - 8
    (size,) = struct.unpack_from("<I", data, at)
    html = b"<html><head><style>p {color: red}</style></head><body><p>Quick&nbsp;<b>brown</b>"
    html += b" fox &amp; dog</p><div>over the</div>lazy dog</body></html>"
    html = html.ljust(size + 4)
    data = data[:at] + html + data[at + len(html) :]
    assert msg_parts(layout(data), 1 << 20).html == html  # the stream's bytes were in one run
    return data


def _rtf_only() -> bytes:
    # the plain body's stream gets a name no reader knows: the compressed RTF body remains
    return _renamed(QUICK, PLAIN_BODY, "__substg1.0_1000001D")


def read(data: bytes) -> tuple[str, dict[str, object]]:
    with DocumentReader(timeout_s=60) as reader:
        got = reader.read(data, ".msg")
    assert not isinstance(got, str), got
    return got.text, got.meta


def test_a_message_with_only_an_html_body_gives_its_text() -> None:
    # Before: kreuzberg gave no text for it, and the record held nothing of the mail
    text, meta = read(_html_only())
    assert text == "Quick brown fox & dog\n\nover the\nlazy dog", text
    assert meta["mail"]["subject"] == "Test the content transformer"  # type: ignore[index]


def test_a_message_with_only_an_rtf_body_gives_its_text() -> None:
    # Before: kreuzberg gave the compressed RTF's bytes as text (NULs, "Tah", "Rinhed")
    text, _ = read(_rtf_only())
    assert text == "The quick brown fox jumps over the lazy dog"


def test_compressed_rtf_is_decompressed_by_the_specs_example() -> None:
    # [MS-OXRTFCP] 3.1.1: the compressed form of "{\rtf1\ansi\ansicpg1252\pard hello world}\r\n"
    example = bytes.fromhex(
        "2d0000002b0000004c5a4675f1c5c7a703000a0072637067313235423"
        "20af32068656c090020627705b06c647d0a800fa0"
    )
    assert decompress_rtf(example) == b"{\\rtf1\\ansi\\ansicpg1252\\pard hello world}\r\n"
    # stored, not compressed ("MELA"), and neither
    assert decompress_rtf(struct.pack("<IIII", 14, 2, 0x414C454D, 0) + b"{}") == b"{}"
    assert decompress_rtf(b"\0" * 16) is None


def test_attachments_are_read_through_the_document_checks() -> None:
    text, meta = read(BOTH)
    assert "[attachment: test-unicode.doc]" in text and "euro : € (20AC)" in text
    entries = meta["mail"]["attachments"]  # type: ignore[index]
    assert [(a["name"], a["type"]) for a in entries] == [
        ("test-unicode.doc", "application/msword"),
        ("pj1.txt", "text/plain"),
    ]


def test_a_hostile_attached_office_file_is_a_named_error_and_the_mail_is_read() -> None:
    # The attached .doc declares 2^31 FAT sectors, the damage that made kreuzberg's own
    # OLE readers allocate until the worker died. Before: the .msg's attachments went
    # straight to kreuzberg, past the OLE guard, and no error named the attachment.
    inner = BOTH.find(OLE_MAGIC, 8)
    assert inner > 0
    bad = bytearray(BOTH)
    struct.pack_into("<I", bad, inner + 0x2C, 0x7FFFFFFF)
    text, meta = read(bytes(bad))
    assert text.startswith("contenu")
    assert "[attachment: pj1.txt]" in text  # the next attachment is read
    doc, txt = meta["mail"]["attachments"]  # type: ignore[index]
    assert doc["name"] == "test-unicode.doc"
    assert doc["error"].startswith("corrupt file: a damaged OLE compound file")
    assert txt["chars"] > 0


def test_an_attached_message_gives_its_subject_sender_body_and_files() -> None:
    # Before: a message attached to a message (Outlook's "forward as attachment") was
    # named only
    inner = (
        {"0037": "Quarterly figures", "0C1A": "Bo", "5D01": "bo@example.com"}
        | {"1013": "<p>The <b>north</b> region grew.</p>"},
        [{"3707": "figures.csv", "3701": b"region,growth\nnorth,12\n"}],
    )
    data = msg_file(
        {"0037": "Fwd: figures", "1000": "See the mail below."},
        [{"message": inner}],
    )
    text, meta = read(data)
    assert text.startswith("See the mail below.\n\n\n[attachment: Quarterly figures]\n\n")
    assert "Subject: Quarterly figures\nFrom: Bo <bo@example.com>\n\nThe north region grew." in text
    assert "[attachment: figures.csv]\n\nregion,growth\nnorth,12" in text
    (entry,) = meta["mail"]["attachments"]  # type: ignore[index]
    assert entry["name"] == "Quarterly figures" and entry["chars"] > 0


def test_messages_attached_in_messages_are_read_to_a_bounded_depth() -> None:
    nested: tuple[dict[str, str | bytes], list[dict[str, object]]] = (
        {"0037": "level 9", "1000": "the innermost words"},
        [],
    )
    for level in range(8, -1, -1):
        nested = ({"0037": f"level {level}", "1000": f"words {level}"}, [{"message": nested}])
    text, _ = read(msg_file(nested[0], nested[1]))
    # the message itself, then MAX_MESSAGES attached one in another
    assert "words 0" in text and f"words {MAX_MESSAGES}" in text
    assert f"words {MAX_MESSAGES + 1}" not in text and "the innermost words" not in text


def test_a_storage_whose_siblings_loop_is_walked_once() -> None:
    data = bytearray(msg_file({"0037": "loop", "1000": "body words"}))
    ole = layout(bytes(data))
    first = ole.tree[0][4]  # the root's first child: make its right sibling itself
    (dir_start,) = struct.unpack_from("<I", data, 0x30)
    struct.pack_into("<I", data, 512 + dir_start * 512 + first * 128 + 0x48, first)
    assert layout(bytes(data)).children(0) == [first]


def test_an_empty_plain_body_beside_an_rtf_one_gives_the_rtf_text() -> None:
    # Before: kreuzberg gave the compressed RTF's bytes as the text (NULs, "Tah", "Rinhed")
    ole = layout(QUICK)
    (rtf,) = [
        ole.read(s, n, 1 << 20)
        for name, _, s, n in ole.entries
        if name.endswith("10090102") and n > 100
    ]
    text, _ = read(msg_file({"0037": "empty plain", "1000": "", "1009": rtf}))
    assert text == "The quick brown fox jumps over the lazy dog"


def test_an_attachment_named_without_its_ending_is_read_by_its_type(tmp_path: Path) -> None:
    # Before: "Quote" (no .pdf) typed application/pdf was named only
    samples = benchmark("documents_samples")
    samples.write_pdf(tmp_path / "q.pdf", "The crane rental costs four thousand euros.")
    pdf = (tmp_path / "q.pdf").read_bytes()
    attachment = {"3707": "Quote", "370E": "application/pdf", "3701": pdf}
    text, meta = read(msg_file({"0037": "quote", "1000": "see the quote"}, [attachment]))
    assert "[attachment: Quote]" in text and "four thousand euros" in " ".join(text.split())
    (entry,) = meta["mail"]["attachments"]  # type: ignore[index]
    assert entry["type"] == "application/pdf" and entry["chars"] > 0


def test_attached_messages_that_name_their_own_message_are_read_once() -> None:
    # A hostile tree: 30 attached messages whose storage is the message itself (kreuzberg
    # refuses the file, "loop in tree"; the parts reader must not trust it either). Before:
    # each was read again inside each, 30 + 30^2 + 30^3 attachments, MAX_MESSAGES deep
    attachments: list[dict[str, object]] = [{"message": ({"1000": "x"}, [])}] * 30
    data = bytearray(msg_file({"0037": "loop", "1000": "the body"}, attachments))
    ole = layout(bytes(data))
    (dir_start,) = struct.unpack_from("<I", data, 0x30)
    for at, (name, kind, *_) in enumerate(ole.tree):
        if name == "__substg1.0_3701000D" and kind == 1:  # its child: the root's first
            struct.pack_into("<I", data, 512 + dir_start * 512 + at * 128 + 0x4C, ole.tree[0][4])

    def count(parts: MsgParts) -> int:
        inner = [a.message for a in parts.attachments if a.message is not None]
        return len(parts.attachments) + sum(count(m) for m in inner)

    parts = msg_parts(layout(bytes(data)), 1 << 20)
    assert len(parts.attachments) == 30 and count(parts) <= 60
    with DocumentReader(timeout_s=60) as reader:  # and the file is one named error
        assert "loop in tree" in str(reader.read(bytes(data), ".msg"))
