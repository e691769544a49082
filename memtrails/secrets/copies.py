"""Every copy of a secret: once a value is found as a secret, its other occurrences go too.

A key pasted into a message and quoted in the reply, ``token = 'V' | 'V'``, a password in
a record's title and again in its text: the rules see the first copy in its context, and
the others only as a string. Finding them is a search for known strings, in linear time:
a few values are looked for one at a time (``bytes.find``, in C); of more, those that
stand as a whole word outside the replaced spans, in RE2 scans of their alternation (a DFA
over a trie of the values, like Aho-Corasick).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Final

import re2

from .passes import leftmost

__all__ = ["MIN_COPY", "Values", "copy_spans", "values_of"]

Values = dict[bytes, str]  # a secret's UTF-8 bytes -> its kind
Spans = Sequence[tuple[int, int, str]]
# A value shorter than this is not looked for elsewhere: too many innocent strings hold it.
MIN_COPY: Final = 6
# Below this length a copy must stand on its own (no letter or digit glued to either side):
# "hunter2" inside "hunter22" is another string; a 40-character key inside a longer run is not.
_ALONE_BELOW: Final = 16
_FIND_AT_MOST: Final = 8  # values searched one by one; more go into one RE2 scan
# Values per RE2 alternation, in bytes: larger ones outgrow the DFA's memory (RE2 then falls
# back to its NFA, many times slower).
_PATTERN_BYTES: Final = 8192
# What delimits a word when looking for whole-word copies.
_DELIMITERS: Final = b"\"'`,;()[]{}<>|"
_SEPARATE: Final = bytes.maketrans(_DELIMITERS, b" " * len(_DELIMITERS))
_WORD: Final = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


def values_of(buf: bytes, spans: Iterable[tuple[int, int, str]]) -> Values:
    """Return the secrets that ``spans`` replace in ``buf``, long enough to look for again."""
    out: Values = {}
    for s, e, kind in spans:
        # A password of letters alone is a word ("the password is summer"): its other copies
        # in the record are that word far more often than the password ("the summer party").
        if kind and e - s >= MIN_COPY and not buf[s:e].decode("utf-8", "replace").isalpha():
            out.setdefault(buf[s:e], kind)
    return out


def _utf8(value: bytes) -> bool:
    """Tell whether ``value`` is strict UTF-8 (RE2 reads its patterns so; a lone surrogate is not)."""
    try:
        value.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _alone(buf: bytes, s: int, e: int) -> bool:
    return (s == 0 or buf[s - 1] not in _WORD) and (e >= len(buf) or buf[e] not in _WORD)


def _find_each(buf: bytes, values: Mapping[bytes, str], out: list[tuple[int, int, str]]) -> None:
    for value, kind in values.items():
        at = buf.find(value)
        while at >= 0:
            end = at + len(value)
            if len(value) >= _ALONE_BELOW or _alone(buf, at, end):
                out.append((at, end, kind))
            at = buf.find(value, end)


def _copied_words(buf: bytes, values: Mapping[bytes, str], spans: Spans) -> Values:
    """Return the values that stand as a whole word in ``buf`` outside ``spans``."""
    rest: list[bytes] = []
    last = 0
    for s, e, _ in spans:
        if s >= last:
            rest.append(buf[last:s])
            last = e
    rest.append(buf[last:])
    # bytes.translate and split run in C: one pass over the text whatever the number of values.
    words = set(b" ".join(rest).translate(_SEPARATE).split())
    return {v: kind for v, kind in values.items() if v in words}


def _scan(
    buf: bytes,
    search: Callable[[bytes, int, int], list[tuple[int, int]] | None],
    values: Mapping[bytes, str],
    out: list[tuple[int, int, str]],
) -> None:
    """Add every match of ``search`` (an alternation of ``values``) in ``buf`` to ``out``."""
    pos, size = 0, len(buf)
    while pos < size and (found := search(buf, pos, size)) is not None:
        s, e = found[0]
        if e - s >= _ALONE_BELOW or _alone(buf, s, e):
            out.append((s, e, values[buf[s:e]]))
        pos = max(e, s + 1)


def copy_spans(
    buf: bytes, values: Mapping[bytes, str], spans: Spans = ()
) -> list[tuple[int, int, str]]:
    """Return the occurrences of ``values`` in ``buf`` as (start, end, kind), in order.

    Args:
        buf: the text's UTF-8 bytes.
        values: the secrets to look for, and their kinds.
        spans: what the rules already replace in ``buf`` (start, end, kind), in order.

    With more than a few values, only those that also stand as a whole word outside
    ``spans`` are looked for (quotes, brackets, commas and spaces delimit words), so that a
    text holding thousands of secrets costs a few scans, not one per secret. Overlapping
    occurrences are all returned; the caller's merge keeps one span per byte.
    """
    out: list[tuple[int, int, str]] = []
    if len(values) > _FIND_AT_MOST:
        values = _copied_words(buf, values, spans)
    if len(values) <= _FIND_AT_MOST:
        _find_each(buf, values, out)
    else:
        _find_each(buf, {v: k for v, k in values.items() if not _utf8(v)}, out)
        # Longest first: at one position the alternation takes the first value that matches.
        ordered = sorted((v for v in values if _utf8(v)), key=len, reverse=True)
        chunk: list[str] = []
        size = 0
        for i, value in enumerate(ordered):
            chunk.append(re2.escape(value.decode("utf-8")))
            size += len(value)
            if size >= _PATTERN_BYTES or i == len(ordered) - 1:
                _scan(buf, leftmost("|".join(chunk)), values, out)
                chunk, size = [], 0
    out.sort()
    return out
