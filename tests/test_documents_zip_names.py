"""Zip-based documents (DOCX, OpenDocument, EPUB) with hostile entry names or no body: read
from memory, never unpacked to disk, and an OpenDocument file with no content.xml is an
error that says so, not an empty record."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from helpers import collect, errors, records

from memtrails.importers.files import from_files

_DOCX_TYPES = (
    '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
    'content-types"><Default Extension="xml" ContentType="application/xml"/><Override '
    'PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.wordprocessingml.document.main+xml"/></Types>'
)
_DOCX_BODY = (
    '<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/'
    'wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Harbour cranes arrive in May'
    "</w:t></w:r></w:p></w:body></w:document>"
)


@pytest.mark.parametrize(
    ("name", "mimetype"),
    [
        ("a.odt", "application/vnd.oasis.opendocument.text"),
        ("b.ods", "application/vnd.oasis.opendocument.spreadsheet"),
        ("c.odp", "application/vnd.oasis.opendocument.presentation"),
    ],
)
async def test_an_opendocument_zip_without_its_body_is_an_error(
    tmp_path: Path, name: str, mimetype: str
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    with zipfile.ZipFile(notes / name, "w") as z:
        z.writestr("mimetype", mimetype)
        z.writestr("../content.xml", "<x/>")  # the body, under a name that climbs out
    items = await collect(from_files(notes))
    assert records(items) == []
    (error,) = errors(items)
    assert error.id == name and "no content.xml" in error.reason


async def test_entry_names_that_climb_out_are_never_written(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    with zipfile.ZipFile(notes / "evil.docx", "w") as z:
        z.writestr("[Content_Types].xml", _DOCX_TYPES)
        z.writestr("../../escaped.txt", "owned")
        z.writestr(str(tmp_path / "absolute.txt"), "owned")
        z.writestr("word/document.xml", _DOCX_BODY)
    items = await collect(from_files(notes))
    (record,) = records(items)
    assert "Harbour cranes arrive in May" in record.text
    assert not (tmp_path / "escaped.txt").exists() and not (tmp_path / "absolute.txt").exists()
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["evil.docx", "notes"]
