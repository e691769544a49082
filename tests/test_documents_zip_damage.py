"""Zip containers (DOCX, XLSX, ODT, ...) as a notes folder holds them after accidents and
attacks: cut short by a download or copy that stopped (its table of contents lost), a zip
bomb whose directory declares small sizes, a file whose name says another format than its
bytes. Each is read as far as it can be, or is one named error; built here, small."""

from __future__ import annotations

import io
import struct
import zipfile
from collections.abc import Callable

import pytest
from helpers import one_page_pdf

from memtrails.importers.documents._extract import Failed, extract
from memtrails.importers.documents._zipsalvage import salvage

_CONTENT_TYPES = (
    b'<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
    b'package/2006/content-types"><Default Extension="rels" ContentType="application/'
    b'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType='
    b'"application/xml"/><Override PartName="/word/document.xml" ContentType="application/'
    b'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
)
_RELS = (
    b'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
    b'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://'
    b"schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
    b'" Target="word/document.xml"/></Relationships>'
)
_W = b"http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _document(words: bytes, padding: int = 0) -> bytes:
    return (
        b'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="'
        + _W
        + b'"><w:body>'
        + b" " * padding
        + b"<w:p><w:r><w:t>"
        + words
        + b"</w:t></w:r></w:p></w:body></w:document>"
    )


def _docx(words: bytes, *, padding: int = 0, streamed: bool = False, tail: int = 0) -> bytes:
    """A minimal .docx; ``streamed``: written as a stream is (sizes in data descriptors
    after each part, as Java and LibreOffice write them); ``tail`` parts after the body."""

    class _Unseekable(io.RawIOBase):
        def __init__(self) -> None:
            self.out = bytearray()

        def writable(self) -> bool:
            return True

        def write(self, b: object) -> int:
            data = bytes(b)  # type: ignore[call-overload]
            self.out += data
            return len(data)

    sink: io.BytesIO | _Unseekable = _Unseekable() if streamed else io.BytesIO()
    with zipfile.ZipFile(sink, "w", zipfile.ZIP_DEFLATED) as z:
        for name, part in (
            ("[Content_Types].xml", _CONTENT_TYPES),
            ("_rels/.rels", _RELS),
            ("word/document.xml", _document(words, padding)),
            *(
                (f"docProps/extra{k}.xml", b"<x>" + bytes(range(256)) * 40 + b"</x>")
                for k in range(tail)
            ),
        ):
            with z.open(name, "w") as w:
                w.write(part)
    return bytes(sink.out) if isinstance(sink, _Unseekable) else sink.getvalue()


def _cut_directory(data: bytes) -> bytes:
    """The zip without its central directory and what follows it, as a copy cut there."""
    (start,) = struct.unpack_from("<I", data, data.rindex(b"PK\x05\x06") + 16)
    return data[: start + 20]


@pytest.mark.parametrize("streamed", [False, True], ids=["sized", "descriptors"])
def test_a_docx_cut_short_is_read_as_far_as_it_goes(streamed: bool) -> None:
    data = _docx(b"minutes of the harbour meeting", streamed=streamed, tail=2)
    cut = _cut_directory(data)[: -300 if streamed else None]  # into the last part, too
    got = extract(cut, ".docx", 512 << 20)
    assert got["text"] == "minutes of the harbour meeting"
    assert got["meta"]["truncated"] is True


def test_a_docx_cut_before_its_body_says_it_was_cut() -> None:
    data = _docx(b"never reached", tail=0)
    body = data.index(b"word/document.xml")
    with pytest.raises(Failed, match=r"zip cut short .* hold none of its text"):
        extract(data[: body + 40], ".docx", 512 << 20)
    with pytest.raises(Failed, match=r"zip cut short .* no part of it is whole"):
        extract(data[:20], ".docx", 512 << 20)


def test_a_salvaged_zip_leaves_out_what_would_unpack_past_the_limit() -> None:
    data = _cut_directory(_docx(b"words", padding=1 << 20, streamed=True))
    whole = salvage(data, 512 << 20)
    assert whole is not None and whole[1] == 3
    small = salvage(data, 4096)  # the 1 MiB body left out, the two parts before it kept
    assert small is not None and small[1] == 2


def _declare(data: bytes, part: bytes, size: int) -> bytes:
    """The zip with ``part``'s unpacked size declared as ``size`` in both its headers."""
    out = bytearray(data)
    for signature, name_at, size_at in ((b"PK\x03\x04", 30, 22), (b"PK\x01\x02", 46, 24)):
        at = out.find(signature)
        while at >= 0:
            if out[at + name_at : at + name_at + len(part)] == part:
                struct.pack_into("<I", out, at + size_at, size)
            at = out.find(signature, at + 4)
    return bytes(out)


def test_a_zip_bomb_that_declares_small_sizes_is_named_not_inflated() -> None:
    """Its document inflates to 8 MB, declared as 1,000 bytes: a reader that trusts the
    directory inflates all of it (a 1 GB one made the worker use 1 GB, then die)."""
    bomb = _declare(_docx(b"x", padding=8 << 20), b"word/document.xml", 1000)
    with pytest.raises(Failed) as caught:
        extract(bomb, ".docx", 512 << 20)
    assert str(caught.value) == (
        "zip bomb: word/document.xml unpacks to more than the 1,000 bytes its zip "
        "directory declares"
    )


