"""Refuse a PDF whose compressed streams inflate to gigabytes (a stream bomb), before a
reader inflates them.

A page's content, a font or an object stream is Flate-compressed in the file; a reader
inflates it whole in memory. A 1 MB PDF whose one content stream inflates to 1 GiB made
the worker use 1,076 MiB, then die of its memory limit ('the document reader died
(SIGABRT)'). Each such stream is inflated here only as far as :data:`MAX_STREAM` bytes
(all of them together as far as :data:`MAX_TOTAL`), pictures aside (a text reader does
not decode them).
"""

from __future__ import annotations

import re
import zlib
from typing import Any

__all__ = ["MAX_STREAM", "MAX_TOTAL", "stream_bomb"]

#: The most one compressed stream (not a picture) may inflate to.
MAX_STREAM = 256 << 20
#: The most all of them together may inflate to.
MAX_TOTAL = 1 << 30
_START = re.compile(rb"(?<!end)stream\r?\n")
_DICT = 2048  # bytes before ``stream`` looked at for its dictionary
_CHUNK = 1 << 16
_MAX_STREAMS = 200_000
_MAX_LAYERS = 4  # compressions of one stream followed (a reader's own limit is its memory)
_PIECE = 1 << 24  # bytes one layer gives at a time


def stream_bomb(data: bytes) -> str | None:
    """Say why a PDF's compressed streams are a bomb (one inflates past
    :data:`MAX_STREAM`, or all together past :data:`MAX_TOTAL`), or None."""
    total = 0
    for count, match in enumerate(_START.finditer(data)):
        if count >= _MAX_STREAMS:
            break
        head = data[max(match.start() - _DICT, 0) : match.start()]
        head = head[head.rfind(b"obj") + 1 :]  # this object's dictionary
        if b"/FlateDecode" not in head or b"/Image" in head:
            continue
        # [/FlateDecode /FlateDecode]: a reader inflates it twice, a thousand times each
        layers = min(head.count(b"/FlateDecode"), _MAX_LAYERS)
        size = _inflated(data, match.end(), min(MAX_STREAM, MAX_TOTAL - total) + 1, layers)
        total += size
        if size > MAX_STREAM:
            return (
                f"a stream bomb: a compressed stream inflates to more than {MAX_STREAM:,} "
                "bytes (a hostile or broken PDF)"
            )
        if total > MAX_TOTAL:
            return (
                f"a stream bomb: its compressed streams inflate to more than {MAX_TOTAL:,} "
                "bytes together (a hostile or broken PDF)"
            )
    return None


def _inflated(data: bytes, start: int, most: int, layers: int = 1) -> int:
    """How many bytes the zlib stream at ``start`` inflates to, counted up to ``most``;
    ``layers``: a stream compressed that many times over, each layer inflated in turn."""
    inflaters = [zlib.decompressobj() for _ in range(layers)]
    produced = 0
    at = start
    try:
        while not inflaters[0].eof and produced < most and at < len(data):
            chunk = data[at : at + _CHUNK]
            at += len(chunk)
            produced += _through(inflaters, chunk, most - produced)
    except zlib.error:
        pass  # damage: the reader says what is wrong
    return produced


def _through(inflaters: list[Any], chunk: bytes, room: int) -> int:
    """Inflate ``chunk`` through each of ``inflaters`` in turn; return how many bytes the
    last one gives, counted up to ``room`` (a layer's output is never held whole)."""
    first, rest = inflaters[0], inflaters[1:]
    out = 0
    while chunk and out < room and not first.eof:
        piece = first.decompress(chunk, min(room - out, _PIECE) if not rest else _PIECE)
        chunk = first.unconsumed_tail
        out += _through(rest, piece, room - out) if rest else len(piece)
        if not piece:
            break
    return out
