"""A document's words outside its body are found by a search: a .docx's footnotes,
endnotes, headers and footers, and its comments (marked as remarks, with their author),
an .odt's comments and page headers; a .pptx's hidden slide is read, marked hidden, and
its speaker notes are read. kreuzberg 4.10 gave a .docx's body alone, an .odt's body and
footnotes, and read a hidden slide as if it were shown."""

from __future__ import annotations

import io
import zipfile

import docx
import pptx

from memtrails.importers.documents._extract import extract

_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
_CT = "application/vnd.openxmlformats-officedocument.wordprocessingml."


def _text(data: bytes, suffix: str) -> str:
    return str(extract(data, suffix, 100 << 20)["text"])


def _notes_part(kind: str, note: str) -> str:
    """A footnotes or endnotes part as Word writes it: separators first, then the notes."""
    sep = f'<w:{kind} w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:{kind}>'
    return (
        f'<?xml version="1.0"?><w:{kind}s {_W}>{sep}<w:{kind} w:id="1"><w:p><w:r>'
        f'<w:{kind}Ref/></w:r><w:r><w:t xml:space="preserve"> {note}</w:t></w:r></w:p>'
        f'<w:p><w:r><w:del w:id="9"><w:t>Struckout</w:t></w:del></w:r></w:p></w:{kind}></w:{kind}s>'
    )


