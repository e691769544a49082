"""OpenDocument files saved with a password and EPUBs locked by DRM: their text is
encrypted inside an ordinary zip, so a reader gave a parse error ('not well-formed',
'not valid UTF-8') or an empty record. Each is now 'encrypted document', saying why; an
EPUB whose fonts alone are obfuscated (as many are) is still read. Built here, small."""

from __future__ import annotations

import hashlib
import io
import zipfile

import pytest

from memtrails.importers.documents._extract import Failed, extract

_MANIFEST = (
    '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:'
    'names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" '
    'manifest:media-type="{mime}"/><manifest:file-entry manifest:full-path="content.xml" '
    'manifest:media-type="text/xml"><manifest:encryption-data manifest:checksum="AA=="><manifest:'
    'algorithm manifest:algorithm-name="http://www.w3.org/2001/04/xmlenc#aes256-cbc"/>'
    "</manifest:encryption-data></manifest:file-entry></manifest:manifest>"
)
_KINDS = {".odt": "text", ".ods": "spreadsheet", ".odp": "presentation"}
_SCRAMBLED = hashlib.sha512(b"key").digest() * 40  # what encrypted content looks like


def _odf(suffix: str) -> bytes:
    mime = f"application/vnd.oasis.opendocument.{_KINDS[suffix]}"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("mimetype", mime)
        z.writestr("content.xml", _SCRAMBLED)
        z.writestr("styles.xml", _SCRAMBLED)
        z.writestr("META-INF/manifest.xml", _MANIFEST.format(mime=mime), zipfile.ZIP_DEFLATED)
    return out.getvalue()


_CONTAINER = (
    '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:'
    'xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type='
    '"application/oebps-package+xml"/></rootfiles></container>'
)
_OPF = (
    '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="2.0">'
    '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Notes</dc:title>'
    '</metadata><manifest><item id="c1" href="ch1.xhtml" media-type="application/xhtml+xml"'
    '/><item id="f" href="font.otf" media-type="font/otf"/></manifest><spine><itemref '
    'idref="c1"/></spine></package>'
)
_CHAPTER = (
    '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>One'
    "</title></head><body><p>the lighthouse keeper's log</p></body></html>"
)


def _encryption(algorithm: str, uri: str) -> str:
    return (
        '<?xml version="1.0"?><encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:'
        'container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
        f'<enc:EncryptionMethod Algorithm="{algorithm}"/><enc:CipherData><enc:'
        f'CipherReference URI="{uri}"/></enc:CipherData></enc:EncryptedData></encryption>'
    )


def _epub(encryption: str | None, chapter: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("mimetype", "application/epub+zip")
        z.writestr("META-INF/container.xml", _CONTAINER)
        if encryption is not None:
            z.writestr("META-INF/encryption.xml", encryption)
        z.writestr("OEBPS/content.opf", _OPF)
        z.writestr("OEBPS/ch1.xhtml", chapter)
        z.writestr("OEBPS/font.otf", _SCRAMBLED)
    return out.getvalue()


@pytest.mark.parametrize("suffix", [".odt", ".ods", ".odp"])
def test_an_opendocument_file_with_a_password_is_an_encrypted_document(suffix: str) -> None:
    with pytest.raises(Failed, match=r"^encrypted document: it opens only with its password"):
        extract(_odf(suffix), suffix, 512 << 20)


def test_an_epub_locked_by_drm_is_an_encrypted_document() -> None:
    locked = _epub(
        _encryption("http://www.w3.org/2001/04/xmlenc#aes128-cbc", "OEBPS/ch1.xhtml"), _SCRAMBLED
    )
    with pytest.raises(Failed, match=r"^encrypted document: its chapters are locked by DRM"):
        extract(locked, ".epub", 512 << 20)


def test_an_epub_with_obfuscated_fonts_alone_is_read() -> None:
    fonts = _epub(
        _encryption("http://www.idpf.org/2008/embedding", "OEBPS/font.otf"), _CHAPTER.encode()
    )
    assert "the lighthouse keeper's log" in extract(fonts, ".epub", 512 << 20)["text"]


def _flag_encrypted(data: bytes) -> bytes:
    """The zip with every part flagged as encrypted (general purpose bit 0), as `zip -e`
    writes them, in its local and central headers."""
    out = bytearray(data)
    for signature, flags_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = out.find(signature)
        while at >= 0:
            out[at + flags_at] |= 1
            at = out.find(signature, at + 4)
    return bytes(out)


def test_a_password_protected_zip_under_a_document_name_says_so() -> None:
    plain = io.BytesIO()
    with zipfile.ZipFile(plain, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("word/document.xml", _SCRAMBLED)
    with pytest.raises(Failed, match=r"^encrypted document: its zip's parts are encrypted"):
        extract(_flag_encrypted(plain.getvalue()), ".docx", 512 << 20)
