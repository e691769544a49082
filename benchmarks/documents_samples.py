"""Write small real documents (PDF, DOCX, PPTX, XLSX, ODT/ODS/ODP, RTF, HTML, EPUB) to a folder.

The extraction comparison (documents_compare.py) and the tests read what this writes. PDF,
DOCX, PPTX and XLSX come from the writers people use (reportlab, python-docx, python-pptx,
openpyxl: all in the ``test`` extra); the OpenDocument and EPUB files are zips of the XML the
specifications give (no writer for them installs as a wheel: odfpy is an sdist, ebooklib is
AGPL), RTF and HTML are text. Each file carries one sentence no other file has
(:data:`SENTENCES`), so a search can tell which one it found.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

__all__ = ["SENTENCES", "write_all", "write_encrypted_pdf", "write_pdf", "write_scanned_pdf"]

#: One sentence per format, found in that file only.
SENTENCES = {
    "pdf": "The lighthouse keeper counted seventeen herons on the northern breakwater.",
    "docx": "Quarterly invoices for the orchard cooperative are due before the harvest festival.",
    "pptx": "Our submarine telescope prototype survived the pressure test at four hundred metres.",
    "xlsx": "Saffron shipment from Valencia",
    "odt": "The violin workshop moved its varnish cabinet next to the south window.",
    "ods": "Glacier survey equipment rental",
    "odp": "Beekeeping volunteers meet at the community garden every second Thursday.",
    "rtf": "The ferry timetable changes when the river freezes in late January.",
    "html": "Grandmother's recipe for walnut bread needs a very slow oven.",
    "epub": "The cartographer's apprentice redrew the coastline after the great storm.",
}
TITLE = "Field notes"
AUTHOR = "Ada Example"


def write_pdf(path: Path, sentence: str = SENTENCES["pdf"], *, pages: int = 2) -> None:
    """Write a two-column PDF with a header, a footer, a hyphenated word and a table."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=A4)
    c.setTitle(TITLE)
    c.setAuthor(AUTHOR)
    width, height = A4
    cut = sentence.find(" ", 40) + 1 or len(sentence)  # two lines, cut between words
    left = [
        "Left column, first paragraph: the survey",
        "team walked the dunes at dawn and noted",
        "every nest. The weather was unpredict-",
        "able, so the boats stayed in harbour.",
        sentence[:cut],
        sentence[cut:],
    ]
    right = [
        "Right column: the second paragraph tells",
        "what the team found on the islands and",
        "how the counts compare with last year.",
    ]
    for page in range(pages):
        c.setFont("Helvetica", 9)
        c.drawString(72, height - 40, f"Survey report (header) page {page + 1}")
        c.drawString(72, 30, f"Confidential footer {page + 1}")
        c.setFont("Helvetica", 11)
        for i, line in enumerate(left if page == 0 else left[:4]):
            c.drawString(72, height - 100 - 14 * i, line)
        for i, line in enumerate(right):
            c.drawString(width / 2 + 10, height - 100 - 14 * i, line)
        rows = [("Species", "Count"), ("Heron", "17"), ("Gull", "240")]
        for i, (a, b) in enumerate(rows):
            c.drawString(72, height - 300 - 14 * i, a)
            c.drawString(200, height - 300 - 14 * i, b)
        c.showPage()
    c.save()


def write_encrypted_pdf(path: Path, password: str = "hunter2") -> None:
    """Write a PDF that opens only with a user password."""
    from reportlab.lib import pdfencrypt
    from reportlab.pdfgen import canvas

    enc = pdfencrypt.StandardEncryption(password, ownerPassword="owner", strength=128)
    c = canvas.Canvas(str(path), encrypt=enc)
    c.drawString(72, 720, "This text is locked behind a password.")
    c.save()