def _docx() -> bytes:
    """Body, a header and a footer on two sections, a comment, a footnote and an endnote."""
    d = docx.Document()
    p = d.add_paragraph("Quarterly body text")
    d.sections[0].header.paragraphs[0].text = "Confidential Zanzibar"
    d.sections[0].footer.paragraphs[0].text = "Printed by Quokka"
    d.add_comment(p.runs, text="Please recheck the Walrus figure", author="Bob Baker")
    written = io.BytesIO()
    d.save(written)
    src = zipfile.ZipFile(io.BytesIO(written.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "word/document.xml":
                refs = '<w:r><w:footnoteReference w:id="1"/></w:r><w:r><w:endnoteReference w:id="1"/></w:r>'
                data = data.replace(b"text</w:t></w:r>", b"text</w:t></w:r>" + refs.encode(), 1)
            elif info.filename == "word/_rels/document.xml.rels":
                rels = "".join(
                    f'<Relationship Id="rId{k}" Type="{_REL}{k}s" Target="{k}s.xml"/>'
                    for k in ("footnote", "endnote")
                )
                data = data.replace(b"</Relationships>", rels.encode() + b"</Relationships>")
            elif info.filename == "[Content_Types].xml":
                types = "".join(
                    f'<Override PartName="/word/{k}s.xml" ContentType="{_CT}{k}s+xml"/>'
                    for k in ("footnote", "endnote")
                )
                data = data.replace(b"</Types>", types.encode() + b"</Types>")
            z.writestr(info, data)
        z.writestr("word/footnotes.xml", _notes_part("footnote", "Source: the Gnu survey."))
        z.writestr("word/endnotes.xml", _notes_part("endnote", "See the Okapi annex."))
    return out.getvalue()


def test_docx_notes_comments_headers_follow_the_body_under_headings() -> None:
    text = _text(_docx(), ".docx")
    assert text.startswith("Quarterly body text")
    body, _, rest = text.partition("\n\n[footnotes]\n")
    assert "Gnu" not in body and "Walrus" not in body and "Zanzibar" not in body
    assert "Source: the Gnu survey." in rest.split("[endnotes]")[0]
    assert "See the Okapi annex." in rest.split("[endnotes]")[1].split("[comments]")[0]
    # a comment is someone's remark on the text: marked so, with who made it
    comments = rest.split("[comments]\n")[1].split("\n\n")[0]
    assert comments == "Bob Baker: Please recheck the Walrus figure"
    assert "Confidential Zanzibar" in rest.split("[headers and footers]")[1]
    assert "Printed by Quokka" in rest.split("[headers and footers]")[1]
    assert "Struckout" not in text  # a tracked deletion in a note is not its text


def test_docx_header_repeated_in_sections_is_one_line() -> None:
    d = docx.Document()
    d.add_paragraph("First part")
    d.sections[0].header.paragraphs[0].text = "Acme Widgets Ltd"
    d.add_section()
    d.sections[1].header.is_linked_to_previous = False
    d.sections[1].header.paragraphs[0].text = "Acme Widgets Ltd"
    d.add_paragraph("Second part")
    out = io.BytesIO()
    d.save(out)
    text = _text(out.getvalue(), ".docx")
    assert text.count("Acme Widgets Ltd") == 1
    assert "First part" in text and "Second part" in text


def test_docx_without_extras_is_its_body_alone() -> None:
    d = docx.Document()
    d.add_paragraph("Nothing else here")
    out = io.BytesIO()
    d.save(out)
    assert _text(out.getvalue(), ".docx") == "Nothing else here"


_ODF = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:dc="http://purl.org/dc/elements/1.1/"'
)


def _odt(box: bool) -> bytes:
    frame = (
        "<draw:frame><draw:text-box><text:p>Boxed words</text:p></draw:text-box></draw:frame>"
        if box
        else ""
    )
    body = (
        f'<text:p>{frame}Body words<text:note text:note-class="footnote">'
        "<text:note-citation>1</text:note-citation><text:note-body><text:p>Footnote Gnu"
        "</text:p></text:note-body></text:note> more body<office:annotation><dc:creator>"
        "Bob Baker</dc:creator><dc:date>2024-01-01T00:00:00</dc:date><text:p>Check the "
        "Walrus</text:p></office:annotation> after the remark.</text:p>"
    )
    styles = (
        f'<?xml version="1.0"?><office:document-styles {_ODF}><office:master-styles>'
        '<style:master-page style:name="Standard"><style:header><text:p>Confidential '
        "Zanzibar</text:p></style:header><style:footer><text:p>Printed by Quokka</text:p>"
        "</style:footer></style:master-page></office:master-styles></office:document-styles>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        z.writestr(
            "content.xml",
            f'<?xml version="1.0"?><office:document-content {_ODF}><office:body><office:text>'
            f"{body}</office:text></office:body></office:document-content>",
        )
        z.writestr("styles.xml", styles)
    return out.getvalue()


def test_odt_comments_and_headers_follow_the_body() -> None:
    for box in (False, True):  # read by kreuzberg; with a text box, by the standard library
        text = _text(_odt(box), ".odt")
        body, _, rest = text.partition("\n\n[comments]\n")
        assert "Footnote Gnu" in body
        assert "after the remark." in body and "Walrus" not in body, box
        assert rest.startswith("Bob Baker: Check the Walrus\n\n[headers and footers]\n"), box
        assert "Confidential Zanzibar" in rest and "Printed by Quokka" in rest


def _pptx(hidden: int) -> bytes:
    p = pptx.Presentation()
    for i, word in enumerate(["Alpha", "Backup", "Gamma"]):
        slide = p.slides.add_slide(p.slide_layouts[1])
        slide.shapes.title.text = f"{word} title"
        slide.notes_slide.notes_text_frame.text = f"Say the {word} line"
        if i == hidden:
            slide._element.set("show", "0")
    out = io.BytesIO()
    p.save(out)
    return out.getvalue()


def test_pptx_hidden_slide_is_read_marked_hidden_with_notes() -> None:
    text = _text(_pptx(hidden=1), ".pptx")
    assert "[hidden slide] Backup title" in text
    assert text.count("[hidden slide]") == 1
    for word in ("Alpha", "Backup", "Gamma"):
        assert f"Say the {word} line" in text  # speaker notes are read
    assert "[hidden slide]" not in _text(_pptx(hidden=-1), ".pptx")


def test_docx_notes_are_read_up_to_a_bound() -> None:
    """A footnotes part of 12 MB gives its first 4 MiB or so, not all of it."""
    note = "Footnote words that repeat " * 4
    notes = "".join(
        f'<w:footnote w:id="{k}"><w:p><w:r><w:t>{k} {note}</w:t></w:r></w:p></w:footnote>'
        for k in range(1, 110_000)
    )
    data = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(_docx())) as src, zipfile.ZipFile(data, "w") as z:
        for info in src.infolist():
            body = src.read(info)
            if info.filename == "word/footnotes.xml":
                body = f'<?xml version="1.0"?><w:footnotes {_W}>{notes}</w:footnotes>'.encode()
            z.writestr(info, body, zipfile.ZIP_DEFLATED)
    text = _text(data.getvalue(), ".docx")
    assert "\n1 Footnote words" in text
    assert 4 << 20 <= len(text) < 5 << 20


def test_docx_footnotes_each_once_the_first_too() -> None:
    """kreuzberg 4.10 gave a document's footnotes after its body but for the first (taken
    for a separator), unmarked: each is now read once, under the heading."""
    sep = (
        '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p>'
        '</w:footnote><w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r>'
        "<w:continuationSeparator/></w:r></w:p></w:footnote>"
    )
    notes = "".join(
        f'<w:footnote w:id="{k}"><w:p><w:r><w:t>Note{k} by Okapi</w:t></w:r></w:p></w:footnote>'
        for k in (1, 2, 3)
    )
    data = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(_docx())) as src, zipfile.ZipFile(data, "w") as z:
        for info in src.infolist():
            body = src.read(info)
            if info.filename == "word/footnotes.xml":
                body = f'<?xml version="1.0"?><w:footnotes {_W}>{sep}{notes}</w:footnotes>'.encode()
            z.writestr(info, body)
    text = _text(data.getvalue(), ".docx")
    body, _, rest = text.partition("\n\n[footnotes]\n")
    assert "Okapi" not in body
    assert rest.startswith("Note1 by Okapi\nNote2 by Okapi\nNote3 by Okapi\n\n")
    assert text.count("Note2 by Okapi") == 1
