"""Replacements in a byte buffer: merging the passes' spans, writing the markers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Final

from .rule import marker

__all__ = ["UNKNOWN", "Span", "merge", "replace_spans"]

UNKNOWN: Final = "token"  # the kind of tokens of services no rule names
Span = tuple[int, int, str]  # start, end, kind: one replacement in the byte buffer


def merge(first: list[Span], second: list[Span]) -> list[Span]:
    """Merge the passes' replacements into one ordered list without overlaps.

    The earlier span wins (the longer at the same start); a span that starts inside a kept
    one but runs past it keeps its tail, so every byte some rule flagged is replaced.
    """
    if not second:
        return first
    out: list[Span] = []
    last = 0
    # At one place, a token of no known service yields to any other kind.
    for s, e, kind in sorted(
        first + second, key=lambda span: (span[0], -span[1], span[2] == UNKNOWN)
    ):
        if e <= last:
            continue
        out.append((max(s, last), e, kind))
        last = e
    return out


def replace_spans(buf: bytes, spans: Iterator[Span], counts: Counter[str]) -> bytes | None:
    out: list[bytes] = []
    last = 0
    for s, e, kind in spans:
        if kind:
            out.append(buf[last:s])
            out.append(marker(kind).encode("ascii"))
            counts[kind] += 1
            last = e
    if not out:
        return None
    out.append(buf[last:])
    return b"".join(out)
