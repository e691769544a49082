"""Mark a presentation's hidden slides, which kreuzberg 4.10 reads as if they were shown.

A slide hidden in PowerPoint (``<p:sld show="0">``) is still the author's: a backup slide,
one kept for another audience. Its words are imported, so that a search for them finds the
presentation, but its text starts with ``[hidden slide]``, so that no one takes it for
what was shown. The slide's XML is handled as bytes, as ``_docx`` handles Word's.
"""

from __future__ import annotations

import re

from ._zipparts import rewrite_parts

__all__ = ["HIDDEN_MARK", "mark_hidden_slides"]

#: What a hidden slide's text starts with.
HIDDEN_MARK = "[hidden slide]"
_SLIDE = re.compile(r"ppt/slides/slide\d+\.xml\Z")
_HIDDEN = re.compile(rb"<p:sld\b[^>]*?\sshow=\"(?:0|false)\"")
# The slide's first text: its title's, usually (kreuzberg reads shapes in order)
_FIRST_TEXT = re.compile(rb"<a:t(?:\s[^>]*)?>")
_MARK = HIDDEN_MARK.encode() + b" "


def mark_hidden_slides(data: bytes) -> bytes:
    """Return ``data`` (a .pptx) with each hidden slide's text starting ``[hidden slide]``;
    ``data`` itself when none is hidden, or it cannot be read (the reader then says why)."""

    def rewrite(_: str, xml: bytes) -> bytes | None:
        first = _FIRST_TEXT.search(xml) if _HIDDEN.search(xml[:4096]) else None
        return xml[: first.end()] + _MARK + xml[first.end() :] if first else None

    return rewrite_parts(data, _SLIDE.match, rewrite)