def write_scanned_pdf(path: Path) -> None:
    """Write a PDF whose page is only a picture (as a scanner makes): no text layer."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    for i in range(20):
        c.rect(72 + i * 20, 600, 12, 80, fill=1)
    c.showPage()
    c.save()


def _docx(path: Path) -> None:
    import docx

    d = docx.Document()
    d.core_properties.title = TITLE
    d.core_properties.author = AUTHOR
    d.sections[0].header.paragraphs[0].text = "Cooperative letterhead"
    d.add_heading("Orchard accounts", level=1)
    d.add_paragraph(SENTENCES["docx"])
    table = d.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Apples", "120 crates"
    table.cell(1, 0).text, table.cell(1, 1).text = "Pears", "45 crates"
    d.save(str(path))


def _pptx(path: Path) -> None:
    from pptx import Presentation

    p = Presentation()
    p.core_properties.title = TITLE
    p.core_properties.author = AUTHOR
    slide = p.slides.add_slide(p.slide_layouts[1])
    slide.shapes.title.text = "Deep sea optics"
    slide.placeholders[1].text = SENTENCES["pptx"]
    slide.notes_slide.notes_text_frame.text = "Speaker notes: thank the dive crew."
    p.save(str(path))


def _xlsx(path: Path) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Orders"
    ws.append(["Item", "Kilograms", "Price"])
    ws.append([SENTENCES["xlsx"], 12, 3400.5])
    ws.append(["Cardamom pods", 30, 810])
    wb.properties.title = TITLE
    wb.properties.creator = AUTHOR
    wb.save(str(path))


_ODF_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
    'xmlns:dc="http://purl.org/dc/elements/1.1/" '
    'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" office:version="1.2"'
)


def _odf(path: Path, mimetype: str, body: str) -> None:
    content = f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {_ODF_NS}><office:body>{body}</office:body></office:document-content>'
    meta = (
        f'<?xml version="1.0" encoding="UTF-8"?><office:document-meta {_ODF_NS}><office:meta>'
        f"<dc:title>{TITLE}</dc:title><meta:initial-creator>{AUTHOR}</meta:initial-creator>"
        "<meta:creation-date>2019-03-04T10:20:30</meta:creation-date></office:meta></office:document-meta>"
    )
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
        'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
        f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{mimetype}"/>'
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
        '<manifest:file-entry manifest:full-path="meta.xml" manifest:media-type="text/xml"/>'
        "</manifest:manifest>"
    )
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", mimetype, compress_type=zipfile.ZIP_STORED)
        z.writestr("content.xml", content, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("meta.xml", meta, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("META-INF/manifest.xml", manifest, compress_type=zipfile.ZIP_DEFLATED)


def _epub(path: Path) -> None:
    container = (
        '<?xml version="1.0"?><container version="1.0" '
        'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
        '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
        "</rootfiles></container>"
    )
    opf = (
        '<?xml version="1.0" encoding="UTF-8"?><package xmlns="http://www.idpf.org/2007/opf" '
        'version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
        f'<dc:identifier id="id">urn:uuid:0e5c0a3e-1f2d-4c4b-9a57-3d2f1b8a9c01</dc:identifier>'
        f"<dc:title>{TITLE}</dc:title><dc:creator>{AUTHOR}</dc:creator><dc:language>en</dc:language>"
        "<dc:date>2018-06-01</dc:date></metadata>"
        '<manifest><item id="c1" href="chapter1.xhtml" media-type="application/xhtml+xml"/>'
        '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/></manifest>'
        '<spine><itemref idref="c1"/></spine></package>'
    )
    chapter = (
        '<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
        "<head><title>Chapter one</title></head><body><h1>Chapter one</h1>"
        f"<p>{SENTENCES['epub']}</p><p>The harbour master signed the new charts.</p></body></html>"
    )
    nav = (
        '<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml" '
        'xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Contents</title></head><body>'
        '<nav epub:type="toc"><ol><li><a href="chapter1.xhtml">Chapter one</a></li></ol></nav>'
        "</body></html>"
    )
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/container.xml", container, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("OEBPS/content.opf", opf, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("OEBPS/chapter1.xhtml", chapter, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("OEBPS/nav.xhtml", nav, compress_type=zipfile.ZIP_DEFLATED)


_RTF = (
    r"{\rtf1\ansi\deff0{\fonttbl{\f0 Times New Roman;}}{\info{\title Field notes}"
    r"{\author Ada Example}}\f0\fs24 River notes\par " + "{s}" + r"\par Ice: 40 cm\par}"
)
_HTML = (
    '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Walnut bread</title>'
    '<meta name="author" content="Ada Example"><style>p {{ color: red }}</style>'
    "<script>var tracking = 'do not index me';</script></head><body>"
    "<nav>Home | Recipes | About</nav><h1>Walnut bread</h1><p>{s}</p>"
    "<table><tr><th>Flour</th><td>500 g</td></tr><tr><th>Walnuts</th><td>150 g</td></tr></table>"
    "</body></html>"
)


def write_all(folder: Path) -> dict[str, Path]:
    """Write one file of each format into ``folder``; return them by format."""
    folder.mkdir(parents=True, exist_ok=True)
    out = {fmt: folder / f"sample.{fmt}" for fmt in SENTENCES}
    write_pdf(out["pdf"])
    _docx(out["docx"])
    _pptx(out["pptx"])
    _xlsx(out["xlsx"])
    _odf(
        out["odt"],
        "application/vnd.oasis.opendocument.text",
        f"<office:text><text:h>Workshop</text:h><text:p>{SENTENCES['odt']}</text:p></office:text>",
    )
    _odf(
        out["ods"],
        "application/vnd.oasis.opendocument.spreadsheet",
        '<office:spreadsheet><table:table table:name="Rentals"><table:table-row>'
        f'<table:table-cell office:value-type="string"><text:p>{SENTENCES["ods"]}</text:p>'
        "</table:table-cell>"
        '<table:table-cell office:value-type="float" office:value="950"><text:p>950</text:p>'
        "</table:table-cell>"
        "</table:table-row></table:table></office:spreadsheet>",
    )
    _odf(
        out["odp"],
        "application/vnd.oasis.opendocument.presentation",
        '<office:presentation><draw:page draw:name="p1"><draw:frame><draw:text-box>'
        f"<text:p>{SENTENCES['odp']}</text:p></draw:text-box></draw:frame></draw:page>"
        "</office:presentation>",
    )
    out["rtf"].write_text(_RTF.replace("{s}", SENTENCES["rtf"]), encoding="ascii")
    out["html"].write_text(_HTML.format(s=SENTENCES["html"]), encoding="utf-8")
    _epub(out["epub"])
    return out
