"""An OpenDocument text whose text stands in text boxes (``draw:frame`` > ``draw:text-box``,
a flyer's or a form's layout, one box in another) keeps that text, each paragraph on its
own line: kreuzberg 4.10 gave none of a box's text when it was in another box."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from helpers import collect, errors, records

from memtrails.importers.documents._extract import extract
from memtrails.importers.files import from_files

_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"'
)


def _odt(body: str) -> bytes:
    content = (
        f'<?xml version="1.0"?><office:document-content {_NS}><office:body><office:text>'
        f"{body}</office:text></office:body></office:document-content>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text", zipfile.ZIP_STORED)
        z.writestr("content.xml", content)
    return out.getvalue()


def _boxes(depth: int) -> str:
    """A paragraph holding a frame whose text box holds a paragraph, ``depth`` times."""
    opening = '<text:p>Anchor<draw:frame draw:name="f"><draw:text-box>' * depth
    closing = "</draw:text-box></draw:frame></text:p>" * depth
    return f"<text:p>First paragraph.</text:p>{opening}<text:p>Boxed words.</text:p>{closing}"


@pytest.mark.parametrize("depth", [1, 2, 3, 50, 2000])
def test_text_in_nested_text_boxes_is_kept(depth: int) -> None:
    body = _boxes(depth) + (
        "<table:table><table:table-row><table:table-cell><text:p>cell one</text:p>"
        "</table:table-cell><table:table-cell><text:p>cell two</text:p></table:table-cell>"
        "</table:table-row></table:table><text:p>Last paragraph.</text:p>"
    )
    lines = extract(_odt(body), ".odt", 100 << 20)["text"].split("\n")
    assert "Boxed words." in lines
    assert lines[0] == "First paragraph." and lines[-1] == "Last paragraph."
    assert "cell one cell two" in lines


async def test_a_notes_folder_reads_the_boxed_text(tmp_path: Path) -> None:
    (tmp_path / "flyer.odt").write_bytes(_odt(_boxes(2)))
    items = await collect(from_files(tmp_path))
    assert errors(items) == []
    [record] = records(items)
    assert "Boxed words." in record.text
