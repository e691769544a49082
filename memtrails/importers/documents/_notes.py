"""The text of a Word or OpenDocument text that is not its body: notes, comments, headers.

kreuzberg 4.10 gives a ``.docx``'s body, and its notes after it unmarked but for the first
(taken for a separator): a word in the first footnote, a header or footer, or a comment
was not in the memory, and a search for it did not find the document. These are read here and follow the body, each kind under a line of its own:
``[footnotes]``, ``[endnotes]``, ``[comments]`` (each ``Author: remark``: others' remarks
on the text, marked as theirs, not the author's words), ``[headers and footers]`` (each
distinct line once: a header repeated on every section is one line). For an ``.odt``
(whose footnotes kreuzberg reads) the comments (``office:annotation``) and the master
pages' headers and footers (``styles.xml``).

Text deleted or moved away by tracked changes (``w:del``, ``w:moveFrom``) and the
fallback copy of a text box are not read, as in the body (see ``_docx``).
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator
from typing import IO
from xml.etree import ElementTree

from ._zipparts import ZIP_READ_ERRORS, rewrite_parts

__all__ = ["HEADINGS", "docx_notes", "docx_without_notes", "odt_notes"]

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
_STYLE = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"
_DC = "http://purl.org/dc/elements/1.1/"
#: The lines that head each kind of text read here.
HEADINGS = ("[footnotes]", "[endnotes]", "[comments]", "[headers and footers]")
_SKIPPED = {f"{_W}del", f"{_W}moveFrom", f"{_MC}Fallback"}
_NOTE_PARTS = {
    f"word/{kind}s.xml": (
        f'<?xml version="1.0" encoding="UTF-8"?><w:{kind}s xmlns:w="{_W[1:-1]}"/>'
    ).encode()
    for kind in ("footnote", "endnote")
}
_HEADERS = re.compile(r"word/(header|footer)(\d*)\.xml\Z")
# The most characters read from the parts here, all together (the body is read elsewhere).
_LIMIT = 4 << 20


def _paragraphs(xml: IO[bytes], item: str) -> Iterator[tuple[dict[str, str], list[str]]]:
    """Yield each ``item`` element's attributes (a footnote, a comment) and its paragraphs'
    text, or with ``item`` empty, one entry holding every paragraph of the part."""
    attributes: dict[str, str] = {}
    lines: list[str] = []
    words: list[str] = []
    skipped = 0
    size = 0  # characters read: a part gives _LIMIT of them at most
    for event, element in ElementTree.iterparse(xml, events=("start", "end")):
        tag = element.tag
        if event == "start":
            skipped += tag in _SKIPPED
            if item and tag == item:
                attributes, lines = dict(element.attrib), []
            continue
        if tag in _SKIPPED:
            skipped -= 1
        elif tag == f"{_W}t" and not skipped:
            words.append(element.text or "")
        elif tag == f"{_W}tab" and not skipped:
            words.append("\t")
        elif tag == f"{_W}p":
            line = "".join(words).strip()
            words = []
            if line:
                lines.append(line)
                size += len(line)
            element.clear()
            if size > _LIMIT:
                break
        elif item and tag == item:
            yield attributes, lines
            lines = []
            element.clear()
    if not item or lines:
        yield attributes, lines


def _section(heading: str, lines: list[str]) -> str:
    return f"{heading}\n" + "\n".join(lines) if lines else ""


def _join(sections: list[str]) -> str:
    text = "\n\n".join(s for s in sections if s)
    return text[:_LIMIT]


def docx_notes(data: bytes) -> str:
    """Return a .docx's footnotes, endnotes, comments, headers and footers under their
    headings (see the module), or "" when it has none or cannot be read."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            names = set(z.namelist())
            sections: list[str] = []
            for kind, heading in (("footnote", HEADINGS[0]), ("endnote", HEADINGS[1])):
                part = f"word/{kind}s.xml"
                if part not in names:
                    continue
                notes: list[str] = []
                with z.open(part) as xml:
                    for attributes, lines in _paragraphs(xml, f"{_W}{kind}"):
                        if not attributes.get(f"{_W}type") and lines:  # not a separator
                            notes.append(" ".join(lines))
                sections.append(_section(heading, notes))
            if "word/comments.xml" in names:
                remarks: list[str] = []
                with z.open("word/comments.xml") as xml:
                    for attributes, lines in _paragraphs(xml, f"{_W}comment"):
                        author = (attributes.get(f"{_W}author") or "").strip()
                        if lines:
                            said = " ".join(lines)
                            remarks.append(f"{author}: {said}" if author else said)
                sections.append(_section(HEADINGS[2], remarks))
            seen: dict[str, None] = {}
            parts = sorted(
                (m.group(1) == "footer", int(m.group(2) or 0), m.string)
                for m in map(_HEADERS.match, names)
                if m
            )
            for _, _, part in parts:
                if sum(map(len, seen)) > _LIMIT:
                    break
                with z.open(part) as xml:
                    for _, lines in _paragraphs(xml, ""):
                        seen.update(dict.fromkeys(lines))
            sections.append(_section(HEADINGS[3], list(seen)))
            return _join(sections)
    except (*ZIP_READ_ERRORS, ElementTree.ParseError):
        return ""  # why: the body is read (or refused) on its own; these parts are extra


def docx_without_notes(data: bytes) -> bytes:
    """Return ``data`` (a .docx) with its footnotes and endnotes parts emptied, for
    kreuzberg: 4.10 gives a document's notes after its body, but not its first (it takes
    note 1 for a separator), and unmarked; :func:`docx_notes` gives them all, marked.
    ``data`` itself when it has none or cannot be read."""
    return rewrite_parts(data, _NOTE_PARTS.__contains__, lambda name, _: _NOTE_PARTS[name])


def _odf_lines(element: ElementTree.Element) -> list[str]:
    """The text of each paragraph or heading under ``element`` (a comment's author and date
    are outside them)."""
    blocks = (b for b in element.iter() if b.tag in (f"{{{_TEXT}}}p", f"{{{_TEXT}}}h"))
    return [line for line in (" ".join("".join(b.itertext()).split()) for b in blocks) if line]


def odt_notes(data: bytes) -> str:
    """Return an .odt's comments and its pages' headers and footers under their headings
    (see the module), or "" when it has none or cannot be read."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            names = set(z.namelist())
            remarks: list[str] = []
            if "content.xml" in names:
                with z.open("content.xml") as xml:
                    for _, element in ElementTree.iterparse(xml):
                        if element.tag == f"{{{_OFFICE}}}annotation":
                            author = element.findtext(f"{{{_DC}}}creator") or ""
                            said = " ".join(_odf_lines(element))
                            if said:
                                remarks.append(f"{author.strip()}: {said}" if author else said)
                            element.clear()
            seen: dict[str, None] = {}
            if "styles.xml" in names:
                with z.open("styles.xml") as xml:
                    for _, element in ElementTree.iterparse(xml):
                        if element.tag.startswith(f"{{{_STYLE}}}") and element.tag.endswith(
                            ("}header", "}footer", "}header-left", "}footer-left")
                        ):
                            seen.update(dict.fromkeys(_odf_lines(element)))
                            element.clear()
            return _join([_section(HEADINGS[2], remarks), _section(HEADINGS[3], list(seen))])
    except (*ZIP_READ_ERRORS, ElementTree.ParseError):
        return ""  # why: the body is read (or refused) on its own; these parts are extra
