"""The files a PDF carries inside it: a portfolio's documents, a form's or an invoice's
attachments (``/EmbeddedFiles``), which PDFium does not read as the PDF's text.

A PDF portfolio's own page is a cover ("open this in Acrobat"); its documents are embedded
files. Each is a stream whose dictionary says ``/Type /EmbeddedFile``; a stream is always
an object of its own (never in a compressed object stream), so it is found in the file's
bytes, and its name in the file specification that points at it (``/EF << /F 12 0 R >>``
beside ``/UF (name)``), in the bytes or in the object streams. A stream packed otherwise
than with Flate (or not at all) is named as not read. At most ``_MAX_FILES``, each inflated
to the bound the caller gives.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

from ._pdfdates import pdf_text
from ._pdffonts import object_streams

__all__ = ["Embedded", "embedded_files"]

_MAX_FILES = 64
_EMBEDDED = re.compile(rb"/Type\s*/EmbeddedFile\b")
_HEADER = re.compile(rb"(\d{1,10})\s+\d{1,5}\s+obj\b")
_STREAM = re.compile(rb"stream\r?\n")
_LENGTH = re.compile(rb"/Length\s+(\d{1,12})(?!\s+\d+\s+R)")
_FILTER = re.compile(rb"/Filter\s*\[?\s*/(\w+)")
# A file specification: its name (/UF, else /F) and the stream its /EF names, either order.
_SPEC = re.compile(
    rb"/(?:UF|F)\s*\(((?:[^()\\]|\\.){1,512})\)[^>]{0,2000}?/EF\s*<<\s*/F\s+(\d+)\s+\d+\s+R"
    rb"|/EF\s*<<\s*/F\s+(\d+)\s+\d+\s+R\s*>>[^>]{0,2000}?/(?:UF|F)\s*\(((?:[^()\\]|\\.){1,512})\)",
    re.DOTALL,
)
_ESCAPES = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f"}


@dataclass(frozen=True)
class Embedded:
    """One embedded file: its name, and its bytes or why they were not read."""

    name: str
    data: bytes | None
    why: str | None = None


def _pdf_string(raw: bytes) -> str:
    """A PDF literal string's text: its escapes undone, then read as :func:`pdf_text`."""
    return pdf_text(re.sub(rb"\\([nrtbf()\\]|[0-7]{1,3})", lambda m: _unescape(m.group(1)), raw))


def _unescape(code: bytes) -> bytes:
    if code[:1].isdigit():
        return bytes([int(code, 8) & 0xFF])
    return _ESCAPES.get(code, code)


def _names(haystacks: list[bytes]) -> dict[int, str]:
    names: dict[int, str] = {}
    for haystack in haystacks:
        for m in _SPEC.finditer(haystack):
            raw, number = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
            names.setdefault(int(number), _pdf_string(raw).strip().replace("/", "_")[:255])
    return names


def embedded_files(data: bytes, max_bytes: int) -> list[Embedded]:
    """Return the files embedded in the PDF ``data``, each inflated to ``max_bytes`` at most
    (all of them together too)."""
    marks = list(_EMBEDDED.finditer(data))[:_MAX_FILES]
    if not marks:
        return []
    names = _names([data, *object_streams(data)])
    found: list[Embedded] = []
    budget = max_bytes
    for k, mark in enumerate(marks, 1):
        headers = list(_HEADER.finditer(data, max(mark.start() - 4096, 0), mark.start()))
        header = headers[-1] if headers else None  # the object the dictionary is in
        start = _STREAM.search(data, mark.end(), mark.end() + 4096)
        if header is None or start is None:
            continue
        name = names.get(int(header.group(1))) or f"attached file {k}"
        head = data[header.end() : start.start()]
        length = _LENGTH.search(head)
        end = start.end() + int(length.group(1)) if length else data.find(b"endstream", start.end())
        body = data[start.end() : end if end >= 0 else len(data)]
        packed = _FILTER.search(head)
        if packed is not None and packed.group(1) != b"FlateDecode":
            found.append(Embedded(name, None, f"packed as {packed.group(1).decode()}: not read"))
            continue
        if packed is not None:
            inflate = zlib.decompressobj()
            try:
                body = inflate.decompress(body, budget + 1)
            except zlib.error:
                found.append(Embedded(name, None, "its compressed bytes are damaged"))
                continue
        if len(body) > budget:
            found.append(Embedded(name, None, "over the size the PDF's files may unpack to"))
            budget = 0
            continue
        budget -= len(body)
        found.append(Embedded(name, body))
    return found
