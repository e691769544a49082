"""The scrubber's own markers in a text: what no rule may read as a key, a user or a value.

Scrubbing scrubbed text must find nothing (``scrub(scrub(x)) == scrub(x)``). A marker's
words read like a key (``[secret:password]: X`` is "password" then ": X"), a user
(``[secret:token]&page=2@host`` is "secret" then ":" then a password then "@"), or part of a
value; a match that starts inside a marker, or a replacement that cuts into one, is one the
first scrub could not have made, so neither is taken.
"""

from __future__ import annotations

import bisect
import re
from typing import Final

__all__ = ["Markers", "markers_in"]

_OPEN: Final = b"[secret:"
# A marker: "[secret:" and a kind (lowercase letters, digits and '-': see rules.KINDS), "]".
_MARKER: Final = re.compile(rb"\[secret:[a-z0-9-]{1,40}\]")
_LONGEST: Final = 50  # bytes of the longest marker, bounding how far before a range one starts


class Markers:
    """The markers of one byte range: each as [start, end), in order."""

    __slots__ = ("ends", "starts")

    def __init__(self, buf: bytes, start: int, end: int) -> None:
        found = [m.span() for m in _MARKER.finditer(buf, max(start - _LONGEST, 0), end)]
        self.starts = [s for s, _ in found]
        self.ends = [e for _, e in found]

    def end_of(self, pos: int) -> int:
        """Return the end of the marker ``pos`` lies in (its '[' included), else 0."""
        i = bisect.bisect_right(self.starts, pos) - 1
        return self.ends[i] if i >= 0 and pos < self.ends[i] else 0

    def cuts(self, s: int, e: int) -> bool:
        """Tell whether [s, e) overlaps a marker."""
        i = bisect.bisect_left(self.ends, s + 1)  # the first marker ending after s
        return i < len(self.starts) and self.starts[i] < e


def markers_in(buf: bytes, start: int = 0, end: int | None = None) -> Markers | None:
    """Return the markers in ``buf[start:end]`` (and one that runs into it), or None if none."""
    stop = len(buf) if end is None else end
    if buf.find(_OPEN, max(start - _LONGEST, 0), stop) < 0:
        return None
    return Markers(buf, start, stop)
