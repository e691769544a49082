"""XML parts of a document (DOCX, ODT, EPUB, XHTML) that declare entities: an external one
(a file on this machine, a URL) is never read, and one that expands a billion times is not
expanded; the document is read without them, or refused with the reason."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from memtrails.importers.documents._extract import Failed, extract

_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
_TYPES = (
    '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
    'content-types"><Default Extension="xml" ContentType="application/xml"/><Default '
    'Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.wordprocessingml.document.main+xml"/></Types>'
)
_RELS = (
    '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/'
    '2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/'
    'officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>'
    "</Relationships>"
)
_ODT = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"'
)
_MARK = "h92-secret-marker-7Q"


def _zip(parts: dict[str, str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, text in parts.items():
            z.writestr(name, text)
    return out.getvalue()


def _declared(root: str, secret: Path) -> str:
    """A DOCTYPE declaring an external entity (``x``: a file, ``n``: a URL) and a billion
    laughs (``i``: 10^9 characters)."""
    laughs = '<!ENTITY a "aaaaaaaaaa">' + "".join(
        f'<!ENTITY {c} "{("&" + p + ";") * 10}">'
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    )
    return (
        f'<?xml version="1.0"?><!DOCTYPE {root} [<!ENTITY x SYSTEM "{secret.as_uri()}">'
        f'<!ENTITY n SYSTEM "http://192.0.2.1/x">{laughs}]>'
    )


def _documents(secret: Path) -> list[tuple[str, bytes]]:
    body = "start &x; &n; &i; end"
    docx = _zip(
        {
            "[Content_Types].xml": _TYPES,
            "_rels/.rels": _RELS,
            "word/document.xml": _declared("w:document", secret)
            + f"<w:document {_W}><w:body><w:p><w:r><w:t>{body}</w:t></w:r></w:p>"
            "</w:body></w:document>",
        }
    )
    odt = _zip(
        {
            "mimetype": "application/vnd.oasis.opendocument.text",
            "content.xml": _declared("office:document-content", secret)
            + f"<office:document-content {_ODT}><office:body><office:text><text:p>{body}"
            "</text:p></office:text></office:body></office:document-content>",
        }
    )
    epub = _zip(
        {
            "mimetype": "application/epub+zip",
            "META-INF/container.xml": '<?xml version="1.0"?><container version="1.0" '
            'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile '
            'full-path="c.opf" media-type="application/oebps-package+xml"/></rootfiles>'
            "</container>",
            "c.opf": '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" '
            'version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>'
            'T</dc:title></metadata><manifest><item id="c1" href="c1.xhtml" media-type='
            '"application/xhtml+xml"/></manifest><spine><itemref idref="c1"/></spine></package>',
            "c1.xhtml": _declared("html", secret)
            + f'<html xmlns="http://www.w3.org/1999/xhtml"><body><p>{body}</p></body></html>',
        }
    )
    xhtml = (_declared("html", secret) + f"<html><body><p>{body}</p></body></html>").encode()
    return [(".docx", docx), (".odt", odt), (".epub", epub), (".xhtml", xhtml)]


@pytest.mark.parametrize("k", range(4), ids=[".docx", ".odt", ".epub", ".xhtml"])
def test_no_external_entity_is_read_and_no_bomb_expands(tmp_path: Path, k: int) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text(_MARK, encoding="utf-8")
    suffix, data = _documents(secret)[k]
    try:
        text = extract(data, suffix, 100 << 20)["text"]
    except Failed as exc:  # refused: the reason says so, and names no file's content
        assert _MARK not in str(exc) and str(exc)
        return
    assert _MARK not in text
    assert "start" in text and "end" in text and len(text) < 10_000
