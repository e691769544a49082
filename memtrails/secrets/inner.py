"""The token pass inside an accepted value: a provider's token in it keeps its own kind."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .spans import UNKNOWN, Span

__all__ = ["Tokens", "inner_spans", "tokens_in"]

Tokens = Callable[[bytes, int, int], Iterator[Span]]
"""The token pass over ``buf[start:end]`` (``buf``, ``start``, ``end``): its replacements."""


def tokens_in(buf: bytes, start: int, end: int, tokens: Tokens) -> Iterator[Span]:
    """Run the token pass over a value, unless it is too short to hold any token."""
    # The shortest token ("xoxb-" + 10) has 15 bytes; a URL password needs "://". From one
    # byte before: the jwt rule reads the character before a token.
    if end - start >= 15 or b"://" in buf[start:end]:
        for s, e, kind in tokens(buf, max(start - 1, 0), end):
            yield (max(s, start), e, kind)


def inner_spans(buf: bytes, start: int, end: int, kind: str, tokens: Tokens) -> list[Span]:
    """Return the replacements inside an accepted value [start, end).

    Provider tokens inside it keep their own kinds when they cover the value (all but a few
    characters of quoting or escapes); otherwise the whole value becomes one ``kind``.
    """
    # The kind of a token of no known service says less than the value's own kind.
    spans = [span for span in tokens_in(buf, start, end, tokens) if span[2] != UNKNOWN]
    covered = sum(e - s for s, e, _ in spans)
    if spans and (end - start) - covered <= 3:
        return spans
    return [(start, end, kind)]
