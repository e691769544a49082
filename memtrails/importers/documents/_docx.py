"""Make a Word document's XML say what its reader should read: the current text, once.

kreuzberg 4.10 reads a .docx's ``word/*.xml`` as it is, and three things in it come out
wrong: a paragraph that holds a text box (a shape anchored in it) gives the box's text and
loses all its own words; a text box written twice (DrawingML, and VML for older Words, in
``mc:AlternateContent``) is read from the fallback; and text tracked as moved away
(``w:moveFrom``, which holds ``w:t`` as current text does) or deleted by a writer that keeps
``w:t`` in ``w:del`` is read as current text, beside the text that replaced it. Before it is
read, each box's paragraphs are lifted out to follow the paragraph they were anchored in,
the fallback of a box is dropped, and the moved-away and deleted runs are dropped (Word's own
deleted text, ``w:delText``, was never read). The XML is handled as bytes, by its tags:
kreuzberg reads the ``w:`` prefixes Word writes, which an XML library would rename.
"""

from __future__ import annotations

import re

from ._zipparts import rewrite_parts

__all__ = ["current_docx"]

# The parts whose text is read: the body, notes, headers and footers, comments.
_PART = re.compile(r"word/(document|footnotes|endnotes|header\d*|footer\d*|comments)\.xml\Z")
_MARKS = re.compile(rb"<w:txbxContent[\s>]|<w:moveFrom[\s>]|<w:del[\s>]")
_TAG = re.compile(rb"<(/?)(w:p|w:txbxContent|w:del|w:moveFrom|mc:Fallback)(?=[\s/>])[^>]*>")
_DROPPED = (b"w:del", b"w:moveFrom")


def current_docx(data: bytes) -> bytes:
    """Return ``data`` (a .docx) with its XML rewritten as the module says; ``data`` itself
    when there is nothing to rewrite, or it cannot be read (the reader then says why)."""

    return rewrite_parts(
        data, _PART.match, lambda _, xml: _rewrite(xml) if _MARKS.search(xml) else None
    )


def _close(xml: bytes, name: bytes, start: int) -> int:
    """The end of the element named ``name`` whose start tag ends at ``start`` (elements
    of the same name inside it counted); the end of ``xml`` if it is not closed."""
    depth = 1
    pattern = re.compile(rb"<(/?)" + re.escape(name) + rb"(?=[\s/>])[^>]*?(/?)>")
    for tag in pattern.finditer(xml, start):
        if tag.group(1):
            depth -= 1
        elif not tag.group(2):
            depth += 1
        if depth == 0:
            return tag.end()
    return len(xml)


def _rewrite(xml: bytes) -> bytes:
    out: list[bytes] = []
    lifted: list[bytes] = []  # the boxes' paragraphs, until their anchor paragraph ends
    boxes = 0  # how many text boxes the scan is in
    paragraphs = 0  # how many paragraphs deep, outside boxes
    pos = 0  # what is copied (or skipped) so far
    for tag in _TAG.finditer(xml):
        if tag.start() < pos:
            continue  # inside what was dropped
        closing, name = bool(tag.group(1)), tag.group(2)
        self_closing = tag.group(0).endswith(b"/>")
        sink = lifted if boxes else out
        if not closing and not self_closing and name in _DROPPED:
            sink.append(xml[pos : tag.start()])
            pos = _close(xml, name, tag.end())
        elif name == b"mc:Fallback" and not closing and not self_closing:
            end = _close(xml, name, tag.end())
            if b"<w:txbxContent" in xml[tag.end() : end]:  # read from its choice, once
                sink.append(xml[pos : tag.start()])
                pos = end
        elif name == b"w:txbxContent" and not self_closing:
            if not closing:
                sink.append(xml[pos : tag.end()])
                boxes += 1
            else:
                boxes -= 1
                # a box's paragraphs go to follow its anchor; the (empty) box stays
                lifted.append(xml[pos : tag.start()] if boxes == 0 else xml[pos : tag.end()])
                if boxes == 0:
                    out.append(tag.group(0))
            pos = tag.end()
        elif name == b"w:p" and not boxes and not self_closing:
            paragraphs += -1 if closing else 1
            if closing and paragraphs == 0 and lifted:
                out.append(xml[pos : tag.end()])
                out.extend(lifted)
                lifted.clear()
                pos = tag.end()
    (lifted if boxes else out).append(xml[pos:])
    out.extend(lifted)
    return b"".join(out)
