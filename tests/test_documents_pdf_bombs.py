"""PDFs whose compressed streams inflate to gigabytes: a reader inflated them whole and the
worker died of its memory limit ('the document reader died (SIGABRT)', 1,076 MiB for a
1 MB file); each is now 'a stream bomb', found before any reader opens the file, pictures'
streams aside. The limits are made small here so that the files are."""

from __future__ import annotations

import io
import zlib

import pytest

from memtrails.importers.documents import _pdfguard
from memtrails.importers.documents._extract import Failed, extract


def _pdf(*streams: tuple[bytes, bytes]) -> bytes:
    """A one-page PDF whose page draws a few words, with more streams (each a dictionary's
    extra entries and the bytes it inflates to) after it."""
    content = zlib.compress(b"BT /F1 12 Tf 72 720 Td (the harbour minutes) Tj ET")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for extra, body in streams:
        packed = zlib.compress(body, 9)
        objects.append(
            b"<< %s /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream"
            % (extra, len(packed), packed)
        )
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.writelines(b"%010d 00000 n \n" % at for at in offsets)
    out.write(
        b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    )
    return out.getvalue()


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_pdfguard, "MAX_STREAM", 1 << 20)
    monkeypatch.setattr(_pdfguard, "MAX_TOTAL", 3 << 20)


@pytest.mark.usefixtures("small_limits")
def test_a_stream_that_inflates_past_the_limit_is_a_stream_bomb() -> None:
    bomb = _pdf((b"", b" " * (2 << 20)))
    with pytest.raises(
        Failed, match=r"^a stream bomb: a compressed stream inflates to more than 1,048,576 bytes"
    ):
        extract(bomb, ".pdf", 512 << 20)


@pytest.mark.usefixtures("small_limits")
def test_streams_that_inflate_past_the_total_together_are_a_stream_bomb() -> None:
    many = _pdf(*[(b"", b" " * (900 << 10))] * 4)
    with pytest.raises(
        Failed,
        match=r"^a stream bomb: its compressed streams inflate to more than 3,145,728 bytes together",
    ):
        extract(many, ".pdf", 512 << 20)


@pytest.mark.usefixtures("small_limits")
def test_pictures_and_streams_under_the_limit_are_read() -> None:
    picture = b"/Type /XObject /Subtype /Image /Width 1024 /Height 1024 /BitsPerComponent 8 /ColorSpace /DeviceRGB"
    fine = _pdf((picture, b"\0" * (3 << 20)), (b"", b" " * (900 << 10)))
    assert extract(fine, ".pdf", 512 << 20)["text"] == "the harbour minutes"


def test_a_pdf_with_bytes_before_its_header_is_read() -> None:
    """Readers look for %PDF- in the first kilobyte (a mail gateway's or a server's line
    before it): before, 'not a PDF'."""
    assert (
        extract(b"HTTP junk before the file\r\n" + _pdf(), ".pdf", 512 << 20)["text"]
        == "the harbour minutes"
    )


@pytest.mark.usefixtures("small_limits")
def test_a_stream_compressed_twice_over_is_a_stream_bomb_by_what_it_inflates_to() -> None:
    """[/FlateDecode /FlateDecode]: its first inflation is 2 KiB, its second 2 MiB (a
    reader inflates both); before, only the first was counted."""
    twice = zlib.compress(zlib.compress(b" " * (2 << 20), 9), 9)
    bomb = _pdf((b"/Filter [/FlateDecode /FlateDecode]", b"")).replace(
        b"/Filter [/FlateDecode /FlateDecode] /Length 8 /Filter /FlateDecode >>\nstream\n"
        + zlib.compress(b"", 9),
        b"/Length %d /Filter [/FlateDecode /FlateDecode] >>\nstream\n%s" % (len(twice), twice),
    )
    assert len(zlib.decompress(twice)) < 4096 and b"[/FlateDecode /FlateDecode] >>" in bomb
    with pytest.raises(Failed, match=r"^a stream bomb: a compressed stream inflates"):
        extract(bomb, ".pdf", 512 << 20)
    assert _pdfguard.stream_bomb(_pdf((b"", b" " * (900 << 10)))) is None
