"""A Word or OpenDocument text with tracked changes, moved text and text boxes reads as it
stands now: deleted and moved-away words are not its text, inserted and moved-to words
are; a paragraph that anchors a text box keeps its own words beside the box's (kreuzberg
4.10 gave the box's alone, from its VML fallback), each once."""

from __future__ import annotations

import io
import zipfile

import pytest

from memtrails.importers.documents._extract import extract

_W = (
    'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
    'xmlns:v="urn:schemas-microsoft-com:vml"'
)
_DOC = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"


def _docx(body: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(
            "[Content_Types].xml",
            '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/'
            '2006/content-types"><Default Extension="rels" ContentType="application/'
            'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" '
            f'ContentType="application/xml"/><Override PartName="/word/document.xml" '
            f'ContentType="{_DOC}"/></Types>',
        )
        z.writestr(
            "_rels/.rels",
            '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/'
            'package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.'
            'openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
            'Target="word/document.xml"/></Relationships>',
        )
        z.writestr(
            "word/document.xml",
            f'<?xml version="1.0"?><w:document {_W}><w:body>{body}</w:body></w:document>',
        )
    return out.getvalue()


def _run(text: str) -> str:
    return f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>'


def _box(inner: str, fallback: str) -> str:
    """A text box as Word 2010+ writes it: DrawingML, and VML for older readers."""
    para = f"<w:p>{_run(inner)}</w:p>"
    return (
        '<w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wps:wsp xmlns:wps='
        f'"http://schemas.microsoft.com/office/word/2010/wordprocessingShape"><wps:txbx>'
        f"<w:txbxContent>{para}</w:txbxContent></wps:txbx></wps:wsp></w:drawing></mc:Choice>"
        f"<mc:Fallback><w:pict><v:shape><v:textbox><w:txbxContent><w:p>{_run(fallback)}"
        "</w:p></w:txbxContent></v:textbox></v:shape></w:pict></mc:Fallback>"
        "</mc:AlternateContent></w:r>"
    )


def _text(data: bytes, suffix: str = ".docx") -> str:
    return str(extract(data, suffix, 100 << 20)["text"])


@pytest.mark.parametrize(
    ("change", "gone", "kept"),
    [
        # Word's moves: the moved-away copy holds w:t, as current text does
        (
            '<w:moveFrom w:id="1" w:author="A">{old}</w:moveFrom>'
            '<w:moveTo w:id="2" w:author="A">{new}</w:moveTo>',
            "Oldplace",
            "Newplace",
        ),
        # a writer that keeps w:t (not w:delText) in a deletion
        ('<w:del w:id="1" w:author="A">{old}</w:del><w:ins w:id="2">{new}</w:ins>', "Gone", "Put"),
        # Word's own deletion (w:delText), beside a deleted paragraph mark
        (
            '<w:del w:id="1" w:author="A"><w:r><w:delText>{old_word}</w:delText></w:r></w:del>'
            '<w:ins w:id="2" w:author="A">{new}</w:ins>',
            "Struck",
            "Added",
        ),
    ],
)
def test_tracked_changes_read_as_the_text_stands(change: str, gone: str, kept: str) -> None:
    filled = change.format(
        old=_run(f"{gone} words"), new=_run(f"{kept} words"), old_word=f"{gone} words"
    )
    body = (
        f"<w:p>{_run('Before ')}{filled}{_run(' after.')}</w:p>"
        '<w:p><w:pPr><w:rPr><w:del w:id="9" w:author="A"/></w:rPr></w:pPr>'
        f"{_run('Next paragraph.')}</w:p>"
    )
    text = _text(_docx(body))
    assert gone not in text
    assert f"Before {kept} words after." in text
    assert "Next paragraph." in text


def test_a_text_box_keeps_its_anchor_paragraphs_words() -> None:
    body = (
        f"<w:p>{_run('First paragraph.')}</w:p>"
        f"<w:p>{_run('Anchor words ')}{_box('Boxed words.', 'Boxed words.')}"
        f"{_run(' and more.')}</w:p><w:p>{_run('Last paragraph.')}</w:p>"
    )
    lines = [line for line in _text(_docx(body)).split("\n") if line]
    assert lines[0] == "First paragraph."
    assert lines[-1] == "Last paragraph."
    assert any(line.startswith("Anchor words") and "and more." in line for line in lines)
    assert lines.count("Boxed words.") == 1


def test_a_text_box_is_read_from_its_drawing_not_its_fallback() -> None:
    body = f"<w:p>{_run('Anchor ')}{_box('Current box.', 'Stale fallback.')}</w:p>"
    text = _text(_docx(body))
    assert "Current box." in text and "Stale fallback." not in text
    assert "Anchor" in text


def test_a_deletion_inside_a_text_box_is_not_read() -> None:
    inner = '<w:p><w:moveFrom w:id="1"><w:r><w:t>Moved off</w:t></w:r></w:moveFrom></w:p>'
    body = (
        f"<w:p>{_run('Anchor ')}<w:r><w:pict><v:shape><v:textbox><w:txbxContent>{inner}"
        f"<w:p>{_run('Box stays')}</w:p></w:txbxContent></v:textbox></v:shape></w:pict></w:r>"
        "</w:p>"
    )
    text = _text(_docx(body))
    assert "Moved off" not in text
    assert "Box stays" in text and "Anchor" in text


_ODF = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:dc="http://purl.org/dc/elements/1.1/" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"'
)


def _odt(body: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text", zipfile.ZIP_STORED)
        z.writestr(
            "content.xml",
            f'<?xml version="1.0"?><office:document-content {_ODF}><office:body><office:text>'
            f"{body}</office:text></office:body></office:document-content>",
        )
    return out.getvalue()


@pytest.mark.parametrize("box", [False, True])
def test_an_odt_with_tracked_changes_reads_as_it_stands(box: bool) -> None:
    """The deleted words stay in text:tracked-changes; a text box makes memtrails read the
    file itself (not kreuzberg), which read them as text."""
    body = (
        '<text:tracked-changes><text:changed-region text:id="c1"><text:deletion>'
        "<office:change-info><dc:creator>Ann</dc:creator><dc:date>2020-01-01T00:00:00"
        "</dc:date></office:change-info><text:p>Deleted ninety</text:p></text:deletion>"
        "</text:changed-region></text:tracked-changes>"
        '<text:p>The price is <text:change text:change-id="c1"/>seventy euros.</text:p>'
        '<text:p>See<text:note text:id="n1" text:note-class="footnote"><text:note-citation>'
        "7</text:note-citation><text:note-body><text:p>A note.</text:p></text:note-body>"
        "</text:note> this.</text:p>"
    )
    if box:
        body += (
            "<text:p>Lead <draw:frame><draw:text-box><text:p>Boxed.</text:p></draw:text-box>"
            "</draw:frame></text:p>"
        )
    text = _text(_odt(body), ".odt")
    assert "Deleted" not in text and "Ann" not in text
    assert "The price is seventy euros." in text
    assert "A note." in text
    if box:
        assert "See this." in text.split("\n") and "Boxed." in text
