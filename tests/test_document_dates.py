"""A document's own date is read as every importer reads a text date, and a PDF's as its
information dictionary writes it: with its offset, in any of the short forms the format
allows; a malformed one is no date (the file's mtime stands)."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator
from datetime import datetime

import pytest

from memtrails import At
from memtrails.importers.documents._pdfdates import iso_from_pdf_date, pdf_dates
from memtrails.importers.documents._records import document_at, read_document
from memtrails.importers.documents._worker import DocumentReader
from memtrails.records import MemoryRecord

MTIME = At.of("2001-02-03T04:05:06Z")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("0", None),  # Date.parse alone: the year 2000
        ("7", None),
        ("0000-00-00T00:00:00Z", None),
        ("20240503103200", At.of(datetime(2024, 5, 3, 10, 32))),  # local, as digits_ms
        ("20240503", At.of("2024-05-03")),
        ("2024-05-03T10:32:00+02:00", At.of("2024-05-03T08:32:00Z")),  # W3CDTF
        ("2024-05-03T10:32:00.123456789", At.of(datetime(2024, 5, 3, 10, 32, 0, 123000))),
        ("2024-05-03T10:32:00,5Z", At.of("2024-05-03T10:32:00.500Z")),  # ISO 8601's comma
        ("2024-05", At.of("2024-05-01")),
        ("2024-13-45T00:00:00Z", None),
        ("not a date", None),
        ("0001-01-01T00:00:00Z", None),  # .NET's DateTime.MinValue: never set
        ("1601-01-01T00:00:00Z", None),  # FILETIME zero
        ("1970-01-01T00:00:00Z", None),
        ("1979-12-31T23:59:59Z", None),
        ("1980-01-01T00:00:00Z", At.of("1980-01-01")),
        ("2999-01-01T00:00:00Z", None),
        ("9999999999999999", None),  # past what a time holds
    ],
)
def test_a_documents_date_is_read_as_every_importer_reads_one(
    value: str, expected: At | None
) -> None:
    assert document_at({"modified": value}) == expected
    assert document_at({"created": value}) == expected


def test_a_malformed_modified_date_leaves_the_created_one() -> None:
    got = document_at({"modified": "0", "created": "2024-05-03T10:32:00Z"})
    assert got == At.of("2024-05-03T10:32:00Z")


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("D:20240503103200+02'00'", "2024-05-03T10:32:00+02:00"),
        ("D:20240503103200+02'00", "2024-05-03T10:32:00+02:00"),
        ("D:20240503103200-0530", "2024-05-03T10:32:00-05:30"),
        ("D:20240503103200Z00'00'", "2024-05-03T10:32:00Z"),
        ("D:20240503103200Z", "2024-05-03T10:32:00Z"),
        ("D:199812231952-08'00'", "1998-12-23T19:52:00-08:00"),  # no seconds
        ("D:20240503103200", "2024-05-03T10:32:00"),  # no offset: unknown, read as local
        ("20240503103200+01'00'", "2024-05-03T10:32:00+01:00"),  # no D:
        ("D:2024050310", "2024-05-03T10:00:00"),
        ("D:20240503", "2024-05-03"),
        ("D:202405", "2024-05"),
        ("D:2024", "2024"),
        ("D:20241399", None),
        ("D:20240230", None),
        ("D:20240503253200Z", None),
        ("D:20240503103260Z", None),
        ("D:20240503103200+25'00'", None),
        ("D:24", None),
        ("garbage", None),
        ("0", None),
        ("", None),
    ],
)
def test_pdf_dates_in_the_forms_writers_use(written: str, expected: str | None) -> None:
    assert iso_from_pdf_date(written) == expected


def _pdf(info: bytes, *, update: bytes = b"") -> bytes:
    """A one-page PDF whose information dictionary is ``info`` (and an incremental update)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        None,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< " + info + b" >>",
    ]
    stream = b"BT /F1 12 Tf 72 700 Td (Dates of a document, read as written) Tj ET"
    objects[3] = b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream)
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (n, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\n" % (len(objects) + 1))
    out.write(b"startxref\n%d\n%%%%EOF\n" % xref)
    if update:
        at = out.tell()
        out.write(b"7 0 obj\n<< " + update + b" >>\nendobj\n")
        out.write(b"xref\n7 1\n%010d 00000 n \n" % at)
        out.write(b"trailer\n<< /Size 8 /Root 1 0 R /Info 7 0 R /Prev %d >>\n" % xref)
        out.write(
            b"startxref\n%d\n%%%%EOF\n" % (at + len(b"7 0 obj\n<< " + update + b" >>\nendobj\n"))
        )
    return out.getvalue()


def _utf16_hex(text: str) -> bytes:
    return b"<FEFF" + text.encode("utf-16-be").hex().upper().encode() + b">"


def test_pdf_dates_are_read_from_the_information_dictionary() -> None:
    info = b"/CreationDate (D:20240503103200+02'00') /ModDate " + _utf16_hex("D:20240601")
    assert pdf_dates(_pdf(info)) == {
        "created": "2024-05-03T10:32:00+02:00",
        "modified": "2024-06-01",
    }
    # An incremental update's dictionary is the one the last trailer names.
    data = _pdf(info, update=b"/ModDate (D:20240705120000Z) /Producer (x)")
    assert pdf_dates(data) == {"modified": "2024-07-05T12:00:00Z"}
    # An attachment's /ModDate elsewhere in the file is not the document's.
    data = _pdf(info).replace(b"%PDF-1.4\n", b"%PDF-1.4\n% /ModDate (D:19990101)\n")
    assert pdf_dates(data) == pdf_dates(_pdf(info))
    assert pdf_dates(b"%PDF-1.7\n no trailer here") is None
    # Object 16 after it is not object 6.
    later = _pdf(info).replace(
        b"trailer", b"16 0 obj\n<< /ModDate (D:19990101) >>\nendobj\ntrailer"
    )
    assert pdf_dates(later) == pdf_dates(_pdf(info))


@pytest.fixture(scope="module")
def reader() -> Iterator[DocumentReader]:
    pytest.importorskip("kreuzberg")
    with DocumentReader(timeout_s=60) as got:
        yield got


def _record(reader: DocumentReader, data: bytes) -> MemoryRecord:
    meta = {"mtime_ns": MTIME.ms * 1_000_000, "sha256": "x"}
    item, reason = read_document(reader, data, rel="a.pdf", meta=meta, saved=None, source="s")
    assert isinstance(item, MemoryRecord), (item, reason)
    return item


@pytest.mark.parametrize(
    ("created", "at"),
    [
        (b"(D:20240503103200+02'00')", At.of("2024-05-03T08:32:00Z")),  # not 10:32Z
        (b"(D:20240503103200-05'30)", At.of("2024-05-03T16:02:00Z")),
        (b"(D:202405)", At.of("2024-05-01")),
        (b"(D:2024)", At.of("2024-01-01")),
        (_utf16_hex("D:20240503103200Z"), At.of("2024-05-03T10:32:00Z")),
        (b"(D:20241399)", MTIME),  # malformed: no date, the file's mtime
        (b"(0)", MTIME),
        (b"(garbage)", MTIME),
        (b"(D:16010101000000Z)", MTIME),
    ],
)
def test_a_pdfs_record_has_its_own_date(reader: DocumentReader, created: bytes, at: At) -> None:
    record = _record(reader, _pdf(b"/Title (Dates) /CreationDate " + created))
    assert record.at == at
    shown = record.meta["document"].get("created")
    if at != MTIME:  # the meta says the same time as `at`
        assert shown is not None and At.of(shown) == at
    else:  # malformed: none; never set (1601): as the document writes it
        assert shown is None or shown.startswith("1601")


def test_a_pdf_whose_dictionary_cannot_be_found_keeps_the_extractors_date(
    reader: DocumentReader,
) -> None:
    data = _pdf(b"/CreationDate (D:20240503103200Z)")
    # Written "6  0 obj": the reader finds it by the xref's offset, the scan does not.
    hidden = re.sub(rb"\n6 0 obj", b"\n6  0 obj", data)
    assert pdf_dates(hidden) is None
    assert _record(reader, hidden).at == At.of("2024-05-03T10:32:00Z")


def _odt(created: str, modified: str) -> bytes:
    out = io.BytesIO()
    office = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"'
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        z.writestr(
            "content.xml",
            f'<office:document-content {office} xmlns:text="urn:oasis:names:tc:opendocument:'
            'xmlns:text:1.0"><office:body><office:text><text:p>Minutes of the meeting'
            "</text:p></office:text></office:body></office:document-content>",
        )
        z.writestr(
            "meta.xml",
            f'<office:document-meta {office} xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:'
            'meta:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><office:meta>'
            f"<meta:creation-date>{created}</meta:creation-date><dc:date>{modified}</dc:date>"
            "</office:meta></office:document-meta>",
        )
    return out.getvalue()


@pytest.mark.parametrize(
    ("created", "modified", "at"),
    [
        ("20240503103200", "0", At.of(datetime(2024, 5, 3, 10, 32))),  # "0": no date, not 2000
        ("2019-03-04T10:20:30", "2024-05-03T10:32:00,5Z", At.of("2024-05-03T10:32:00.500Z")),
        ("0001-01-01T00:00:00Z", "junk", MTIME),
    ],
)
def test_an_opendocuments_dates(
    reader: DocumentReader, created: str, modified: str, at: At
) -> None:
    meta = {"mtime_ns": MTIME.ms * 1_000_000, "sha256": "x"}
    item, _ = read_document(
        reader, _odt(created, modified), rel="m.odt", meta=meta, saved=None, source="s"
    )
    assert isinstance(item, MemoryRecord) and item.at == at