def _xlsx() -> bytes:
    import openpyxl

    book = openpyxl.Workbook()
    assert book.active is not None
    book.active["A1"] = "quarterly figures"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _pdf() -> bytes:
    return one_page_pdf("a renamed report")


_PAGE = (
    b"<!DOCTYPE html><html><head><title>Saved</title></head><body><p>a saved page</p></body></html>"
)


@pytest.mark.parametrize(
    ("name", "make", "read_as", "words"),
    [
        ("report.pdf", lambda: _PAGE, "html", "a saved page"),
        ("report.docx", _pdf, "pdf", "a renamed report"),
        ("report.odt", lambda: _docx(b"a word file"), "docx", "a word file"),
        ("report.docx", _xlsx, "xlsx", "quarterly figures"),
        ("report.epub", lambda: _docx(b"a word file"), "docx", "a word file"),
        ("report.html", _pdf, "pdf", "a renamed report"),
        ("report.doc", _pdf, "pdf", "a renamed report"),
    ],
    ids=[
        "html-as-pdf",
        "pdf-as-docx",
        "docx-as-odt",
        "xlsx-as-docx",
        "docx-as-epub",
        "pdf-as-html",
        "pdf-as-doc",
    ],
)
def test_a_document_whose_name_lies_is_read_as_what_it_is(
    name: str, make: Callable[[], bytes], read_as: str, words: str
) -> None:
    suffix = name[name.rindex(".") :]
    got = extract(make(), suffix, 512 << 20)
    assert words in got["text"]
    assert got["meta"]["read_as"] == read_as
    assert got["meta"]["format"] == suffix.lstrip(".")


def test_notes_saved_under_a_document_name_are_read_as_text() -> None:
    got = extract(b"call the plumber about the boiler\r\n", ".docx", 512 << 20)
    assert got["text"] == "call the plumber about the boiler"
    assert got["meta"]["read_as"] == "txt"


@pytest.mark.parametrize(
    ("suffix", "data", "said"),
    [
        (".pdf", b"\x89PNG\r\n\x1a\n" + bytes(range(256)), "its bytes are a PNG image"),
        (".docx", b"\x00" * 4096, "its bytes are NUL bytes only"),
        (".xlsx", b"\x1f\x8b\x08\x00" + bytes(range(256)), "its bytes are gzip-compressed data"),
        (".doc", b"\xff\xd8\xff\xe0" + bytes(range(256)) * 8, "its bytes are a JPEG image"),
    ],
    ids=["png-as-pdf", "zeroed-docx", "gzip-as-xlsx", "jpeg-as-doc"],
)
def test_a_document_that_is_another_kind_of_file_says_what_it_is(
    suffix: str, data: bytes, said: str
) -> None:
    with pytest.raises(Failed) as caught:
        extract(data, suffix, 512 << 20)
    assert str(caught.value).startswith("corrupt file: not a")
    assert said in str(caught.value)


@pytest.mark.parametrize(
    ("suffix", "body"),
    [
        (".docx", "word/document.xml"),
        (".pptx", "ppt/presentation.xml"),
        (".epub", "META-INF/container.xml"),
    ],
)
def test_an_archive_of_files_under_a_document_name_says_so(suffix: str, body: str) -> None:
    """Before: a DOCX parser's message, or (a .pptx) an empty record."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("photos/notes.txt", "holiday notes")
    with pytest.raises(Failed) as caught:
        extract(out.getvalue(), suffix, 512 << 20)
    assert str(caught.value).startswith(
        f"corrupt file: a zip with no {body}, which holds a {suffix} file's text"
    )
    assert "unpacked into a folder" in str(caught.value)


def _odt() -> bytes:
    content = (
        '<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:'
        'names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:'
        'xmlns:text:1.0"><office:body><office:text>'
        + "".join(f"<text:p>line {k} of the ferry timetable</text:p>" for k in range(200))
        + "</office:text></office:body></office:document-content>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text", zipfile.ZIP_STORED)
        z.writestr("content.xml", content)
        z.writestr("META-INF/manifest.xml", "<manifest/>")
    return out.getvalue()


def _damage_part(data: bytes, name: bytes) -> bytes:
    """The zip with the middle of ``name``'s deflate data overwritten."""
    at = data.index(b"PK\x03\x04")  # the first local header
    while data[at + 30 : at + 30 + len(name)] != name:
        at = data.index(b"PK\x03\x04", at + 4)
    (packed,) = struct.unpack_from("<I", data, at + 18)
    middle = at + 30 + len(name) + packed // 2
    return data[:middle] + b"\xff" * 16 + data[middle + 16 :]


def test_damage_inside_a_part_is_a_named_error() -> None:
    """Deflate data corrupt inside the body: a zlib error escaped the reader's own checks
    (the worker then said 'cannot read the document (error: Error -3 ...)')."""
    with pytest.raises(Failed, match=r"^corrupt"):
        extract(_damage_part(_odt(), b"content.xml"), ".odt", 512 << 20)
