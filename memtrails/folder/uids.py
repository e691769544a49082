"""An exact set of record uids that costs 16 bytes per uid once it outgrows a Python set."""

from __future__ import annotations

import re

import numpy as np
import numpy.typing as npt

__all__ = ["SPILL", "UidSet"]

# Uids held as Python ints (~80 bytes each with the set's slot) before they move into the
# sorted arrays. Each move copies the arrays (np.insert), so a smaller spill costs more
# copying: at 1M uids 61 moves of up to 16 MB, about 0.5 s, for a set part of ~1.3 MiB
# instead of ~5 MiB at 65,536 (and a traced peak of 25.7 instead of 30.7 MiB).
SPILL = 1 << 14

_HEX_UID = re.compile(r"[0-9a-f]{32}")
_LOW = (1 << 64) - 1


class UidSet:
    """A set of uids (strings), exact, compact past ``spill`` members.

    Record uids are 32 lowercase hex digits (``keys.record_uid``): 128 bits. The newest go
    into a Python set of ints (~80 bytes each); every ``spill`` of them move into two
    sorted ``uint64`` arrays (high and low halves, 16 bytes a uid), so an import of a
    million records holds ~16 MiB instead of ~100 MiB. Nothing is hashed down: a lookup
    compares all 128 bits, so no uid is ever taken for another (a false "seen before"
    would skip a changed record). A uid of another shape is kept as it is, in a plain set.

    Args:
        spill: how many uids the Python set holds before they move into the arrays.

    Example::

        seen = UidSet()
        seen.add("0123456789abcdef0123456789abcdef")  # True: it was new
        "0123456789abcdef0123456789abcdef" in seen  # True
    """

    __slots__ = ("_hi", "_len", "_lo", "_other", "_recent", "_spill")

    def __init__(self, spill: int = SPILL) -> None:
        if spill < 1:
            raise ValueError(f"`spill` must be positive, got {spill}")
        self._spill = spill
        self._recent: set[int] = set()
        self._other: set[str] = set()
        # Sorted by the high half; equal high halves (one pair in 2^64) sit side by side
        # in any order, and a lookup walks them all.
        self._hi: npt.NDArray[np.uint64] = np.empty(0, np.uint64)
        self._lo: npt.NDArray[np.uint64] = np.empty(0, np.uint64)
        self._len = 0

    def __len__(self) -> int:
        return self._len

    def __contains__(self, uid: object) -> bool:
        if not isinstance(uid, str):
            return False
        if _HEX_UID.fullmatch(uid) is None:
            return uid in self._other
        value = int(uid, 16)
        return value in self._recent or self._in_arrays(value)

    def add(self, uid: str) -> bool:
        """Add ``uid``; return whether it was new."""
        if _HEX_UID.fullmatch(uid) is None:
            if uid in self._other:
                return False
            self._other.add(uid)
            self._len += 1
            return True
        value = int(uid, 16)
        if value in self._recent or self._in_arrays(value):
            return False
        self._recent.add(value)
        self._len += 1
        if len(self._recent) >= self._spill:
            self._merge()
        return True

    @property
    def nbytes(self) -> int:
        """Return the bytes held by the sorted arrays (the part that grows with the set)."""
        return int(self._hi.nbytes + self._lo.nbytes)

    def _in_arrays(self, value: int) -> bool:
        n = len(self._hi)
        if not n:
            return False
        hi, lo = value >> 64, value & _LOW
        # numpy scalars, not Python ints: NumPy 1.x would compare a uint64 array with an
        # int above 2^63 as float64, which cannot tell neighbouring uids apart.
        i = int(np.searchsorted(self._hi, np.uint64(hi)))
        while i < n and int(self._hi[i]) == hi:
            if int(self._lo[i]) == lo:
                return True
            i += 1
        return False

    def _merge(self) -> None:
        values = sorted(self._recent)
        count = len(values)
        hi = np.fromiter((v >> 64 for v in values), np.uint64, count)
        lo = np.fromiter((v & _LOW for v in values), np.uint64, count)
        at = np.searchsorted(self._hi, hi)
        self._hi = np.insert(self._hi, at, hi)
        self._lo = np.insert(self._lo, at, lo)
        self._recent = set()
