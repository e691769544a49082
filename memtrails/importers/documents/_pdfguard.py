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

__all__ = ["MAX_STREAM", "MAX_TOTAL", "stream_bomb"]

#: The most one compressed stream (not a picture) may inflate to.
MAX_STREAM = 256 << 20
#: The most all of them together may inflate to.
MAX_TOTAL = 1 << 30
_START = re.compile(rb"(?<!end)stream\r?\n")
_DICT = 2048  # bytes before ``stream`` looked at for its dictionary
_CHUNK = 1 << 16
_MAX_STREAMS = 200_000


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
        size = _inflated(data, match.end(), min(MAX_STREAM, MAX_TOTAL - total) + 1)
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


def _inflated(data: bytes, start: int, most: int) -> int:
    """How many bytes the zlib stream at ``start`` inflates to, counted up to ``most``."""
    inflater = zlib.decompressobj()
    produced = 0
    at = start
    try:
        while not inflater.eof and produced < most and at < len(data):
            chunk = data[at : at + _CHUNK]
            at += len(chunk)
            while chunk and produced < most:
                produced += len(inflater.decompress(chunk, min(most - produced, 1 << 24)))
                chunk = inflater.unconsumed_tail
                if inflater.eof:
                    break
    except zlib.error:
        pass  # damage: the reader says what is wrong
    return produced
