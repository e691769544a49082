"""Documents whose text cannot be read as text, said by name rather than stored as
something else: a workbook whose shared strings part is gone (its words; the numbers
alone are not the sheet), a PDF drawn in fonts that map no glyph to a character; and the
files a PDF portfolio holds, read as a mail's attachments are."""

from __future__ import annotations

import io
import zipfile
import zlib
from pathlib import Path

import pytest

from memtrails.importers.documents._extract import Failed, extract

_WORDS = ("walnut crates", "hazel sacks")


def _workbook(path: Path) -> bytes:
    """A workbook whose words are shared strings, as Excel writes them (openpyxl writes
    them inline)."""
    import openpyxl

    wb = openpyxl.Workbook()
    sheet = wb.active
    assert sheet is not None
    sheet["A1"], sheet["B1"] = _WORDS[0], 7
    sheet["A2"], sheet["B2"] = _WORDS[1], 12
    wb.save(str(path))
    out = io.BytesIO()
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "xl/worksheets/sheet1.xml":
                for k, word in enumerate(_WORDS):
                    inline = f'<c r="A{k + 1}" t="inlineStr"><is><t>{word}</t></is></c>'
                    data = data.replace(
                        inline.encode(), f'<c r="A{k + 1}" t="s"><v>{k}</v></c>'.encode()
                    )
            dst.writestr(info, data)
        items = "".join(f"<si><t>{word}</t></si>" for word in _WORDS)
        dst.writestr(
            "xl/sharedStrings.xml",
            '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
            f'count="2" uniqueCount="2">{items}</sst>',
        )
    return out.getvalue()


def _without(data: bytes, part: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            if info.filename != part:
                dst.writestr(info, src.read(info))
    return out.getvalue()


def test_a_workbook_without_its_shared_strings_says_so(tmp_path: Path) -> None:
    data = _workbook(tmp_path / "a.xlsx")
    assert "walnut crates 7" in extract(data, ".xlsx", 100 << 20)["text"]
    with pytest.raises(Failed, match="shared strings part is missing: the text of 2 cell"):
        extract(_without(data, "xl/sharedStrings.xml"), ".xlsx", 100 << 20)


def _pdf(objects: list[bytes]) -> bytes:
    out, offsets = b"%PDF-1.4\n", []
    for k, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (k, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return out


def _stream(data: bytes) -> bytes:
    return b"<< /Length %d >>\nstream\n%s\nendstream" % (len(data), data)


def _page(font: bytes, shown: bytes, *more: bytes) -> bytes:
    return _pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
            b"/Resources << /Font << /F1 5 0 R >> >> >>",
            _stream(b"BT /F1 12 Tf 72 720 Td <%s> Tj ET" % shown),
            font,
            *more,
        ]
    )


_TYPE3 = _page(
    b"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 10 10] /FontMatrix [0.1 0 0 0.1 0 0] "
    b"/CharProcs 6 0 R /Encoding << /Type /Encoding /Differences [1 /g1 /g2 /g3] >> "
    b"/FirstChar 1 /LastChar 3 /Widths [10 10 10] >>",
    b"010203010203",
    b"<< /g1 7 0 R /g2 7 0 R /g3 7 0 R >>",
    _stream(b"0 0 d0 0 0 10 10 re f"),
)
_IDENTITY = _page(
    b"<< /Type /Font /Subtype /Type0 /BaseFont /ABCDEF+Sans /Encoding /Identity-H "
    b"/DescendantFonts [6 0 R] >>",
    b"000300110005000700030012",
    b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /ABCDEF+Sans /CIDSystemInfo << "
    b"/Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor 7 0 R >>",
    b"<< /Type /FontDescriptor /FontName /ABCDEF+Sans /Flags 4 /FontBBox [0 0 1000 1000] "
    b"/ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 >>",
)


@pytest.mark.parametrize("data", [_TYPE3, _IDENTITY], ids=["type3", "identity-h"])
def test_a_pdf_in_fonts_without_characters_says_so(data: bytes) -> None:
    """Not "no text layer (scanned?)": its text is there, in glyphs no reader can map."""
    with pytest.raises(Failed, match="fonts that map no glyph to a character"):
        extract(data, ".pdf", 100 << 20)


def test_a_pdf_of_a_picture_alone_is_still_no_text_layer() -> None:
    data = _pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
            _stream(b"0 0 1 rg 72 72 200 200 re f"),
        ]
    )
    with pytest.raises(Failed, match=r"no text layer \(scanned\?\)"):
        extract(data, ".pdf", 100 << 20)


def _portfolio(cover: bytes, *files: tuple[bytes, bytes, bytes]) -> bytes:
    """A PDF whose catalog names embedded files: (name as a PDF string, filter, bytes)."""
    first = 6
    specs = b" ".join(b"(f%d) %d 0 R" % (k, first + 2 * k) for k in range(len(files)))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles << /Names [%s] >> >> "
        b"/Collection << /View /T >> >>" % specs,
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        _stream(b"BT /F1 12 Tf 72 720 Td (%s) Tj ET" % cover if cover else b""),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for k, (name, packing, body) in enumerate(files):
        number = first + 2 * k + 1
        objects.append(b"<< /Type /Filespec /UF %s /EF << /F %d 0 R >> >>" % (name, number))
        packed = b" /Filter /%s" % packing if packing else b""
        objects.append(
            b"<< /Type /EmbeddedFile%s /Length %d >>\nstream\n%s\nendstream"
            % (packed, len(body), body)
        )
    return _pdf(objects)


def test_a_pdf_portfolio_reads_its_files() -> None:
    """Its cover page, then each embedded file's text under [attachment: NAME] (PDFium
    gave the cover alone); one packed in a way not read is named with why."""
    data = _portfolio(
        b"Open this portfolio in a PDF reader",
        (b"(minutes.txt)", b"", b"Board minutes: the budget passed."),
        (
            b"(\xfe\xff" + "café.md".encode("utf-16-be") + b")",
            b"FlateDecode",
            zlib.compress(b"# Menu\nsoup of the day"),
        ),
        (b"(old.txt)", b"LZWDecode", b"\x80\x0b\x60\x50"),
    )
    got = extract(data, ".pdf", 100 << 20)
    assert got["text"].startswith("Open this portfolio in a PDF reader")
    assert "[attachment: minutes.txt]\n\nBoard minutes: the budget passed." in got["text"]
    assert "[attachment: café.md]\n\n# Menu\nsoup of the day" in got["text"]
    entries = {e["name"]: e for e in got["meta"]["attachments"]}
    assert entries["old.txt"]["error"].startswith("packed as LZWDecode")
    assert entries["minutes.txt"]["chars"] == len("Board minutes: the budget passed.")


def test_a_portfolio_with_a_blank_cover_is_read_by_its_files() -> None:
    data = _portfolio(b"", (b"(a.txt)", b"", b"the only words"))
    assert extract(data, ".pdf", 100 << 20)["text"] == "[attachment: a.txt]\n\nthe only words"
