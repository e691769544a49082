"""Read an OpenDocument file (ODT, ODS, ODP) with the standard library: text and metadata."""

from __future__ import annotations

import io
import zipfile
from typing import Any
from xml.etree import ElementTree

from ._zipparts import ZIP_READ_ERRORS

__all__ = ["has_text_boxes", "read_odf", "read_ods", "read_odt"]

_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
_BLOCKS = {f"{{{_TEXT}}}p", f"{{{_TEXT}}}h"}
_ROW = f"{{{_TABLE}}}table-row"
_BREAKS = {_ROW, f"{{{_TEXT}}}list-item"}
_SPACE = f"{{{_TEXT}}}s"
_SHEET = f"{{{_TABLE}}}table"
_SHEET_NAME = f"{{{_TABLE}}}name"
_TAB = f"{{{_TEXT}}}tab"
# Not the document's current text: what tracked changes deleted (kept in the body's
# text:tracked-changes, to show or restore), a note's citation mark (the "1" after a word),
# a comment's author and date.
_TRACKED = f"{{{_TEXT}}}tracked-changes"
# A comment (its text follows the body, marked: see _notes).
_ANNOTATION = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}annotation"
_HIDDEN = {
    _TRACKED,
    _ANNOTATION,
    f"{{{_TEXT}}}note-citation",
    "{http://purl.org/dc/elements/1.1/}creator",
    "{http://purl.org/dc/elements/1.1/}date",
}
_META = {
    "{http://purl.org/dc/elements/1.1/}title": "title",
    "{urn:oasis:names:tc:opendocument:xmlns:meta:1.0}initial-creator": "author",
    "{http://purl.org/dc/elements/1.1/}creator": "modified_by",
    "{urn:oasis:names:tc:opendocument:xmlns:meta:1.0}creation-date": "created",
    "{http://purl.org/dc/elements/1.1/}date": "modified",
}


# <text:s text:c="N"/> stands for N spaces. A file may say any N: 50 million made 50 MB of
# text from 300 bytes, and 2e9 a MemoryError. No layout needs more spaces than this.
_MAX_SPACES = 100


def _spaces(count: str | None) -> str:
    """The spaces a ``<text:s>`` stands for: one where its count is not a number."""
    try:
        n = int(count or 1)
    except ValueError:  # why: one bad attribute must not lose the document
        n = 1
    return " " * min(n, _MAX_SPACES)


def _text_of(element: ElementTree.Element) -> str:
    parts = [element.text or ""]
    for child in element:
        if child.tag in _HIDDEN:
            pass
        elif child.tag == _SPACE:
            parts.append(_spaces(child.get(f"{{{_TEXT}}}c")))
        elif child.tag == _TAB:
            parts.append("\t")
        else:
            parts.append(_text_of(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _paragraphs(xml: bytes, sheets: bool = False, lines: bool = False) -> tuple[str, int]:
    """One line per table row, and per page or list item (a presentation's paragraphs on a
    page share one); with ``lines`` (a text document), per paragraph outside a table row;
    with ``sheets`` (a spreadsheet), each table under its name and a blank line, as
    kreuzberg lays out a workbook's sheets. Returns the text and the number of tables."""
    blocks: list[tuple[str, list[str]]] = [("", [])]
    row: list[str] = []
    in_rows = 0
    hidden = 0  # inside text:tracked-changes or a comment
    # iterparse keeps one element at a time; expat refuses entity expansion bombs.
    for event, element in ElementTree.iterparse(io.BytesIO(xml), events=("start", "end")):
        if event == "start":
            hidden += element.tag in (_TRACKED, _ANNOTATION)
            in_rows += element.tag == _ROW
            if sheets and element.tag == _SHEET:
                if row:
                    blocks[-1][1].append(" ".join(row))
                    row = []
                blocks.append((element.get(_SHEET_NAME) or "", []))
            continue
        in_rows -= element.tag == _ROW
        if hidden:
            if element.tag in (_TRACKED, _ANNOTATION):
                hidden -= 1
            if element.tag == _TRACKED:
                element.clear()  # a comment is not: its tail is the body's text
            continue
        if element.tag in _BLOCKS:
            # A paragraph holding a text box ends after the box's own paragraphs (read and
            # cleared already): its own words come after them.
            text = _text_of(element).strip()
            if text:
                row.append(text)
            element.clear()
            if lines and not in_rows and row:
                blocks[-1][1].append(" ".join(row))
                row = []
        elif element.tag in _BREAKS or element.tag.endswith("}page"):
            if row:
                blocks[-1][1].append(" ".join(row))
                row = []
            if element.tag == _ROW:
                element.clear()  # its cells are read: drop them
    if row:
        blocks[-1][1].append(" ".join(row))
    text = "\n\n".join(
        "\n".join([name, "", *lines]) if name else "\n".join(lines)
        for name, lines in blocks
        if lines
    )
    return text, len(blocks) - 1


def read_odf(data: bytes, sheets: bool = False, lines: bool = False) -> tuple[str, dict[str, Any]]:
    """Return the text of an OpenDocument file's body (one line per table row, page or list
    item; with ``lines``, per paragraph) and what its ``meta.xml`` says (title, author,
    created, modified); with ``sheets`` (a spreadsheet), each table under its name."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        names = set(z.namelist())
        text, tables = (
            _paragraphs(z.read("content.xml"), sheets, lines) if "content.xml" in names else ("", 0)
        )
        meta: dict[str, Any] = {"sheet_count": tables} if tables else {}
        if "meta.xml" in names:
            for _, element in ElementTree.iterparse(io.BytesIO(z.read("meta.xml"))):
                key = _META.get(element.tag)
                if key and element.text and element.text.strip():
                    meta[key] = element.text.strip()
    return text, meta


def read_ods(data: bytes) -> tuple[str, dict[str, Any]]:
    """Return an OpenDocument spreadsheet's text, each sheet under its name, and metadata.

    Each cell's text as it is shown (its number and date formats applied), once: a row or
    cell repeated (``number-rows-repeated``) is one line, not a million. kreuzberg 4.10
    gave no text at all for a sheet with values far apart (a note 300,000 rows below the
    data: both lost, with no error), and refused one repeated a billion times.
    """
    return read_odf(data, sheets=True)


def read_odt(data: bytes) -> tuple[str, dict[str, Any]]:
    """Return an OpenDocument text's text, one line per paragraph (a table row's cells on
    one), the text of its text boxes included, and its metadata."""
    return read_odf(data, lines=True)


def has_text_boxes(data: bytes) -> bool:
    """Tell whether an OpenDocument file's body holds a text box (``draw:text-box``), whose
    text kreuzberg 4.10 loses when the box stands in another; False when it cannot be read."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            return b"text-box" in z.read("content.xml")
    except ZIP_READ_ERRORS:
        return False
